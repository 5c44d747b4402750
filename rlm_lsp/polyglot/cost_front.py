"""The cost analyzer's C++, Java and Go front end: a function's tree-sitter tree -> the loop-and-call
form (`rlm_lsp.cost.form`), as the Python front end (`rlm_lsp.python.cost_front`) makes it from ast.

    code -> tree-sitter (`functions.parse`) -> every function of the file (`functions`' finder), each a
            `Fn`: its parameters' kinds from their declared types and which of them scale
            (`cost_params`); its statements walked with what is known of each name's size
            (`cost_library.Val`): loops get trip counts (`cost_loops`), library calls their costs
            (`cost_library`), allocations and appends their memory (`cost_exprs`)
         -> `rlm_lsp.cost.analyze` -> `Summary` for the entry

The entry is the named function (`f`, or `Solution.f` as `functions` names it), else the last
function of the text. `read` never raises on code: a text longer than `MAX_CHARS`, nested deeper than
`MAX_DEPTH`, not encodable as UTF-8, without functions, or whose entry does not parse gives None.
"""

from __future__ import annotations

from dataclasses import replace

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.analyze import Summary, analyze
from rlm_lsp.cost.form import Fn, Loop, Store, Work
from rlm_lsp.polyglot import cost_library as lib
from rlm_lsp.polyglot import cost_loops
from rlm_lsp.polyglot.cost_assign import Assignments
from rlm_lsp.polyglot.cost_library import CONTAINERS, NUMBER, ONE, UNKNOWN, Val, length
from rlm_lsp.polyglot.cost_params import params, scales
from rlm_lsp.polyglot.cost_shapes import callee, globals_of, marks_visits, memoised, moved_by_self_calls, unwrap
from rlm_lsp.polyglot.cost_syntax import (
    EXITS,
    STATEMENTS,
    name_of,
    statements,
    text,
    too_deep,
    walk,
)
from rlm_lsp.polyglot.functions import PolyglotUnavailable, found_in, parse

MAX_CHARS = 200_000  # as the Python front end's: a longer text is not analysed
MAX_DEPTH = 150  # tree levels: the walker recurses a few frames a level, well inside Python's limit


def read(code: str, language: str, entry: str | None = None) -> Summary | None:
    """The entry function's summary; None where the code cannot be read (the module's docstring)."""
    if len(code) > MAX_CHARS:
        return None
    try:
        root = parse(code, language).root_node
    except (UnicodeError, ValueError, PolyglotUnavailable):
        return None
    if too_deep(root, MAX_DEPTH):
        return None
    try:
        rows = found_in(root, language)
        node = _entry(rows, entry)
        if node is None or node.has_error or node.child_by_field_name("body") is None:
            return None
        names: dict = {}
        for qual, _outer, fn, _name in rows:
            names.setdefault(qual.rsplit(".", 1)[-1].rsplit("::", 1)[-1], fn)
        front = _Front(names, language, globals_of(root, language))
        return analyze(front.fns, front.function(node, entry=True))
    except RecursionError:
        return None


def _entry(rows: list, entry: str | None):
    if not rows:
        return None
    if entry:
        for qual, _outer, fn, _name in rows:
            if entry in (qual, qual.rsplit(".", 1)[-1], qual.replace("::", ".")) or \
                    qual.rsplit(".", 1)[-1].rsplit("::", 1)[-1] == entry:
                return fn
        return None
    return rows[-1][2]


class _Front:
    """Walks functions into `Fn`s; a callee is walked when first called."""

    def __init__(self, names: dict, language: str, fields: dict):
        self.names = names  # simple name -> function node (the first of each name)
        self.fields = fields  # a class's fields and the file's globals: name -> what is known of its size
        self.language = language
        self.fns: dict[str, Fn] = {}
        self.walked: dict[int, str] = {}  # node id -> its Fn's name

    def function(self, node, entry: bool = False) -> str:
        if node.id in self.walked:
            return self.walked[node.id]
        name = _simple_name(node, self.language)
        self.walked[node.id] = name
        self.fns[name] = Fn(name, (), (), node.start_point[0] + 1)  # a placeholder: recursion ends here
        self.fns[name] = _Walker(self, node, name, entry).fn()
        return name


def _simple_name(node, language: str) -> str:
    if language == "cpp":
        d = node.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        n = d.child_by_field_name("declarator") if d is not None else None
        return text(n).rsplit("::", 1)[-1] or "?"
    return text(node.child_by_field_name("name")) or "?"


class _Walker(Assignments):
    def __init__(self, front: _Front, node, name: str, entry: bool):
        self.front = front
        self.node = node
        self.fn_name = name
        self.language = front.language
        self.prefix = "" if entry else name + "."
        self.env: dict[str, Val] = dict(front.fields)
        self.stack: list[list] = [[]]
        self.trips: list[Cost] = []
        self.exits: list[list] = []
        self.symbols: list[tuple[str, str]] = []
        self.scaled: set[str] = set()
        self.scaled_params: set[str] = set()
        self.primary = Cost.zero()
        self.changing: set[str] = set()
        self.set_at: dict[str, int] = {}
        self.params = params(node, self.language)
        body = node.child_by_field_name("body")
        self.returned = {unwrap(r.named_children[0]).id for r in walk(body) if r.type == "return_statement"
                         and r.named_children}
        self._bind_params()

    def _bind_params(self) -> None:
        for p in self.params:
            sym = self.prefix + p.name
            if not scales(p, self.params, self.node, self.fn_name):
                self.env[p.name] = Val(mag=ONE, kind="int", param=p.name) if p.kind == "int" else \
                    Val(length=ONE, kind=p.kind, param=p.name) if p.kind in CONTAINERS else Val(kind=p.kind)
                continue
            self.scaled_params.add(p.name)
            if p.kind == "int":
                self.env[p.name] = Val(mag=Cost.sym(sym), kind="int", param=p.name)
                self._scale(sym, f"the value of {p.name}")
            elif p.kind == "grid":
                side = Cost.sym(sym, 0.5)
                self.env[p.name] = Val(length=side, kind="list", elem=Val(length=side, kind="list", elem=NUMBER),
                                       param=p.name)
                self._scale(sym, f"the cells of {p.name}")
            elif p.kind == "node":
                self.env[p.name] = Val(length=Cost.sym(sym), kind="node", param=p.name)
                self._scale(sym, f"the nodes of {p.name}")
            else:
                el = lib.CHAR if p.kind == "str" else Val(length=ONE, kind="str") if p.elem == "str" else \
                    Val(kind=p.elem)
                self.env[p.name] = Val(length=Cost.sym(sym), kind=p.kind, elem=el, param=p.name)
                self._scale(sym, f"the length of {p.name}")
        # An index a call of the function by itself moves (`lo`, `mid`, `i + 1`) ranges over the
        # sized input: a loop from lo to hi is as long as the part of the input the call has.
        moving = moved_by_self_calls(self.node, self.fn_name, [p.name for p in self.params])
        for p in self.params:
            if p.kind == "int" and p.name not in self.scaled_params and p.name in moving and self.primary.terms:
                self.env[p.name] = Val(mag=self.primary, kind="int", param=p.name)

    def _scale(self, sym: str, meaning: str) -> None:
        self.symbols.append((sym, meaning))
        self.scaled.add(sym)
        self.primary = self.primary.plus(Cost.sym(sym))

    # -- the form -----------------------------------------------------------------------------------
    def fn(self) -> Fn:
        body = self.node.child_by_field_name("body")
        self.block(body)
        states = None
        calls = [c for c in walk(body) if c.type in ("call_expression", "method_invocation") and
                 callee(c) == self.fn_name]
        if calls and memoised(body, self.fn_name):
            states = ONE
            for p in sorted(self.changing) or [p.name for p in self.params[:1]]:
                v = self.env.get(p, UNKNOWN)
                size = v.mag if v.kind == "int" and v.mag is not None and not v.mag.is_constant() else \
                    v.length if v.length is not None and not v.length.is_constant() else None
                if size is not None:
                    states = states.times(size)
            if states.is_constant():
                states = self.primary_or_one()
        elif len(calls) >= 2 and marks_visits(body):
            states = self.primary_or_one()  # a search that marks where it has been enters each state once
        return Fn(self.fn_name, tuple(p.name for p in self.params), tuple(self.stack[0]),
                  self.node.start_point[0] + 1, states, tuple(self.symbols), frozenset(self.scaled))

    def primary_or_one(self) -> Cost:
        return self.primary if self.primary.terms else ONE

    def emit(self, step) -> None:
        self.stack[-1].append(step)

    def work(self, e: lib.Effect, line: int, what: str) -> None:
        if not (lib.free(e.time) and lib.free(e.memory) and e.known):
            self.emit(Work(e.time, e.memory, line, what, e.known))

    def loop(self, trip: Cost, line: int, what: str, body, known: bool = True) -> None:
        self.stack.append([])
        self.trips.append(trip)
        self.exits.append([])
        try:
            body()
        finally:
            self.trips.pop()
            steps = self.stack.pop()
            once = self.exits.pop()
        self.emit(Loop(trip, tuple(steps), line, what, known))
        for step in once:  # what a branch leaving the loop did: once
            self.emit(step)

    def grow(self, name: str, by: Cost, line: int, what: str) -> None:
        """`name` grows by `by` elements each time this line runs (an append): it keeps them."""
        v = self.env.get(name)
        depth = v.depth if v is not None and v.depth >= 0 else 0
        added = by.times(Cost.product(self.trips[depth:]))
        self.emit(Store(added, line, what))
        if v is not None:
            self.env[name] = replace(v, length=length(v).plus(added) if v.length is not None else added)

    # -- statements ---------------------------------------------------------------------------------
    def block(self, node) -> None:
        for s in statements(node):
            self.stmt(s)

    def stmt(self, s) -> None:
        role = STATEMENTS[self.language].get(s.type)
        line = s.start_point[0] + 1
        if role == "block":
            self.block(s)
        elif role == "expr" or role == "return":
            for c in s.named_children:
                self.ev(c)
        elif role == "decl":
            self.declaration(s)
        elif role == "assign":
            self.assign(s)
        elif role == "if":
            self.if_stmt(s)
        elif role == "for":
            self.for_loop(s, s.child_by_field_name("initializer") or s.child_by_field_name("init"), line)
        elif role == "foreach":
            self.foreach(s, line)
        elif role in ("while", "do"):
            cond, body = s.child_by_field_name("condition"), s.child_by_field_name("body")
            trip, known = cost_loops.while_trip(self, cond, body)
            self.loop(trip, line, "while", lambda: self._turn(cond, body), known)
        elif role == "gofor":
            clause = next((c for c in s.named_children if c.type in ("for_clause", "range_clause")), None)
            body = s.child_by_field_name("body")
            if clause is not None and clause.type == "for_clause":
                self.for_loop(s, clause.child_by_field_name("initializer"), line, clause)
            elif clause is not None:
                self.foreach(s, line, clause)
            else:
                cond = next((c for c in s.named_children if c != body and c.type != "comment"), None)
                trip, known = cost_loops.while_trip(self, cond, body)
                self.loop(trip, line, "for", lambda: self._turn(cond, body), known)
        elif role == "nest":
            for c in s.named_children:
                if c.type in STATEMENTS[self.language]:
                    self.stmt(c)
                else:
                    self.ev(c)

    def _turn(self, cond, body) -> None:
        """One turn of a while loop: its test, then its body."""
        self.ev(cond)
        self.block(body)

    def if_stmt(self, s) -> None:
        self.stmt(s.child_by_field_name("initializer")) if s.child_by_field_name("initializer") else None
        self.ev(s.child_by_field_name("condition"))
        for branch in (s.child_by_field_name("consequence"), s.child_by_field_name("alternative")):
            if branch is not None and branch.type == "else_clause":
                branch = branch.named_children[0] if branch.named_children else None
            if branch is None:
                continue
            inner = statements(branch)
            if self.exits and inner and inner[-1].type in EXITS:
                self.stack.append([])  # a branch that leaves the loop runs once, not once a turn
                self.stmt(branch)
                self.exits[-1].extend(self.stack.pop())
            else:
                self.stmt(branch)

    def for_loop(self, s, init, line: int, clause=None) -> None:
        clause = clause if clause is not None else s
        if init is not None:
            self.stmt(init) if init.type in STATEMENTS[self.language] else self.ev(init)
        cond, update = clause.child_by_field_name("condition"), clause.child_by_field_name("update")
        trip, known, own = cost_loops.for_trip(self, s, cond, update)
        body = s.child_by_field_name("body")

        def run():
            for nm in own:
                v = self.env.get(nm, UNKNOWN)
                self.env[nm] = Val(mag=trip if v.mag is None or v.mag.is_constant() else v.mag.plus(trip),
                                   kind="int", param=v.param, depth=len(self.trips))
                self.set_at[nm] = len(self.trips)
            self.ev(cond)
            self.block(body)
            self.ev(update)
        self.loop(trip, line, "for", run, known)

    def foreach(self, s, line: int, clause=None) -> None:
        if clause is not None:  # Go: for i, x := range xs
            it_node, targets = clause.child_by_field_name("right"), clause.child_by_field_name("left")
            names = [name_of(c) for c in targets.named_children] if targets is not None else []
        else:
            it_node = s.child_by_field_name("right") or s.child_by_field_name("value")
            d = s.child_by_field_name("declarator") or s.child_by_field_name("name")
            names = [text(x) for x in walk(d) if x.type == "identifier"][-1:] if d is not None else []
        it = self.ev(it_node)
        if it.kind == "int" and it.mag is not None:  # Go 1.22: for i := range n
            trip, known, values = it.mag, True, [Val(mag=it.mag, kind="int")]
        else:
            trip = it.length if it.length is not None else self.primary_or_one()
            known = it.length is not None
            el = it.elem if it.elem is not None else UNKNOWN
            index = Val(mag=trip, kind="int")
            values = [el] if clause is None else [index, el] if it.kind != "hmap" else [UNKNOWN, el]

        def run():
            for nm, v in zip(names, values):
                if nm and nm != "_":
                    self.env[nm] = replace(v, depth=len(self.trips))
                    self.set_at[nm] = len(self.trips)
            self.block(s.child_by_field_name("body"))
        self.loop(trip, line, "for each", run, known)
