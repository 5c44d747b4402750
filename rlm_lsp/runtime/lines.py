"""Text -> lines, numbered as Python's tokenizer (and so `ast` line numbers) count them.

`str.splitlines()` also breaks at a form feed, \\x1c-\\x1e, \\x85, U+2028 and U+2029; Python does
not (a form feed is whitespace, the others may sit inside strings and comments). One such
character above a function shifts every line index taken from `splitlines()` against the
function's `ast` line numbers: the wrong lines are scored, the gate compares the wrong code,
the editor's hint lands on the wrong line. Every place that indexes lines by a line number uses
this module. The LSP counts lines the same way (\\n, \\r\\n and \\r only).
"""

from __future__ import annotations

import io
import re

_BREAK = re.compile(r"\r\n?|\n")


def split_lines(text: str) -> list[str]:
    """Lines without their ends, as `text.splitlines()` would give them but breaking only at
    \\n, \\r\\n and \\r (no empty last line after a final line end; none at all for "")."""
    parts = _BREAK.split(text) if "\r" in text else text.split("\n")
    if parts[-1] == "":
        parts.pop()
    return parts


def split_lines_keepends(text: str) -> list[str]:
    """Lines with their ends, as `text.splitlines(True)` would give them, breaking at the same
    places as `split_lines`."""
    return list(io.StringIO(text, newline=""))
