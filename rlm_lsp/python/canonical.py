"""Canonical names: the same code under any consistent renaming reads the same.

Names that mean nothing outside the code are replaced, in order of first appearance in the
text, by canonical ones: `v0, v1, ...` for variables and parameters, `f0, ...` for the
functions and methods the code defines, `C0, ...` for its classes, `a0, ...` for the other
attributes it defines (`obj.name = ...`, a class-level assignment). Scopes follow Python's
rules (LEGB, class bodies, comprehensions, `global` / `nonlocal`, the walrus), so two
variables that happen to share a name in different functions get different canonical names,
and a free name keeps its own.

Names that point outside stay, since they carry meaning: builtins, imported modules and what
is taken from them (`heapq.heappush`, `defaultdict`), free names the code does not bind, dunder
names (`__init__`, `__name__`), and attributes the code does not define (`list.append`).
A keyword argument is renamed with the parameter it names when the call is to a function the
code defines.

Typed names (`typed=True`, preprocess `canon_v2`): a variable whose first binding in the text is
a plain assignment of a value of a known kind is named for that kind instead of `v`: `l0` for a
list (`[]`, a list comprehension, `[0] * n`, `list(...)`, `sorted(...)`), `d0` for a dict (`{}`,
`dict(...)`, `defaultdict(...)`, `Counter(...)`), `s0` for a set, `q0` for a deque, `t0` for a
tuple, `c0` for a string and `n0` for a number (`0`, `len(...)`, `int(...)`). Every use of the
variable then says what it holds (`x in s0` against `x in l0`: the cost of membership), which a
real name often did (`seen`, `memo`, `dp`). The kind is read off the syntax alone (the value's
node type and the builtin or imported name it calls), so the names stay exactly invariant under
any consistent renaming.

Also exact: statements with no effect are dropped (`pass` or a bare constant beside other
statements). Pure Python (ast): no torch, no numpy. The result is a function of the syntax tree
alone, so it is the same on every Python version that parses the code.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from rlm_lsp.python.canonical_scopes import _WALKED, Binder, Scope, is_dunder, walked_fields


def canonicalize(tree: ast.Module, outside: frozenset[str] | Mapping[str, str] = frozenset(), typed: bool = False,
                 no_ops_dropped: bool = False) -> ast.Module:
    """Rename `tree` in place to canonical names (see the module doc) and return it.

    `outside`: names the code's surroundings define (the other functions and globals of its
    file). A free name or an attribute among them is renamed too, to `g0, g1, ...` by first
    appearance, so renaming a helper does not change its callers. For comparing versions of a
    function (`rlm_lsp.policy.rules`); the model reads snippets canonicalised without it. `typed`:
    variables named for the kind of value they are first assigned (see the module doc).
    `no_ops_dropped`: the caller has dropped every `no_op` statement already (a body left empty
    holds one `pass`), as `preprocess` does while it strips, so the pass that would is skipped."""
    if not no_ops_dropped:
        _drop_no_ops(tree)
    scopes = Binder()
    scopes.visit(tree)
    _Renamer(scopes, outside, typed).run(tree)
    return tree


# -- typed names: the kind of value a variable is first assigned --------------------------------

_CALL_KINDS = {"list": "l", "sorted": "l", "dict": "d", "defaultdict": "d", "Counter": "d", "OrderedDict": "d",
               "set": "s", "frozenset": "s", "deque": "q", "tuple": "t", "str": "c", "len": "n", "int": "n",
               "float": "n", "abs": "n", "ord": "n", "bool": "n"}


def nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node under `tree` but the `ctx` markers, in `ast.walk`'s order (breadth first, fields
    in order), as a list: about three times as fast as `ast.walk`, and one list serves several
    passes over a tree none of them reshapes. A pass that only replaces a node's own fields sees
    what `ast.walk` would show it, since `ast.walk` queues a node's children before yielding the
    node. No pass looks at a `Load`/`Store` node itself (they read `node.ctx`), and leaving them
    out leaves a third fewer nodes to visit."""
    out = [tree]
    i = 0
    AST = ast.AST
    walked = _WALKED
    while i < len(out):
        node = out[i]
        i += 1
        fields = walked.get(type(node)) or walked_fields(type(node))
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                out.extend(item for item in value if isinstance(item, AST))
            elif isinstance(value, AST):
                out.append(value)
    return out


def value_kind(value: ast.AST, stays=lambda func: True) -> str | None:
    """`l`, `d`, `s`, `q`, `t`, `c` or `n` for a value whose kind its syntax shows; else None.
    `stays(func)`: whether a called name keeps its own (a builtin or an import, not something the
    code defines and so renames: a function of its own called `sorted` says nothing)."""
    if isinstance(value, (ast.List, ast.ListComp)):
        return "l"
    if isinstance(value, (ast.Dict, ast.DictComp)):
        return "d"
    if isinstance(value, (ast.Set, ast.SetComp)):
        return "s"
    if isinstance(value, ast.Tuple):
        return "t"
    if isinstance(value, ast.JoinedStr):
        return "c"
    if isinstance(value, ast.Constant):
        if isinstance(value.value, str):
            return "c"
        if isinstance(value.value, (bool, int, float)):
            return "n"
        return None
    if isinstance(value, ast.UnaryOp) and isinstance(value.operand, ast.Constant):
        return value_kind(value.operand, stays)
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Mult):
        kinds = {value_kind(value.left, stays), value_kind(value.right, stays)}
        return "l" if "l" in kinds else None  # [0] * n, n * [[]]
    if isinstance(value, ast.Call):
        func = value.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        return _CALL_KINDS.get(name) if name is not None and stays(func) else None
    return None


def _first_values(tree: ast.AST) -> dict[int, ast.AST]:
    """id(target Name) -> the value a plain assignment gives it (`x = v`, `x: T = v`, `(x := v)`)."""
    out: dict[int, ast.AST] = {}
    for node in nodes(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    out[id(target)] = node.value
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and isinstance(node.target, ast.Name) and node.value:
            out[id(node.target)] = node.value
    return out


# -- no-op statements ---------------------------------------------------------------------------


def _drop_no_ops(tree: ast.AST) -> None:
    for node in nodes(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if not (isinstance(body, list) and body and isinstance(body[0], ast.stmt)):
                continue
            kept = [s for s in body if not no_op(s)]
            if kept or name != "body" or isinstance(node, ast.Module):
                setattr(node, name, kept)
            else:
                setattr(node, name, [ast.Pass()])


def no_op(stmt: ast.stmt) -> bool:
    """`pass` or a bare constant: a statement that does nothing."""
    return isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))


# -- pass 2: canonical names by first appearance ------------------------------------------------


class _Renamer:
    def __init__(self, binder: Binder, outside: frozenset[str] | Mapping[str, str] = frozenset(), typed: bool = False):
        self.b = binder
        self.outside = outside
        self.typed = typed
        self.kinds: dict[tuple, str] = {}  # binding key -> the kind its first binding shows (typed)
        self.names: dict[tuple, str] = {}  # (binding scope id or "attr", name) -> canonical
        self.counts: dict[str, int] = {}
        self.taken: set[str] = set()  # names that stay, so no canonical name may equal one

    def run(self, tree: ast.Module) -> None:
        every = nodes(tree)
        occurrences = []  # (position, node)
        for node in every:
            pos = _position(node)
            if pos is not None:
                occurrences.append((pos, node))
        occurrences.sort(key=lambda item: item[0])
        self._calls = {id(kw): node for node in every if isinstance(node, ast.Call) for kw in node.keywords}
        self._defs: dict[tuple, list[ast.AST]] = {}  # binding key -> the defs that bind it
        for node in every:
            where = self.b.where.get(id(node))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and where is not None and where.kind != "class":
                resolved = self.resolve(where, node.name)
                if resolved is not None:
                    self._defs.setdefault(resolved[0], []).append(node)
        resolved = [(node, list(self._keys(node))) for _, node in occurrences]  # before any rename
        self.taken = {name for _, keys in resolved for key, name in keys if key is None}
        if self.typed:
            self._type_bindings(resolved, _first_values(tree))
        for node, keys in resolved:
            self._rename(node, keys)

    def _type_bindings(self, resolved, values: dict[int, ast.AST]) -> None:
        """The kind of each variable, from the first place in the text that binds it: a plain
        assignment of a value whose kind shows (`value_kind`); anything else (a parameter, a loop
        target, an unpacking, an unknown value) leaves it `v`."""
        decided: set[tuple] = set()
        for node, keys in resolved:
            if not (isinstance(node, ast.arg) or (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))):
                continue
            for key_kind, _ in keys:
                if key_kind is None or key_kind[1] != "v" or key_kind[0] in decided:
                    continue
                decided.add(key_kind[0])
                value = values.get(id(node)) if isinstance(node, ast.Name) else None
                kind = value_kind(value, self._stays) if value is not None else None
                if kind is not None:
                    self.kinds[key_kind[0]] = kind

    def _stays(self, func: ast.AST) -> bool:
        """Whether a called name or attribute keeps its own name (is not renamed)."""
        if isinstance(func, ast.Name):
            where = self.b.where.get(id(func))
            return where is not None and self.resolve(where, func.id) is None
        if isinstance(func, ast.Attribute):
            return is_dunder(func.attr) or self._attr(func.attr) is None
        return False

    # the binding a name refers to: (key, kind) or None for a name that stays
    def resolve(self, scope: Scope, name: str):
        if name in scope.globals:
            return self._global(scope, name)
        start: Scope | None = scope
        if name in scope.nonlocals:
            start = scope.parent
        elif scope.kind == "class":
            kind = self.b.attr_defined.get(name) if scope.node is not None and self._class_binds(scope, name) else None
            if kind is not None:
                return ("attr", name), kind
            start = scope.parent
        s = start
        while s is not None:
            if s.kind == "class":
                s = s.parent
                continue
            if name in s.imported:
                return None
            if name in s.bound and name not in s.globals:
                return (id(s), name), s.bound[name]
            if s.kind == "module":
                break
            s = s.parent
        return self._outside(name)

    def _outside(self, name: str):
        """A name the surroundings define: `g` (a set of names), or the kind they give it (a mapping
        from `defined_kinds`: named as if the code defined it)."""
        if name not in self.outside:
            return None
        return ("outside", name), (self.outside[name] if isinstance(self.outside, Mapping) else "g")

    def _global(self, scope: Scope, name: str):
        module = scope.module()
        if name in module.bound and name not in module.imported:
            return (id(module), name), module.bound[name]
        return self._outside(name)

    def _class_binds(self, scope: Scope, name: str) -> bool:
        node = scope.node
        if node is None:
            return False
        for stmt in ast.walk(node):
            if stmt is node:
                continue
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and stmt.name == name:
                if self.b.where.get(id(stmt)) is scope:
                    return True
            if isinstance(stmt, ast.Name) and stmt.id == name and isinstance(stmt.ctx, (ast.Store, ast.Del)):
                if self.b.where.get(id(stmt)) is scope:
                    return True
        return False

    def _attr(self, name: str):
        kind = self.b.attr_defined.get(name)
        if kind is None:
            return (("outside", name), "g") if name in self.outside else None
        return ("attr", name), kind

    def _keys(self, node):
        """(binding key or None, name) for each name `node` carries."""
        where = self.b.where.get(id(node))
        if isinstance(node, ast.Name) and where is not None:
            yield self.resolve(where, node.id), node.id
        elif isinstance(node, ast.arg) and where is not None:
            yield self.resolve(where, node.arg), node.arg
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and where is not None:
            if where.kind == "class":
                yield self._attr(node.name) if not is_dunder(node.name) else None, node.name
            else:
                yield self.resolve(where, node.name), node.name
        elif isinstance(node, ast.Attribute):
            yield self._attr(node.attr) if not is_dunder(node.attr) else None, node.attr
        elif isinstance(node, (ast.Global, ast.Nonlocal)) and where is not None:
            for name in node.names:
                yield self.resolve(where, name), name
        elif isinstance(node, ast.ExceptHandler) and node.name and where is not None:
            yield self.resolve(where, node.name), node.name
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name and where is not None:
            yield self.resolve(where, node.name), node.name
        elif isinstance(node, ast.MatchMapping) and node.rest and where is not None:
            yield self.resolve(where, node.rest), node.rest
        elif isinstance(node, ast.keyword) and node.arg is not None:
            yield self._keyword(node), node.arg

    def _canonical(self, resolved) -> str:
        key, kind = resolved
        kind = self.kinds.get(key, kind)
        if key not in self.names:
            while True:
                n = self.counts.get(kind, 0)
                self.counts[kind] = n + 1
                name = f"{kind}{n}"
                if name not in self.taken:
                    break
            self.names[key] = name
        return self.names[key]

    def _rename(self, node, keys) -> None:
        if not keys:
            return
        new = [self._canonical(k) if k is not None else name for k, name in keys]
        if isinstance(node, ast.Name):
            node.id = new[0]
        elif isinstance(node, ast.arg):
            node.arg = new[0]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            node.name = new[0]
        elif isinstance(node, ast.Attribute):
            node.attr = new[0]
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            node.names = new
        elif isinstance(node, ast.ExceptHandler):
            node.name = new[0]
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
            node.name = new[0]
        elif isinstance(node, ast.MatchMapping):
            node.rest = new[0]
        elif isinstance(node, ast.keyword):
            node.arg = new[0]

    def _keyword(self, kw: ast.keyword):
        """A keyword argument of a call to a function the code defines: the parameter's binding."""
        call = self._calls.get(id(kw))
        if call is None:
            return None
        target = self._callee(call)
        if target is None:
            return None
        scope = self.b.scope_of.get(id(target))
        if scope is not None and kw.arg in scope.bound and kw.arg not in scope.globals:
            params = {a.arg for a in [*target.args.posonlyargs, *target.args.args, *target.args.kwonlyargs]}
            if kw.arg in params:
                return (id(scope), kw.arg), "v"
        return None

    def _callee(self, call: ast.Call):
        func = call.func
        if isinstance(func, ast.Name):
            where = self.b.where.get(id(func))
            resolved = self.resolve(where, func.id) if where is not None else None
            if resolved is None or resolved[1] != "f":
                return None
            defs = self._defs.get(resolved[0], [])
            return defs[0] if len(defs) == 1 else None
        if isinstance(func, ast.Attribute):
            defs = self.b.methods.get(func.attr, [])
            return defs[0] if len(defs) == 1 else None
        return None


def _position(node: ast.AST):
    """Where the name a node carries stands in the text, for 'order of first appearance'."""
    if isinstance(node, ast.Attribute):
        return (node.end_lineno, node.end_col_offset, 1)
    if isinstance(node, (ast.Name, ast.arg, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                         ast.Global, ast.Nonlocal, ast.ExceptHandler, ast.MatchAs, ast.MatchStar,
                         ast.MatchMapping, ast.keyword)):
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            return None
        return (lineno, node.col_offset, 0)
    return None
