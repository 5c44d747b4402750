"""The cost analyzer's Python front end, its expressions: what each one's value is (`Val`: a length,
a magnitude, an element) and what evaluating it costs (library calls, slices, `in` on a list,
comprehensions, calls of the file's own functions and of the function itself).

`Expressions` is the walker's half that reads expressions (`cost_front._Walker` is the other half,
statements and loops); it emits steps of the loop-and-call form as it goes.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.form import Call, Store, Work
from rlm_lsp.python import cost_library as lib
from rlm_lsp.python.cost_library import CHAR, NUMBER, ONE, UNKNOWN, Val, length, printed
from rlm_lsp.python.cost_params import fn_params, param_names
from rlm_lsp.python.cost_probes import marks_param
from rlm_lsp.python.cost_shapes import (
    NODE_STEPS,
    const,
    halved,
    is_char,
    lib_name,
    mid_name,
    mid_slice,
    module_like,
    plus_or,
    slice_width,
)
from rlm_lsp.python.cost_stores import self_attr
from rlm_lsp.python.cost_walk import walk


class Expressions:
    # The walker's state and steps these methods use (`cost_front._Walker` defines them).
    env: dict[str, Val]
    front: Any
    node: Any
    params: list
    changing: set[str]
    mids: set[str]
    doubles: set[str]
    pivots: set[str]
    alternatives: set[int]
    trips: list[Cost]
    enclosing: list
    set_at: dict[str, int]
    exits: list[list]

    if TYPE_CHECKING:
        def work(self, e: lib.Effect, line: int, what: str) -> None: ...
        def emit(self, step: Any) -> None: ...
        def grow(self, name: str, by: Cost, line: int, what: str) -> None: ...
        def keep(self, target: Any, by: Cost, line: int, what: str) -> None: ...
        def bind(self, target: Any, v: Val, value_node: Any) -> None: ...
        def loop(self, trip: Cost, line: int, what: str, body: Any, known: bool = True, node: Any = None) -> None: ...
        def primary_or_one(self) -> Cost: ...
        def state(self, attr: str) -> Val: ...
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
                lo, hi = const(e.slice.lower), const(e.slice.upper)
                if isinstance(hi, int) and hi >= 0 and (e.slice.lower is None or isinstance(lo, int)) or \
                        e.slice.upper is None and isinstance(lo, int) and lo < 0:
                    return replace(base, length=ONE, depth=-1, param="")  # xs[:3], xs[-2:]: a few elements
                width = slice_width(e.slice)
                if width is not None:  # s[i:i + w]: as long as w (a constant: a few elements)
                    w = self.ev(width)
                    n = w.mag if w.mag is not None else w.length if w.length is not None else ONE
                    if not n.is_constant():
                        self.work(lib.Effect(n, n), e.lineno, "a slice (a copy)")
                    return replace(base, length=n, depth=-1, param="")
                n = length(base)
                self.work(lib.Effect(n, n), e.lineno, "a slice (a copy)")
                half = any(b.mag is not None and halved(x) for b, x in zip(bounds, (e.slice.lower, e.slice.upper))
                           if x is not None)
                return replace(base, length=n, depth=-1, step="half" if half or mid_slice(e.slice) else "const")
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
                        grown = Cost.zero() if is_char(left) else self.grown_here(c, right)  # an alphabet at most
                        self.work(lib.Effect(length(right).plus(grown)), e.lineno, "`in` on a list (a scan)")
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
            for item in (*e.keys, *e.values):
                self.ev(item)
            return Val(length=ONE, kind="dict", depth=-1, elem=self.ev(e.values[0]) if e.values else UNKNOWN)
        if isinstance(e, ast.IfExp):
            self.ev(e.test)
            a, b = self.ev(e.body), self.ev(e.orelse)
            return a if a.length is not None or a.mag is not None else b
        if isinstance(e, ast.JoinedStr):
            for part in e.values:
                self.ev(part)
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
            mag = plus_or(am, bm)
            step = "const" if const(e.right) is not None or const(e.left) is not None else ""
        elif isinstance(op, ast.Sub):
            mag, step = am if am is not None else bm, "const"
        elif isinstance(op, ast.Mult):
            mag = am.times(bm) if am is not None and bm is not None else am or bm
            step = ""
        elif isinstance(op, (ast.FloorDiv, ast.Div, ast.RShift)):
            mag, step = am, "half" if (const(e.right) or 0) not in (0, 1) or isinstance(op, ast.RShift) else ""
        elif isinstance(op, ast.Mod):
            mag, step = bm if bm is not None else am, ""
        elif isinstance(op, ast.Pow):
            k = const(e.right)
            mag = am.power(k) if am is not None and isinstance(k, (int, float)) and 0 < k < 4 else \
                (bm.exponential() if bm is not None and const(e.left) is not None else am)
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
        keys: list[Val] = []

        def level(i: int) -> None:
            if i == len(e.generators):
                if isinstance(e, ast.DictComp):
                    keys.append(self.ev(e.key))
                    out.append(self.ev(e.value))
                else:
                    out.append(self.ev(e.elt))
                    keys.append(out[-1])
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
        if kind in ("set", "dict") and keys and all(is_char(k) for k in keys):
            n = ONE  # keyed by characters: an alphabet's worth at most
        self.work(lib.Effect(Cost.zero(), n.times(lib.length(elem) if elem.kind in ("list", "str") else ONE)),
                  line, "a comprehension's result")
        return Val(length=n, kind=kind, elem=elem, depth=-1)

    def call(self, e: ast.Call) -> Val:
        name = lib_name(e)
        recv = self.ev(e.func.value) if isinstance(e.func, ast.Attribute) else None
        args = [self.ev(a) for a in e.args]
        kwargs = {k.arg: self.ev(k.value) for k in e.keywords if k.arg}
        consts = [const(a) for a in e.args]
        own = self.own_callee(e)
        if own is not None:
            return self.own_call(e, own, args)
        if name == "print" and isinstance(e.func, ast.Name):
            self.emit(Store(printed(args), e.lineno, "printed text (stdout is kept)", kept=True))
            return UNKNOWN
        if isinstance(e.func, ast.Attribute) and recv is not None and not module_like(e.func.value):
            eff = lib.method(name, recv, args, consts)
            if eff is not None:
                self.work(eff, e.lineno, f".{name}()")
                char = name == "add" and args and args[0].kind == "str" and args[0].length is not None and \
                    args[0].length.is_constant()
                if eff.store is not None and isinstance(e.func.value, ast.Name) and not char:
                    self.grow(e.func.value.id, eff.store, e.lineno, f".{name}()")
                elif eff.store is not None and self_attr(e.func.value) and not char:
                    self.keep(e.func.value, eff.store, e.lineno, f".{name}()")
                return eff.result
        eff = lib.builtin(name, args, kwargs, consts)
        if eff is not None:
            self.work(eff, e.lineno, f"{name}()")
            if eff.store is not None and e.args and isinstance(e.args[0], ast.Name):
                self.grow(e.args[0].id, eff.store, e.lineno, f"{name}()")
            elif eff.store is not None and e.args and self_attr(e.args[0]):
                self.keep(e.args[0], eff.store, e.lineno, f"{name}()")
            return eff.result
        if isinstance(e.func, ast.Name) and e.func.id in self.env and self.env[e.func.id].kind != "function":
            return UNKNOWN  # a class of the file, a callable parameter
        if isinstance(e.func, ast.Name) and e.func.id[:1].isupper():
            return Val(kind="object")
        self.emit(Work(ONE, Cost.zero(), e.lineno, f"call of {name or '?'}", False))
        return UNKNOWN

    def grown_here(self, node, v: Val) -> Cost:
        """What a list `node` (a local name) gains in the loops around this line, made before them and
        added to in them (`if x not in seen: seen.append(x)`): up to an element a turn, a scan of it
        later in the same loop sees them (the walker reads each loop once, with the list as first made)."""
        if not (isinstance(node, ast.Name) and v.kind == "list" and self.trips and
                len(self.enclosing) == len(self.trips) and 0 <= v.depth < len(self.trips)):
            return Cost.zero()
        loops = self.enclosing[v.depth:]
        added = any(isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and c.func.attr in
                    ("append", "insert", "extend") and isinstance(c.func.value, ast.Name) and c.func.value.id == node.id
                    for c in walk(loops[0]))
        if not added:
            return Cost.zero()
        times = ONE
        for t in self.trips[v.depth:]:
            times = times.times(t)
        return times

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
        self.front.function(node, entry=False, outer={k: v for k, v in outer.items() if k not in param_names(node)},
                            outer_size=self.primary_or_one() if node.name in nested else None)
        callee = self.front.fns[node.name]
        params = [p.arg for p in fn_params(node)]
        sizes = {}
        for p, a in zip(params, args):
            size = a.mag if a.kind == "int" else a.length
            if size is not None:
                sizes[node.name + "." + p] = size
        call = Call(callee.name, sizes, e.lineno)
        shared = [self.set_at.get(a.id, 0) for a, p in zip(e.args, params)
                  if isinstance(a, ast.Name) and marks_param(node, p) and self.set_at.get(a.id, 0) < len(self.trips)]
        if shared:  # a search from every cell, its marks kept across the loop: its time once for the loop
            self.exits[min(shared)].append(replace(call, part="time"))
            self.emit(replace(call, part="kept"))
        else:
            self.emit(call)
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
            step = "half" if mid_name(a_node) or self.mid_like(a_node) or self.split_like(a_node) else \
                a.step or ("const" if a.kind == "int" else "tree" if a.depth > 0 or a.kind == "" else "")
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

    def split_like(self, node) -> bool:
        """An argument that splits the input (`p - 1` of `p = partition(...)`, a filtered comprehension)
        or goes a level down a heap (`largest` of `l = 2 * i + 1`)."""
        names = {x.id for x in walk(node) if isinstance(x, ast.Name)}
        filtered = isinstance(node, (ast.ListComp, ast.GeneratorExp)) and any(g.ifs for g in node.generators)
        return filtered or bool(names & self.pivots) or isinstance(node, ast.Name) and node.id in self.doubles

    def mid_like(self, node) -> bool:
        """An argument built from a midpoint (`mid + 1`, `m - 1`)."""
        return any(isinstance(x, ast.Name) and x.id in self.mids for x in walk(node))

    def _memo_dict(self) -> bool:
        """`if key in memo: return memo[key]` near the top of the body."""
        for s in self.node.body[:4]:
            if isinstance(s, ast.If) and isinstance(s.test, ast.Compare) and \
                    isinstance(s.test.ops[0], ast.In) and any(isinstance(b, ast.Return) for b in s.body):
                return True
        return False


