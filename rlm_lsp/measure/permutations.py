"""A list parameter whose elements are positions (`rlm_lsp.measure.inputs`' permutation kind): they
index the list itself or a table of its length, or start a Fenwick tree's walk up, so the value
built for it is a shuffled range(n) (1..n where the use is 1-based). Read from the syntax tree as
`rlm_lsp.measure.uses` reads the other uses."""

from __future__ import annotations

import ast

from rlm_lsp.measure.uses import FUNCS, Scope, aliases, callee, elements, is_element
from rlm_lsp.python.cost_params import fn_params
from rlm_lsp.python.n_powers import call_name, name_of


def permuted(fn, name: str, scope: Scope) -> dict | None:
    """{"base": 0 or 1} where the elements of the list `name` are used as positions in a list of
    its own length: they index the list itself (`nums[nums[i]]`, `j = perm[j]`) or a table sized
    by its length (`seen = [False] * len(perm)`, then `seen[x]`), or start a Fenwick tree's walk up
    (`update(x)` doing `x += x & -x`), so only a permutation of its positions is an input it takes.
    Base 1 where the code says so: `nums[x - 1]`, `abs(x) - 1`, a Fenwick walk (which never leaves
    0); else base 0.  None: not used so."""
    names = aliases(fn, name)
    elems = elements(fn, name) - rebound(fn, name)
    tables = names | same_length(fn, names)
    bases = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and name_of(n.value) in tables:
            base = _position(n.slice, name, elems)
            if base is not None:
                bases.add(base)
        elif isinstance(n, ast.Call):
            called = callee(fn, n, scope) or _method(n, scope)
            if called is None or called is fn:
                continue
            params = [a.arg for a in fn_params(called)]
            if any(i < len(params) and is_element(a, name, elems) and lowbit_walk(called, params[i])
                   for i, a in enumerate(n.args)):
                bases.add(1)
    return {"base": max(bases)} if bases else None


def rebound(fn, name: str) -> set:
    """Names given a value computed otherwise than as an element of `name` (`x = bisect_left(s, x) + 1`,
    `x, v = divmod(x, 10)`, `x += 1`): no longer an element where they are used.  `j = i` and
    `j = perm[j]` keep j one."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            out.add(n.target.id)
        elif isinstance(n, ast.Assign):
            plain = isinstance(n.value, ast.Name) or isinstance(n.value, ast.Subscript) and name_of(n.value.value) == name
            for t in n.targets:
                if isinstance(t, ast.Name) and not plain:
                    out.add(t.id)
                elif isinstance(t, ast.Tuple) and not isinstance(n.value, ast.Tuple):
                    out.update(e.id for e in t.elts if isinstance(e, ast.Name))
    return out


def same_length(fn, names: set) -> set:
    """Names of the lists `fn` builds of exactly the length of the list `names` holds:
    `[False] * len(xs)`, `[0] * n` or `[[] for _ in range(n)]` with `n = len(xs)`."""
    def length(node) -> bool:
        return isinstance(node, ast.Call) and call_name(node) == "len" and len(node.args) == 1 and \
            name_of(node.args[0]) in names or name_of(node) in sizes

    sizes = {n.targets[0].id for n in ast.walk(fn) if isinstance(n, ast.Assign) and len(n.targets) == 1
             and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Call)
             and call_name(n.value) == "len" and len(n.value.args) == 1 and name_of(n.value.args[0]) in names}
    out = set()
    for n in ast.walk(fn):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v = n.value
        if isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult) and (
                isinstance(v.left, ast.List) and length(v.right) or isinstance(v.right, ast.List) and length(v.left)) \
                or isinstance(v, ast.ListComp) and len(v.generators) == 1 and \
                isinstance(v.generators[0].iter, ast.Call) and call_name(v.generators[0].iter) == "range" and \
                len(v.generators[0].iter.args) == 1 and length(v.generators[0].iter.args[0]):
            out.add(n.targets[0].id)
    return out


def _position(index, name: str, elems: set) -> int | None:
    """0 where `index` is an element of `name` (`x`, `name[i]`), 1 where it is one less
    (`x - 1`, `abs(x) - 1`), else None."""
    base = 0
    if isinstance(index, ast.BinOp) and isinstance(index.op, ast.Sub) and \
            isinstance(index.right, ast.Constant) and index.right.value == 1:
        index, base = index.left, 1
    if isinstance(index, ast.Call) and call_name(index) == "abs" and len(index.args) == 1:
        index = index.args[0]
    return base if is_element(index, name, elems) else None


def _method(call: ast.Call, scope: Scope):
    """The method `obj.m(...)` runs where one class of the file defines `m` (`tree.update(x)`)."""
    if not isinstance(call.func, ast.Attribute) or name_of(call.func.value) == "self":
        return None
    found = [f for c in scope.classes.values() for f in c.body if isinstance(f, FUNCS) and f.name == call.func.attr]
    return found[0] if len(found) == 1 else None


def lowbit_walk(fn, name: str) -> bool:
    """`while ...: name += name & -name`: a Fenwick tree's walk up, which never leaves 0."""
    for loop in ast.walk(fn):
        if not isinstance(loop, ast.While):
            continue
        for n in ast.walk(loop):
            if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Add) and name_of(n.target) == name and \
                    _lowbit(n.value, name):
                return True
            if isinstance(n, ast.Assign) and len(n.targets) == 1 and name_of(n.targets[0]) == name and \
                    isinstance(n.value, ast.BinOp) and isinstance(n.value.op, ast.Add) and \
                    name_of(n.value.left) == name and _lowbit(n.value.right, name):
                return True
    return False


def _lowbit(node, name: str) -> bool:
    """`name & -name` (either way round), or a call `lowbit(name)`."""
    if isinstance(node, ast.Call) and "lowbit" in call_name(node).lower() and len(node.args) == 1:
        return name_of(node.args[0]) == name
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd)):
        return False
    sides = (node.left, node.right)
    return any(name_of(s) == name for s in sides) and \
        any(isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub) and name_of(s.operand) == name for s in sides)
