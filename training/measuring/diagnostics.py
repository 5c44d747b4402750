"""Compiler and run-time messages cut to what a committed row may keep: the diagnostics' own words.

g++ and javac quote the program's lines under each error (``  179 |   auto dfs = ...``, the caret
line, javac's bare source line), and every tool names the build folder. A row keeps neither: the
corpus's code is never committed, and a host path says nothing.

* ``compiler(text)``: only the diagnostic lines (``prog.cpp:179:20: error: …``, ``main.go:15:14:
  undefined: slices``, javac's ``symbol:``/``location:`` and ``7 errors``), notes dropped, paths cut
  to the file's name; the first ones, since the first error is the one that says why.
* ``runtime(text)``: a run's message (an exception, a panic, an assertion) without quoted lines
  or directories.
"""
from __future__ import annotations

import re

LIMIT = 300
_DIAG = re.compile(r"^\S*:\d+(?::\d+)?: (?!note:)")  # file:line[:col]: message (not a note)
_KEEP = re.compile(r"^\s+(?:symbol|location):|^\d+ (?:errors?|warnings?)$|^# ")
_QUOTED = re.compile(r"^\s*\d*\s*\|")  # g++/clang: `  179 |     code` and `      |     ^~~`
_BARE = re.compile(r"^[\s^~]*$")  # a caret line, or nothing
_PATH = re.compile(r"(?:\.{0,2}/)?(?:[\w.+@-]+/)+([\w.+@-]+)")


def compiler(text: str | None, limit: int = LIMIT) -> str | None:
    """The diagnostic lines of a compiler's output, without the program's text or directories."""
    if text is None:
        return None
    kept = [_PATH.sub(r"\1", line.rstrip()) for line in text.splitlines() if _DIAG.match(line) or _KEEP.match(line)]
    return "\n".join(kept)[:limit]


def runtime(text: str | None, limit: int = LIMIT) -> str | None:
    """A run's message without quoted program lines or directories."""
    if text is None:
        return None
    kept = [_PATH.sub(r"\1", line.rstrip()) for line in text.splitlines()
            if not (_QUOTED.match(line) or _BARE.match(line))]
    return "\n".join(kept)[:limit]
