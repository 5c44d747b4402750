"""Loop nests over the input: what makes a Python function's cost grow, read from its text.

    def count_pairs(xs):              sized names: xs (a parameter), and every name computed from one
        n = len(xs)                   (n = len(xs), seen = set(xs), ...)
        total = 0
        for i in range(n):            a loop over a sized name: one level
            for j in range(i, n):     inside it, another: two levels -> time ~n²
                total += xs[i] * xs[j]
        return total

``nests(code)`` finds, in the first function of ``code`` (or the module), the deepest nest of
loops whose iterables (or while-conditions) read a sized name, counting as one more level an
operation that walks a sized container inside a loop (``x in xs``, ``xs.index``, ``xs[i:]``,
``sum(xs)``, ...) and, for time, a sort of a sized name as ``n log n``.  For memory it finds the
deepest way the function stores per-element data: ``[0] * n`` is one level, a list built in a loop
two nested loops deep is two, ``[[0] * n for _ in range(n)]`` two.  Recursion is reported apart
(self-calls per body, memoised or not).

What it returns is counts and line ranges, not a prediction: they are features of the growth
model (``rlm_lsp.runtime.growth``) and the "why" of the hover (``Nest.lines``: the loop nest that
carries the exponent).  Static reading cannot know a loop's real trip count (a ``while`` that
halves ``n`` is ``log n``, a loop over a fixed alphabet is ``1``): the model weighs these counts
against the measured curves.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

WALKS = {"index", "count", "remove", "insert", "copy", "reverse", "join", "extend"}  # methods that walk a container
WALK_CALLS = {"sum", "max", "min", "sorted", "list", "set", "dict", "tuple", "any", "all", "reversed", "Counter",
              "str", "deque", "heapify"}
SORTS = {"sorted", "sort", "heapify"}
SORT_LEVEL = 1.2  # a sort is n log n: a little more than one loop level
MEMO = ("cache", "lru_cache")
STORES = {"append", "add", "appendleft", "extend", "insert", "update", "setdefault", "push", "heappush"}
FEATURES = ("time_depth", "time_sort", "time_walk", "mem_depth", "mem_alloc_dim", "mem_copy", "while_loops",
            "sized_loops", "self_calls", "memoised", "halving", "params", "sized_names",
            "rec_branch", "rec_in_loop", "int_params", "container_params")


@dataclass(frozen=True)
class Nest:
    """The deepest loop nest of one kind: its depth and the lines (first, last) it spans, 1-based."""
    depth: float  # loop levels; a sort counts 1.2 (n log n)
    lines: tuple[int, int] | None
    what: str  # "nested loop", "loop", "sort in a loop", ... for the hover


@dataclass(frozen=True)
class Reading:
    time: Nest
    memory: Nest
    counts: dict

    def features(self) -> list[float]:
        return [float(self.counts.get(k, 0)) for k in FEATURES]


def _names(node) -> set:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _func(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node
    return None


def _sized_names(fn) -> set:
    """Parameters (not self/cls) and, to a fixed point, every name assigned from one."""
    args = fn.args
    params = [a.arg for a in args.posonlyargs + args.args + args.kwonlyargs]
    if args.vararg:
        params.append(args.vararg.arg)
    sized = {p for p in params if p not in ("self", "cls")}
    for _ in range(4):
        before = len(sized)
        for node in ast.walk(fn):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and node.value is not None:
                if _names(node.value) & sized:
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        sized |= {n.id for n in ast.walk(t) if isinstance(n, ast.Name)}
            elif isinstance(node, (ast.For, ast.comprehension)) and _names(node.iter) & sized:
                sized |= {n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)}
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and isinstance(node.func.value, ast.Name) and node.func.attr in STORES
                  and any(_names(a) & sized for a in node.args)):
                sized.add(node.func.value.id)  # out.append(x): out grows with the input
        if len(sized) == before:
            break
    return sized


def _is_halving(node) -> bool:
    """A while loop whose body halves something (``n //= 2``, ``mid = (lo + hi) // 2``): ~log n."""
    # by shape, not by name (the canonical code calls every local v0, v1, ...)
    return any(isinstance(n, (ast.AugAssign, ast.BinOp)) and isinstance(n.op, (ast.FloorDiv, ast.RShift))
               for stmt in node.body for n in ast.walk(stmt))


def _call_name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _walks_sized(node, sized: set) -> str:
    """The kind of container walk ``node`` is ('walk', 'sort'), or ''."""
    if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        if any(isinstance(c, ast.Name) and c.id in sized for c in node.comparators):
            return "walk"  # `x in xs`: a list is walked (a set or dict is not: the model weighs it)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice) and _names(node.value) & sized:
        return "walk"
    if isinstance(node, ast.Call):
        name = _call_name(node)
        recv = node.func.value if isinstance(node.func, ast.Attribute) else None
        args_sized = any(_names(a) & sized for a in node.args)
        if name in SORTS and (args_sized or (recv is not None and _names(recv) & sized)):
            return "sort"
        if name in WALK_CALLS and args_sized:
            return "walk"
        if name in WALKS and recv is not None and _names(recv) & sized:
            return "walk"
    return ""


class _Visitor(ast.NodeVisitor):
    def __init__(self, sized: set, own_functions: set):
        self.sized, self.own_functions = sized, own_functions
        self.stack: list = []  # the sized loops we are in
        self.best_time = Nest(0, None, "")
        self.best_mem = Nest(0, None, "")
        self.c: dict[str, float] = dict.fromkeys(FEATURES, 0.0)

    def _span(self, inner) -> tuple[int, int]:
        first = self.stack[0] if self.stack else inner
        return (first.lineno, getattr(inner, "end_lineno", inner.lineno) or inner.lineno)

    def _time(self, depth: float, node, what: str) -> None:
        if depth > self.best_time.depth:
            self.best_time = Nest(depth, self._span(node), what)

    def _mem(self, depth: float, node, what: str) -> None:
        if depth > self.best_mem.depth:
            self.best_mem = Nest(depth, self._span(node), what)

    def _loop(self, node, iters) -> None:
        sized = any(_names(it) & self.sized for it in iters)
        if isinstance(node, ast.While):
            self.c["while_loops"] += 1
            halving = _is_halving(node)
            self.c["halving"] += int(halving)
            sized = sized and not halving
        if sized:
            self.c["sized_loops"] += 1
            self.stack.append(node)
            d = len(self.stack)
            self._time(d, node, "nested loop" if d > 1 else "loop")
        self.generic_visit(node)
        if sized:
            self.stack.pop()

    def visit_For(self, node):
        self._loop(node, [node.iter])

    visit_AsyncFor = visit_For

    def visit_While(self, node):
        self._loop(node, [node.test])

    def _comp(self, node):
        pushed = 0
        for gen in node.generators:
            if _names(gen.iter) & self.sized:
                self.stack.append(node)
                pushed += 1
                self.c["sized_loops"] += 1
        d = len(self.stack)
        if pushed:
            self._time(d, node, "nested loop" if d > 1 else "loop")
            # a comprehension stores one element per trip (a generator expression does not)
            if not isinstance(node, ast.GeneratorExp):
                self._mem(d, node, "list built in a nested loop" if d > 1 else "list built from the input")
        self.generic_visit(node)
        for _ in range(pushed):
            self.stack.pop()

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comp

    def visit_Call(self, node):
        name = _call_name(node)
        d = len(self.stack)
        if name in self.own_functions:  # a call of the function itself or of a function defined in it
            self.c["self_calls"] += 1
        kind = _walks_sized(node, self.sized)
        if kind == "sort":
            self.c["time_sort"] += 1
            self._time(d + SORT_LEVEL, node, "sort in a loop" if d else "sort")
        elif kind == "walk":
            self.c["time_walk"] += 1
            self._time(d + 1, node, "walk of the input in a loop" if d else "walk of the input")
            if name in ("sorted", "list", "set", "dict", "tuple", "Counter", "deque"):
                self.c["mem_copy"] += 1
                self._mem(d + 1, node, "copy of the input")
        if name in STORES and d:
            self._mem(d, node, "stores in a nested loop" if d > 1 else "stores in a loop")
        self.generic_visit(node)

    def visit_Compare(self, node):
        if self.stack and _walks_sized(node, self.sized):
            self.c["time_walk"] += 1
            self._time(len(self.stack) + 1, node, "membership test in a loop")
        self.generic_visit(node)

    def visit_Subscript(self, node):
        if _walks_sized(node, self.sized):
            d = len(self.stack)
            self._time(d + 1, node, "slice in a loop" if d else "slice of the input")
            self.c["mem_copy"] += 1
            self._mem(d + 1, node, "slice copies in a loop" if d else "slice of the input")
        self.generic_visit(node)

    def visit_BinOp(self, node):
        # [0] * n: one sized dimension per multiplication by a sized name, nested lists multiply
        if isinstance(node.op, ast.Mult) and (isinstance(node.left, (ast.List, ast.ListComp))
                                              or isinstance(node.right, (ast.List, ast.ListComp))):
            other = node.right if isinstance(node.left, (ast.List, ast.ListComp)) else node.left
            if _names(other) & self.sized:
                inner = node.left if other is node.right else node.right
                dim = 1 + _alloc_dim(inner, self.sized) + len(self.stack)
                self.c["mem_alloc_dim"] = max(self.c["mem_alloc_dim"], dim)
                self._mem(dim, node, "n×n table" if dim > 1 else "list of the input's size")
        self.generic_visit(node)


def _alloc_dim(node, sized: set) -> int:
    """Sized dimensions inside an allocation's element (``[[0] * n]`` inside ``* m``)."""
    best = 0
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and (_names(n.left) | _names(n.right)) & sized:
            best = max(best, 1)
    return best


def _recursion(tree) -> dict:
    """The most call sites of itself in one function (2 or more without a cache: a tree of calls,
    ~2ⁿ) and whether one sits in a loop of its own body (backtracking: a call per element)."""
    branch = in_loop = 0
    for f in ast.walk(tree):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        memo = any(m in ast.unparse(d) for d in f.decorator_list for m in MEMO)
        calls = 0
        for loop in [f, *(n for n in ast.walk(f) if isinstance(n, (ast.For, ast.While)))]:
            here = sum(1 for n in ast.walk(loop) if isinstance(n, ast.Call) and _call_name(n) == f.name)
            if loop is f:
                calls = here
            elif here and not memo:
                in_loop = 1
        if not memo:
            branch = max(branch, calls)
    return {"rec_branch": branch, "rec_in_loop": in_loop}


def _param_kinds(fn) -> dict:
    """Parameters used as a count (``range(n)``, arithmetic) and as a container (iterated, len, indexed)."""
    params = {a.arg for a in fn.args.args if a.arg not in ("self", "cls")}
    ints, containers = set(), set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and _call_name(n) == "range":
            ints |= {a.id for a in n.args if isinstance(a, ast.Name)} & params
        elif isinstance(n, ast.BinOp):
            ints |= {x.id for x in (n.left, n.right) if isinstance(x, ast.Name)} & params
        elif isinstance(n, ast.Call) and _call_name(n) == "len":
            containers |= {a.id for a in n.args if isinstance(a, ast.Name)} & params
        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name):
            containers |= {n.iter.id} & params
        elif isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name):
            containers |= {n.value.id} & params
    return {"int_params": len(ints - containers), "container_params": len(containers)}


def read(code: str) -> Reading:
    """The loop nests of the first function in ``code`` (its own canonical or original text)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Reading(Nest(0, None, ""), Nest(0, None, ""), {})
    fn = _func(tree)
    if fn is None:
        return Reading(Nest(0, None, ""), Nest(0, None, ""), {})
    sized = _sized_names(fn)
    v = _Visitor(sized, {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
    try:
        for stmt in fn.body:
            v.visit(stmt)
    except RecursionError:
        pass
    deco = ast.unparse(fn.decorator_list[0]) if fn.decorator_list else ""
    c = v.c
    c.update(_recursion(tree))
    c.update(_param_kinds(fn))
    c.update(time_depth=v.best_time.depth, mem_depth=v.best_mem.depth, params=len(fn.args.args),
             sized_names=len(sized), memoised=int(any(m in deco for m in MEMO) or "memo" in code))
    return Reading(v.best_time, v.best_mem, c)
