"""The cost front end's expressions: what each one's value is (`Val`: a length, a magnitude, an
element) and what evaluating it costs (library calls, allocations, string copies, calls of the
file's own functions and of the function itself).

`Expressions` is the walker's half that reads expressions (`cost_front._Walker` is the other half,
statements and loops); it emits steps of the loop-and-call form as it goes. Node types are asked for
by role (`cost_syntax.EXPRESSIONS`), so one reading serves C++, Java and Go.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.form import Call, Store, Work
from rlm_lsp.polyglot import cost_library as lib
from rlm_lsp.polyglot.cost_library import CHAR, CONTAINERS, NUMBER, ONE, UNKNOWN, Val, length, total
from rlm_lsp.polyglot.cost_loops import MIDS, NODE_STEPS
from rlm_lsp.polyglot.cost_params import kind_of
from rlm_lsp.polyglot.cost_syntax import EXPRESSIONS, base, field, name_of, number, op, text, walk

PACKAGES = {"std", "Arrays", "Collections", "Math", "Integer", "Long", "String", "Character", "System", "List",
            "Map", "Set", "Objects", "Double", "Boolean", "sort", "strings", "math", "fmt", "strconv", "heap",
            "slices", "unicode", "bytes", "utf8", "bits", "maps", "ranges", "IntStream", "Stream", "Collectors"}
_LOG_FIELDS = {"left", "right", "Left", "Right", "children"}


class Expressions:
    # The walker's state and steps these methods use (`cost_front._Walker` defines them).
    env: dict[str, Val]
    front: Any
    node: Any
    language: str
    params: list
    trips: list
    changing: set[str]
    returned: set[int]
    fn_name: str
    scaled_params: set[str]

    if TYPE_CHECKING:
        def emit(self, step: Any) -> None: ...
        def work(self, e: lib.Effect, line: int, what: str) -> None: ...
        def grow(self, name: str, by: Cost, line: int, what: str) -> None: ...
        def assign(self, node: Any) -> Val: ...
        def primary_or_one(self) -> Cost: ...

    def ev(self, e) -> Val:
        if e is None:
            return UNKNOWN
        role = EXPRESSIONS[self.language].get(e.type, "")
        line = e.start_point[0] + 1
        if role == "name":
            return self.env.get(name_of(e) or text(e), UNKNOWN)
        if role == "num":
            return NUMBER
        if role == "str":
            return Val(length=ONE, kind="str", depth=-1)
        if role == "char":
            return CHAR
        if role in ("paren", "cast"):
            inner = field(e, "operand", "value") or (e.named_children[-1] if e.named_children else None)
            v = self.ev(inner)
            t = field(e, "type")
            if e.type == "type_conversion_expression" and t is not None and v.kind in ("str", "list"):
                kind = "str" if text(t) == "string" else "list"
                self.work(lib.Effect(length(v), length(v)), line, f"{text(t)}(...) (a copy)")
                return Val(length=length(v), kind=kind, elem=CHAR, depth=-1)
            return v
        if role == "field":
            return self.field_access(e)
        if role == "index":
            return self.index(e, line)
        if role == "slice":
            return self.slice(e, line)
        if role == "binary":
            return self.binary(e, line)
        if role == "unary":
            v = self.ev(base(e))
            return NUMBER if op(e) == "!" else v
        if role == "update":
            self.assign(e)
            return NUMBER
        if role == "assign":
            return self.assign(e)
        if role == "ternary":
            self.ev(field(e, "condition"))
            a, b = self.ev(field(e, "consequence")), self.ev(field(e, "alternative"))
            return a if a.length is not None or a.mag is not None else b
        if role == "lambda":
            return Val(kind="function")  # its body runs where it is called (a comparator: in the sort's cost)
        if role == "list":
            return self.literal(e)
        if role == "new":
            return self.new(e, line)
        if role == "call":
            return self.call(e, line)
        out = UNKNOWN
        for c in e.named_children:
            out = self.ev(c)
        return out if role == "comma" else UNKNOWN

    # -- parts ------------------------------------------------------------------------------------
    def field_access(self, e) -> Val:
        b, f = base(e), text(field(e, "field"))
        if b is not None and b.type == "this":
            return self.env.get(f, UNKNOWN)
        v = self.ev(b)
        if f == "length" and v.kind in ("list", "grid", "str"):
            return Val(mag=length(v), kind="int", param=v.param)
        if f in NODE_STEPS and (v.kind == "node" or v.param):
            return Val(length=v.length, kind="node", param=v.param, step="tree" if f in _LOG_FIELDS else "const")
        if f in ("first", "second") and v.elem is not None:
            return v.elem
        return UNKNOWN

    def index(self, e, line: int) -> Val:
        b = self.filling(self.ev(base(e)))
        idx = field(e, "indices", "index") or (e.named_children[-1] if e.named_children else None)
        self.ev(idx)
        if b.kind in ("tmap", "hmap", "tset", "hset"):
            cost = lib.keyed_cost(b)
            if not lib.free(cost):
                self.work(lib.Effect(cost), line, "an ordered map's lookup")
        if b.kind == "str":
            return CHAR
        return b.elem if b.elem is not None else UNKNOWN

    def slice(self, e, line: int) -> Val:
        """Go's `s[a:b]`: a view of the same bytes (a string's slice too shares them): no copy."""
        b = self.ev(field(e, "operand"))
        lo, hi = field(e, "start"), field(e, "end")
        for x in (lo, hi, field(e, "capacity")):
            self.ev(x)
        half = any(x is not None and (text(x) in MIDS or any(n.type == "binary_expression" and op(n) in ("/", ">>")
                                                            for n in walk(x))) for x in (lo, hi))
        width = ONE if number(hi) is not None and (lo is None or number(lo) is not None) else length(b)
        return replace(b, length=width, depth=-1, step="half" if half else "const")

    def binary(self, e, line: int) -> Val:
        left, right = field(e, "left"), field(e, "right")
        a, b = self.ev(left), self.ev(right)
        o = op(e)
        strs = [v for v in (a, b) if v.kind == "str"]
        if o == "+" and strs and (a.kind == "str" or self.language == "java"):
            n = length(a).plus(length(b)) if a.kind == b.kind else length(strs[0])
            if not n.is_constant():
                self.work(lib.Effect(n, n), line, "+ on strings (a copy)")
            return Val(length=n, kind="str", depth=-1)
        if o in ("<", "<=", ">", ">=", "==", "!=", "&&", "||", "instanceof"):
            return NUMBER
        am, bm = a.mag, b.mag
        param = a.param or b.param
        step = ""
        if o in ("+", "|", "^"):
            mag = am.plus(bm) if am is not None and bm is not None else am if am is not None else bm
            step = "const" if number(right) is not None or number(left) is not None else ""
        elif o == "-":
            mag, step = (am if am is not None else bm), "const"
        elif o == "*":
            mag = am.times(bm) if am is not None and bm is not None else am if am is not None else bm
        elif o in ("/", ">>"):
            mag, step = am, ("half" if (number(right) or 0) not in (0, 1) or o == ">>" else "")
        elif o == "%":
            mag = bm if bm is not None else am
        elif o == "<<":
            mag = bm.exponential() if bm is not None and not bm.is_constant() else am
        else:
            mag = am if am is not None else bm
        return Val(mag=mag, kind="int" if mag is not None else "", param=param, step=step,
                   length=a.length if a.kind == "node" else None)

    def literal(self, e) -> Val:
        """`{1, 2}`, `new int[]{...}`, Go's `[]int{...}` / `map[K]V{}` / `&Node{...}`: a few elements."""
        for c in e.named_children:
            if c.type not in ("literal_value",):
                continue
            for x in walk(c):
                if x.type in ("call_expression", "method_invocation", "index_expression", "slice_expression"):
                    self.ev(x)
        t = field(e, "type")
        kind, el = kind_of(t) if t is not None else ("list", "")
        if kind == "node" or t is not None and t.type == "type_identifier":
            return Val(kind="object", depth=-1)
        return Val(length=ONE, kind="list" if kind == "grid" else kind or "list", elem=_elem_of(el), depth=-1)

    def new(self, e, line: int) -> Val:
        """An allocation: `new int[n]`, `new int[n][m]`, `new ArrayList<>(xs)`, `new Node(x)`."""
        dims = [c for c in e.named_children if c.type == "dimensions_expr"]
        decl = field(e, "declarator")
        if decl is not None and decl.type == "new_declarator":
            dims = [c for c in walk(decl) if c.type == "new_declarator"]
            sizes = [self.ev(field(d, "length")) for d in dims]
        else:
            sizes = [self.ev(d.named_children[0] if d.named_children else None) for d in dims]
        init = next((c for c in e.named_children if c.type in ("array_initializer", "initializer_list")), None)
        if sizes:
            n = ONE
            for s in sizes:
                n = n.times(s.mag if s.mag is not None else self.primary_or_one())
            self.work(lib.Effect(n, n, known=all(s.mag is not None for s in sizes)), line, "a new array")
            row = Val(length=sizes[1].mag, kind="list", elem=NUMBER) if len(sizes) > 1 else NUMBER
            return Val(length=sizes[0].mag or self.primary_or_one(), kind="list", elem=row, depth=-1)
        if init is not None:
            self.ev(init)
            return Val(length=ONE, kind="list", depth=-1)
        kind, el = kind_of(field(e, "type"))
        args = [self.ev(a) for a in (field(e, "arguments").named_children if field(e, "arguments") else [])]
        if kind in CONTAINERS and args and args[0].kind in CONTAINERS + ("iter",):
            n = length(args[0])
            self.work(lib.Effect(n, n), line, "a copy of a container")
            return Val(length=n, kind=kind, elem=args[0].elem, depth=-1)
        if kind in CONTAINERS:
            return Val(length=ONE, kind=kind, elem=_elem_of(el), depth=-1)
        return Val(kind="object", depth=-1)

    def call(self, e, line: int) -> Val:
        f = field(e, "function")
        recv_node, name, scope = None, "", ""
        if self.language == "java":
            recv_node, name = field(e, "object"), text(field(e, "name"))
        elif f is not None and f.type in ("field_expression", "selector_expression"):
            recv_node, name = base(f), text(field(f, "field"))
        elif f is not None and f.type == "qualified_identifier":
            scope, name = text(f).rsplit("::", 1) if "::" in text(f) else ("", text(f))
            scope = scope.rsplit("::", 1)[-1]
        elif f is not None and f.type == "template_function":
            name = text(field(f, "name")).rsplit("::", 1)[-1]
        else:
            name = text(f)
        if recv_node is not None and recv_node.type == "this":
            recv_node = None
        if recv_node is not None and text(recv_node) in PACKAGES and text(recv_node) not in self.env:
            scope, recv_node = text(recv_node), None
        arg_nodes = list(field(e, "arguments").named_children) if field(e, "arguments") is not None else []
        args = [self.ev(a.named_children[0] if a.type == "variadic_argument" and a.named_children else a)
                for a in arg_nodes]
        own = self.front.names.get(name)
        if own is not None and not scope and (recv_node is None or self.language == "go" and
                                              text(recv_node) not in PACKAGES):
            return self.own_call(e, own, args, arg_nodes, line)
        if recv_node is not None:
            recv = self.filling(self.ev(recv_node))
            eff = lib.method(name, recv, args, [text(a) for a in arg_nodes])
            if eff is not None:
                self.work(eff, line, f".{name}()")
                if eff.store is not None and name_of(recv_node):
                    self.grow(name_of(recv_node), eff.store, line, f".{name}()")
                return eff.result
        else:
            if f is not None and f.type == "template_function" or name in ("vector", "string") and not scope:
                return self.construct(lib.type_kind(name), args, line)
            eff = lib.function(name, scope, args)
            if eff is not None:
                self.work(eff, line, f"{name}()")
                spread = name == "append" and any(a.type == "variadic_argument" for a in arg_nodes)
                if name == "append" and args and name_of(arg_nodes[0]):
                    by = length(args[-1]) if spread else Cost.one()
                    self.grow(name_of(arg_nodes[0]), by, line, "append()")
                    return self.env.get(name_of(arg_nodes[0]), args[0])
                if spread and len(args) > 1:  # `append([]int(nil), xs...)`: a copy of xs
                    return self.construct("list", [args[-1]], line)
                return eff.result
            if name == "make" and not scope and arg_nodes:
                return self.make(arg_nodes[0], args[1:], line)
        self.emit(Work(ONE, Cost.zero(), line, f"call of {(scope + '.' if scope else '') + name or '?'}", False))
        return UNKNOWN

    def construct(self, kind: str, args: list[Val], line: int) -> Val:
        """A container made with its sizes: `vector<int> v(n, 0)`, `vector<vector<int>>(n, vector<int>(m))`,
        `string(n, 'a')`, a copy `vector<int>(xs)` or of an iterator range."""
        if not args:
            return Val(length=ONE, kind=kind or "list", depth=-1)
        first = args[0]
        if first.kind in CONTAINERS + ("iter", "grid"):
            n, el = length(first), first.elem
        else:
            n = first.mag if first.mag is not None else self.primary_or_one()
            el = args[1] if len(args) > 1 else NUMBER
        v = Val(length=n, kind=kind or "list", elem=el, depth=-1)
        size = total(v)
        if not size.is_constant():
            self.work(lib.Effect(size, size, known=first.mag is not None or first.kind != ""), line, "a new container")
        return v

    def make(self, type_node, args: list[Val], line: int) -> Val:
        """Go's `make([]T, n)`, `make([]T, 0, n)` (room for n), `make(map[K]V)`."""
        kind, el = kind_of(type_node)
        mags = [a.mag if a.mag is not None else self.primary_or_one() for a in args]
        room = Cost.zero()
        for m in mags:
            room = room.plus(m)
        if room.terms and not room.is_constant():
            self.work(lib.Effect(room, room, known=all(a.mag is not None for a in args)), line, "make()")
        return Val(length=mags[0] if mags else ONE, kind="list" if kind == "grid" else kind or "list",
                   elem=Val(kind="list") if kind == "grid" else _elem_of(el), depth=-1)

    # -- calls of the file's own functions ---------------------------------------------------------
    def own_call(self, e, node, args: list[Val], arg_nodes: list, line: int) -> Val:
        from rlm_lsp.polyglot.cost_params import params as params_of
        if node is self.node:
            shrink, depth = self.shrink(arg_nodes, args)
            self.emit(Call(self.fn_name, {}, line, shrink, depth, alternative=e.id in self.returned))
            return UNKNOWN
        name = self.front.function(node)
        callee = params_of(node, self.language)
        sizes = {}
        for p, a in zip(callee, args):
            size = a.mag if p.kind == "int" else a.length
            if size is not None:
                sizes[name + "." + p.name] = size
            if p.by_value and a.length is not None and not a.length.is_constant():
                self.work(lib.Effect(total(a), total(a)), line, f"a copy of {p.name} (passed by value)")
        self.emit(Call(name, sizes, line))
        return UNKNOWN

    def shrink(self, arg_nodes: list, args: list[Val]) -> tuple[str, Cost]:
        """How a call of the function by itself shrinks its input, and how deep that goes."""
        steps, depth = set(), Cost.zero()
        for i, (a_node, a) in enumerate(zip(arg_nodes, args)):
            p = self.params[i] if i < len(self.params) else None
            if p is None or name_of(a_node) == p.name:
                continue
            self.changing.add(p.name)
            mids = any(text(x) in MIDS for x in walk(a_node) if x.type == "identifier")
            step = "half" if mids or a.step == "half" else \
                a.step or ("const" if p.kind == "int" or a.kind == "int" else "")
            if step:
                steps.add(step)
            pv = self.env.get(p.name, UNKNOWN)
            size = pv.mag if pv.kind == "int" and pv.mag is not None and not pv.mag.is_constant() else pv.length
            if size is not None and not size.is_constant() and p.name in self.scaled_params:
                depth = depth.plus(size)
        if not depth.terms:
            depth = self.primary_or_one()
        for s in ("half", "tree", "const"):
            if s in steps:
                return s, depth
        return "", depth

    def filling(self, v: Val) -> Val:
        """An ordered map, set or heap made empty and filled in the loops around: as large as they run
        (its log n is paid on every operation, the first ones included)."""
        if v.kind not in ("tmap", "tset", "heap") or not length(v).is_constant() or v.depth < 0:
            return v
        return replace(v, length=Cost.product(self.trips[v.depth:]))

    def kept(self, target, v: Val, line: int, what: str) -> None:
        """`value` stored into an element or a field (`dp[i] = make([]int, m)`, `cur->next = new Node`):
        what it holds stays, once per turn of the loops it runs in."""
        times = Cost.product(self.trips)
        size = total(v) if v.kind in CONTAINERS and v.depth == -1 else ONE if v.kind == "object" else None
        if size is not None and not (size.is_constant() and not self.trips):
            self.emit(Store(size.times(times), line, what))


def _elem_of(kind: str) -> Val:
    return CHAR if kind == "str" else Val(kind=kind) if kind else UNKNOWN
