"""The cost analyzer's Python front end, its parameters: what kind each is and whether it grows.

A parameter's kind comes from its type hint, else from its use (`param_kinds.infer`); these
predicates refine it: a grid is indexed twice, a list never walked is a scalar (a start node, a
key), an integer counts when it bounds a loop, a table or a recursion, and is read by its digits
when the code shifts, masks or divides it by ten.
"""

from __future__ import annotations

import ast

from rlm_lsp.python.cost_library import ONE, Val
from rlm_lsp.python.cost_shapes import const, mentions
from rlm_lsp.python.cost_walk import nodes_of, walk

HINTS = {"int": "int", "str": "str", "list": "list", "List": "list", "dict": "dict", "Dict": "dict", "set": "set",
         "Set": "set", "tuple": "list", "Tuple": "list", "Sequence": "list", "Iterable": "list", "deque": "deque",
         "bytes": "str", "Optional": "", "float": "float", "bool": "bool", "TreeNode": "node", "ListNode": "node",
         "Node": "node"}
WALKED = (ast.For, ast.comprehension, ast.Subscript, ast.Attribute, ast.Call, ast.Compare, ast.While)
MEMO_DECORATORS = {"cache", "lru_cache", "memoize", "memoized", "cached"}


def fn_params(node) -> list:
    a = node.args
    return [p for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]


def param_names(node) -> set:
    return {p.arg for p in fn_params(node)}


def with_default(node) -> set:
    a = node.args
    pos = a.posonlyargs + a.args
    named = {p.arg for p, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)}
    named |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
    return named


def hint_kind(p) -> str:
    h = p.annotation
    if h is None:
        return ""
    if isinstance(h, ast.Constant) and isinstance(h.value, str):
        try:
            h = ast.parse(h.value, mode="eval").body
        except SyntaxError:
            return ""
    if isinstance(h, ast.Subscript):
        base = h.value
        name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
        if name == "Optional":
            return hint_kind(ast.arg(arg=p.arg, annotation=h.slice))
        if name in ("list", "List") and isinstance(h.slice, ast.Subscript):
            inner = h.slice.value
            if isinstance(inner, ast.Name) and inner.id in ("list", "List"):
                return "grid"
        return HINTS.get(name, "")
    if isinstance(h, ast.BinOp):  # X | None
        return hint_kind(ast.arg(arg=p.arg, annotation=h.left))
    name = h.id if isinstance(h, ast.Name) else h.attr if isinstance(h, ast.Attribute) else ""
    return HINTS.get(name, "node" if name.endswith("Node") else "")


def memoised(node) -> bool:
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in MEMO_DECORATORS:
            return True
    return False


def module_constants(tree: ast.Module) -> dict:
    """The module's names: constants, and empty containers (`dist = {}`) a function may fill."""
    out = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            out[s.targets[0].id] = Val(length=ONE, mag=ONE, kind=_empty_container(s.value) or "const")
    return out


def _empty_container(v) -> str:
    """"dict", "list" or "set" for `{}`, `[]`, `dict()`, `set()`, `defaultdict(list)`; "" otherwise."""
    if isinstance(v, ast.Dict) and not v.keys:
        return "dict"
    if isinstance(v, ast.List) and not v.elts:
        return "list"
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and not v.args[1:]:
        return {"dict": "dict", "set": "set", "list": "list", "defaultdict": "dict", "OrderedDict": "dict"}.get(
            v.func.id, "") if v.func.id == "defaultdict" or not v.args else ""
    return ""


def counts(fn, name: str) -> bool:
    """An integer parameter that counts: it bounds a range, a while loop or a table, or a recursion
    steps it down."""
    names = aliases(fn, name)
    for n in nodes_of(fn, (ast.Call, ast.While, ast.BinOp)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("range", "str", "bin"):
            if any(isinstance(x, ast.Name) and x.id in names for a in n.args for x in walk(a)):
                return True
        if isinstance(n, ast.While) and any(isinstance(x, ast.Name) and x.id in names for x in walk(n.test)):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and \
                any(isinstance(x, ast.List) for x in (n.left, n.right)) and \
                any(isinstance(x, ast.Name) and x.id == name for x in walk(n)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == fn.name:
            for a in n.args:
                if isinstance(a, ast.BinOp) and isinstance(a.left, ast.Name) and a.left.id == name:
                    return True
    return False


def is_grid(fn, name: str) -> bool:
    """Rows of cells: indexed twice (`p[i][j]`) or measured by its first row (`len(p[0])`)."""
    for n in nodes_of(fn, (ast.Subscript,)):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Subscript) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id == name and \
                not isinstance(n.slice, ast.Slice):
            return True
    return False


def walked(fn, name: str) -> bool:
    """A parameter whose contents are read: iterated, measured, indexed, sliced, a method called on it,
    handed to a builtin that walks it, or to a function (which may)."""
    for n in nodes_of(fn, WALKED):
        if isinstance(n, (ast.For, ast.comprehension)) and mentions(n.iter, name):
            return True
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == name:
            return True
        if isinstance(n, ast.Call) and any(isinstance(a, ast.Name) and a.id == name for a in n.args) and \
                not (isinstance(n.func, ast.Attribute) and n.func.attr in ("append", "add", "appendleft", "get")) and \
                not (isinstance(n.func, ast.Name) and n.func.id in ("deque", "print", "str", "int", "hash")):
            return True
        if isinstance(n, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in n.ops) and \
                any(isinstance(c, ast.Name) and c.id == name for c in n.comparators):
            return True
        if isinstance(n, ast.While) and mentions(n.test, name):
            return True
    return False


def by_digits(fn, name: str) -> bool:
    """An integer read bit by bit or digit by digit (shifts, masks, `% 10`, `str(x)`): its size is its
    number of bits or digits."""
    names = aliases(fn, name)
    for n in nodes_of(fn, (ast.Call, ast.BinOp, ast.AugAssign)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("str", "bin") and \
                n.args and isinstance(n.args[0], ast.Name) and n.args[0].id in names:
            return True
        if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Mod, ast.FloorDiv)) and \
                const(n.right if isinstance(n, ast.BinOp) else n.value) == 10:
            target = n.left if isinstance(n, ast.BinOp) else n.target
            if isinstance(target, ast.Name) and target.id in names:
                return True
        if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.RShift, ast.LShift, ast.BitAnd)):
            target = n.left if isinstance(n, ast.BinOp) else n.target
            if isinstance(target, ast.Name) and target.id in names:
                return True
    return False


def aliases(fn, name: str) -> set:
    """`name` and the names set from it alone (`mask = n`, `num = abs(n)`)."""
    out = {name}
    for n in nodes_of(fn, (ast.Assign,)):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value.args[0] if isinstance(n.value, ast.Call) and len(n.value.args) == 1 else n.value
            if isinstance(v, ast.BinOp) and isinstance(v.op, (ast.RShift, ast.FloorDiv, ast.Sub, ast.BitAnd)):
                v = v.left
            if isinstance(v, ast.Name) and v.id in out:
                out.add(n.targets[0].id)
    return out


def place_indices(fn, env: dict) -> None:
    """Integer parameters that are positions in a list parameter (`partition(a, lo, hi)`: `a[hi]`,
    `range(lo, hi)`) run up to its length: `range(lo, hi)` walks it."""
    lists = {k: v for k, v in env.items() if v.kind in ("list", "str") and v.param == k and v.length is not None
             and not v.length.is_constant()}
    loop_vars: dict[str, set] = {}
    for n in nodes_of(fn, (ast.For,)):
        if isinstance(n, ast.For) and isinstance(n.target, ast.Name) and isinstance(n.iter, ast.Call) and \
                isinstance(n.iter.func, ast.Name) and n.iter.func.id == "range":
            loop_vars[n.target.id] = {x.id for a in n.iter.args for x in walk(a) if isinstance(x, ast.Name)}
    for name, v in list(env.items()):
        if v.kind != "int" or v.param != name or v.mag is None or not v.mag.is_constant():
            continue
        for n in nodes_of(fn, (ast.Subscript,)):
            if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id in lists and \
                    any(isinstance(x, ast.Name) and (x.id == name or name in loop_vars.get(x.id, ()))
                        for x in walk(n.slice)):
                env[name] = Val(mag=lists[n.value.id].length, kind="int", param=name)
                break
