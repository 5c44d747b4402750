"""What n is: each parameter's kind, read from its use, and loop nests counted in powers of n.

    def f0(v0):                       v0 is indexed twice: a grid, and n is its number of CELLS
        for v1 in range(len(v0)):     rows: half a power (a grid of n cells is about √n by √n)
            for v2 in range(len(v0[0])):  columns: the other half -> the nest is n¹, not n²
                ...
        for v3 in range(26):          a constant bound: no power at all

The measuring ladder's n is the largest extent of the scaled arguments: the elements of a list,
the characters of a string, the cells of a grid, the value of an integer
(``training.measuring.ladders.input_size``).  ``loop_nests`` counts loop levels; this module counts
the powers of *that* n a nest multiplies.  It reads the canonical code (``preprocess.canon_v1``:
names are v0, v1..., hints are gone), so every kind is inferred from use, never from a name:

* node: ``p.val``/``.left``/``.next`` or an attribute the code itself defines (renamed ``a0``...);
* grid: indexed twice ``p[i][j]`` (a variable second index), ``len(p[0])``, a row of it walked;
* string: string methods, compared with a one-character constant, ``ord``;
* list: any other container use (len, iteration, index, slice); integer: ``range(p)``, arithmetic,
  compared with a number; a parameter with no telling use is a list.

``read(code)`` -> ``Kinds`` (``features()`` in the order of ``FEATURES``).  ``read(code, kinds=...,
scaled=...)`` takes the kinds and the scaled parameters from outside (the ladder's generator: an
oracle for experiments, never available for a user's code).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

KINDS = ("list", "string", "grid", "integer", "node")
FEATURES = (*(f"pk_{k}" for k in KINDS), "npow_time", *(f"npow_{k}" for k in KINDS), "npow_mem",
            "npow_loops", "const_loops", "log_loops", "worklist_loops", "rec_branch", "exp_rec_int", "exp_pow")
NODE_ATTRS = {"val", "left", "right", "next", "children", "random", "neighbors", "prev"}
CHAR_METHODS = {"isdigit", "isalpha", "isalnum", "isupper", "islower", "isspace", "lower", "upper"}
STR_METHODS = CHAR_METHODS | {"split", "strip", "lstrip", "rstrip", "startswith", "endswith", "find", "rfind",
                              "replace", "swapcase", "zfill", "partition", "capitalize", "title"}
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


@dataclass(frozen=True)
class Kinds:
    params: tuple  # the kind of each parameter of the first function, in order
    counts: dict

    def features(self) -> list[float]:
        return [float(self.counts.get(k, 0)) for k in FEATURES]


def _first(tree):
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _const(node) -> bool:
    return isinstance(node, ast.Constant) or isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)


def _own(tree) -> dict:
    """The functions defined in ``tree``: name -> its parameters' names."""
    return {f.name: [a.arg for a in f.args.args] for f in ast.walk(tree)
            if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _name(node) -> str:
    return node.id if isinstance(node, ast.Name) else ""


def _call(node) -> str:
    f = node.func if isinstance(node, ast.Call) else None
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def infer(fn, params: list[str]) -> dict:
    """param -> kind, from how the function body uses it (see the module's docstring)."""
    alias = {p: p for p in params}  # a name that is the parameter itself (cur = head) or one element of it
    elem: dict[str, str] = {}
    own = _own(fn)
    for node in [*ast.walk(fn), *ast.walk(fn)]:  # twice: a helper's call may come before its body's aliases
        if isinstance(node, ast.Call) and _name(node.func) in own:  # dfs(root): dfs's parameter is root
            for a, q in zip(node.args, own[_name(node.func)]):
                if _name(a) in alias:
                    alias.setdefault(q, alias[_name(a)])
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if _name(v) in alias:
                alias.setdefault(node.targets[0].id, alias[_name(v)])
            elif isinstance(v, ast.Subscript) and _name(v.value) in params and not isinstance(v.slice, ast.Slice):
                elem.setdefault(node.targets[0].id, _name(v.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            it = node.iter.args[0] if _call(node.iter) == "enumerate" and node.iter.args else node.iter
            tgt = node.target.elts[-1] if _call(node.iter) == "enumerate" and isinstance(node.target, ast.Tuple) \
                else node.target
            if _name(it) in params and isinstance(tgt, ast.Name):
                elem.setdefault(tgt.id, _name(it))
    ev = {p: set() for p in params}

    def of(node) -> str:  # the parameter a name or p[i] stands for, "" if none; elements marked "*"
        if _name(node) in alias:
            return alias[_name(node)]
        if _name(node) in elem:
            return elem[_name(node)] + "*"
        if isinstance(node, ast.Subscript) and _name(node.value) in params and not isinstance(node.slice, ast.Slice):
            return _name(node.value) + "*"
        return ""

    def mark(node, what: str, on_elem: str | None = None) -> None:
        p = of(node)
        if p.endswith("*") and on_elem:
            ev[p[:-1]].add(on_elem)
        elif p and not p.endswith("*"):
            ev[p].add(what)

    for node in ast.walk(fn):
        if isinstance(node, ast.Attribute):
            called = False
            if node.attr in NODE_ATTRS or re.fullmatch(r"a\d+", node.attr):
                mark(node.value, "node")
            elif node.attr in STR_METHODS:
                mark(node.value, "string", "string" if node.attr in CHAR_METHODS else "container")
                called = True
            if not called:
                mark(node.value, "container", "grid")  # a method of a row: the rows are containers
        elif isinstance(node, ast.Subscript):
            mark(node.value, "container", "container" if _const(node.slice) else "grid")
            for i in ([node.slice] if not isinstance(node.slice, ast.Slice) else  # xs[k], xs[:k]: k is a count
                      [node.slice.lower, node.slice.upper, node.slice.step]):
                if _name(i) in params:
                    ev[_name(i)].add("integer")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for a in node.args:
                if _call(node) == "range":
                    mark(a, "integer")
                elif _call(node) == "ord":
                    mark(a, "string", "string")
                elif _call(node) in COPIES or _call(node) == "len":
                    mark(a, "container", "grid" if _call(node) == "len" else None)
        elif isinstance(node, (ast.For, ast.comprehension)):
            mark(node.iter, "container", "grid")
        elif isinstance(node, ast.Compare):
            for x in (node.left, *node.comparators):
                others = [c for c in (node.left, *node.comparators) if c is not x]
                text = [c.value for c in others if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if text:  # a one-character constant (or `c in "aeiou"`): x is a character of a string
                    char = any(len(t) == 1 for t in text) or (x is node.left and isinstance(node.ops[0], ast.In))
                    mark(x, "string", "string" if char else "container")
                elif any(isinstance(c, ast.Constant) and type(c.value) in (int, float) for c in others):
                    mark(x, "integer")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            pair = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
            if any(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in pair):
                for x in pair:
                    mark(x, "string")
            elif not any(isinstance(x, (ast.ListComp, ast.Tuple)) for x in pair):
                for x in pair:  # [0] * n: n is a count; xs + [x] is a list
                    if not isinstance(node.op, ast.Add) or not isinstance(pair[0 if x is pair[1] else 1], ast.List):
                        mark(x, "integer")
    out = {}
    for p in params:
        e = ev[p]
        out[p] = next((k for k in ("node", "grid", "string") if k in e), None) or \
            ("list" if "container" in e else "integer" if "integer" in e else "list")
    return out


class _Reader(ast.NodeVisitor):
    """Walks the function once the names' sizes are known: nests of loops in powers of n."""

    def __init__(self, size, own: set):
        self.size, self.own = size, own
        self.stack: list[Size] = []
        self.c: dict[str, float] = dict.fromkeys(FEATURES, 0.0)

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
        elif any(isinstance(n, ast.Call) and _call(n) in STORES and isinstance(n.func, ast.Attribute)
                 and _name(n.func.value) in test_names for st in node.body for n in ast.walk(st)):
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
        name, d = _call(node), sum(s.power for s in self.stack)
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
                or _call(v) in ("set", "list", "Counter", "sorted", "dict"):
            self._mem(self.size(v).power + self.size(v).elem + sum(s.power for s in self.stack))
        self.generic_visit(node)


class _Sizes:
    """The size of an expression from the sizes of the names in it (a fixed point over assignments)."""

    def __init__(self, fn, kinds: dict, scaled: set):
        self.names: dict[str, Size] = {}
        for p, k in kinds.items():
            if p in scaled:
                self.names[p] = Size(0.5, frozenset({k}), 0.5) if k == "grid" else Size(1.0, frozenset({k}))
        self.first_kinds = next((s.kinds for s in self.names.values()), frozenset())
        own = _own(fn)
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
                elif isinstance(node, ast.Call) and _name(node.func) in own:  # dfs(root): as big as root
                    for a, q in zip(node.args, own[_name(node.func)]):
                        self._bind(ast.Name(q), self(a))
            if self.names == before:
                break

    def _bind(self, target, s: Size) -> None:
        for n in ast.walk(target):
            if isinstance(n, ast.Name) and s != ZERO:
                self.names[n.id] = self.names.get(n.id, ZERO).join(s)

    def _bind_loop(self, target, it) -> None:
        name = _call(it)
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
        s = self(node.args[0]) if _call(node) in ("sorted", "reversed", "list", "set") and node.args else self(node)
        return Size(s.elem, s.kinds) if s.elem else ZERO

    def __call__(self, node) -> Size:
        if isinstance(node, ast.Name):
            return self.names.get(node.id, ZERO)
        if isinstance(node, ast.Call):
            name, args = _call(node), node.args
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
            a, b = self(node.left), self(node.right)
            if isinstance(node.op, ast.Mult):  # n * m, [0] * n: the powers add
                return Size(a.power + b.power, a.kinds | b.kinds, max(a.elem, b.elem))
            if isinstance(node.op, (ast.Pow, ast.LShift)) and isinstance(node.left, ast.Constant) and b.power:
                return Size(b.power, b.kinds | {"exp"})
            return a.join(b)
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


def _recursion(tree, size: _Sizes) -> dict:
    """Self-call sites of the most branching unmemoised function; exponential when 2+ of its calls
    pass arithmetic (``f(n - 1) + f(n - 2)``, ``f(i + 1)`` twice), not a node's children (linear)."""
    branch = exp = 0
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        calls = [n for n in ast.walk(f) if isinstance(n, ast.Call) and _call(n) == f.name]
        memo = any(m in ast.unparse(d) for d in f.decorator_list for m in MEMO)
        if memo or len(calls) < 2:
            continue
        branch = max(branch, len(calls))
        exp |= sum(any(isinstance(a, ast.BinOp) for a in c.args) for c in calls) >= 2
    return {"rec_branch": branch, "exp_rec_int": int(exp)}


def read(code: str, kinds: list | None = None, scaled: set | None = None) -> Kinds:
    """Kinds and powers of n of the first function in ``code`` (canonical text); ``kinds`` (per
    parameter) and ``scaled`` (indices of the parameters the ladder grows) replace the inference."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Kinds((), {})
    fn = _first(tree)
    if fn is None:
        return Kinds((), {})
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")]
    try:
        kind = dict(zip(params, kinds)) if kinds is not None else infer(fn, params)
        grow = {p for i, p in enumerate(params) if scaled is None or i in scaled}
        size = _Sizes(fn, kind, grow)
        r = _Reader(size, {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
        for stmt in fn.body:
            r.visit(stmt)
    except RecursionError:
        return Kinds((), {})
    c = r.c
    c.update(_recursion(tree, size))
    c["exp_pow"] = int(any("exp" in s.kinds for s in size.names.values()))
    for k in KINDS:
        c[f"pk_{k}"] = sum(1 for p in params if kind.get(p) == k)
    return Kinds(tuple(kind.get(p, "list") for p in params), c)
