"""Source file -> one Snippet per function, method or Triton kernel.

This is the first step of every path (editor, gate, CLI): the model scores
functions, not files. A file with syntax errors still yields the functions
that parse on their own, so a half-typed edit elsewhere keeps its hints.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import logging
import re
import textwrap
import tokenize
from dataclasses import dataclass

from rlm_lsp.python import helpers
from rlm_lsp.python import outside as outside_names
from rlm_lsp.python.canonical_scopes import defined_kinds
from rlm_lsp.python.source import TOO_DEEP as _TOO_DEEP
from rlm_lsp.python.source import Source
from rlm_lsp.python.source import of as source_of
from rlm_lsp.runtime import readers

_DEF_LINE = re.compile(r"^(?P<indent>[ \t]*)(?:async[ \t]+)?def[ \t]+(?P<name>\w+)")
_CLASS_LINE = re.compile(r"^(?P<indent>[ \t]*)class[ \t]+(?P<name>\w+)")
logger = logging.getLogger(__name__)
_told: set[str] = set()


@dataclass(frozen=True)
class Snippet:
    qualname: str
    name: str
    kind: str  # "function" | "method" | "triton_kernel"
    code: str  # dedented source, decorators included
    start_line: int  # 0-based first line (first decorator or def)
    end_line: int  # 0-based last line
    name_line: int
    name_col: int
    header_end_line: int  # position just after the ':' closing the def header
    header_end_col: int
    # The names of its file it uses, with their kind (`rlm_lsp.python.outside`): what a caller hands
    # the model as the context entry `readers.OUTSIDE` (`context`), so a helper reads as `f1`
    # the way the file's own text would name it.
    outside: str = ""
    # The same-file functions it calls (top-level ones by name, its class's methods through `self.`),
    # with theirs in turn, dedented, in file order: what the cost analyzer reads beside it, as the
    # judged `--jsonl` rows carry them (`helpers.of`); never read by the model.
    helpers: str = ""

    @property
    def reading(self) -> str:
        """What the function is read with beyond its code, as one key: its file's names and its helpers."""
        return self.outside + (HELPERS_MARK + self.helpers if self.helpers else "")

    def context(self, **fields: str) -> dict[str, str]:
        """A predict call's context for this function: its file's names, its helpers, and `fields` (a size n...)."""
        return context_of(self.reading, **fields)


HELPERS_MARK = "\0helpers\0"  # joins a function's file names and its helpers in `Snippet.reading`


def context_of(outside: str, **fields: str) -> dict[str, str]:
    """A predict call's context for a code read with `outside`: its file names (`Snippet.outside`;
    "" for none), or `Snippet.reading` (the names, then its helpers); and `fields`: where only these
    are kept (a HEAD version the editor remembers)."""
    names, _, helpers = outside.partition(HELPERS_MARK)
    out = {readers.OUTSIDE: names} if names else {}
    if helpers:
        out[readers.HELPERS] = helpers
    return {**out, **fields}


def extract(source: str | Source, language: str = "python") -> list[Snippet]:
    """All top-level functions and methods (nested classes included) of a Python source: its text, or
    the file parsed once (`rlm_lsp.python.source`), which the other readers of that version share."""
    if language != "python":
        return []
    parsed = source_of(source)
    # A lone surrogate (possible in an editor buffer) cannot be encoded, so ast.parse refuses
    # the file; the Source parsed it with U+FFFD, which keeps every position (one code point, one UTF-16 unit).
    lines = list(parsed.clean_lines)  # numbered as ast numbers them (not str.splitlines)
    tree = parsed.tree
    if tree is None:
        found = _extract_fallback(lines)
        kinds = outside_names.lines_kinds(lines) if found else {}
        return [_with_outside(s, kinds) for s in found] if kinds else found
    out: list[Snippet] = []
    _walk(tree, lines, prefix="", in_class=False, out=out)
    kinds = defined_kinds(tree) if out else {}
    out = [_with_outside(s, kinds) for s in out] if kinds else out
    return helpers.add(tree, lines, out)


def _with_outside(s: Snippet, kinds: dict[str, str]) -> Snippet:
    names = outside_names.of_function(kinds, s.code)
    return dataclasses.replace(s, outside=names) if names else s


def _walk(node: ast.AST, lines: list[str], prefix: str, in_class: bool, out: list[Snippet]) -> None:
    """Append each function's Snippet to `out`."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            snippet = _snippet(child, lines, prefix, in_class)
            if snippet is not None:
                out.append(snippet)
        elif isinstance(child, ast.ClassDef):
            _walk(child, lines, f"{prefix}{child.name}.", True, out)
        elif isinstance(child, (ast.If, ast.Try, ast.With)):
            _walk(child, lines, prefix, in_class, out)  # defs under `if TYPE_CHECKING:` etc.


def _snippet(
    fn: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str], prefix: str, in_class: bool
) -> Snippet | None:
    start = min([fn.lineno] + [d.lineno for d in fn.decorator_list]) - 1
    end = (fn.end_lineno or fn.lineno) - 1
    def_line = fn.lineno - 1
    name_col = lines[def_line].find(fn.name, lines[def_line].find("def") + 3)
    header = _header_end(lines, def_line, end)
    if header is None:
        return None
    decorators = [ast.unparse(d) for d in fn.decorator_list]
    kind = "triton_kernel" if any(_is_triton_jit(d) for d in decorators) else (
        "method" if in_class else "function"
    )
    return Snippet(
        qualname=prefix + fn.name,
        name=fn.name,
        kind=kind,
        code=textwrap.dedent("\n".join(lines[start : end + 1])) + "\n",
        start_line=start,
        end_line=end,
        name_line=def_line,
        name_col=max(name_col, 0),
        header_end_line=header[0],
        header_end_col=header[1],
    )


_DECORATOR_LINE = re.compile(r"^[ \t]*@[ \t]*(?P<text>[^\n#]*)", re.M)


def is_kernel(code: str) -> bool:
    """True for the code of a Triton kernel (`Snippet.kind == "triton_kernel"`), by the same rule.

    The one place that tells kernels from functions: `extract` sets `Snippet.kind` with it, and the
    model router (`rlm_lsp.runtime.model.kind_of`) sends a code to the kernel model with it. Code that does
    not parse is judged by its decorator lines."""
    if "@" not in code:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, *_TOO_DEEP):
        return any(_is_triton_jit(m["text"].strip()) for m in _DECORATOR_LINE.finditer(code.split("def ", 1)[0]))
    fn = next((n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)
    return fn is not None and any(_is_triton_jit(ast.unparse(d)) for d in fn.decorator_list)


def _is_triton_jit(decorator: str) -> bool:
    head = decorator.split("(", 1)[0]
    return head in ("triton.jit", "triton.autotune", "triton.heuristics", "tl.jit") or (
        head == "jit" and "triton" in decorator
    ) or head.endswith("triton.jit")


def _header_end(lines: list[str], def_line: int, end: int) -> tuple[int, int] | None:
    """(line, col) just after the ':' that closes `def name(...) -> ...:`."""
    text = "\n".join(lines[def_line : end + 1]) + "\n"
    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.OP:
                if tok.string in "([{":
                    depth += 1
                elif tok.string in ")]}":
                    depth -= 1
                elif tok.string == ":" and depth == 0:
                    return def_line + tok.end[0] - 1, tok.end[1]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None
    return None


def _extract_fallback(lines: list[str]) -> list[Snippet]:
    """Cut the file at `def` lines by indentation and keep each block that parses alone."""
    out: list[Snippet] = []
    classes: list[tuple[int, str]] = []  # (indent, name) of enclosing classes
    for i, line in enumerate(lines):
        cls = _CLASS_LINE.match(line)
        match = cls or _DEF_LINE.match(line)
        if not match:
            continue
        indent = len(match["indent"].expandtabs())
        classes = [(ind, name) for ind, name in classes if ind < indent]
        if cls:
            classes.append((indent, cls["name"]))
            continue
        end = _block_end(lines, i, indent)
        start = i
        while start > 0 and lines[start - 1].strip().startswith("@"):
            start -= 1
        block = textwrap.dedent("\n".join(lines[start : end + 1]))
        try:
            tree = ast.parse(block)
        except (SyntaxError, ValueError):
            continue
        except _TOO_DEEP as exc:
            _tell_once(f"rlm: no prediction for {match['name']} (line {i + 1}): too deeply nested or too long "
                       f"for Python's parser ({type(exc).__name__})", match["name"])
            continue
        fn = tree.body[0]
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if _inside_function(lines, i, indent):
            continue
        prefix = "".join(f"{name}." for _, name in classes)
        snippet = _snippet_from_block(fn, lines, start, end, prefix, bool(classes))
        if snippet is not None:
            out.append(snippet)
    return out


def _tell_once(message: str, key: str) -> None:
    """One warning per function name and process (extract runs again on every edit).

    extra={"client": True}: the language server also sends it to the editor (window/logMessage)."""
    if key in _told:
        return
    if len(_told) > 1000:
        _told.clear()
    _told.add(key)
    logger.warning("%s", message, extra={"client": True})


def _snippet_from_block(fn, lines, start, end, prefix, in_class) -> Snippet | None:
    # Re-anchor the block's AST line numbers on the file, then reuse _snippet.
    ast.increment_lineno(fn, start)
    fn.end_lineno = end + 1
    return _snippet(fn, lines, prefix, in_class)


def _block_end(lines: list[str], start: int, indent: int) -> int:
    end = start
    for j in range(start + 1, len(lines)):
        stripped = lines[j].strip()
        if not stripped:
            continue
        if len(lines[j]) - len(lines[j].lstrip()) <= indent and not stripped.startswith(("#", ")", "]", "}")):
            break
        end = j
    return end


def _inside_function(lines: list[str], line: int, indent: int) -> bool:
    """True when a less-indented `def` encloses this line (a nested function)."""
    for j in range(line - 1, -1, -1):
        text = lines[j]
        if not text.strip():
            continue
        ind = len(text) - len(text.lstrip())
        if ind < indent:
            if _DEF_LINE.match(text):
                return True
            if _CLASS_LINE.match(text) or ind == 0:
                return False
            indent = ind
    return False
