"""Code normalisation before the template: the same function at training and at inference.

A model directory names its normaliser (`rlm_config.json` / `rlm_meta.json` key
`preprocess`); the predictor calls `apply(name, code)` on every input, the trainer
on every training row. Pure Python (ast, tokenize, re): no torch, no numpy.

Why: the training programs are LeetCode submissions (`class Solution:` with
`self`, type hints, comments, docstrings), the programs we are judged on are
also plain scripts reading stdin. `strip_v1` removes that surface so the model
reads what the code does rather than how LeetCode wraps it:

- comments, docstrings and bare string statements are dropped;
- type annotations are dropped (`nums: List[int]` -> `nums`);
- a top-level `class Solution` is unwrapped: its methods become top-level
  functions, `self`/`cls` parameters go and `self.x` becomes `x`;
- the text is re-rendered by `ast.unparse` (4-space indents, one quote style).

Code that does not parse as Python 3 (Python 2, half-typed edits) gets a
textual approximation of the same steps, so every input yields something.

`canon_v1` is `strip_v1` followed by canonical names (`rlm_lsp.python.canonical`): local
names, parameters and the functions, classes and attributes the code defines are
renamed by order of first appearance, so a consistent renaming never changes the
input (code that does not parse gets `strip_v1`'s text path, without renaming).
`canon_v2` is `canon_v1` with typed names: a variable first assigned a list is `l0`, a dict
`d0`, a set `s0` (and `q`, `t`, `c`, `n` for deques, tuples, strings and numbers), so its uses
say what it holds; still exactly invariant under renaming (`rlm_lsp.python.canonical`). It also keeps
`self.` inside a class an unwrapped method defines (its methods' `self` is another object).
"""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from collections.abc import Callable, Mapping
from typing import Any

from rlm_lsp.python import canonical

NAMES = ("none", "strip_v1", "canon_v1", "canon_v2")
_WRAPPER_CLASSES = {"Solution"}
_SELF_NAMES = {"self", "cls"}
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def apply(name: str, code: str) -> str:
    """Normalise `code` with the normaliser called `name`. Unknown name -> ValueError."""
    try:
        fn = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown preprocess {name!r}; known: {', '.join(NAMES)}") from None
    return fn(code)


def none(code: str) -> str:
    return code


def strip_v1(code: str) -> str:
    code = code.replace("\r\n", "\n").replace("\t", "    ")
    try:
        tree = ast.parse(textwrap.dedent(code))
        tree = _strip(tree)
        _unwrap_classes(tree)
        # no fix_missing_locations: unparse reads only a statement's lineno (its type comment),
        # and every statement these passes make is copy_location'd or a Pass
        out = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        out = _strip_text(code)
    return _normalise_whitespace(out)


def canon_v1(code: str, outside: frozenset[str] | Mapping[str, str] = frozenset()) -> str:
    return _canon(code, outside, typed=False)


def canon_v2(code: str, outside: frozenset[str] | Mapping[str, str] = frozenset()) -> str:
    return _canon(code, outside, typed=True)


def _canon(code: str, outside: frozenset[str] | Mapping[str, str], typed: bool) -> str:
    code = code.replace("\r\n", "\n").replace("\t", "    ")
    try:
        tree = ast.parse(textwrap.dedent(code))
        tree = _strip(tree, no_ops=True)
        _unwrap_classes(tree, keep_nested=typed)
        tree.body = [s for s in tree.body if not canonical.no_op(s)]  # a wrapper class's `pass`
        tree = canonical.canonicalize(tree, outside, typed, no_ops_dropped=True)
        out = ast.unparse(tree)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        out = _strip_text(code)
    return _normalise_whitespace(out)


_REGISTRY: dict[str, Callable[[str], str]] = {"none": none, "strip_v1": strip_v1, "canon_v1": canon_v1,
                                               "canon_v2": canon_v2}


# --- ast path -------------------------------------------------------------------------------


def _is_str_expr(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _strip(tree: ast.Module, no_ops: bool = False) -> ast.Module:
    """Drop docstrings, bare strings and annotations, in place (one pass over the nodes).

    `no_ops` (the canonical normalisers): also drop every no-op statement (`pass`, a bare
    constant), as `canonical.canonicalize` would, and give a definition whose body is left empty
    (a dataclass's fields) a `pass`, so it parses. Other empty bodies stay empty, as they always
    have: the models read what this wrote at training."""
    for node in canonical.nodes(tree):
        if isinstance(node, ast.arg):
            node.annotation = None
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            node.returns = None
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if not isinstance(body, list):
                continue
            if any(isinstance(s, ast.AnnAssign) for s in body):  # `x: T = v` -> `x = v`; `x: T` goes
                body = [_assign_of(s) if isinstance(s, ast.AnnAssign) else s for s in body]
                body = [s for s in body if s is not None]
                setattr(node, field, body)
            if body and isinstance(body[0], ast.stmt):
                kept = [s for s in body if not (canonical.no_op(s) if no_ops else _is_str_expr(s))]
                if not kept and field == "body" and not isinstance(node, ast.Module):
                    kept = [ast.Pass()]
                setattr(node, field, kept)
            elif no_ops and not body and field == "body" and isinstance(node, _DEFS):
                setattr(node, field, [ast.Pass()])
    return tree


def _assign_of(node: ast.AnnAssign) -> ast.Assign | None:
    if node.value is None:
        return None
    return ast.copy_location(ast.Assign(targets=[node.target], value=node.value), node)


def _drop_self(root: ast.AST, keep_nested: bool = False) -> None:
    """`self.x` -> `x` under `root`, in place (inside an unwrapped method). `keep_nested` (canon_v2):
    not inside a class the method defines, whose own methods' `self` is another object (strip_v1
    and canon_v1 went in, so a nested class's `self.find(x)` read as a free `find(x)` there).

    Innermost first, as a post-order visit would: `self.self.x` is `x`. One pass collects every
    attribute's slot (a parent's field or list index), parents before their children; the slots
    are then rewritten in reverse."""
    slots: list[tuple[Any, Any, ast.Attribute]] = []  # (a list and its index, or a node and its field)
    stack = [root]
    while stack:
        node = stack.pop()
        if keep_nested and isinstance(node, ast.ClassDef):
            continue
        for field in canonical.walked_fields(type(node)):
            value = getattr(node, field, None)
            if isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        if isinstance(item, ast.Attribute):
                            slots.append((value, i, item))
                        stack.append(item)
            elif isinstance(value, ast.AST):
                if isinstance(value, ast.Attribute):
                    slots.append((node, field, value))
                stack.append(value)
    for parent, key, attr in reversed(slots):
        if isinstance(attr.value, ast.Name) and attr.value.id in _SELF_NAMES:
            name = ast.copy_location(ast.Name(id=attr.attr, ctx=attr.ctx), attr)
            if isinstance(parent, list):
                parent[key] = name
            else:
                setattr(parent, key, name)


def _drop_self_param(fn: ast.FunctionDef | ast.AsyncFunctionDef, keep_nested: bool = False) -> None:
    args = fn.args
    if args.posonlyargs and args.posonlyargs[0].arg in _SELF_NAMES:
        args.posonlyargs.pop(0)
    elif args.args and args.args[0].arg in _SELF_NAMES:
        args.args.pop(0)
    fn.decorator_list = [
        d
        for d in fn.decorator_list
        if not (isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod"))
    ]
    _drop_self(fn, keep_nested)


def _unwrap_classes(tree: ast.Module, keep_nested: bool = False) -> None:
    body: list[ast.stmt] = []
    for stmt in tree.body:
        if isinstance(stmt, ast.ClassDef) and stmt.name in _WRAPPER_CLASSES:
            for inner in stmt.body:
                if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    _drop_self_param(inner, keep_nested)
                elif not isinstance(inner, ast.Pass):
                    _drop_self(inner, keep_nested)
                body.append(inner)
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            stmt.args.args and stmt.args.args[0].arg in _SELF_NAMES
        ):
            _drop_self_param(stmt, keep_nested)  # a lone method, as the snippet extractor hands it over
            body.append(stmt)
        else:
            body.append(stmt)
    tree.body = body


# --- text path (code that does not parse) ------------------------------------------------------

_CLASS_WRAPPER = re.compile(r"^class\s+(?:Solution)\b[^\n]*:\s*$")
_SELF_PARAM = re.compile(r"\(\s*(?:self|cls)\s*(?:,\s*|(?=\)))")
_SELF_ATTR = re.compile(r"\b(?:self|cls)\.")


def _strip_comments(code: str) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return "\n".join(line for line in code.split("\n") if not line.lstrip().startswith("#"))
    lines: list[str | None] = list(code.split("\n"))
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            kept = (lines[row - 1] or "")[:col].rstrip()
            lines[row - 1] = kept if kept else None  # a comment-only line goes entirely
    return "\n".join(line for line in lines if line is not None)


def _strip_text(code: str) -> str:
    code = _strip_comments(code)
    out: list[str] = []
    lines = code.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if _CLASS_WRAPPER.match(line):
            block: list[str] = []
            i += 1
            while i < len(lines) and (not lines[i].strip() or lines[i][:1] in (" ", "\t")):
                block.append(lines[i])
                i += 1
            out.extend(textwrap.dedent("\n".join(block)).split("\n"))
            continue
        out.append(line)
        i += 1
    code = "\n".join(out)
    code = _SELF_PARAM.sub("(", code)
    return _SELF_ATTR.sub("", code)


def _normalise_whitespace(code: str) -> str:
    lines = [line.rstrip() for line in code.split("\n")]
    out: list[str] = []
    for line in lines:
        if not line and (not out or not out[-1]):
            continue
        out.append(line)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out) + "\n" if out else ""
