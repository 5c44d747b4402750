"""Semantics-preserving rewrites of a program, for the stability benchmark and its tests.

Written apart from `rlm_lsp.python.canonical` on purpose (the renames use `symtable`, the compiler's own
scope analysis, not our resolver), so the benchmark checks the canonicaliser instead of echoing it.
Each function takes the source and a `random.Random` and returns new source, or None when the
rewrite does not apply to that program.
"""

from __future__ import annotations

import ast
import builtins
import collections
import io
import keyword
import random
import string
import symtable
import tokenize

_BUILTINS = set(dir(builtins))
_TYPE_ATTRS = {a for t in (list, dict, set, str, bytes, int, float, tuple, frozenset, collections.deque,
                           collections.Counter, collections.defaultdict, collections.OrderedDict) for a in dir(t)}


def _fresh(rng: random.Random, taken: set[str]) -> str:
    while True:
        name = "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(3, 9)))
        if name not in taken and name not in _BUILTINS and not keyword.iskeyword(name) \
                and not keyword.issoftkeyword(name):
            taken.add(name)
            return name


def _tables(code: str):
    stack = [symtable.symtable(code, "<rewrite>", "exec")]
    while stack:
        table = stack.pop()
        yield table
        stack.extend(table.get_children())


def _all_names(tree: ast.AST) -> set[str]:
    out = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
        elif isinstance(n, ast.keyword) and n.arg:
            out.add(n.arg)
    return out


def _keywords(tree: ast.AST) -> set[str]:
    return {n.arg for n in ast.walk(tree) if isinstance(n, ast.keyword) and n.arg}


def _apply(tree: ast.AST, mapping: dict[str, str], attrs: bool = False) -> str:
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and n.id in mapping:
            n.id = mapping[n.id]
        elif isinstance(n, ast.arg) and n.arg in mapping:
            n.arg = mapping[n.arg]
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name in mapping:
            n.name = mapping[n.name]
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            n.names = [mapping.get(x, x) for x in n.names]
        elif isinstance(n, ast.ExceptHandler) and n.name in mapping:
            n.name = mapping[n.name]
        elif attrs and isinstance(n, ast.Attribute) and n.attr in mapping:
            n.attr = mapping[n.attr]
    return ast.unparse(tree) + "\n"


def rename_locals(code: str, rng: random.Random) -> str | None:
    """Rename every local variable and parameter of every function (not what is free or global)."""
    tree = ast.parse(code)
    candidates: set[str] = set()
    unsafe: set[str] = set()
    module_assigned = set()
    for table in _tables(code):
        for sym in table.get_symbols():
            name = sym.get_name()
            if table.get_type() == "module":
                if sym.is_assigned() and not sym.is_imported():
                    module_assigned.add(name)
                continue
            if table.get_type() != "function":
                continue
            if sym.is_imported() or sym.is_global() or sym.is_free():
                unsafe.add(name)
            elif sym.is_parameter() or sym.is_assigned() or sym.is_local():
                candidates.add(name)
    # a name also used as a keyword, an attribute, a def name or a module global keeps its meaning elsewhere
    keep = _keywords(tree) | {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    keep |= {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    names = sorted(candidates - unsafe - keep - module_assigned - _BUILTINS - {"self", "cls"})
    if not names:
        return None
    taken = _all_names(tree)
    return _apply(tree, {n: _fresh(rng, taken) for n in names})


def rename_functions(code: str, rng: random.Random) -> str | None:
    """Rename every function and method the program defines (calls and `self.name` too)."""
    tree = ast.parse(code)
    defs = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    # a method named like a builtin type's (`insert`, `get`) may be called on a list or a dict too;
    # renaming those calls would change what the program does, so such methods keep their names
    names = sorted(d for d in defs if not d.startswith("__") and d not in _keywords(tree) and d not in _TYPE_ATTRS)
    if not names:
        return None
    taken = _all_names(tree)
    return _apply(tree, {n: _fresh(rng, taken) for n in names}, attrs=True)


def reformat(code: str, rng: random.Random) -> str | None:
    """Other spacing, a comment on every logical line, blank lines: the same tokens."""
    tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    out = []
    for tok in tokens:
        if tok.type == tokenize.NEWLINE:
            out.append((tokenize.COMMENT, "  # " + rng.choice(("note", "todo: check", "ok", "step"))))
            out.append((tok.type, tok.string))
            out.append((tokenize.NL, "\n"))
        elif tok.type == tokenize.COMMENT:
            continue
        else:
            out.append((tok.type, tok.string))
    return tokenize.untokenize(out)


def add_hints(code: str, rng: random.Random) -> str | None:
    tree = ast.parse(code)
    hints = ("int", "list[int]", "str", "'Optional[TreeNode]'", "dict", "float")
    done = False
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]:
                if a.annotation is None and a.arg not in ("self", "cls"):
                    a.annotation = ast.parse(rng.choice(hints), mode="eval").body
                    done = True
            if fn.returns is None:
                fn.returns = ast.parse(rng.choice(hints), mode="eval").body
                done = True
    return ast.unparse(tree) + "\n" if done else None


def remove_hints(code: str, rng: random.Random) -> str | None:
    tree = ast.parse(code)
    done = False
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs, fn.args.vararg, fn.args.kwarg]:
                if a is not None and a.annotation is not None:
                    a.annotation, done = None, True
            if fn.returns is not None:
                fn.returns, done = None, True
    return ast.unparse(tree) + "\n" if done else None


def add_docstrings(code: str, rng: random.Random) -> str | None:
    tree = ast.parse(code)
    fns = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    if not fns:
        return None
    for fn in fns:
        text = rng.choice(("Return the answer.", "Helper.", "See the problem statement.\n\nO(n) time."))
        fn.body.insert(0, ast.Expr(ast.Constant(text)))
    return ast.unparse(tree) + "\n"


def remove_docstrings(code: str, rng: random.Random) -> str | None:
    tree = ast.parse(code)
    done = False
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module)):
            body = fn.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                fn.body = body[1:] or [ast.Pass()]
                done = True
    return ast.unparse(tree) + "\n" if done else None


def unused_assignment(code: str, rng: random.Random) -> str | None:
    """`_x = 0` at the top of every function."""
    tree = ast.parse(code)
    fns = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not fns:
        return None
    for fn in fns:
        at = 1 if fn.body and isinstance(fn.body[0], ast.Expr) and isinstance(fn.body[0].value, ast.Constant) else 0
        fn.body.insert(at, ast.parse("_x = 0").body[0])
    return ast.unparse(tree) + "\n"


def _simple(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.Assign) or not all(isinstance(t, ast.Name) for t in stmt.targets):
        return False
    return not any(isinstance(n, (ast.Call, ast.NamedExpr, ast.Yield, ast.Await, ast.Attribute, ast.Subscript))
                   for n in ast.walk(stmt.value))


def swap_statements(code: str, rng: random.Random) -> str | None:
    """Swap one pair of adjacent assignments of plain names, neither of which reads or writes
    what the other writes, and with no calls (so no side effects to reorder)."""
    tree = ast.parse(code)
    spots = []
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            body = getattr(node, field, None)
            if not isinstance(body, list):
                continue
            for i in range(len(body) - 1):
                a, b = body[i], body[i + 1]
                if _simple(a) and _simple(b):
                    wa = {t.id for t in a.targets}
                    wb = {t.id for t in b.targets}
                    ra = {n.id for n in ast.walk(a.value) if isinstance(n, ast.Name)}
                    rb = {n.id for n in ast.walk(b.value) if isinstance(n, ast.Name)}
                    if not (wa & (wb | rb)) and not (wb & ra):
                        spots.append((body, i))
    if not spots:
        return None
    body, i = rng.choice(spots)
    body[i], body[i + 1] = body[i + 1], body[i]
    return ast.unparse(tree) + "\n"


def caller_alone(code: str, rng: random.Random):
    """The editor's view of `rename_functions`: (before, after) snippets (`rlm_lsp.python.snippets`)
    of the first function that calls another function of its file, each to be read alone with its
    file's names (`Snippet.context()`), as the editor, `rlm predict` and the gate read it; None where
    no function calls another. The caller is found by position: it is renamed with the others."""
    from rlm_lsp.python import outside, snippets

    old = snippets.extract(code)
    entry = next((i for i, s in enumerate(old) if _calls(s.code) & set(outside.kinds_for(s.outside, s.code))), None)
    new = rename_functions(code, rng) if entry is not None else None
    found = snippets.extract(new) if new is not None else []
    return (old[entry], found[entry]) if len(found) == len(old) else None


def _calls(code: str) -> set[str]:
    return {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(ast.parse(code))
            if isinstance(n, (ast.Name, ast.Attribute))}


# not a whole-program rewrite: `bench/stability.py` predicts the caller alone, before and after
CALLER_ALONE = "rename functions, a caller read alone"

REWRITES = {
    "rename locals and parameters": rename_locals,
    "rename functions": rename_functions,
    "reformat": reformat,
    "add type hints": add_hints,
    "remove type hints": remove_hints,
    "add docstrings": add_docstrings,
    "remove docstrings": remove_docstrings,
    "insert an unused assignment": unused_assignment,
    "swap two independent statements": swap_statements,
}
EXACT = ("rename locals and parameters", "rename functions", "reformat", "add type hints", "remove type hints",
         "add docstrings", "remove docstrings")  # the rewrites the canonical input removes exactly
