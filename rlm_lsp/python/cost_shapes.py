"""The cost analyzer's Python front end, the shapes of loops and recursions it recognises in the ast.

How a while loop's names change (`updates_of`: halved, stepped, a pointer followed), a binary
search, a loop the enclosing loop pays for (`amortised`), integers that grow every turn, a slice of
constant width, calls of a function by itself that are alternatives, a recursion that marks where
it has been. Pure functions of ast nodes.
"""

from __future__ import annotations

import ast
from collections.abc import Collection

from rlm_lsp.python.cost_library import Val
from rlm_lsp.python.cost_probes import binary_search as binary_search  # noqa: F401 (moved: read here too)
from rlm_lsp.python.cost_probes import geometric, lowbit
from rlm_lsp.python.cost_probes import midpoints as midpoints  # noqa: F401 (moved: rlm_lsp.measure reads it here)
from rlm_lsp.python.cost_walk import nodes_of, walk, walk_all

NODE_STEPS = {"next": "const", "left": "tree", "right": "tree", "children": "tree", "prev": "const"}


def nodes(tree: ast.AST) -> list[ast.AST]:
    """`ast.walk(tree)` once: the predicates below read a function many times over."""
    return walk(tree)


def body_nodes(loop: ast.AST) -> list[ast.AST]:
    """Every node of a loop's body (not its test, target or else), in `ast.walk` order, once."""
    try:
        return loop._cost_body  # type: ignore[attr-defined]
    except AttributeError:
        pass
    out = walk_all(list(getattr(loop, "body", [])))
    loop._cost_body = out  # type: ignore[attr-defined]
    return out


def lib_name(e: ast.Call) -> str:
    f = e.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def module_like(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("math", "heapq", "bisect", "itertools", "collections", "copy",
                                                      "functools", "random", "operator", "string", "re", "sys")


def const(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return None


def plus_or(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a.plus(b)


def fresh(node) -> bool:
    return isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call,
                             ast.BinOp, ast.Constant, ast.JoinedStr))


def updates_of(loop, helpers: dict | None = None) -> dict:
    """name -> how the loop's body changes it: "half" (//= 2, >>= 1, *= 2, a factor or a bit a turn:
    `cost_probes.geometric`, through the same-file functions `helpers`), "step" (+= 1),
    "node" / "node-tree" (= x.next / = x.left)."""
    out: dict[str, str] = {}
    named = any(isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) for n in body_nodes(loop))
    kids = doubled(loop) if named else set()  # child = 2 * i + 1 ... i = child
    for n in body_nodes(loop):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            k = const(n.value)
            if isinstance(n.op, (ast.FloorDiv, ast.Div, ast.RShift, ast.LShift)) or \
                    isinstance(n.op, ast.Mult) and isinstance(k, (int, float)) and k >= 2 or \
                    isinstance(n.op, (ast.Add, ast.Sub)) and lowbit(n.value, n.target.id) or \
                    isinstance(n.op, ast.BitAnd) and mentions(n.value, n.target.id):
                out[n.target.id] = "half"
            elif isinstance(n.op, (ast.Add, ast.Sub)):
                out.setdefault(n.target.id, "step")
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                for nm, v in pairs(t, n.value):
                    if geometric(v, nm, helpers):
                        out[nm] = "half"
                    elif isinstance(v, ast.BinOp):
                        k = const(v.right)
                        if isinstance(v.op, (ast.FloorDiv, ast.Div, ast.RShift)) and mentions(v.left, nm) or \
                                isinstance(v.op, ast.Mult) and isinstance(k, (int, float)) and k >= 2 and \
                                mentions(v.left, nm):
                            out[nm] = "half"
                        elif isinstance(v.op, ast.Add) and _doubles(v.left) and mentions(v.left, nm):
                            out[nm] = "half"  # i = 2 * i + 1: down a heap
                        elif isinstance(v.op, (ast.Add, ast.Sub)):
                            out.setdefault(nm, "step")
                        elif isinstance(v.op, ast.Mod):
                            out[nm] = "half"  # Euclid's gcd: a, b = b, a % b
                    elif isinstance(v, ast.IfExp) and all(isinstance(b, ast.Attribute) and NODE_STEPS.get(b.attr) == "tree"
                                                          for b in (v.body, v.orelse)):
                        out[nm] = "node-tree"  # node = node.left if k < node.key else node.right
                    elif isinstance(v, ast.Attribute) and v.attr in NODE_STEPS:
                        out[nm] = "node-tree" if NODE_STEPS[v.attr] == "tree" and out.get(nm) != "node" else "node"
                    elif isinstance(v, ast.Name) and (v.id in ("mid", "middle", "m", "pivot") or v.id in kids):
                        out[nm] = "half"
                    elif isinstance(v, ast.Name):
                        out.setdefault(nm, "step")
    return out


def pairs(t, v):
    if isinstance(t, ast.Name):
        return [(t.id, v)]
    if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
        return [p for a, b in zip(t.elts, v.elts) for p in pairs(a, b)]
    return []


def mentions(node, name: str) -> bool:
    return any(isinstance(x, ast.Name) and x.id == name for x in walk(node))


def marks_visits(fn) -> bool:
    """A recursion that marks where it has been (`seen.add(x)`, `visited[i][j] = True`, `grid[i][j] = '#'`)
    and returns when it is there again: each state is entered once."""
    marks = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add" or
                isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets)
                for n in nodes_of(fn, (ast.Call, ast.Assign)))
    checks = any(isinstance(n, ast.If) and any(isinstance(b, ast.Return) for b in n.body) for n in nodes_of(fn, (ast.If,)))
    return marks and checks


def alternatives(fn) -> set:
    """ids of the self-calls of `fn` that run at most one per call: each the whole of a `return`
    (`return f(lo, mid)` in one branch, `return f(mid + 1, hi)` in the other), or the only self-call
    of its branch of an if/else whose other branch has one too (`if k < x: node.left = f(node.left)
    else: node.right = f(node.right)`)."""
    out = set()
    for n in nodes_of(fn, (ast.Return, ast.If)):
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and _calls_itself(n.value, fn.name):
            out.add(id(n.value))
        if isinstance(n, ast.If) and n.orelse:
            branches = [_self_calls(n.body, fn.name), _self_calls(n.orelse, fn.name)]
            if all(len(b) == 1 for b in branches):
                out.update(id(b[0]) for b in branches)
    return out


def _calls_itself(c: ast.Call, name: str) -> bool:
    return lib_name(c) == name


def _self_calls(stmts, name: str) -> list:
    return [c for s in stmts for c in walk(s) if isinstance(c, ast.Call) and _calls_itself(c, name)]


def _doubles(e) -> bool:
    """`2 * i`, `i * 2` (and so `2 * i + 1`'s product), `i << 1`."""
    return isinstance(e, ast.BinOp) and (isinstance(e.op, ast.Mult) and 2 in (const(e.left), const(e.right)) or
                                         isinstance(e.op, ast.LShift))


def doubled(fn) -> set:
    """Names a function sets to a doubled index (`l = 2 * i + 1`, `child = i << 1`, and `largest = l`
    after it): a call of itself on one goes a level down a heap, so its depth is the log of the size."""
    assigns = [(n.targets[0].id, n.value) for n in nodes_of(fn, (ast.Assign,)) if isinstance(n, ast.Assign) and len(n.targets) == 1
               and isinstance(n.targets[0], ast.Name)]
    children = {name for name, value in assigns if any(_doubles(b) for b in walk(value))}
    for _ in range(2):  # largest = l, where l = 2 * i + 1
        children |= {name for name, value in assigns if isinstance(value, ast.Name) and value.id in children}
    return children


def pivots(fn, own: Collection[str]) -> set:
    """Names set from a call of a same-file function (`p = partition(a, lo, hi)`) or filtered out of a
    list by a comprehension (`left = [x for x in a if x < pivot]`): a call of itself on them splits
    its input, about in half on average (quicksort)."""
    out = set()
    for n in nodes_of(fn, (ast.Assign,)):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value
            if isinstance(v, ast.Call) and lib_name(v) in own and not _calls_itself(v, fn.name):
                out.add(n.targets[0].id)
            if isinstance(v, (ast.ListComp, ast.GeneratorExp)) and any(g.ifs for g in v.generators):
                out.add(n.targets[0].id)
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("list", "filter") and \
                    v.args and isinstance(v.args[0], (ast.Call, ast.GeneratorExp, ast.ListComp)):
                out.add(n.targets[0].id)
    return out


def self_concat(s):
    """(name, what is added, prepended?) of `s = s + x` / `s = x + s`; None for any other assignment."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) and
            isinstance(s.value, ast.BinOp) and isinstance(s.value.op, ast.Add)):
        return None
    name = s.targets[0].id
    left, right = s.value.left, s.value.right
    if isinstance(left, ast.Name) and left.id == name:
        return name, right, False
    if isinstance(right, ast.Name) and right.id == name:
        return name, left, True
    return None


def amortised(s: ast.While, names: Collection[str], updates: dict, enclosing: list) -> bool:
    """An inner while loop whose steps the enclosing loops pay for: it advances a pointer an enclosing
    while also advances or restarts from (`cur = cur.next` in both; `l = r` after the inner `r += 1`),
    or it pops a stack that the enclosing loop pushes once per turn (a monotonic stack; `pop`, `popleft`,
    `pop_back` ...)."""
    moved = {nm for nm in names if updates.get(nm)}
    for outer in enclosing:
        if not isinstance(outer, ast.While):
            continue
        outer_names = {n.id for n in walk(outer.test) if isinstance(n, ast.Name)}
        if moved & outer_names:
            return True
        for n in walk(outer):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in moved and \
                    any(isinstance(t, ast.Name) and t.id in outer_names for t in n.targets):
                return True
    popped = {c.func.value.id for c in body_nodes(s)
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr.startswith("pop")
              and isinstance(c.func.value, ast.Name)}
    pushed = {c.func.value.id for c in body_nodes(s)
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
              c.func.attr in ("append", "appendleft", "add", "extend", "push", "push_back", "push_front")
              and isinstance(c.func.value, ast.Name)}
    return bool((popped & set(names)) - pushed) and bool(enclosing)


def slice_width(sl: ast.Slice) -> ast.expr | None:
    """The width of `s[i:i + w]` or `s[i - w:i]` (the expression w), None for any other slice."""
    lo, hi = sl.lower, sl.upper
    if lo is None or hi is None:
        return None
    for a, b in ((lo, hi), (hi, lo)):
        if isinstance(b, ast.BinOp) and isinstance(b.op, (ast.Add, ast.Sub)) and ast.dump(b.left) == ast.dump(a):
            return b.right
    return None


def is_char(v: Val) -> bool:
    """One character of a string (or a short constant): a key from an alphabet, not from the input."""
    return v.kind == "str" and v.length is not None and v.length.is_constant()


def big_integers(loop) -> bool:
    """A loop whose integers grow every turn: `x *= y`, `x = x * y`, `a, b = b, a + b`,
    `c = a + b` with both set in the loop, `dp[i] = dp[i - 1] + dp[i - 2]`."""
    set_here = {t.id for n in body_nodes(loop) if isinstance(n, ast.Assign) for t0 in n.targets
                for t in (t0.elts if isinstance(t0, ast.Tuple) else [t0]) if isinstance(t, ast.Name)}
    for n in body_nodes(loop):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Mult) and isinstance(n.target, ast.Name) and \
                const(n.value) is None:
            return True
        if not isinstance(n, ast.Assign):
            continue
        values = n.value.elts if isinstance(n.value, ast.Tuple) else [n.value]
        for v in values:
            if not isinstance(v, ast.BinOp):
                continue
            if isinstance(v.op, ast.Mult) and any(isinstance(t, ast.Name) and mentions(v, t.id) for t in n.targets) \
                    and const(v.right) is None and const(v.left) is None:
                return True
            if isinstance(v.op, ast.Add):
                left, right = v.left, v.right
                if isinstance(left, ast.Name) and isinstance(right, ast.Name) and left.id != right.id and \
                        {left.id, right.id} <= set_here:
                    return True
                if isinstance(left, ast.Subscript) and isinstance(right, ast.Subscript) and \
                        isinstance(left.value, ast.Name) and isinstance(right.value, ast.Name) and \
                        left.value.id == right.value.id and \
                        any(isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and
                            t.value.id == left.value.id for t in n.targets):
                    return True
    return False


def nest_depth(fn) -> int:
    """The deepest nest of for and while loops (comprehensions included) in `fn`."""
    return max([_nest(n) for n in walk(fn) if isinstance(n, _NESTS)], default=0)


_NESTS = (ast.For, ast.While, ast.AsyncFor, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _nest(loop) -> int:
    """The deepest nest of loops starting at `loop` (itself counted), kept on it."""
    try:
        return loop._cost_nest
    except AttributeError:
        pass
    own = len(loop.generators) if hasattr(loop, "generators") else 1
    inner = walk(loop)
    d = own + max([_nest(n) for n in inner[1:] if isinstance(n, _NESTS)], default=0)
    loop._cost_nest = d
    return d


def emptiness(test) -> list:
    """The collections a while test asks to be non-empty: `while q`, `while len(q) > 0`, `while a and b`."""
    if isinstance(test, ast.Name):
        return [test.id]
    if isinstance(test, ast.BoolOp):
        return [x for v in test.values for x in emptiness(v)]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and test.args and \
            isinstance(test.args[0], ast.Name):
        return [test.args[0].id]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and const(test.comparators[0]) == 0:
        return emptiness(test.left)
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
        return ["self." + test.attr]
    return []


def squared(test) -> bool:
    """`i * i <= n`, `i ** 2 < n`: the loop runs to the square root of its bound."""
    for n in walk(test):
        if isinstance(n, ast.BinOp) and (isinstance(n.op, ast.Mult) and ast.dump(n.left) == ast.dump(n.right) or
                                         isinstance(n.op, ast.Pow) and const(n.right) == 2):
            return True
    return False


def halved(node) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.RShift)) or mid_name(node)


def mid_slice(sl: ast.Slice) -> bool:
    return any(halved(x) for x in (sl.lower, sl.upper) if x is not None)


def mid_name(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("mid", "middle", "m", "half", "pivot", "p") or \
        isinstance(node, ast.BinOp) and isinstance(node.left, ast.Name) and node.left.id in ("mid", "middle", "pivot")


def entry_of(tree: ast.Module, entry: str | None = None) -> ast.AST | None:
    """The function a code is predicted for (see the module's docstring)."""
    tops = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if entry:
        name, _, meth = entry.partition(".")
        for n in tops:
            if n.name == name:
                if not meth:
                    return n if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) else public_method(n)
                return next((m for m in n.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == meth), None)
    for n in reversed(tops):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return n
        pub = public_method(n)
        if pub is not None:
            return pub
    return None


def public_method(cls: ast.ClassDef) -> ast.AST | None:
    methods = [m for m in cls.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    called = {c.func.attr for m in methods for c in walk(m)
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)}
    roots = [m for m in methods if not m.name.startswith("_") and m.name not in called]
    chosen = roots or [m for m in methods if not m.name.startswith("__")] or methods
    return chosen[0] if chosen else None
