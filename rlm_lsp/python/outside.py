"""The names a file defines outside one of its functions, named as the file's own text would name them.

    file source -> `canonical_scopes.defined_kinds` / `lines_kinds` -> name -> prefix ("f", "C", "v")
    and a function -> `of_function` -> one line, "_siftup=f Heap=C": the file's names it uses and does
                       not define itself (`Snippet.outside`)
    that line + a code -> `kinds_for` -> name -> prefix -> `preprocess.canon_v1(code, kinds)`
                       (`rlm_lsp.python.reader.normalise`)

Why: the model learnt from whole programs, where a helper is defined in the same text as its caller and
canonical names call it `f1` (a class `C0`, a module variable `v3`). The editor, `rlm predict` and
the gate read one function at a time; without its file a helper kept its written name, so
`heapq.heapify` (calls `_siftup`) and `_heapify_max` (calls `_siftup_max`) read differently and
were predicted 90 µs and 4.9 ms, and renaming a helper moved its callers' numbers. With the file's
names by their kind (`canonical_scopes.defined_kinds`), the validation Spearman stays within its SD
and no entry moves when its helpers are renamed (O2, experiments/log/12-2026-12-06-sessions-34-on.md).

The line travels as the runtime's context entry `readers.OUTSIDE`, so a leave-one-out variant
(attribution) or a code at several n reads the same names. Only the names the function uses are in
it, so adding or renaming a function it does not call leaves its line, and the editor's memo of it, as
they were.
"""

from __future__ import annotations

import ast
import functools
import re
import textwrap
import warnings
from collections.abc import Mapping

from rlm_lsp.python.canonical_scopes import is_dunder

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_DEF_OR_CLASS = re.compile(r"^[ \t]*(?:async[ \t]+)?(?P<kw>def|class)[ \t]+(?P<name>\w+)", re.MULTILINE)
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


def encode(kinds: Mapping[str, str]) -> str:
    """name -> prefix as one line, sorted: the same file names give the same text."""
    return " ".join(f"{name}={kinds[name]}" for name in sorted(kinds))


def of_function(kinds: Mapping[str, str], code: str) -> str:
    """The line of `kinds` (a file's) that a function's text needs: the names it mentions that it does
    not define as a function or class itself. Read from the text, not a syntax tree (the editor asks
    this of every function on every analysis): a name only in a string or a comment comes along too,
    which changes nothing the model reads, since the canonicaliser renames only the names the code uses."""
    if not kinds:
        return ""
    used = set(_IDENTIFIER.findall(code))
    own = {m["name"] for m in _DEF_OR_CLASS.finditer(code)}
    return encode({k: v for k, v in kinds.items() if k in used and k not in own})


def lines_kinds(lines: list[str]) -> dict[str, str]:
    """`defined_kinds` of a file that does not parse (a half-typed edit): its `def` and `class` lines, and
    each top-level line that parses alone, so a function's hint does not move while another is typed."""
    kinds: dict[str, str] = {}
    for line in lines:
        found = _DEF_OR_CLASS.match(line)
        if found:
            kinds.setdefault(found["name"], "f" if found["kw"] == "def" else "C")
    for line in lines:
        if not line[:1].isalpha() and not line.startswith("_"):
            continue  # indented, blank or a comment: not a module-level statement
        text = line.rstrip() + (" pass" if line.rstrip().endswith(":") else "")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for stmt in tree.body:
            for target in getattr(stmt, "targets", [getattr(stmt, "target", None)]):
                if target is not None:
                    for n in ast.walk(target):
                        if isinstance(n, ast.Name):
                            kinds.setdefault(n.id, "v")
    return {k: v for k, v in kinds.items() if not is_dunder(k)}


@functools.lru_cache(maxsize=4096)
def kinds_for(outside: str, code: str) -> dict[str, str]:
    """name -> prefix of `outside` (`encode`'s line) without the functions and classes `code` defines
    itself (those it names as its own). Do not mutate the result: it is cached."""
    kinds = dict(item.split("=", 1) for item in outside.split())
    if not kinds:
        return kinds
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            own = {n.name for n in ast.walk(ast.parse(textwrap.dedent(code))) if isinstance(n, _DEFS)}
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        own = set()
    return {k: v for k, v in kinds.items() if k not in own}
