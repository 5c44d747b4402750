"""One version of a Python file, parsed once: what every reader of the file takes.

    text -> `parse` -> Source: its lines (`runtime.lines.split_lines`), its syntax tree (None where
                       it does not parse, with the error), and, read on first use, its comments
                       (tokenizer) and the names it defines (`canonical_scopes`)

Who makes one: the language server once per document version (`server.RlmServer.analyze_job`, and
`Analyzer` once per HEAD text), `rlm predict` once per file (`app.cli.predict_file`), the gate once per
version of a file it compares (`hooks.compare.parse_functions`). Who reads it: the functions
(`snippets.extract`, with their file names and helpers), the canonical names (`names`, for
`policy.rules.changed`), the pragmas (`comments`, for `policy.rules.pragma`), the script shape
(`shapes.program_shape`) and the parse error a note gives (`error`). Each of them also takes
the text, which it parses itself: a caller with one question of a text needs no Source.

The tree is shared: a reader never changes it (copy a node before moving its lines).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
import warnings
from dataclasses import dataclass, field

from rlm_lsp.runtime.lines import split_lines

_SURROGATE = re.compile("[\ud800-\udfff]")
TOO_DEEP = (RecursionError, MemoryError)  # ast.parse on deep nesting or a very long expression


@dataclass(frozen=True, eq=False)
class Source:
    text: str  # as given
    lines: tuple[str, ...]  # of `text`, numbered as `ast` numbers them (not str.splitlines)
    tree: ast.Module | None  # None: it does not parse (`error` says why)
    error: Exception | None = None
    # `text` with each lone surrogate (possible in an editor buffer, which ast.parse refuses) as U+FFFD:
    # what was parsed, one code point for one, so every position is the same
    clean: str = field(default="", repr=False)

    @functools.cached_property
    def clean_lines(self) -> tuple[str, ...]:
        """The lines of what was parsed: `lines`, but for a text with lone surrogates."""
        return self.lines if self.clean is self.text else tuple(split_lines(self.clean))

    @functools.cached_property
    def comments(self) -> dict[int, str]:
        """0-based line -> comment text, from the tokenizer (so '#' inside strings is not one). Do not
        mutate: it is shared."""
        found: dict[int, str] = {}
        try:
            # newline="": a lone \r ends a line too, as it does for ast and rlm_lsp.runtime.lines
            for tok in tokenize.generate_tokens(io.StringIO(self.text, newline="").readline):
                if tok.type == tokenize.COMMENT:
                    found[tok.start[0] - 1] = tok.string
        except (tokenize.TokenError, SyntaxError):
            pass
        return found

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """The names the file defines (functions, classes, module variables); empty if it does not parse."""
        from rlm_lsp.python.canonical_scopes import defined_names

        return defined_names(self.tree) if self.tree is not None else frozenset()


def parse(text: str) -> Source:
    """`text`, parsed once (SyntaxWarnings for odd escapes are the user's business, not shown)."""
    clean = _SURROGATE.sub("\ufffd", text) if not text.isascii() and _SURROGATE.search(text) else text
    tree, error = None, None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(clean)
    except (SyntaxError, ValueError, *TOO_DEEP) as exc:
        error = exc
    return Source(text, tuple(split_lines(text)), tree, error, clean)


def of(source: str | Source) -> Source:
    """`source` as a Source: itself, or its text parsed."""
    return source if isinstance(source, Source) else parse(source)
