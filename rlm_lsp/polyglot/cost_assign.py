"""The cost front end's declarations and assignments: what a name is bound to (a container made with
its sizes, a copy, an integer), and what a write keeps (`s += t`, a map's new entry, a row of a table,
a node linked in).

`Assignments` is the walker's third part (`cost_exprs.Expressions` reads expressions,
`cost_front._Walker` statements and loops). Java's and Go's strings cannot grow in place: `s += t`
copies s each time (n per turn in a loop); C++'s `std::string` grows amortised, unless written
`s = s + t` (a temporary copy).
"""

from __future__ import annotations

from dataclasses import replace

from rlm_lsp.polyglot import cost_library as lib
from rlm_lsp.polyglot.cost_exprs import Expressions
from rlm_lsp.polyglot.cost_library import CONTAINERS, NUMBER, ONE, UNKNOWN, Val, length
from rlm_lsp.polyglot.cost_params import kind_of
from rlm_lsp.polyglot.cost_syntax import base, field, name_of, op, text


class Assignments(Expressions):
    set_at: dict[str, int]

    def declaration(self, s) -> None:
        t = s.child_by_field_name("type")
        kind, el = kind_of(t) if t is not None else ("", "")
        if s.type in ("short_var_declaration",):
            return self._bind_pairs(s.child_by_field_name("left"), s.child_by_field_name("right"), s)
        if s.type == "var_declaration":
            for spec in s.named_children:
                k, _ = kind_of(spec.child_by_field_name("type"))
                for n in spec.children_by_field_name("name"):
                    self._set(text(n), Val(length=ONE, kind=k, depth=len(self.trips)) if k in CONTAINERS else
                              Val(mag=ONE, kind=k) if k == "int" else UNKNOWN)
                if spec.child_by_field_name("value") is not None:
                    self._bind_pairs(None, spec.child_by_field_name("value"), spec,
                                     [text(n) for n in spec.children_by_field_name("name")])
            return
        for d in s.children_by_field_name("declarator"):
            self._declarator(d, kind, el, s.start_point[0] + 1)

    def _declarator(self, d, kind: str, el: str, line: int) -> None:
        if d.type in ("init_declarator", "variable_declarator"):
            name = name_of(field(d, "declarator", "name")) or text(field(d, "declarator", "name")).lstrip("*&")
            value = d.child_by_field_name("value")
            if value is not None and value.type == "argument_list":  # vector<int> v(n, 0)
                v = self.construct(kind, [self.ev(a) for a in value.named_children], line)
            elif value is not None and value.type == "initializer_list" and kind in CONTAINERS:
                self.ev(value)
                v = Val(length=ONE, kind=kind, depth=-1)
            else:
                v = self.ev(value) if value is not None else UNKNOWN
                if kind in CONTAINERS and v.kind not in CONTAINERS:
                    v = replace(v, kind=kind, length=v.length or ONE)
                elif kind == "int" and v.mag is None:
                    v = replace(v, kind="int")
            if field(d, "dimensions") is not None and value is None:
                v = UNKNOWN
            self._set(name, v)
        elif d.type == "function_declarator":  # vector<vector<int>> dp(n, vector<int>(m)): C++'s vexing parse
            args = [self._vexing(p) for p in (field(d, "parameters").named_children if field(d, "parameters") else [])]
            self._set(name_of(field(d, "declarator")), self.construct(kind, args, line))
        elif d.type == "array_declarator":  # int a[n][m]
            n, inner = ONE, d
            while inner is not None and inner.type == "array_declarator":
                size = self.ev(field(inner, "size"))
                n = n.times(size.mag if size.mag is not None else ONE)
                inner = field(inner, "declarator")
            if not n.is_constant():
                self.work(lib.Effect(n, n), line, "an array")
            self._set(name_of(inner), Val(length=n, kind="list", elem=NUMBER, depth=-1))
        elif d.type in ("identifier", "reference_declarator", "pointer_declarator"):
            name = name_of(d) or (text(d.named_children[-1]) if d.named_children else "")
            self._set(name, Val(length=ONE, kind=kind, elem=lib.CHAR if el == "str" else UNKNOWN, depth=len(self.trips))
                      if kind in CONTAINERS else Val(mag=ONE, kind="int") if kind == "int" else UNKNOWN)

    def _vexing(self, p) -> Val:
        """A 'parameter' of a declaration C++ reads as a function's: a name (`n`) or `vector<int>(m)`."""
        t, d = p.child_by_field_name("type"), p.child_by_field_name("declarator")
        if d is not None and d.type == "abstract_function_declarator":
            inner = [self._vexing(q) for q in (field(d, "parameters").named_children if field(d, "parameters") else [])]
            return self.construct(kind_of(t)[0], inner, p.start_point[0] + 1)
        return self.env.get(text(t), NUMBER if t is not None and t.type == "primitive_type" else UNKNOWN)

    def _set(self, name: str, v: Val) -> None:
        if not name:
            return
        if v.kind in CONTAINERS and v.depth == -1:
            v = replace(v, depth=len(self.trips))
        self.env[name] = v
        self.set_at[name] = len(self.trips)

    def _bind_pairs(self, left, right, s, names: list[str] | None = None) -> None:
        ls = names if names is not None else [name_of(c) for c in (left.named_children if left is not None else [])]
        rs = right.named_children if right is not None and right.type == "expression_list" else [right]
        vals = [self.ev(r) for r in rs]
        for i, nm in enumerate(ls):
            if nm and nm != "_":
                self._set(nm, vals[i] if i < len(vals) and len(vals) == len(ls) else
                          (vals[0].elem or UNKNOWN) if i == 0 and vals else UNKNOWN)

    def assign(self, node) -> Val:
        """An assignment or update (`x = e`, `s += t`, `i++`, `m[k]++`, Go's `a, b = b, a`)."""
        line = node.start_point[0] + 1
        if node.type in ("update_expression", "inc_statement", "dec_statement"):
            target = field(node, "argument") or (node.named_children[0] if node.named_children else None)
            self._store_into(target, NUMBER, line)
            return NUMBER
        o = op(node)
        left, right = field(node, "left"), field(node, "right")
        if left is not None and left.type == "expression_list":
            ls = left.named_children
            if len(ls) > 1 or o != "=":
                vals = [self.ev(r) for r in (right.named_children if right is not None else [])]
                for i, t in enumerate(ls):
                    if name_of(t) and i < len(vals) and len(vals) == len(ls) and o == "=":
                        self._set(name_of(t), vals[i])
                    elif not name_of(t):
                        self._store_into(t, vals[i] if i < len(vals) else UNKNOWN, line)
                if o != "=" and len(ls) == 1:
                    return self._compound(ls[0], right.named_children[0] if right.named_children else None, o, line)
                return UNKNOWN
            left = ls[0] if ls else None
            right = right.named_children[0] if right is not None and right.named_children else right
        if o != "=":
            return self._compound(left, right, o, line)
        name = name_of(left)
        if name and right is not None and right.type == "binary_expression" and op(right) == "+" and \
                name_of(field(right, "left")) == name and self.env.get(name, UNKNOWN).kind == "str":
            return self._compound(left, field(right, "right"), "+=", line, copy=True)
        v = self.ev(right)
        if name and not (left.type in ("field_expression", "field_access", "selector_expression")
                         and name_of(base(left)) != "" and base(left).type != "this"):
            self._set(name, v)
        else:
            self.ev(base(left)) if left is not None and left.type != "identifier" else None
            self._store_into(left, v, line)
        return v

    def _compound(self, left, right, o: str, line: int, copy: bool = False) -> Val:
        v = self.ev(right)
        name = name_of(left)
        cur = self.env.get(name, UNKNOWN) if name else UNKNOWN
        if o == "+=" and cur.kind in ("str", "list"):
            self.work(lib.Effect(length(v)), line, "+=")
            self.grow(name, length(v), line, "+= (it grows)")
            if copy or self.language != "cpp":  # Java's and Go's strings cannot grow: a new copy each time
                self.work(lib.Effect(length(self.env[name]), length(self.env[name])), line, "s += t (a copy of s)")
            return self.env[name]
        if not name:
            self._store_into(left, v, line)
        return cur

    def _store_into(self, target, v: Val, line: int) -> None:
        """A write into an element or a field: a map's new entry, a row kept in a table, a node linked in."""
        if target is None or target.type == "identifier":
            return
        if target.type in ("subscript_expression", "array_access", "index_expression"):
            b = self.filling(self.ev(base(target)))
            self.ev(field(target, "indices", "index"))
            if b.kind in ("hmap", "tmap", "hset", "tset") and name_of(base(target)):
                self.work(lib.Effect(lib.keyed_cost(b)), line, "an ordered map's entry")
                self.grow(name_of(base(target)), ONE.plus(lib.total(v) if v.kind in CONTAINERS else ONE), line,
                          "an entry stored")
                return
        self.kept(target, v, line, "kept in an element or a field")
