"""Loop nests counted in powers of the ladder's n, once each parameter's kind is known.

``Sizes`` gives every name of a function the power of n its length (or, for a number, its value)
grows by: ``n = len(xs)`` is n¹, a grid's row ½ (a grid of n cells is about √n by √n), ``range(26)``
nothing.  ``Nests`` walks the function with those sizes and keeps the deepest nest of loops in
powers of n (overall and per kind of parameter) and the deepest storage.  ``param_kinds`` infers
the kinds and assembles the features; see its docstring.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

KINDS = ("list", "string", "grid", "integer", "node")
COUNTS = ("npow_time", *(f"npow_{k}" for k in KINDS), "npow_mem", "npow_loops", "const_loops", "log_loops",
          "worklist_loops")
COPIES = {"enumerate", "zip", "sorted", "reversed", "list", "set", "tuple", "dict", "Counter", "deque",
          "frozenset", "map", "filter", "iter", "range", "int", "abs", "defaultdict"}
WALKS = {"sum", "max", "min", "sorted", "any", "all", "Counter", "set", "list"}
STORES = {"append", "add", "appendleft", "extend", "insert", "heappush", "setdefault"}
MEMO = ("cache", "lru_cache")


@dataclass(frozen=True)
class Size:
    """How a name's size grows: ``power`` of n (its length, or its value for a number), the kinds of
    the parameters it derives from, and ``elem``, the power of one of its elements (a grid's row: ½)."""
    power: float = 0.0
    kinds: frozenset = frozenset()
    elem: float = 0.0

    def join(self, o: Size) -> Size:
        return Size(max(self.power, o.power), self.kinds | o.kinds, max(self.elem, o.elem))


ZERO = Size()


def own_functions(tree) -> dict:
    """The functions defined in ``tree``: name -> its parameters' names."""
    return {f.name: [a.arg for a in f.args.args] for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def name_of(node) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def call_name(node) -> str:
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


class Nests(ast.NodeVisitor):
    """Walks the function once the names' sizes are known: nests of loops in powers of n."""

    def __init__(self, size, own: set):
        self.size, self.own = size, own
        self.stack: list[Size] = []
        self.c: dict[str, float] = dict.fromkeys(COUNTS, 0.0)

    def _nest(self, extra: Size | None = None) -> None:
        path = self.stack + ([extra] if extra else [])
        self.c["npow_time"] = max(self.c["npow_time"], sum(s.power for s in path))
        for k in KINDS:
            self.c[f"npow_{k}"] = max(self.c[f"npow_{k}"], sum(s.power for s in path if k in s.kinds))

    def _loop(self, node, s: Size) -> None:
        self.c["npow_loops" if s.power > 0 else "const_loops"] += 1
        self.stack.append(s)
        self._nest()

    def visit_For(self, node):
        self._loop(node, self.size(node.iter))
        self.generic_visit(node)
        self.stack.pop()

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        s = self.size(node.test)
        test_names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
        if any(isinstance(n, (ast.AugAssign, ast.BinOp)) and isinstance(n.op, (ast.FloorDiv, ast.RShift))
               for st in node.body for n in ast.walk(st)):
            self.c["log_loops"] += 1
            s = ZERO  # halving: log n, no power
        elif any(isinstance(n, ast.Call) and call_name(n) in STORES and isinstance(n.func, ast.Attribute)
                 and name_of(n.func.value) in test_names for st in node.body for n in ast.walk(st)):
            self.c["worklist_loops"] += 1  # a queue fed from its own loop (BFS, DFS): each item once
            s = Size(1.0, s.kinds or self.size.first_kinds)
        self._loop(node, s)
        self.generic_visit(node)
        self.stack.pop()

    def _comp(self, node):
        pushed = [self.size(g.iter) for g in node.generators]
        for s in pushed:
            self._loop(node, s)
        if not isinstance(node, ast.GeneratorExp):  # each trip stores an element: [[0] * n for _ in ...] is n²
            self._mem(sum(s.power for s in self.stack) + self.size(node.elt if hasattr(node, "elt") else node.value).power)
        self.generic_visit(node)
        del self.stack[len(self.stack) - len(pushed):]

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def _mem(self, p: float) -> None:
        self.c["npow_mem"] = max(self.c["npow_mem"], p)

    def visit_Call(self, node):
        name, d = call_name(node), sum(s.power for s in self.stack)
        if name in WALKS and isinstance(node.func, ast.Name) and node.args:
            s = self.size(node.args[0])
            if s.power > 0:
                self._nest(s)  # sum(xs), sorted(xs): a walk of a sized container
                if name in ("sorted", "Counter", "set", "list"):
                    self._mem(d + s.power)
        if name in STORES and isinstance(node.func, ast.Attribute):
            self._mem(d + (self.size(node.args[0]).power if name == "extend" and node.args else 0))
        self.generic_visit(node)

    def visit_Assign(self, node):
        for t in node.targets:  # d[k] = v into a dict (a name of no size): grows per trip
            if isinstance(t, ast.Subscript) and self.size(t.value).power == 0:
                self._mem(sum(s.power for s in self.stack))
        v = node.value
        if (isinstance(v, ast.BinOp) and isinstance(v.op, ast.Mult) and ast.List in (type(v.left), type(v.right))) \
                or call_name(v) in ("set", "list", "Counter", "sorted", "dict"):
            self._mem(self.size(v).power + self.size(v).elem + sum(s.power for s in self.stack))
        self.generic_visit(node)


class Sizes:
    """The size of an expression from the sizes of the names in it (a fixed point over assignments)."""

    def __init__(self, fn, kinds: dict, scaled: set):
        self.names: dict[str, Size] = {}
        for p, k in kinds.items():
            if p in scaled:
                self.names[p] = Size(0.5, frozenset({k}), 0.5) if k == "grid" else Size(1.0, frozenset({k}))
        self.first_kinds = next((s.kinds for s in self.names.values()), frozenset())
        own = own_functions(fn)
        for _ in range(5):
            before = dict(self.names)
            for node in ast.walk(fn):
                if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)) and node.value:
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                        if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                                and len(t.elts) == len(node.value.elts):
                            for a, b in zip(t.elts, node.value.elts):
                                self._bind(a, self(b))
                        else:
                            self._bind(t, self(node.value))
                elif isinstance(node, (ast.For, ast.comprehension)):
                    self._bind_loop(node.target, node.iter)
                elif isinstance(node, ast.Call) and name_of(node.func) in own:  # dfs(root): as big as root
                    for a, q in zip(node.args, own[name_of(node.func)]):
                        self._bind(ast.Name(q), self(a))
            if self.names == before:
                break

    def _bind(self, target, s: Size) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name) and s != ZERO:
                self.names[n.id] = self.names.get(n.id, ZERO).join(s)

    def _bind_loop(self, target, it) -> None:
        name = call_name(it)
        if name == "range":  # the index of range(n) runs up to n: range(i) inside is a triangle
            self._bind(target, self(it))
        elif name == "enumerate" and it.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
            self._bind(target.elts[0], self(it.args[0]))
            self._bind(target.elts[1], self.elem(it.args[0]))
        elif name == "zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(it.args):
            for t, a in zip(target.elts, it.args):
                self._bind(t, self.elem(a))
        elif isinstance(target, ast.Name):
            self._bind(target, self.elem(it))

    def elem(self, node) -> Size:
        s = self(node.args[0]) if call_name(node) in ("sorted", "reversed", "list", "set") and node.args else self(node)
        return Size(s.elem, s.kinds) if s.elem else ZERO

    def __call__(self, node) -> Size:
        if isinstance(node, ast.Name):
            return self.names.get(node.id, ZERO)
        if isinstance(node, ast.Call):
            name, args = call_name(node), node.args
            if name == "len" and args:
                a = args[0]
                if isinstance(a, ast.Subscript) and not isinstance(a.slice, ast.Slice):
                    return self.elem(a.value)
                return Size(self(a).power, self(a).kinds)
            if name in ("max", "min", "sum") and len(args) == 1:
                return ZERO  # a value of the input, not its size
            if name in COPIES or name in ("max", "min"):
                return _join([self(a) for a in args])
            if isinstance(node.func, ast.Attribute) and name in ("items", "keys", "values", "copy", "split"):
                return self(node.func.value)
            return ZERO
        if isinstance(node, ast.Subscript):
            return self(node.value) if isinstance(node.slice, ast.Slice) else self.elem(node.value)
        if isinstance(node, ast.BinOp):
            left, right = self(node.left), self(node.right)
            if isinstance(node.op, ast.Mult):  # n * m, [0] * n: the powers add
                return Size(left.power + right.power, left.kinds | right.kinds, max(left.elem, right.elem))
            if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(node.left, ast.Constant) and right.power:
                return Size(right.power, right.kinds | {"exp"})
            return left.join(right)
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            gens = [self(g.iter) for g in node.generators]
            elt = self(node.key if isinstance(node, ast.DictComp) else node.elt)
            return Size(sum(s.power for s in gens), _join(gens).kinds, elt.power)
        if isinstance(node, ast.Attribute):
            return ZERO if node.attr == "val" else self(node.value)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.BoolOp)):
            return _join([self(x) for x in (node.elts if hasattr(node, "elts") else node.values)])
        if isinstance(node, ast.IfExp):
            return self(node.body).join(self(node.orelse))
        if isinstance(node, (ast.UnaryOp, ast.Starred)):
            return self(node.operand if isinstance(node, ast.UnaryOp) else node.value)
        return ZERO


def _join(sizes) -> Size:
    out = ZERO
    for s in sizes:
        out = out.join(s)
    return out


def recursion(tree) -> dict:
    """Self-call sites of the most branching unmemoised function; exponential when 2+ of its calls
    pass arithmetic (``f(n - 1) + f(n - 2)``, ``f(i + 1)`` twice), not a node's children (linear)."""
    branch = exp = 0
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [n for n in ast.walk(f) if isinstance(n, ast.Call) and call_name(n) == f.name]
        memo = any(m in ast.unparse(d) for d in f.decorator_list for m in MEMO)
        if memo or len(calls) < 2:
            continue
        branch = max(branch, len(calls))
        exp |= sum(any(isinstance(a, ast.BinOp) for a in c.args) for c in calls) >= 2
    return {"rec_branch": branch, "exp_rec_int": int(exp)}
