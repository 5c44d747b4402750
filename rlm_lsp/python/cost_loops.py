"""The cost analyzer's Python front end, a while loop's trip count: read from its test and from how
its body changes the names in it.

    while q / while stack            a worklist: every element pushed (the input's size)
    x //= 2, lo = mid + 1            halving: log of the bound
    while not done: gap //= 2 ...    a flag around a gap shrunk each turn: log of the gap
    node = node.next / node.left     the nodes of the list / a path down a tree (log n)
    i += 1 up to a bound             the bound (√ of it for `i * i <= n`; its square where the body
                                     also steps it back, `i -= 1`: gnome sort)
    a pointer an enclosing loop also advances, a stack it pushes once a turn: constant (amortised)
    a count drained by 1, an iterator made before it advanced: constant (amortised)
    a window's left end (`d[s[l]] -= 1; l += 1`, set before the loop around it): constant (amortised)
    shell sort's insertion (`j -= gap`, the gap shrunk by a loop around): constant (a few places)
    a match of two elements extended (`s[i + k] == s[j + k]`): constant (a few turns on typical input)
    anything else                    the function's input size, marked unknown
"""

from __future__ import annotations

import ast

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.python.cost_library import ONE, UNKNOWN
from rlm_lsp.python.cost_probes import (
    back_and_forth,
    binary_search,
    extends_match,
    flag_test,
    gap_insertion,
    shared_steps,
    shrunk_each_turn,
)
from rlm_lsp.python.cost_shapes import amortised, body_nodes, emptiness, lib_name, squared, updates_of
from rlm_lsp.python.cost_walk import walk


def while_trip(self, s: ast.While) -> tuple[Cost, bool]:
    """(trip count, known) of `s`, read by the walker `self` (its names' sizes, its enclosing loops)."""
    test = s.test
    # sorted, not a set: the first name found decides some trips, and a set's order changes from one
    # process to the next (hash randomisation), so two runs would read the same loop differently
    names = sorted({n.id for n in walk(test) if isinstance(n, ast.Name)})
    updates = updates_of(s, self.front.names)
    if isinstance(test, ast.Constant) and test.value:
        names = sorted(updates)
    if self.trips and (amortised(s, names, updates, self.enclosing) or shared_steps(s, names) or extends_match(s)
                       or window_pointer(self, s, names) or gap_insertion(s, self.enclosing)):
        return ONE, True  # a pointer or a stack the enclosing loop advances too: it pays for these steps
    # a worklist: while stack / while q / while len(q) > 0
    for nm in emptiness(test):
        v = self.env.get(nm, UNKNOWN)
        if v.kind in ("list", "deque", "set", "dict", "") and nm not in updates:
            pushes = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                         isinstance(c.func.value, ast.Name) and c.func.value.id == nm and
                         c.func.attr in ("append", "appendleft", "add", "extend", "insert") or
                         isinstance(c, ast.Call) and lib_name(c) == "heappush" and c.args and
                         isinstance(c.args[0], ast.Name) and c.args[0].id == nm
                         for c in body_nodes(s))
            return (self.primary_or_one() if pushes or v.length is None else v.length), True
    halves = [nm for nm in names if updates.get(nm) == "half"]
    if not halves and flag_test(s):  # `while not done:` around a gap shrunk each turn (comb sort)
        halves = shrunk_each_turn(s, updates)
        names = sorted({*names, *halves})
    if halves or binary_search(s, names, body_nodes(s)):
        bound = ONE
        for nm in names:
            v = self.env.get(nm, UNKNOWN)
            size = v.mag if v.mag is not None else v.length
            if size is not None:
                bound = bound.plus(size)
        if bound.is_constant():
            bound = self.primary_or_one()
        return bound.log(s.lineno), True
    nodes = [nm for nm in names if updates.get(nm, "").startswith("node")]
    if nodes:
        v = self.env.get(nodes[0], UNKNOWN)
        size = v.length if v.length is not None else self.primary_or_one()
        return (size.log(s.lineno) if updates[nodes[0]] == "node-tree" else size), True
    steps = [nm for nm in names if updates.get(nm) == "step"]
    if steps and self.trips and all(self.set_at.get(nm, 0) < len(self.trips) for nm in steps):
        return ONE, True  # two pointers, a sliding window: the enclosing loop pays for its steps
    if steps:
        bound = Cost.zero()
        for nm in names:
            v = self.env.get(nm, UNKNOWN)
            size = v.mag if v.mag is not None else v.length
            if size is not None and nm not in steps or size is not None and not size.is_constant():
                bound = bound.plus(size)
        if squared(test):
            bound = bound.power(0.5)
        elif bound.terms and any(back_and_forth(s, nm) for nm in steps):
            bound = bound.times(bound)  # gnome sort: a step back for each inversion
        if bound.terms:
            return bound, True
    return self.primary_or_one(), False


def window_pointer(self, s: ast.While, names: list) -> bool:
    """A sliding window's inner while (`while len(seen) > 2: seen[s[l]] -= 1; l += 1`): its body
    steps a pointer by 1 that indexes a sequence, set before the loop around it and never reset in
    that loop, so all the inner turns together move it at most across the sequence once. (A pointer
    the test names is the two-pointer rule's.)"""
    outer = self.enclosing[-1] if self.enclosing else None
    if outer is None:
        return False
    reset = {t.id for n in walk(outer) if isinstance(n, (ast.Assign, ast.AnnAssign))
             for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
    indexes = {x.id for n in body_nodes(s) if isinstance(n, ast.Subscript) for x in walk(n.slice)
               if isinstance(x, ast.Name)}
    for stmt in s.body:
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add) and isinstance(stmt.target, ast.Name) \
                and isinstance(stmt.value, ast.Constant) and stmt.value.value == 1:
            nm = stmt.target.id
            if nm not in names and nm in indexes and nm not in reset and self.set_at.get(nm, 0) < len(self.trips):
                return True
    return False
