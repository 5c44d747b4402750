"""The cost analyzer's Python front end: a function's ast -> the loop-and-call form (`rlm_lsp.cost.form`).

    code -> ast -> every function of the file (methods and nested ones too), each a `Fn`:
                   its parameters' kinds (type hints, else `param_kinds.infer` from use) and which
                   of them scale; its statements walked with what is known of each name's size
                   (`cost_library.Val`): loops get trip counts, library calls their costs
         -> `rlm_lsp.cost.analyze` -> `Summary` for the entry

The entry is the named function, else the last top-level function (or the public method of the
last class that no other method calls). `read` never raises on code: what it cannot parse gives None.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.analyze import Summary, analyze
from rlm_lsp.cost.form import Fn, Loop, Store, Work
from rlm_lsp.python import cost_library as lib
from rlm_lsp.python import cost_loops
from rlm_lsp.python.cost_exprs import Expressions
from rlm_lsp.python.cost_library import CHAR, NUMBER, ONE, UNKNOWN, Val, length
from rlm_lsp.python.cost_params import (
    by_digits,
    counts,
    fn_params,
    hint_kind,
    is_grid,
    memoised,
    module_constants,
    place_indices,
    walked,
    with_default,
)
from rlm_lsp.python.cost_probes import midpoints, new_record
from rlm_lsp.python.cost_shapes import (
    alternatives,
    big_integers,
    const,
    doubled,
    entry_of,
    fresh,
    is_char,
    marks_visits,
    nest_depth,
    pivots,
    self_concat,
)
from rlm_lsp.python.cost_stores import Stores, rebuilt
from rlm_lsp.python.cost_walk import children, nodes_of, walk
from rlm_lsp.python.param_kinds import infer

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_CHARS = 200_000  # a longer code is not analysed (no growth): its ast alone would cost tens of MB
SIZE_NAMES = {"n", "m", "num", "number", "size", "length", "limit", "count", "x", "steps", "bits", "value", "val",
              "upper", "max_n", "maximum", "bound", "total", "amount", "target", "high", "end", "stop"}


def read(code: str, entry: str | None = None) -> Summary | None:
    """The entry function's summary; None where the code does not parse, has no function or is
    longer than `MAX_CHARS`."""
    if len(code) > MAX_CHARS:
        return None
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = entry_of(tree, entry)
    if node is None:
        return None
    try:
        fns, entry_name = _functions(tree, node)
        return replace(analyze(fns, entry_name), nest=nest_depth(node))
    except RecursionError:
        return None


def _functions(tree: ast.Module, node) -> tuple[dict[str, Fn], str]:
    names: dict[str, ast.AST] = {}
    for n in walk(tree):
        if isinstance(n, FUNCS):
            names.setdefault(n.name, n)
    fns: dict[str, Fn] = {}
    front = _Front(names, fns, tree)
    front.function(node, entry=True, outer={})
    return fns, node.name


class _Front:
    """Walks functions into `Fn`s; a callee is walked when first called (with the caller's names)."""

    def __init__(self, names: dict, fns: dict, tree: ast.Module):
        self.names = names  # every function of the file by name (the first of each name)
        self.fns = fns
        self.consts = module_constants(tree)

    def function(self, node, entry: bool, outer: dict, outer_size: Cost | None = None) -> None:
        if node.name in self.fns:
            return
        self.fns[node.name] = Fn(node.name, (), (), node.lineno)  # a placeholder: recursion ends here
        w = _Walker(self, node, entry, outer, outer_size)
        self.fns[node.name] = w.fn()


class _Walker(Expressions, Stores):
    def __init__(self, front: _Front, node, entry: bool, outer: dict, outer_size: Cost | None = None):
        self.outer_size = outer_size  # a nested function's: the size its enclosing function walks
        self.front = front
        self.node = node
        self.prefix = "" if entry else node.name + "."
        self.env: dict[str, Val] = dict(outer)
        self.env.update(front.consts)
        self.stack: list[list] = [[]]
        self.trips: list[Cost] = []
        self.symbols: list[tuple[str, str]] = []
        self.scaled: set[str] = set()
        self.params = fn_params(node)
        self.primary = Cost.zero()
        self.memo = memoised(node)
        self.changing: set[str] = set()
        self.set_at: dict[str, int] = {}  # name -> the loop depth it was last set at
        self.enclosing: list = []  # the loop statements around the one being read
        self.exits: list[list] = []  # per enclosing loop: the steps of branches that leave it
        self._bind_params()

    # -- parameters ---------------------------------------------------------------------------------
    def _bind_params(self) -> None:
        kinds = infer(self.node, [p.arg for p in self.params], walk(self.node)) if self.params else {}  # none: {}
        for p in self.params:
            k = kinds.get(p.arg)
            if k == "grid" and not is_grid(self.node, p.arg):
                kinds[p.arg] = "list"  # graph[u]: an adjacency list, not rows of a grid
            if k == "list" and not hint_kind(p) and not walked(self.node, p.arg):
                kinds[p.arg] = "scalar"  # a start node, a key: never walked, never measured
        has_collection = any(hint_kind(p) in ("list", "str", "dict", "set", "node", "deque") or
                             (not hint_kind(p) and kinds.get(p.arg) != "integer") for p in self.params)
        defaults = with_default(self.node)
        grids = [p for p in self.params if kinds.get(p.arg) == "grid" or hint_kind(p) == "grid"]
        # matrix algebra (two matrices, or a loop nest three deep) is sized by its side; a grid walked
        # cell by cell (a flood fill, a transform) by its cells
        matrix = len(grids) >= 2 or bool(grids) and nest_depth(self.node) >= 3
        for p in self.params:
            name, sym = p.arg, self.prefix + p.arg
            kind = hint_kind(p) or {"integer": "int", "string": "str", "grid": "grid", "node": "node",
                                "scalar": "scalar"}.get(
                kinds.get(name, "list"), "list")
            if kind in ("float", "bool", "scalar"):
                self.env[name] = NUMBER
                continue
            if kind == "int":
                bits = by_digits(self.node, name)
                counting = counts(self.node, name)
                scales = counting and name not in defaults and (not has_collection or name.lower() in SIZE_NAMES)
                if scales:
                    mag = Cost.sym(sym).exponential() if bits else Cost.sym(sym)
                    self.env[name] = Val(mag=mag, kind="int", param=name)
                    self._scale(sym, f"the number of digits of {name}" if bits else f"the value of {name}")
                    if bits:
                        self.emit(Work(ONE, Cost.sym(sym), self.node.lineno, f"new integers as long as {name}"))
                else:
                    self.env[name] = Val(mag=ONE, kind="int", param=name)
                continue
            if name in defaults and kind not in ("node",):
                self.env[name] = Val(length=ONE, mag=ONE, kind=kind, param=name)
                continue
            if kind == "grid":
                side = Cost.sym(sym, 1.0 if matrix else 0.5)
                self.env[name] = Val(length=side, kind="list", elem=Val(length=side, kind="list", elem=UNKNOWN),
                                     param=name)
                self._scale(sym, f"the side of {name}" if matrix else f"the cells of {name}")
            elif kind == "node":
                self.env[name] = Val(length=Cost.sym(sym), kind="node", param=name)
                self._scale(sym, f"the nodes of {name}")
            else:
                elem = CHAR if kind == "str" else Val(length=ONE, mag=Cost.sym(sym), kind="")
                self.env[name] = Val(length=Cost.sym(sym), kind=kind, elem=elem, param=name)
                self._scale(sym, f"len({name})")
        place_indices(self.node, self.env)

    def state(self, attr: str) -> Val:
        """`self.attr` of a method, set nowhere before: the object's state, which grows with the input."""
        if not any(a.arg == "self" for a in self.node.args.args):
            return UNKNOWN
        sym = self.prefix + "self"
        if sym not in self.scaled:
            self._scale(sym, "the size of the object's state (self)")
        v = Val(length=Cost.sym(sym), mag=Cost.sym(sym), kind="", elem=Val(length=ONE, kind=""), param="self")
        self.env["self." + attr] = v
        return v

    def _scale(self, sym: str, meaning: str) -> None:
        self.symbols.append((sym, meaning))
        self.scaled.add(sym)
        self.primary = self.primary.plus(Cost.sym(sym))

    # -- the form -----------------------------------------------------------------------------------
    def fn(self) -> Fn:
        self.alternatives = alternatives(self.node)
        self.mids = midpoints(self.node)
        self.doubles, self.pivots = doubled(self.node), pivots(self.node, self.front.names)
        self.visits = marks_visits(self.node)
        self.block(self.node.body)
        states = None
        calls = [c for c in nodes_of(self.node, (ast.Call,)) if self.own_callee(c) is self.node]
        if self.visits and len(calls) >= 2 and not self.memo:
            return self._fn(self.primary_or_one())
        if self.memo or self.changing and self._memo_dict():
            states = ONE
            for p in sorted(self.changing) or [self.params[0].arg if self.params else ""]:
                v = self.env.get(p, UNKNOWN)
                size = v.mag if v.kind == "int" and v.mag is not None and not v.mag.is_constant() else \
                    v.length if v.length is not None and not v.length.is_constant() else self.primary_or_one()
                states = states.times(size)
        return self._fn(states)

    def _fn(self, states) -> Fn:
        return Fn(self.node.name, tuple(p.arg for p in self.params), tuple(self.stack[0]), self.node.lineno,
                  states, tuple(self.symbols), frozenset(self.scaled))

    def primary_or_one(self) -> Cost:
        return self.primary if self.primary.terms else self.outer_size or ONE

    def emit(self, step) -> None:
        self.stack[-1].append(step)

    def work(self, e: lib.Effect, line: int, what: str) -> None:
        if not (e.time.is_free() and e.memory.is_free() and e.known):
            self.emit(Work(e.time, e.memory, line, what, e.known))

    def loop(self, trip: Cost, line: int, what: str, body, known: bool = True, node=None) -> None:
        self.stack.append([])
        if node is not None and not trip.is_constant() and big_integers(node):
            # Fibonacci-like sums, running products: the values grow a digit or more each turn, so each
            # turn's arithmetic costs as many digits as turns so far, and the last value holds them all
            self.emit(Work(trip, trip, line, "arithmetic on integers that grow every turn"))
        self.trips.append(trip)
        self.exits.append([])
        try:
            body()
        finally:
            self.trips.pop()
            steps = self.stack.pop()
            once = self.exits.pop()
        self.emit(Loop(trip, tuple(steps), line, what, known))
        for step in once:  # what a branch leaving the loop did (`insert(i, x); return`): once
            self.emit(step)

    # -- statements ---------------------------------------------------------------------------------
    def block(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            if s.value is None:
                return
            grown = self_concat(s) or rebuilt(s)
            if grown is not None:
                return self.concat(s, *grown)
            v = self.ev(s.value)
            for t in (s.targets if isinstance(s, ast.Assign) else [s.target]):
                self.bind(t, v, s.value)
        elif isinstance(s, ast.AugAssign):
            self.aug(s)
        elif isinstance(s, (ast.For, ast.AsyncFor)):
            self.enclosing.append(s)
            try:
                self.for_loop(s)
            finally:
                self.enclosing.pop()
            self.block(s.orelse)
        elif isinstance(s, ast.While):
            trip, known = cost_loops.while_trip(self, s)
            self.enclosing.append(s)
            try:
                self.loop(trip, s.lineno, "while", lambda: self.while_body(s), known, s)
            finally:
                self.enclosing.pop()
        elif isinstance(s, ast.If):
            self.ev(s.test)
            for branch in (s.body, s.orelse):
                if self.exits and branch and isinstance(branch[-1], (ast.Return, ast.Break, ast.Raise)):
                    self.stack.append([])  # a branch that leaves the loop runs once, not once a turn
                    self.block(branch)
                    self.exits[-1].extend(self.stack.pop())
                elif self.trips and branch is s.body and new_record(s):
                    self.stack.append([])  # a new best: its copies are as short as the best, a few elements
                    self.block(branch)
                    for step in self.stack.pop():
                        self.emit(replace(step, time=ONE) if isinstance(step, Work) and step.known else step)
                else:
                    self.block(branch)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            self.block(s.body)
        elif isinstance(s, ast.Try):
            for b in (s.body, *[h.body for h in s.handlers], s.orelse, s.finalbody):
                self.block(b)
        elif isinstance(s, (ast.Return, ast.Expr)) and s.value is not None:
            self.ev(s.value)
        elif isinstance(s, FUNCS):
            self.front.names[s.name] = s
            self.env[s.name] = Val(kind="function")
            self.nested = {**getattr(self, "nested", {}), s.name: dict(self.env)}
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Subscript):
                    base = self.ev(t.value)
                    if base.kind in ("list", "") and not (isinstance(t.slice, ast.UnaryOp) or const(t.slice) == -1):
                        self.work(lib.Effect(length(base)), s.lineno, "del xs[i] (shifts the rest)")
        elif isinstance(s, (ast.Raise, ast.Assert)):
            for c in children(s):
                if isinstance(c, ast.expr):
                    self.ev(c)

    def for_loop(self, s) -> None:
        it = self.ev(s.iter)
        trip = it.length if it.length is not None else self.primary_or_one()

        def body():
            self.bind(s.target, replace(it.elem if it.elem is not None else UNKNOWN, depth=len(self.trips)), None)
            self.block(s.body)
        self.loop(trip, s.lineno, "for", body, it.length is not None, s)

    def bind(self, target, v: Val, value_node) -> None:
        if isinstance(target, ast.Name):
            self.set_at[target.id] = len(self.trips)
            if v.kind in ("list", "dict", "set", "deque", "str") and (v.depth == -1 or fresh(value_node)):
                v = replace(v, depth=len(self.trips))
            self.env[target.id] = v
        elif isinstance(target, (ast.Tuple, ast.List)):
            elts = value_node.elts if isinstance(value_node, (ast.Tuple, ast.List)) and \
                len(value_node.elts) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.bind(t, self.ev(elts[i]) if elts else (v.elem or UNKNOWN), elts[i] if elts else None)
        elif isinstance(target, ast.Subscript):
            base = self.ev(target.value)
            key = self.ev(target.slice)
            if is_char(key):
                return  # keyed by one character: an alphabet's worth at most
            if isinstance(target.value, ast.Name) and base.kind in ("dict", "set", "") and \
                    not isinstance(target.slice, ast.Slice) and base.kind != "" or \
                    isinstance(target.value, ast.Name) and base.kind == "dict":
                self.grow(target.value.id, ONE.plus(lib.total(v) if v.kind in ("list", "str") else ONE),
                          target.lineno, "an entry stored")
        elif isinstance(target, ast.Attribute):
            if isinstance(target.value, ast.Name) and target.value.id == "self":
                self.env["self." + target.attr] = v
            elif isinstance(value_node, ast.Call) and isinstance(value_node.func, ast.Name) and \
                    value_node.func.id[:1].isupper():
                self.emit(Store(Cost.product(self.trips), target.lineno, "a new object linked in"))

    def while_body(self, s: ast.While) -> None:
        self.ev(s.test)
        self.block(s.body)
