"""One function's code, once per statement with that statement left out: what the value attribution
(`rlm_lsp.runtime.attribution`) predicts again to tell which statements drive a prediction.

    code -> the function's statements, in source order: its body's, then each compound statement's
            body's (nested blocks, an `else:`, an `except:`, a `case:`, a nested def's), docstrings
            skipped -> per statement, the code without it (`pass` where a block would be empty)

A left-out compound statement takes its whole block with it, so an outer loop's removal includes
its inner loop's. Variants are rendered by `ast.unparse`: the model reads the canonical text (its
normaliser re-renders by `ast.unparse` too), so comments and layout never make a difference.
At most `cap` statements, the first in source order: the caller says "first 40" when cut.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

CAP = 40
TEXT_CHARS = 48  # a statement's shown text, cut with "…"
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TOO_DEEP = (RecursionError, MemoryError)


@dataclass(frozen=True)
class Statement:
    line: int  # 1-based, in the function's code (its first decorator is line 1)
    end_line: int
    text: str  # its first line, stripped (a compound statement's header), at most TEXT_CHARS


@dataclass(frozen=True)
class Variants:
    items: tuple[tuple[Statement, str], ...]  # (statement, the code without it), at most `cap`
    total: int  # how many statements the function has; more than len(items) when cut


def leave_each_out(code: str, cap: int = CAP) -> Variants:
    """The code without each of its function's statements in turn. Empty for code that does not
    parse or holds no function."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, *_TOO_DEEP):
        return Variants((), 0)
    fn = next((n for n in tree.body if isinstance(n, _DEFS)), None)
    if fn is None:
        return Variants((), 0)
    paths = list(_paths(fn, ()))
    top = [q for q in paths if len(q) == 1]
    if len(top) == 1:  # the function's only statement: without it nothing is left to compare, so only
        paths.remove(top[0])  # what is inside it is left out in turn
    lines = code.splitlines()
    items = []
    for path in paths[: max(0, cap)]:
        node = _at(fn, path)
        try:
            variant = ast.unparse(_without(tree, tree.body.index(fn), path))
        except _TOO_DEEP:
            continue
        first = lines[node.lineno - 1].strip() if node.lineno - 1 < len(lines) else ast.unparse(node)
        items.append((Statement(node.lineno, node.end_lineno or node.lineno, _short(first)), variant + "\n"))
    return Variants(tuple(items), len(paths))


# A path names a statement by the way down to it: ((field, index), ...) from the function, where
# field is "body", "orelse", "finalbody", ("handlers", i, "body") or ("cases", i, "body").
Field = str | tuple[str, int, str]
Path = tuple[tuple[Field, int], ...]


def _blocks(node: Any) -> Iterator[tuple[Field, list]]:
    """(field, statements) of every block of a compound statement, in source order."""
    if isinstance(getattr(node, "body", None), list):  # not a lambda's or an expression's
        yield "body", node.body
    for i, h in enumerate(getattr(node, "handlers", []) or []):
        yield ("handlers", i, "body"), h.body
    for i, c in enumerate(getattr(node, "cases", []) or []):
        yield ("cases", i, "body"), c.body
    for field in ("orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield field, block


def _paths(node: ast.AST, prefix: Path) -> Iterator[Path]:
    """Every statement under `node`'s blocks, pre-order (a statement before the ones inside it)."""
    for field, block in _blocks(node):
        for i, child in enumerate(block):
            if i == 0 and _is_docstring(node, field, child):
                continue
            path = (*prefix, (field, i))
            yield path
            yield from _paths(child, path)


def _is_docstring(owner: ast.AST, field: Field, node: ast.stmt) -> bool:
    return (field == "body" and isinstance(owner, (*_DEFS, ast.ClassDef)) and isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str))


def _block(node: ast.AST, field: Field) -> list:
    if isinstance(field, tuple):
        name, i, inner = field
        return getattr(getattr(node, name)[i], inner)
    return getattr(node, field)


def _at(node: ast.AST, path: Path) -> Any:
    for field, i in path:
        node = _block(node, field)[i]
    return node


def _without(tree: ast.Module, fn_index: int, path: Path) -> ast.Module:
    """A copy of `tree` with the statement at `path` (under its function) removed; `pass` in its place
    where its block would be left empty (or hold only a docstring)."""
    tree = copy.deepcopy(tree)
    owner = tree.body[fn_index]
    for field, i in path[:-1]:
        owner = _block(owner, field)[i]
    field, i = path[-1]
    block = _block(owner, field)
    removed = block.pop(i)
    if not block or (len(block) == 1 and _is_docstring(owner, field, block[0])):
        block.append(ast.copy_location(ast.Pass(), removed))
    return tree


def _short(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1].rstrip() + "…"
