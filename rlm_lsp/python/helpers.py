"""A function's same-file helpers: the source the cost analyzer reads beside the function itself.

    def solve(grid):              solve's helpers: dfs (called by name), and what dfs calls in turn;
        return dfs(grid, 0, 0)    a method's: the methods of its class it calls through `self.`

`add` sets `Snippet.helpers` on every function of a parsed file: the dedented text of each helper
(decorators included), in file order, at most `MAX_CHARS` in all. The model never reads them (its
input is the function alone, `Snippet.code`); they reach the analyzer through the predict call's
context (`readers.HELPERS`), as a `--jsonl` row's code carries its helpers before its entry.
"""

from __future__ import annotations

import ast
import dataclasses
import textwrap
from collections.abc import Sequence

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MAX_CHARS = 40_000  # past this the rest of a function's helpers are left out (an unknown call, said as such)


def add(tree: ast.Module, lines: Sequence[str], snippets: list) -> list:
    """`snippets` (of `tree`'s file) each with its helpers set; the same objects where it has none."""
    if not snippets:
        return snippets
    top: dict[str, ast.AST] = {}
    where: dict[int, tuple[ast.AST, ast.ClassDef | None]] = {}  # a def's first line (0-based) -> (def, its class)

    def walk(node: ast.AST, cls: ast.ClassDef | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, FUNCS):
                where[_start(child)] = (child, cls)
                if cls is None:
                    top.setdefault(child.name, child)
            elif isinstance(child, ast.ClassDef):
                walk(child, child)
            elif isinstance(child, (ast.If, ast.Try, ast.With)):
                walk(child, cls)

    walk(tree, None)
    out = []
    for s in snippets:
        found = where.get(s.start_line)
        text = _helpers(found[0], found[1], top, lines) if found else ""
        out.append(dataclasses.replace(s, helpers=text) if text else s)
    return out


def _helpers(fn: ast.AST, cls: ast.ClassDef | None, top: dict[str, ast.AST], lines: Sequence[str]) -> str:
    methods = {m.name: m for m in cls.body if isinstance(m, FUNCS)} if cls is not None else {}
    seen: dict[int, ast.AST] = {}
    todo = [fn]
    while todo:
        node = todo.pop()
        for call in ast.walk(node):
            if not isinstance(call, ast.Call):
                continue
            f = call.func
            target = top.get(f.id) if isinstance(f, ast.Name) else \
                methods.get(f.attr) if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id in ("self", "cls") else None
            if target is not None and target is not fn and id(target) not in seen:
                seen[id(target)] = target
                todo.append(target)
    parts, size = [], 0
    for node in sorted(seen.values(), key=_start):
        text = textwrap.dedent("\n".join(lines[_start(node): getattr(node, "end_lineno", None)])) + "\n"
        if size + len(text) > MAX_CHARS:
            break
        parts.append(text)
        size += len(text)
    return "\n\n".join(parts) + "\n\n" if parts else ""


def _start(fn) -> int:
    return min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
