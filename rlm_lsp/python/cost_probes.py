"""The cost analyzer's Python front end, the loops that narrow or shrink what they run over: a search
that probes between two bounds (binary, interpolation), and the names a loop shrinks geometrically.

    mid = (lo + hi) // 2; lo = mid + 1            a binary search: log of the range
    pos = lo + (hi - lo) * (x - a[lo]) // (...)   an interpolation search (a probe set by a division)
    mid: int = lo + (hi - lo) // 2                annotated the same

Pure functions of ast nodes.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from rlm_lsp.python.cost_walk import nodes_of, walk


def _const(node):
    return node.value if isinstance(node, ast.Constant) else None


def _assigned(n) -> tuple[str, ast.expr] | None:
    """(name, value) of `x = e` or `x: T = e`; None for any other statement."""
    if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
        return n.targets[0].id, n.value
    if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and n.value is not None:
        return n.target.id, n.value
    return None


def _halving(value) -> bool:
    """An expression that takes a midpoint: `// 2`, `/ 2`, `>> 1` somewhere in it."""
    return any(isinstance(x, ast.BinOp) and (isinstance(x.op, (ast.FloorDiv, ast.Div)) and _const(x.right) in (2, 3)
                                             or isinstance(x.op, ast.RShift)) for x in walk(value))


def _probe(value, names: Collection[str]) -> bool:
    """A probe between two bounds set by a division (interpolation search): a division in an
    expression that names two of the loop test's names."""
    named = {x.id for x in walk(value) if isinstance(x, ast.Name)} & set(names)
    return len(named) >= 2 and any(isinstance(x, ast.BinOp) and isinstance(x.op, (ast.FloorDiv, ast.Div))
                                   for x in walk(value))


def binary_search(s: ast.While, names: Collection[str], body: list) -> bool:
    """lo/hi narrowed to a midpoint or a probe: `mid = (lo + hi) // 2` then `lo = mid + 1` or `hi = mid`
    (`body`: the loop's body nodes)."""
    mids = set()
    for n in body:
        a = _assigned(n)
        if a is not None and (_halving(a[1]) or _probe(a[1], names)):
            mids.add(a[0])
    if not mids:
        return False
    for n in body:
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AnnAssign) else []
        value = getattr(n, "value", None)
        if value is not None and any(isinstance(t, ast.Name) and t.id in names for t in targets) and \
                any(isinstance(x, ast.Name) and x.id in mids for x in walk(value)):
            return True
    return False


def midpoints(fn) -> set:
    """Names set to a midpoint: `mid = (lo + hi) // 2`, `m = lo + (hi - lo) // 2`, `mid: int = ...`."""
    out = set()
    for n in nodes_of(fn, (ast.Assign, ast.AnnAssign)):
        a = _assigned(n)
        if a is not None and _halving(a[1]):
            out.add(a[0])
    return out


ROUNDING = ("int", "round", "floor", "ceil")


def _mentions(node, name: str) -> bool:
    return any(isinstance(x, ast.Name) and x.id == name for x in walk(node))


def _callee(c: ast.Call) -> str:
    f = c.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def lowbit(e, name: str) -> bool:
    """`i & -i`, `i & (i - 1)`: a bit of `name` (adding or taking it away moves a bit a place)."""
    return isinstance(e, ast.BinOp) and isinstance(e.op, ast.BitAnd) and _mentions(e.left, name) and \
        _mentions(e.right, name)


def geometric(value, name: str, helpers: dict | None = None) -> bool:
    """`value`, assigned to `name`, changes it by a factor or a bit a turn, so a loop on it runs a log
    of its range: `n // k`, `n / k`, `n >> 1`, `n * 2`, `n * 10 // 13`, `int(gap / 1.3)`,
    `i + (i & -i)`, `i - (i & -i)`, `i & (i - 1)`, `1 if gap == 2 else gap // 2`, or a call of a same-file function (`helpers`: name
    -> its def) that does one of these to its parameter (`get_next(i)`, `next_gap(gap)`)."""
    if isinstance(value, ast.IfExp):  # `1 if gap == 2 else int(gap / 2.2)`: a constant or a factor
        sides = (value.body, value.orelse)
        return any(geometric(x, name, helpers) for x in sides) and \
            all(isinstance(x, ast.Constant) or geometric(x, name, helpers) for x in sides)
    if isinstance(value, ast.Call) and _callee(value) in ROUNDING and len(value.args) == 1:
        return geometric(value.args[0], name, helpers)
    if isinstance(value, ast.Call) and helpers and _callee(value) in helpers:
        return _helper_shrinks(helpers[_callee(value)], value, name)
    if not isinstance(value, ast.BinOp):
        return False
    op, left, right = value.op, value.left, value.right
    if isinstance(op, (ast.Add, ast.Sub)):
        return _mentions(left, name) and lowbit(right, name) or _mentions(right, name) and lowbit(left, name)
    if isinstance(op, ast.BitAnd):
        return lowbit(value, name)
    if isinstance(op, (ast.FloorDiv, ast.Div, ast.RShift)):
        k = _const(right)
        return _mentions(left, name) and not (isinstance(k, (int, float)) and 0 < k <= 1)
    if isinstance(op, ast.Mult):
        k = _const(right) if _mentions(left, name) else _const(left) if _mentions(right, name) else None
        return isinstance(k, (int, float)) and not isinstance(k, bool) and (k >= 2 or 0 < k < 1)
    return False


def _helper_shrinks(fn, call: ast.Call, name: str) -> bool:
    """Whether same-file function `fn`, called as `call` with `name` as an argument, returns that
    argument changed geometrically (its parameter reassigned or returned so)."""
    if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    params = [a.arg for a in fn.args.args]
    if params[:1] in (["self"], ["cls"]) and isinstance(call.func, ast.Attribute):
        params = params[1:]
    at = next((i for i, a in enumerate(call.args) if _mentions(a, name)), None)
    if at is None or at >= len(params):
        return False
    p = params[at]
    for n in walk(fn):
        a = _assigned(n)
        if a is not None and a[0] == p and geometric(a[1], p):
            return True
        if isinstance(n, ast.Return) and n.value is not None and geometric(n.value, p):
            return True
    return False


def flag_test(s: ast.While) -> bool:
    """`while not done` / `while swapped`: the test reads names only (no call, no subscript), and the
    body sets each of them, only to constants."""
    if any(isinstance(x, (ast.Call, ast.Subscript, ast.Attribute)) for x in walk(s.test)):
        return False
    names = {x.id for x in walk(s.test) if isinstance(x, ast.Name)}
    flags: set[str] = set()
    for n in walk_body(s):
        a = _assigned(n)
        if a is not None and a[0] in names:
            if not isinstance(a[1], ast.Constant):
                return False
            flags.add(a[0])
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in names:
            return False
    return bool(names) and flags == names


def walk_body(s) -> list:
    """The nodes of a loop's body."""
    return [x for stmt in s.body for x in walk(stmt)]


def shrunk_each_turn(s: ast.While, updates: dict) -> list[str]:
    """The names the loop's own body (not a loop inside it) shrinks by a factor each turn."""
    out = []
    for stmt in s.body:
        a = _assigned(stmt)
        if a is not None and updates.get(a[0]) == "half":
            out.append(a[0])
        if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name) and updates.get(stmt.target.id) == "half":
            out.append(stmt.target.id)
    return sorted(set(out))


def shared_steps(s: ast.While, names: Collection[str]) -> bool:
    """An inner while whose steps the whole run shares, not each turn of the loop around it:
    it drains a count (`while holes[i] > 0: holes[i] -= 1`: all the counts together are the input's
    size), or it advances an iterator made before it (`while y < x: y = next(it)`: each item once)."""
    test = s.test
    counts = {ast.unparse(x) for x in walk(test) if isinstance(x, ast.Subscript)}
    for n in walk_body(s):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and isinstance(n.target, ast.Subscript) and \
                ast.unparse(n.target) in counts and _const(n.value) == 1:
            return True
        a = _assigned(n)
        if a is not None and a[0] in names and isinstance(a[1], ast.Call) and _callee(a[1]) == "next" and \
                isinstance(a[1].func, ast.Name) and a[1].args and isinstance(a[1].args[0], ast.Name) and \
                a[1].args[0].id not in names:
            return True
    return False


def extends_match(s: ast.While) -> bool:
    """`while ... and s[i + k] == s[j + k]:` inside another loop: it extends a match of two elements
    (a palindrome around a centre, a Z-box, a pattern against the text), which on typical input
    stops after a few turns."""
    return any(_pair_of_elements(c, ast.Eq) for c in walk(s.test)) or breaks_on_mismatch(s)


def _pair_of_elements(c, ops) -> bool:
    """`a[i] == b[j]` (ops: the comparisons that count): two subscripts compared."""
    return isinstance(c, ast.Compare) and any(isinstance(o, ops) for o in c.ops) and \
        isinstance(c.left, ast.Subscript) and all(isinstance(x, ast.Subscript) for x in c.comparators)


def _same_sequence(c: ast.Compare) -> bool:
    """`s[l] != s[r]`: both sides index the same name."""
    seqs = {ast.unparse(x.value) for x in (c.left, *c.comparators) if isinstance(x, ast.Subscript)}
    return len(seqs) == 1


def breaks_on_mismatch(s: ast.While) -> bool:
    """`while l >= 0 and r < n: if s[l] != s[r]: break ...` (or `while True:`): the loop leaves when
    two elements of one sequence differ, so it too extends a match (a palindrome around a centre).
    A text against a pattern (`text[t + p] != pattern[p]`) is left out: a brute-force search's
    inputs are often built to match far."""
    for stmt in s.body:
        if isinstance(stmt, ast.If) and any(isinstance(b, ast.Break) for b in stmt.body) and \
                any(_pair_of_elements(c, ast.NotEq) and _same_sequence(c) for c in walk(stmt.test)):
            return True
    return False


def new_record(s: ast.If) -> bool:
    """`if right - left + 1 > best: best = ...; result = s[left:right + 1]`: a branch that runs when
    a running best is beaten (it sets a name its test compares with, by <, >, <= or >=); on typical
    input a loop beats its best a few times, not every turn."""
    t = s.test
    if not (isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], (ast.Gt, ast.Lt, ast.GtE, ast.LtE))):
        return False
    compared = {x.id for side in (t.left, t.comparators[0]) if isinstance(side, ast.Name) for x in [side]}
    compared |= {x.attr for side in (t.left, t.comparators[0]) if isinstance(side, ast.Attribute) for x in [side]}
    for stmt in s.body:
        a = _assigned(stmt)
        if a is not None and a[0] in compared:
            return True
    return False


def _root(node):
    """The name under a subscript or attribute chain (`seen` of `seen[r][c]`), else None."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def marks_param(fn, param: str) -> bool:
    """Whether `fn` calls itself and marks where it has been in its parameter `param` (`param.add(x)`,
    `param[r][c] = True`, `grid[r][c] = '#'`), reading it in a test (`if x in param: return`): a
    search whose marks a caller's loop shares, so all its calls together enter each state once."""
    own = any(isinstance(c, ast.Call) and _callee(c) == fn.name for c in walk(fn))
    marks = tests = False
    for n in walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add" and \
                isinstance(n.func.value, ast.Name) and n.func.value.id == param:
            marks = True
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) and _root(t) == param for t in n.targets):
            marks = True
        if isinstance(n, (ast.If, ast.While)) and _mentions(n.test, param):
            tests = True
    return own and marks and tests


def _moves(n, name: str) -> int:
    """+1 where `n` moves `name` up by a constant (`i += 1`, `i = i + 1`), -1 down, else 0."""
    if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name and \
            isinstance(n.value, ast.Constant) and isinstance(n.op, (ast.Add, ast.Sub)):
        return 1 if isinstance(n.op, ast.Add) else -1
    a = _assigned(n)
    if a is not None and a[0] == name and isinstance(a[1], ast.BinOp) and isinstance(a[1].op, (ast.Add, ast.Sub)) \
            and isinstance(a[1].left, ast.Name) and a[1].left.id == name and isinstance(a[1].right, ast.Constant):
        return 1 if isinstance(a[1].op, ast.Add) else -1
    return 0


def back_and_forth(s: ast.While, name: str) -> bool:
    """`while i < n: if a[i] >= a[i - 1]: i += 1 else: swap; i -= 1` (gnome sort): the loop's own
    branches step its index both up and down, so each step back undoes one forward (an inversion):
    the bound squared. A move the body makes every turn (`i -= 1` in a branch, then `i += 1` at the
    end: the Dutch national flag) is not one."""
    moves = {_moves(n, name) for n in walk_body(s)}
    return {1, -1} <= moves and not any(_moves(stmt, name) for stmt in s.body)


def gap_insertion(s: ast.While, enclosing: list) -> bool:
    """Shell sort's insertion: `while j >= gap and a[j - gap] > x: ...; j -= gap` inside a loop on the
    gap (`while gap > 0: ...; gap //= 2`, set anew each turn, not stepped by 1). Per element it moves
    a few places on typical input, so the sort reads n·log n (measured about n^1.3)."""
    gaps = set()
    for n in s.body:  # the loop's own statements move its test's pointer down by the gap
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and isinstance(n.value, ast.Name) and \
                isinstance(n.target, ast.Name) and _mentions(s.test, n.target.id):
            gaps.add(n.value.id)
        a = _assigned(n)
        if a is not None and isinstance(a[1], ast.BinOp) and isinstance(a[1].op, ast.Sub) and _mentions(s.test, a[0]) \
                and isinstance(a[1].left, ast.Name) and a[1].left.id == a[0] and isinstance(a[1].right, ast.Name):
            gaps.add(a[1].right.id)
    for outer in enclosing:
        if not isinstance(outer, ast.While):
            continue
        for g in gaps:
            if _mentions(outer.test, g) and any(_sets(x, g) and not _moves(x, g) for x in walk_body(outer)):
                return True
    return False


def _sets(n, name: str) -> bool:
    """`name = ...`, `name: T = ...` or `name op= ...`."""
    a = _assigned(n)
    return a is not None and a[0] == name or \
        isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id == name
