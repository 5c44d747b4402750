"""Pass 1 of canonical names (`rlm_lsp.python.canonical`): who binds what, by Python's scope rules.

`Binder` walks a syntax tree once and records, for every scope (module, function, lambda,
class body, comprehension), the names it binds and how ("v" variable or parameter, "f" function,
"C" class), what it imports, and its `global` / `nonlocal` declarations; and for every name node,
the scope it is evaluated in. Pass 2 (`rlm_lsp.python.canonical._Renamer`) resolves each name through these.
"""

from __future__ import annotations

import ast
from collections import deque
from dataclasses import dataclass, field

# fields that never hold a node worth a pass: `ctx` (Load/Store/Del markers) and scalar fields
# (`name` is not among them: in 3.12 a `type X = ...` statement holds a Name there)
_NOT_WALKED = frozenset({"ctx", "id", "arg", "attr", "asname", "module", "level", "kind", "type_comment",
                         "is_async", "conversion", "simple", "tag", "rest"})
_WALKED: dict[type[ast.AST], tuple[str, ...]] = {ast.Global: (), ast.Nonlocal: ()}  # their `names` are strings


def walked_fields(cls: type[ast.AST]) -> tuple[str, ...]:
    """The fields of an AST class that may hold nodes `nodes` lists (no `ctx`, no scalars)."""
    fields = _WALKED.get(cls)
    if fields is None:
        fields = _WALKED[cls] = tuple(f for f in cls._fields if f not in _NOT_WALKED)
    return fields


@dataclass(eq=False)
class Scope:
    kind: str  # "module" | "function" | "class" | "comp"
    parent: Scope | None
    node: ast.AST | None = None
    bound: dict[str, str] = field(default_factory=dict)  # name -> "v" | "f" | "C"
    imported: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)

    def bind(self, name: str, kind: str = "v") -> None:
        if self.bound.get(name) in ("f", "C") and kind == "v":
            return  # a def keeps its kind when the name is reassigned
        self.bound[name] = kind

    def module(self) -> Scope:
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


def is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


class Binder(ast.NodeVisitor):
    """Builds the scope tree: each Name / arg / def is tagged with the scope it appears in."""

    def __init__(self):
        self.module = Scope("module", None)
        self.scope = self.module
        self.where: dict[int, Scope] = {}  # id(node) -> the scope the node is evaluated in
        self.scope_of: dict[int, Scope] = {}  # id(scope node) -> the scope it opens
        self.attr_defined: dict[str, str] = {}  # attribute name -> "f" (method) | "a"
        self.methods: dict[str, list[ast.AST]] = {}

    def generic_visit(self, node: ast.AST) -> None:
        """`ast.NodeVisitor`'s, over `walked_fields` only: no `ctx` markers, no scalars."""
        for name in walked_fields(type(node)):
            value = getattr(node, name, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    # scopes
    def _open(self, kind: str, node: ast.AST) -> Scope:
        scope = Scope(kind, self.scope, node)
        self.scope_of[id(node)] = scope
        return scope

    def _in(self, scope: Scope, nodes) -> None:
        outer, self.scope = self.scope, scope
        for n in nodes:
            self.visit(n)
        self.scope = outer

    def _bind_def(self, node, kind: str) -> None:
        self.where[id(node)] = self.scope
        if self.scope.kind == "class":
            if not is_dunder(node.name):
                self.attr_defined[node.name] = "f" if kind == "f" else "a"
                if kind == "f":
                    self.methods.setdefault(node.name, []).append(node)
        else:
            self.scope.bind(node.name, kind)

    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            self.visit(d)
        self._visit_defaults(node.args)
        if node.returns is not None:
            self.visit(node.returns)
        self._bind_def(node, "f")
        scope = self._open("function", node)
        self._in(scope, [node.args, *node.body])

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self._visit_defaults(node.args)
        scope = self._open("function", node)
        self._in(scope, [node.args, node.body])

    def _visit_defaults(self, args: ast.arguments) -> None:
        for d in [*args.defaults, *[d for d in args.kw_defaults if d is not None]]:
            self.visit(d)

    def visit_arguments(self, node: ast.arguments):
        for a in [*node.posonlyargs, *node.args, node.vararg, *node.kwonlyargs, node.kwarg]:
            if a is not None:
                self.where[id(a)] = self.scope
                self.scope.bind(a.arg)
                if a.annotation is not None:
                    self.visit(a.annotation)

    def visit_ClassDef(self, node):
        for n in [*node.decorator_list, *node.bases, *node.keywords]:
            self.visit(n)
        self._bind_def(node, "C")
        scope = self._open("class", node)
        self._in(scope, node.body)

    def _visit_comp(self, node, parts):
        generators = node.generators
        self.visit(generators[0].iter)  # the first iterable is evaluated outside
        scope = self._open("comp", node)
        inner = []
        for i, gen in enumerate(generators):
            inner.append(gen.target)
            if i:
                inner.append(gen.iter)
            inner.extend(gen.ifs)
        self._in(scope, [*inner, *parts])

    def visit_ListComp(self, node):
        self._visit_comp(node, [node.elt])

    visit_SetComp = visit_GeneratorExp = visit_ListComp

    def visit_DictComp(self, node):
        self._visit_comp(node, [node.key, node.value])

    # bindings
    def visit_Name(self, node: ast.Name):
        self.where[id(node)] = self.scope
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self._bind_name(self.scope, node.id)

    def _bind_name(self, scope: Scope, name: str) -> None:
        if name in scope.globals:
            self.module.bind(name)
        elif name in scope.nonlocals:
            return
        elif scope.kind == "class":
            if not is_dunder(name):
                self.attr_defined.setdefault(name, "a")
        else:
            scope.bind(name)

    def visit_NamedExpr(self, node: ast.NamedExpr):
        self.visit(node.value)
        scope = self.scope
        while scope.kind == "comp":
            scope = scope.parent
        self.where[id(node.target)] = scope
        self._bind_name(scope, node.target.id)

    def visit_Attribute(self, node: ast.Attribute):
        self.visit(node.value)
        if isinstance(node.ctx, (ast.Store, ast.Del)) and not is_dunder(node.attr):
            self.attr_defined.setdefault(node.attr, "a")

    def visit_Global(self, node: ast.Global):
        self.where[id(node)] = self.scope
        self.scope.globals.update(node.names)

    def visit_Nonlocal(self, node: ast.Nonlocal):
        self.where[id(node)] = self.scope
        self.scope.nonlocals.update(node.names)

    def visit_Import(self, node):
        for alias in node.names:
            self.scope.imported.add((alias.asname or alias.name).split(".")[0])

    visit_ImportFrom = visit_Import

    def visit_ExceptHandler(self, node: ast.ExceptHandler):
        if node.type is not None:
            self.visit(node.type)
        if node.name:
            self.where[id(node)] = self.scope
            self._bind_name(self.scope, node.name)
        for s in node.body:
            self.visit(s)

    def _visit_capture(self, node, attr: str):
        name = getattr(node, attr)
        if name:
            self.where[id(node)] = self.scope
            self._bind_name(self.scope, name)
        self.generic_visit(node)

    def visit_MatchAs(self, node):
        self._visit_capture(node, "name")

    def visit_MatchStar(self, node):
        self._visit_capture(node, "name")

    def visit_MatchMapping(self, node):
        self._visit_capture(node, "rest")


_DEF_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _definitions(tree: ast.AST):
    """The function and class definitions of `tree` at any depth, in `ast.walk`'s order, reached
    through statement lists only (a definition is a statement): a tenth of the nodes a full walk visits."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        if isinstance(node, _DEF_NODES):
            yield node
        for block in _BLOCKS:
            todo.extend(getattr(node, block, None) or ())


def defined_kinds(tree: ast.AST) -> dict[str, str]:
    """What a file defines, with the prefix its own text would give each: `f` a function or method,
    `C` a class, `v` a module-level variable (a name defined twice: the first of those kinds)."""
    kinds: dict[str, str] = {}
    for n in _definitions(tree):
        kinds.setdefault(n.name, "C" if isinstance(n, ast.ClassDef) else "f")
    for name in _module_variables(tree):
        kinds.setdefault(name, "v")
    return {k: v for k, v in kinds.items() if not is_dunder(k)}


def defined_names(tree: ast.AST) -> frozenset[str]:
    """What a file defines: every function, class and module-level variable (for `outside`)."""
    names = {n.name for n in _definitions(tree)} | _module_variables(tree)
    return frozenset(n for n in names if not is_dunder(n))


def _module_variables(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for stmt in getattr(tree, "body", []):
        for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
            if target is not None:
                names.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
    return names
