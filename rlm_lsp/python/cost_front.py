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
from rlm_lsp.cost.form import Call, Fn, Loop, Store, Work
from rlm_lsp.python import cost_library as lib
from rlm_lsp.python.cost_library import CHAR, NUMBER, ONE, UNKNOWN, Val, length
from rlm_lsp.python.param_kinds import infer

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MEMO_DECORATORS = {"cache", "lru_cache", "memoize", "memoized", "cached"}
SIZE_NAMES = {"n", "m", "num", "number", "size", "length", "limit", "count", "x", "steps", "bits", "value", "val",
              "upper", "max_n", "maximum", "bound", "total", "amount", "target", "high", "end", "stop"}
HINTS = {"int": "int", "str": "str", "list": "list", "List": "list", "dict": "dict", "Dict": "dict", "set": "set",
         "Set": "set", "tuple": "list", "Tuple": "list", "Sequence": "list", "Iterable": "list", "deque": "deque",
         "bytes": "str", "Optional": "", "float": "float", "bool": "bool", "TreeNode": "node", "ListNode": "node",
         "Node": "node"}
NODE_STEPS = {"next": "const", "left": "tree", "right": "tree", "children": "tree", "prev": "const"}


def read(code: str, entry: str | None = None) -> Summary | None:
    """The entry function's summary; None where the code does not parse or has no function."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        fns, entry_name = _functions(tree, entry)
        if entry_name is None:
            return None
        return analyze(fns, entry_name)
    except RecursionError:
        return None


def entry_of(tree: ast.Module, entry: str | None = None) -> ast.AST | None:
    """The function a code is predicted for (see the module's docstring)."""
    tops = [n for n in tree.body if isinstance(n, (*FUNCS, ast.ClassDef))]
    if entry:
        name, _, meth = entry.partition(".")
        for n in tops:
            if n.name == name:
                if not meth:
                    return n if isinstance(n, FUNCS) else _public(n)
                return next((m for m in n.body if isinstance(m, FUNCS) and m.name == meth), None)
    for n in reversed(tops):
        if isinstance(n, FUNCS):
            return n
        pub = _public(n)
        if pub is not None:
            return pub
    return None


def _public(cls: ast.ClassDef) -> ast.AST | None:
    methods = [m for m in cls.body if isinstance(m, FUNCS)]
    called = {c.func.attr for m in methods for c in ast.walk(m)
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)}
    roots = [m for m in methods if not m.name.startswith("_") and m.name not in called]
    return (roots or [m for m in methods if not m.name.startswith("__")] or methods or [None])[0]


def _functions(tree: ast.Module, entry: str | None) -> tuple[dict[str, Fn], str | None]:
    node = entry_of(tree, entry)
    if node is None:
        return {}, None
    names = {}
    for n in ast.walk(tree):
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
        self.consts = _module_constants(tree)

    def function(self, node, entry: bool, outer: dict, outer_size: Cost | None = None) -> None:
        if node.name in self.fns:
            return
        self.fns[node.name] = Fn(node.name, (), (), node.lineno)  # a placeholder: recursion ends here
        w = _Walker(self, node, entry, outer, outer_size)
        self.fns[node.name] = w.fn()


class _Walker:
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
        self.params = _params(node)
        self.primary = Cost.zero()
        self.memo = _memoised(node)
        self.changing: set[str] = set()
        self.set_at: dict[str, int] = {}  # name -> the loop depth it was last set at
        self.enclosing: list = []  # the loop statements around the one being read
        self._bind_params()

    # -- parameters ---------------------------------------------------------------------------------
    def _bind_params(self) -> None:
        kinds = infer(self.node, [p.arg for p in self.params])
        for p in self.params:
            k = kinds.get(p.arg)
            if k == "grid" and not _grid(self.node, p.arg):
                kinds[p.arg] = "list"  # graph[u]: an adjacency list, not rows of a grid
            if k == "list" and not _hint(p) and not _walked(self.node, p.arg):
                kinds[p.arg] = "scalar"  # a start node, a key: never walked, never measured
        has_collection = any(_hint(p) in ("list", "str", "dict", "set", "node", "deque") or
                             (not _hint(p) and kinds.get(p.arg) != "integer") for p in self.params)
        defaults = _with_default(self.node)
        for p in self.params:
            name, sym = p.arg, self.prefix + p.arg
            kind = _hint(p) or {"integer": "int", "string": "str", "grid": "grid", "node": "node",
                                "scalar": "scalar"}.get(
                kinds.get(name, "list"), "list")
            if kind in ("float", "bool", "scalar"):
                self.env[name] = NUMBER
                continue
            if kind == "int":
                bits = _bitwise(self.node, name)
                counts = _counts(self.node, name)
                scales = counts and name not in defaults and (not has_collection or name.lower() in SIZE_NAMES)
                if scales:
                    mag = Cost.sym(sym).exponential() if bits else Cost.sym(sym)
                    self.env[name] = Val(mag=mag, kind="int", param=name)
                    self._scale(sym, f"the number of bits of {name}" if bits else f"the value of {name}")
                else:
                    self.env[name] = Val(mag=ONE, kind="int", param=name)
                continue
            if name in defaults and kind not in ("node",):
                self.env[name] = Val(length=ONE, mag=ONE, kind=kind, param=name)
                continue
            if kind == "grid":
                side = Cost.sym(sym, 0.5)
                self.env[name] = Val(length=side, kind="list", elem=Val(length=side, kind="list", elem=UNKNOWN),
                                     param=name)
                self._scale(sym, f"the cells of {name}")
            elif kind == "node":
                self.env[name] = Val(length=Cost.sym(sym), kind="node", param=name)
                self._scale(sym, f"the nodes of {name}")
            else:
                elem = CHAR if kind == "str" else Val(length=ONE, mag=Cost.sym(sym), kind="")
                self.env[name] = Val(length=Cost.sym(sym), kind=kind, elem=elem, param=name)
                self._scale(sym, f"len({name})")

    def state(self, attr: str) -> Val:
        """`self.attr` of a method, set nowhere before: the object's state, which grows with the input."""
        if not self.params and not any(a.arg == "self" for a in self.node.args.args):
            return UNKNOWN
        sym = self.prefix + "self"
        if sym not in self.scaled:
            self._scale(sym, "the size of the object's state (self)")
        v = Val(length=Cost.sym(sym), kind="", elem=Val(length=ONE, kind=""), param="self")
        self.env["self." + attr] = v
        return v

    def _scale(self, sym: str, meaning: str) -> None:
        self.symbols.append((sym, meaning))
        self.scaled.add(sym)
        self.primary = self.primary.plus(Cost.sym(sym))

    # -- the form -----------------------------------------------------------------------------------
    def fn(self) -> Fn:
        self.alternatives = _alternatives(self.node)
        self.mids = _mids(self.node)
        self.visits = _visited(self.node)
        self.block(self.node.body)
        states = None
        calls = [c for c in ast.walk(self.node) if isinstance(c, ast.Call) and self.own_callee(c) is self.node]
        if self.visits and len(calls) >= 2 and not self.memo:
            return self._fn(self.primary_or_one())
        if self.memo or self.changing and self._memo_dict():
            states = ONE
            for p in self.changing or {self.params[0].arg if self.params else ""}:
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
        if not (e.time.is_constant() and e.memory.is_constant() and e.known):
            self.emit(Work(e.time, e.memory, line, what, e.known))

    def loop(self, trip: Cost, line: int, what: str, body, known: bool = True) -> None:
        self.stack.append([])
        self.trips.append(trip)
        try:
            body()
        finally:
            self.trips.pop()
            steps = self.stack.pop()
        self.emit(Loop(trip, tuple(steps), line, what, known))

    def grow(self, name: str, by: Cost, line: int, what: str) -> None:
        """`name` grows by `by` elements each time this line runs (an append): it keeps them."""
        v = self.env.get(name)
        times = ONE
        depth = v.depth if v is not None and v.depth >= 0 else 0
        for t in self.trips[depth:]:
            times = times.times(t)
        added = by.times(times)
        self.emit(Store(added, line, what))
        if v is not None:
            self.env[name] = replace(v, length=length(v).plus(added) if v.length is not None else added)

    # -- statements ---------------------------------------------------------------------------------
    def block(self, stmts) -> None:
        for s in stmts:
            self.stmt(s)

    def stmt(self, s) -> None:
        if isinstance(s, (ast.Assign, ast.AnnAssign)):
            if s.value is None:
                return
            grown = _self_concat(s)
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
            trip, known = self.while_trip(s)
            self.enclosing.append(s)
            try:
                self.loop(trip, s.lineno, "while", lambda: (self.ev(s.test), self.block(s.body)), known)
            finally:
                self.enclosing.pop()
        elif isinstance(s, ast.If):
            self.ev(s.test)
            self.block(s.body)
            self.block(s.orelse)
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
                    if base.kind in ("list", "") and not (isinstance(t.slice, ast.UnaryOp) or _const(t.slice) == -1):
                        self.work(lib.Effect(length(base)), s.lineno, "del xs[i] (shifts the rest)")
        elif isinstance(s, (ast.Raise, ast.Assert)):
            for c in ast.iter_child_nodes(s):
                if isinstance(c, ast.expr):
                    self.ev(c)

    def for_loop(self, s) -> None:
        it = self.ev(s.iter)
        trip = it.length if it.length is not None else self.primary_or_one()

        def body():
            self.bind(s.target, replace(it.elem if it.elem is not None else UNKNOWN, depth=len(self.trips)), None)
            self.block(s.body)
        self.loop(trip, s.lineno, "for", body, it.length is not None)

    def bind(self, target, v: Val, value_node) -> None:
        if isinstance(target, ast.Name):
            self.set_at[target.id] = len(self.trips)
            if v.kind in ("list", "dict", "set", "deque", "str") and (v.depth == -1 or _fresh(value_node)):
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
            if key.kind == "str" and key.length is not None and key.length.is_constant():
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
                times = ONE
                for t in self.trips:
                    times = times.times(t)
                self.emit(Store(times, target.lineno, "a new object linked in"))

    def concat(self, s, name: str, added, prepend: bool) -> None:
        """`s = s + x` (as `s += x`: grown in place) or `s = x + s` (a new copy of s each time)."""
        cur = self.env.get(name, UNKNOWN)
        v = self.ev(added)
        if cur.kind not in ("str", "list", "tuple"):
            self.ev(s.value)
            return
        self.work(lib.Effect(length(v)), s.lineno, "+")
        self.grow(name, length(v), s.lineno, "+ (it grows)")
        if prepend:
            self.work(lib.Effect(length(self.env[name])), s.lineno, "x + s (a copy of s each time)")

    def aug(self, s: ast.AugAssign) -> None:
        v = self.ev(s.value)
        if not isinstance(s.target, ast.Name):
            self.ev(s.target)
            return
        name = s.target.id
        cur = self.env.get(name, UNKNOWN)
        if cur.mag is not None and any(t.exp for t in cur.mag.terms):
            self.work(lib.Effect(cur.mag.log()), s.lineno, "arithmetic on a big integer")
        if cur.kind in ("str", "list") and isinstance(s.op, ast.Add):
            self.work(lib.Effect(length(v)), s.lineno, "+=")
            self.grow(name, length(v), s.lineno, "+= (it grows)")

    def while_trip(self, s: ast.While) -> tuple[Cost, bool]:
        test = s.test
        names = {n.id for n in ast.walk(test) if isinstance(n, ast.Name)}
        updates = _updates(s.body)
        if isinstance(test, ast.Constant) and test.value:
            names = set(updates)
        # a worklist: while stack / while q / while len(q) > 0
        for nm in _emptiness(test):
            v = self.env.get(nm, UNKNOWN)
            if v.kind in ("list", "deque", "set", "dict", "") and nm not in updates:
                pushes = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                             isinstance(c.func.value, ast.Name) and c.func.value.id == nm and
                             c.func.attr in ("append", "appendleft", "add", "extend", "insert") or
                             isinstance(c, ast.Call) and lib_name(c) == "heappush" and c.args and
                             isinstance(c.args[0], ast.Name) and c.args[0].id == nm
                             for c in ast.walk(ast.Module(body=s.body, type_ignores=[])))
                return (self.primary_or_one() if pushes or v.length is None else v.length), True
        halves = [nm for nm in names if updates.get(nm) == "half"]
        if halves or _binary_search(s, names):
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
        if self.trips and _amortised(s, names, updates, self.enclosing):
            return ONE, True  # a pointer or a stack the enclosing loop advances too: it pays for these steps
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
            if _squared(test):
                bound = bound.power(0.5)
            if bound.terms:
                return bound, True
        return self.primary_or_one(), False

    # -- expressions --------------------------------------------------------------------------------
    def ev(self, e) -> Val:
        if e is None:
            return UNKNOWN
        if isinstance(e, ast.Constant):
            return CHAR if isinstance(e.value, str) else NUMBER
        if isinstance(e, ast.Name):
            return self.env.get(e.id, UNKNOWN)
        if isinstance(e, ast.Attribute):
            base = self.ev(e.value)
            if isinstance(e.value, ast.Name) and e.value.id == "self":
                return self.env.get("self." + e.attr) or self.state(e.attr)
            if e.attr in NODE_STEPS and base.kind == "node":
                return replace(base, step=NODE_STEPS[e.attr])
            if e.attr in NODE_STEPS and base.param:
                return Val(length=base.length, kind="node", param=base.param, step=NODE_STEPS[e.attr])
            return UNKNOWN
        if isinstance(e, ast.Subscript):
            base = self.ev(e.value)
            if isinstance(e.slice, ast.Slice):
                bounds = [self.ev(x) for x in (e.slice.lower, e.slice.upper, e.slice.step)]
                if all(_const(x) is not None or x is None for x in (e.slice.lower, e.slice.upper)) and \
                        (e.slice.lower is not None or e.slice.upper is not None) and \
                        all(isinstance(_const(x), int) and _const(x) >= 0 for x in (e.slice.lower, e.slice.upper)
                            if x is not None):
                    return replace(base, length=ONE, depth=-1, param="")
                n = length(base)
                self.work(lib.Effect(n, n), e.lineno, "a slice (a copy)")
                half = any(b.mag is not None and _halved(x) for b, x in zip(bounds, (e.slice.lower, e.slice.upper))
                           if x is not None)
                return replace(base, length=n, depth=-1, step="half" if half or _mid(e.slice) else "const")
            self.ev(e.slice)
            if base.elem is not None:
                return base.elem
            return UNKNOWN
        if isinstance(e, ast.BinOp):
            return self.binop(e)
        if isinstance(e, ast.UnaryOp):
            return self.ev(e.operand)
        if isinstance(e, ast.BoolOp):
            vals = [self.ev(v) for v in e.values]
            return next((v for v in reversed(vals) if v.kind), vals[-1])
        if isinstance(e, ast.Compare):
            left = self.ev(e.left)
            for op, c in zip(e.ops, e.comparators):
                right = self.ev(c)
                if isinstance(op, (ast.In, ast.NotIn)) and right.kind in ("list", "str", "deque", "tuple", "lazy"):
                    if not (right.kind == "str" and right.length is not None and right.length.is_constant()):
                        self.work(lib.Effect(length(right)), e.lineno, "`in` on a list (a scan)")
                left = right
            return NUMBER
        if isinstance(e, ast.Call):
            return self.call(e)
        if isinstance(e, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            return self.comprehension(e)
        if isinstance(e, (ast.List, ast.Tuple, ast.Set)):
            vals = [self.ev(x) for x in e.elts]
            kind = {ast.List: "list", ast.Tuple: "tuple", ast.Set: "set"}[type(e)]
            n = ONE
            for x, v in zip(e.elts, vals):
                if isinstance(x, ast.Starred):
                    n = n.plus(length(v))
                    self.work(lib.Effect(length(v), length(v)), e.lineno, "a copy (*xs)")
            elem = next((v for v in vals if v.length is not None or v.mag is not None), vals[0] if vals else UNKNOWN)
            return Val(length=n, kind=kind, elem=elem, depth=-1)
        if isinstance(e, ast.Dict):
            for x in (*e.keys, *e.values):
                self.ev(x)
            return Val(length=ONE, kind="dict", depth=-1, elem=self.ev(e.values[0]) if e.values else UNKNOWN)
        if isinstance(e, ast.IfExp):
            self.ev(e.test)
            a, b = self.ev(e.body), self.ev(e.orelse)
            return a if a.length is not None or a.mag is not None else b
        if isinstance(e, ast.JoinedStr):
            for v in e.values:
                self.ev(v)
            return CHAR
        if isinstance(e, ast.FormattedValue):
            return self.ev(e.value)
        if isinstance(e, ast.NamedExpr):
            v = self.ev(e.value)
            self.bind(e.target, v, e.value)
            return v
        if isinstance(e, ast.Starred):
            return self.ev(e.value)
        if isinstance(e, ast.Lambda):
            return Val(kind="function")
        return UNKNOWN

    def binop(self, e: ast.BinOp) -> Val:
        a, b = self.ev(e.left), self.ev(e.right)
        op = e.op
        seq = [v for v in (a, b) if v.kind in ("list", "str", "tuple", "deque")]
        if isinstance(op, ast.Add) and seq:
            n = length(a).plus(length(b)) if a.kind == b.kind else length(seq[0])
            self.work(lib.Effect(n, n), e.lineno, "+ (a copy)")
            return Val(length=n, kind=seq[0].kind, elem=seq[0].elem, depth=-1)
        if isinstance(op, ast.Mult) and seq:
            s, k = (a, b) if a in seq else (b, a)
            n = length(s).times(k.mag if k.mag is not None else ONE)
            self.work(lib.Effect(n, n), e.lineno, "a repeated sequence")
            return Val(length=n, kind=s.kind, elem=s.elem, depth=-1)
        if isinstance(op, ast.Mod) and a.kind == "str":
            return CHAR
        am, bm = a.mag, b.mag
        param = a.param or b.param
        if isinstance(op, (ast.Add, ast.BitOr, ast.BitXor)):
            mag = _plus(am, bm)
            step = "const" if _const(e.right) is not None or _const(e.left) is not None else ""
        elif isinstance(op, ast.Sub):
            mag, step = am if am is not None else bm, "const"
        elif isinstance(op, ast.Mult):
            mag = am.times(bm) if am is not None and bm is not None else am or bm
            step = ""
        elif isinstance(op, (ast.FloorDiv, ast.Div, ast.RShift)):
            mag, step = am, "half" if (_const(e.right) or 0) not in (0, 1) or isinstance(op, ast.RShift) else ""
        elif isinstance(op, ast.Mod):
            mag, step = bm if bm is not None else am, ""
        elif isinstance(op, ast.Pow):
            k = _const(e.right)
            mag = am.power(k) if am is not None and isinstance(k, (int, float)) and 0 < k < 4 else \
                (bm.exponential() if bm is not None and _const(e.left) is not None else am)
            step = ""
        elif isinstance(op, ast.LShift):
            mag = bm.exponential() if bm is not None and not bm.is_constant() else am
            step = ""
        else:
            mag, step = am if am is not None else bm, ""
        return Val(mag=mag, kind="int" if mag is not None else "", param=param, step=step,
                   length=a.length if a.kind == "node" else None)

    def comprehension(self, e) -> Val:
        line = e.lineno
        trips: list[Cost] = []
        out: list[Val] = []

        def level(i: int) -> None:
            if i == len(e.generators):
                if isinstance(e, ast.DictComp):
                    self.ev(e.key)
                    out.append(self.ev(e.value))
                else:
                    out.append(self.ev(e.elt))
                return
            g = e.generators[i]
            it = self.ev(g.iter)
            trip = it.length if it.length is not None else self.primary_or_one()
            trips.append(trip)

            def body():
                self.bind(g.target, replace(it.elem if it.elem is not None else UNKNOWN, depth=len(self.trips)), None)
                for cond in g.ifs:
                    self.ev(cond)
                level(i + 1)
            self.loop(trip, line, "comprehension", body, it.length is not None)
        level(0)
        n = ONE
        for t in trips:
            n = n.times(t)
        elem = out[0] if out else UNKNOWN
        if isinstance(e, ast.GeneratorExp):
            return Val(length=n, kind="lazy", elem=elem)
        kind = {ast.ListComp: "list", ast.SetComp: "set", ast.DictComp: "dict"}[type(e)]
        self.work(lib.Effect(Cost.zero(), n.times(lib.length(elem) if elem.kind in ("list", "str") else ONE)),
                  line, "a comprehension's result")
        return Val(length=n, kind=kind, elem=elem, depth=-1)

    def call(self, e: ast.Call) -> Val:
        name = lib_name(e)
        recv = self.ev(e.func.value) if isinstance(e.func, ast.Attribute) else None
        args = [self.ev(a) for a in e.args]
        kwargs = {k.arg: self.ev(k.value) for k in e.keywords if k.arg}
        consts = [_const(a) for a in e.args]
        own = self.own_callee(e)
        if own is not None:
            return self.own_call(e, own, args)
        if isinstance(e.func, ast.Attribute) and recv is not None and not _module_like(e.func.value):
            eff = lib.method(name, recv, args, consts)
            if eff is not None:
                self.work(eff, e.lineno, f".{name}()")
                char = name == "add" and args and args[0].kind == "str" and args[0].length is not None and \
                    args[0].length.is_constant()
                if eff.store is not None and isinstance(e.func.value, ast.Name) and not char:
                    self.grow(e.func.value.id, eff.store, e.lineno, f".{name}()")
                return eff.result
        eff = lib.builtin(name, args, kwargs, consts)
        if eff is not None:
            self.work(eff, e.lineno, f"{name}()")
            if eff.store is not None and e.args and isinstance(e.args[0], ast.Name):
                self.grow(e.args[0].id, eff.store, e.lineno, f"{name}()")
            return eff.result
        if isinstance(e.func, ast.Name) and e.func.id in self.env and self.env[e.func.id].kind != "function":
            return UNKNOWN  # a class of the file, a callable parameter
        if isinstance(e.func, ast.Name) and e.func.id[:1].isupper():
            return Val(kind="object")
        self.emit(Work(ONE, Cost.zero(), e.lineno, f"call of {name or '?'}", False))
        return UNKNOWN

    def own_callee(self, e: ast.Call):
        f = e.func
        if isinstance(f, ast.Name) and f.id in self.front.names:
            return self.front.names[f.id]
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id in ("self", "cls") and \
                f.attr in self.front.names:
            return self.front.names[f.attr]
        return None

    def own_call(self, e: ast.Call, node, args: list[Val]) -> Val:
        if node is self.node:
            shrink, depth = self.shrink(e, args)
            if id(e) in self.alternatives:
                shrink = shrink or "const"
                self.emit(Call(node.name, {}, e.lineno, shrink, depth, alternative=True))
            else:
                self.emit(Call(node.name, {}, e.lineno, shrink, depth))
            given = [a for a in args if a.kind in ("list", "str")]
            return Val(length=length(given[0]), kind=given[0].kind, elem=given[0].elem, depth=-1) if given else UNKNOWN
        nested = getattr(self, "nested", {})
        outer = nested.get(node.name, {})
        self.front.function(node, entry=False, outer={k: v for k, v in outer.items() if k not in _param_names(node)},
                            outer_size=self.primary_or_one() if node.name in nested else None)
        callee = self.front.fns[node.name]
        params = [p.arg for p in _params(node)]
        sizes = {}
        for p, a in zip(params, args):
            size = a.mag if a.kind == "int" else a.length
            if size is not None:
                sizes[node.name + "." + p] = size
        self.emit(Call(callee.name, sizes, e.lineno))
        biggest = max((a for a in args if a.kind in ("list", "str")), key=lambda a: length(a).degree(), default=None)
        return Val(length=length(biggest), kind="list", depth=-1) if biggest is not None else UNKNOWN

    def shrink(self, e: ast.Call, args: list[Val]) -> tuple[str, Cost]:
        """How a call of the function by itself shrinks its input, and how deep that goes."""
        steps, depth = set(), Cost.zero()
        params = [p.arg for p in self.params]
        for i, (a_node, a) in enumerate(zip(e.args, args)):
            p = params[i] if i < len(params) else ""
            if isinstance(a_node, ast.Name) and a_node.id == p:
                continue
            if p:
                self.changing.add(p)
            step = a.step or ("half" if _mid_name(a_node) or self.mid_like(a_node) else
                              "const" if a.kind == "int" else "tree" if a.depth > 0 or a.kind == "" else "")
            if step:
                steps.add(step)
            pv = self.env.get(p, UNKNOWN)
            size = pv.mag if pv.kind == "int" and pv.mag is not None and not pv.mag.is_constant() else pv.length
            if size is not None and not size.is_constant():
                depth = depth.plus(size)
        if not depth.terms:
            depth = self.primary_or_one()
        for s in ("half", "tree", "const"):
            if s in steps:
                return s, depth
        return "", depth

    def mid_like(self, node) -> bool:
        """An argument built from a midpoint (`mid + 1`, `m - 1`)."""
        return any(isinstance(x, ast.Name) and x.id in self.mids for x in ast.walk(node))

    def _memo_dict(self) -> bool:
        """`if key in memo: return memo[key]` near the top of the body."""
        for s in self.node.body[:4]:
            if isinstance(s, ast.If) and isinstance(s.test, ast.Compare) and \
                    isinstance(s.test.ops[0], ast.In) and any(isinstance(b, ast.Return) for b in s.body):
                return True
        return False


# -- helpers ----------------------------------------------------------------------------------------
def lib_name(e: ast.Call) -> str:
    f = e.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def _params(node) -> list:
    a = node.args
    return [p for p in a.posonlyargs + a.args + a.kwonlyargs if p.arg not in ("self", "cls")]


def _param_names(node) -> set:
    return {p.arg for p in _params(node)}


def _with_default(node) -> set:
    a = node.args
    pos = a.posonlyargs + a.args
    named = {p.arg for p, d in zip(pos[len(pos) - len(a.defaults):], a.defaults)}
    named |= {p.arg for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
    return named


def _hint(p) -> str:
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
            return _hint(ast.arg(arg=p.arg, annotation=h.slice))
        if name in ("list", "List") and isinstance(h.slice, ast.Subscript):
            inner = h.slice.value
            if isinstance(inner, ast.Name) and inner.id in ("list", "List"):
                return "grid"
        return HINTS.get(name, "")
    if isinstance(h, ast.BinOp):  # X | None
        return _hint(ast.arg(arg=p.arg, annotation=h.left))
    name = h.id if isinstance(h, ast.Name) else h.attr if isinstance(h, ast.Attribute) else ""
    return HINTS.get(name, "node" if name.endswith("Node") else "")


def _memoised(node) -> bool:
    for d in node.decorator_list:
        f = d.func if isinstance(d, ast.Call) else d
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        if name in MEMO_DECORATORS:
            return True
    return False


def _module_constants(tree: ast.Module) -> dict:
    out = {}
    for s in tree.body:
        if isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name):
            out[s.targets[0].id] = Val(length=ONE, mag=ONE, kind="const")
    return out


def _module_like(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("math", "heapq", "bisect", "itertools", "collections", "copy",
                                                      "functools", "random", "operator", "string", "re", "sys")


def _const(node):
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)):
        return -node.operand.value
    return None


def _plus(a, b):
    if a is None:
        return b
    if b is None:
        return a
    return a.plus(b)


def _fresh(node) -> bool:
    return isinstance(node, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.Call,
                             ast.BinOp, ast.Constant, ast.JoinedStr))


def _counts(fn, name: str) -> bool:
    """An integer parameter that counts: it bounds a range, a while loop or a table, or a recursion
    steps it down."""
    names = _aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("range", "str", "bin"):
            if any(isinstance(x, ast.Name) and x.id in names for a in n.args for x in ast.walk(a)):
                return True
        if isinstance(n, ast.While) and any(isinstance(x, ast.Name) and x.id in names for x in ast.walk(n.test)):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Mult) and \
                any(isinstance(x, ast.List) for x in (n.left, n.right)) and \
                any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(n)):
            return True
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == fn.name:
            for a in n.args:
                if isinstance(a, ast.BinOp) and isinstance(a.left, ast.Name) and a.left.id == name:
                    return True
    return False


def _grid(fn, name: str) -> bool:
    """Rows of cells: indexed twice (`p[i][j]`) or measured by its first row (`len(p[0])`)."""
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Subscript) and \
                isinstance(n.value.value, ast.Name) and n.value.value.id == name and \
                not isinstance(n.slice, ast.Slice):
            return True
    return False


def _walked(fn, name: str) -> bool:
    """A parameter whose contents are read: iterated, measured, indexed, sliced, a method called on it,
    handed to a builtin that walks it, or to a function (which may)."""
    for n in ast.walk(fn):
        if isinstance(n, (ast.For, ast.comprehension)) and _mentions(n.iter, name):
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
        if isinstance(n, ast.While) and _mentions(n.test, name):
            return True
    return False


def _bitwise(fn, name: str) -> bool:
    """An integer read bit by bit or digit by digit (shifts, masks, `% 10`, `str(x)`): its size is its
    number of bits or digits."""
    names = _aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("str", "bin") and \
                n.args and isinstance(n.args[0], ast.Name) and n.args[0].id in names:
            return True
        if isinstance(n, (ast.BinOp, ast.AugAssign)) and isinstance(n.op, (ast.Mod, ast.FloorDiv)) and \
                _const(n.right if isinstance(n, ast.BinOp) else n.value) == 10:
            target = n.left if isinstance(n, ast.BinOp) else n.target
            if isinstance(target, ast.Name) and target.id in names:
                return True
        ops = (n.op,) if isinstance(n, (ast.BinOp, ast.AugAssign)) else ()
        if any(isinstance(o, (ast.RShift, ast.LShift, ast.BitAnd)) for o in ops):
            target = n.left if isinstance(n, ast.BinOp) else n.target
            if isinstance(target, ast.Name) and target.id in names:
                return True
    return False


def _aliases(fn, name: str) -> set:
    """`name` and the names set from it alone (`mask = n`, `num = abs(n)`)."""
    out = {name}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            v = n.value.args[0] if isinstance(n.value, ast.Call) and len(n.value.args) == 1 else n.value
            if isinstance(v, ast.Name) and v.id in out:
                out.add(n.targets[0].id)
    return out


def _updates(body) -> dict:
    """name -> how the loop body changes it: "half" (//= 2, >>= 1, *= 2), "step" (+= 1),
    "node" / "node-tree" (= x.next / = x.left)."""
    out: dict[str, str] = {}
    mod = ast.Module(body=list(body), type_ignores=[])
    for n in ast.walk(mod):
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
            k = _const(n.value)
            if isinstance(n.op, (ast.FloorDiv, ast.Div, ast.RShift, ast.LShift)) or \
                    isinstance(n.op, ast.Mult) and isinstance(k, (int, float)) and k >= 2:
                out[n.target.id] = "half"
            elif isinstance(n.op, (ast.Add, ast.Sub)):
                out.setdefault(n.target.id, "step")
        elif isinstance(n, ast.Assign):
            for t in n.targets:
                for nm, v in _pairs(t, n.value):
                    if isinstance(v, ast.BinOp):
                        k = _const(v.right)
                        if isinstance(v.op, (ast.FloorDiv, ast.Div, ast.RShift)) and _mentions(v.left, nm) or \
                                isinstance(v.op, ast.Mult) and isinstance(k, (int, float)) and k >= 2 and \
                                _mentions(v.left, nm):
                            out[nm] = "half"
                        elif isinstance(v.op, (ast.Add, ast.Sub)):
                            out.setdefault(nm, "step")
                        elif isinstance(v.op, ast.Mod):
                            out[nm] = "half"  # Euclid's gcd: a, b = b, a % b
                    elif isinstance(v, ast.Attribute) and v.attr in NODE_STEPS:
                        out[nm] = "node-tree" if NODE_STEPS[v.attr] == "tree" and out.get(nm) != "node" else "node"
                    elif isinstance(v, ast.Name) and v.id in ("mid", "middle", "m", "pivot"):
                        out[nm] = "half"
                    elif isinstance(v, ast.Name):
                        out.setdefault(nm, "step")
    return out


def _pairs(t, v):
    if isinstance(t, ast.Name):
        return [(t.id, v)]
    if isinstance(t, ast.Tuple) and isinstance(v, ast.Tuple) and len(t.elts) == len(v.elts):
        return [p for a, b in zip(t.elts, v.elts) for p in _pairs(a, b)]
    return []


def _mentions(node, name: str) -> bool:
    return any(isinstance(x, ast.Name) and x.id == name for x in ast.walk(node))


def _binary_search(s: ast.While, names: set) -> bool:
    """lo/hi narrowed to a midpoint: `mid = (lo + hi) // 2` then `lo = mid + 1` or `hi = mid`."""
    mids = set()
    for n in ast.walk(ast.Module(body=list(s.body), type_ignores=[])):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                any(isinstance(x, ast.BinOp) and (isinstance(x.op, (ast.FloorDiv, ast.Div)) and _const(x.right) in (2, 3)
                                                  or isinstance(x.op, ast.RShift)) for x in ast.walk(n.value)):
            mids.add(n.targets[0].id)
    if not mids:
        return False
    for n in ast.walk(ast.Module(body=list(s.body), type_ignores=[])):
        if isinstance(n, ast.Assign) and any(isinstance(t, ast.Name) and t.id in names for t in n.targets) and \
                any(isinstance(x, ast.Name) and x.id in mids for x in ast.walk(n.value)):
            return True
    return False


def _mids(fn) -> set:
    """Names set to a midpoint: `mid = (lo + hi) // 2`, `m = lo + (hi - lo) // 2`."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                any(isinstance(x, ast.BinOp) and (isinstance(x.op, (ast.FloorDiv, ast.Div)) and _const(x.right) in (2, 3)
                                                  or isinstance(x.op, ast.RShift)) for x in ast.walk(n.value)):
            out.add(n.targets[0].id)
    return out


def _visited(fn) -> bool:
    """A recursion that marks where it has been (`seen.add(x)`, `visited[i][j] = True`, `grid[i][j] = '#'`)
    and returns when it is there again: each state is entered once."""
    marks = any(isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "add" or
                isinstance(n, ast.Assign) and any(isinstance(t, ast.Subscript) for t in n.targets)
                for n in ast.walk(fn))
    checks = any(isinstance(n, ast.If) and any(isinstance(b, ast.Return) for b in n.body) for n in ast.walk(fn))
    return marks and checks


def _alternatives(fn) -> set:
    """ids of the self-calls of `fn` that run at most one per call: each the whole of a `return`
    (`return f(lo, mid)` in one branch, `return f(mid + 1, hi)` in the other)."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Call) and isinstance(n.value.func, (ast.Name, ast.Attribute)):
            f = n.value.func
            if (f.id if isinstance(f, ast.Name) else f.attr) == fn.name:
                out.add(id(n.value))
    return out


def _self_concat(s):
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


def _amortised(s: ast.While, names: set, updates: dict, enclosing: list) -> bool:
    """An inner while loop whose steps the enclosing loops pay for: it advances a pointer an enclosing
    while also advances or restarts from (`cur = cur.next` in both; `l = r` after the inner `r += 1`),
    or it pops a stack that the enclosing loop pushes once per turn (a monotonic stack)."""
    moved = {nm for nm in names if updates.get(nm)}
    for outer in enclosing:
        if not isinstance(outer, ast.While):
            continue
        outer_names = {n.id for n in ast.walk(outer.test) if isinstance(n, ast.Name)}
        if moved & outer_names:
            return True
        for n in ast.walk(outer):
            if isinstance(n, ast.Assign) and isinstance(n.value, ast.Name) and n.value.id in moved and \
                    any(isinstance(t, ast.Name) and t.id in outer_names for t in n.targets):
                return True
    popped = {c.func.value.id for c in ast.walk(ast.Module(body=list(s.body), type_ignores=[]))
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in ("pop", "popleft")
              and isinstance(c.func.value, ast.Name)}
    pushed = {c.func.value.id for c in ast.walk(ast.Module(body=list(s.body), type_ignores=[]))
              if isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
              c.func.attr in ("append", "appendleft", "add", "extend") and isinstance(c.func.value, ast.Name)}
    return bool((popped & names) - pushed) and bool(enclosing)


def _emptiness(test) -> list:
    """The collections a while test asks to be non-empty: `while q`, `while len(q) > 0`, `while a and b`."""
    if isinstance(test, ast.Name):
        return [test.id]
    if isinstance(test, ast.BoolOp):
        return [x for v in test.values for x in _emptiness(v)]
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "len" and test.args and \
            isinstance(test.args[0], ast.Name):
        return [test.args[0].id]
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and _const(test.comparators[0]) == 0:
        return _emptiness(test.left)
    if isinstance(test, ast.Attribute) and isinstance(test.value, ast.Name) and test.value.id == "self":
        return ["self." + test.attr]
    return []


def _squared(test) -> bool:
    """`i * i <= n`, `i ** 2 < n`: the loop runs to the square root of its bound."""
    for n in ast.walk(test):
        if isinstance(n, ast.BinOp) and (isinstance(n.op, ast.Mult) and ast.dump(n.left) == ast.dump(n.right) or
                                         isinstance(n.op, ast.Pow) and _const(n.right) == 2):
            return True
    return False


def _halved(node) -> bool:
    return isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.RShift)) or _mid_name(node)


def _mid(sl: ast.Slice) -> bool:
    return any(_halved(x) for x in (sl.lower, sl.upper) if x is not None)


def _mid_name(node) -> bool:
    return isinstance(node, ast.Name) and node.id in ("mid", "middle", "m", "half", "pivot", "p") or \
        isinstance(node, ast.BinOp) and isinstance(node.left, ast.Name) and node.left.id in ("mid", "middle", "pivot")
