"""Open documents that apply an incremental edit in time proportional to the edit.

pygls' TextDocument re-splits the whole text into lines for every change, walks every line
in Python to rebuild it, and converts a column by walking the line one character at a time:
100 edits on a 20 MB document took 17 s, 50 keystrokes at the end of a 20 MB single line
about 5 minutes. `Document` keeps the text as pieces of at most `PIECE` characters (a
Python string cannot be edited in place, and rebuilding 20 MB costs ~25 ms an edit) plus a
sorted array of line-start offsets. An edit finds its two offsets by a lookup in that array
(in a document whose characters are all one code unit in the client's position encoding, by
plain addition), rebuilds only the pieces it touches, rescans only the inserted text and
the characters around it for line breaks, and shifts later offsets in one array operation.
The whole text is joined only when someone reads `source` (the analysis, after the debounce),
once per version.

Lines follow the LSP: a line ends at `\\n`, `\\r\\n` or `\\r` and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from lsprotocol import types
from pygls.workspace import TextDocument

PIECE = 1 << 16
_BREAK = re.compile(r"\r\n|\r|\n")
_EOL = re.compile(r"[\r\n]")
_WIDE: dict[Any, re.Pattern[str]] = {  # characters that take more than one code unit, per client position encoding
    types.PositionEncodingKind.Utf8: re.compile(r"[^\x00-\x7f]"),
    types.PositionEncodingKind.Utf16: re.compile("[\U00010000-\U0010ffff]"),
}


class Document(TextDocument):
    """A pygls TextDocument whose incremental edits cost the edit's size, not the document's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._pieces: list[str] | None = None  # None: the text is `_source` (no incremental edit yet)
        self._piece_at = np.zeros(1, dtype=np.int64)  # offset where each piece starts
        self._joined: tuple[list[str], str] | None = None  # (the pieces it was joined from, the text)
        self._starts: np.ndarray | None = None  # offset where each line starts
        self._narrow: bool | None = None  # every character is one client code unit (columns are offsets)
        self._lines: tuple[str, ...] | None = None
        self.scanned = 0  # characters searched or copied for an edit, for tests that count work

    @property
    def source(self) -> str:
        pieces = self._pieces  # one read: the worker thread may call this while an edit lands
        if pieces is None:
            return super().source
        joined = self._joined
        if joined is None or joined[0] is not pieces:
            joined = (pieces, "".join(pieces))
            self._joined = joined
        return joined[1]

    def size(self) -> int:
        """The text's length in characters, without joining it."""
        return int(self._piece_at[-1]) if self._pieces is not None else len(self._source or "")

    @property
    def lines(self) -> Sequence[str]:
        if self._lines is None:
            text = self.source
            ends = [m.end() for m in _BREAK.finditer(text)]
            self._lines = tuple(text[i:j] for i, j in zip([0, *ends], [*ends, len(text)], strict=True) if i < j)
        return self._lines

    # --- pygls hooks ----------------------------------------------------------------------

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        starts = self._index()
        a = self._offset(starts, change.range.start)
        b = max(a, self._offset(starts, change.range.end))
        new = change.text
        self._splice(a, b, new)
        if self._narrow and self._wide(new):
            self._narrow = False  # stays False until a full change: only the fast path is lost
        self._lines = None
        lo, hi = max(a, 1), a + len(new)  # the only line starts the edit can create or remove
        found = [s for s in self._breaks(lo - 1, hi + 1) if lo <= s <= hi]
        first, last = np.searchsorted(starts, lo, "left"), np.searchsorted(starts, b, "right")
        self._starts = np.concatenate(
            (starts[:first], np.asarray(found, dtype=np.int64), starts[last:] + (len(new) - (b - a)))
        )

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        super()._apply_full_change(change)
        self._pieces = self._joined = self._starts = self._narrow = self._lines = None
        self._piece_at = np.zeros(1, dtype=np.int64)

    # --- text as pieces -------------------------------------------------------------------

    def _index(self) -> np.ndarray:
        """The line starts, built (with the pieces) on the first incremental edit: one pass."""
        if self._starts is None or self._pieces is None:
            text = self.source
            self.scanned += len(text)
            found = np.fromiter((m.end() for m in _BREAK.finditer(text)), dtype=np.int64)
            self._starts = np.concatenate((np.zeros(1, dtype=np.int64), found))
            self._narrow = not self._wide(text)
            self._pieces = [text[i : i + PIECE] for i in range(0, len(text), PIECE)] or [""]
            self._piece_at = np.cumsum([0, *map(len, self._pieces)], dtype=np.int64)
            self._joined = (self._pieces, text)
            self._source = None
        return self._starts

    def _text(self, lo: int, hi: int) -> str:
        """Characters lo..hi (clipped to the text), from the pieces that hold them."""
        assert self._pieces is not None
        lo, hi = max(lo, 0), min(hi, self.size())
        if lo >= hi:
            return ""
        i = int(np.searchsorted(self._piece_at, lo, "right")) - 1
        j = int(np.searchsorted(self._piece_at, hi, "left"))
        return "".join(self._pieces[i:j])[lo - int(self._piece_at[i]) : hi - int(self._piece_at[i])]

    def _splice(self, a: int, b: int, new: str) -> None:
        """Replace characters a..b by `new`, rebuilding only the pieces that hold them."""
        assert self._pieces is not None
        at = self._piece_at
        last = len(self._pieces) - 1
        i = min(last, max(0, int(np.searchsorted(at, a, "right")) - 1))
        j = min(last, max(i, int(np.searchsorted(at, b, "right")) - 1))
        merged = self._pieces[i][: a - int(at[i])] + new + self._pieces[j][b - int(at[j]) :]
        self.scanned += len(merged)
        middle = [merged[k : k + PIECE] for k in range(0, len(merged), PIECE)]
        if not middle and j - i == last:  # everything deleted: keep one empty piece
            middle = [""]
        self._pieces = self._pieces[:i] + middle + self._pieces[j + 1 :]  # a new list: readers keep theirs
        self._piece_at = np.concatenate(
            (at[: i + 1], int(at[i]) + np.cumsum([len(p) for p in middle], dtype=np.int64),
             at[j + 2 :] + (len(new) - (b - a)))
        )

    # --- positions ------------------------------------------------------------------------

    def _wide(self, text: str) -> bool:
        wide = _WIDE.get(self.position_codec.encoding)
        return wide is not None and wide.search(text) is not None

    def _breaks(self, lo: int, hi: int) -> list[int]:
        """Line starts s (after a `\\n`, after a `\\r` not followed by `\\n`) with lo < s <= hi."""
        lo = max(lo, 0)
        window = self._text(lo, hi + 1)  # one more: is a `\r` at the end followed by `\n`?
        self.scanned += len(window)
        out = []
        for m in _EOL.finditer(window, 0, max(0, min(hi, self.size()) - lo)):
            j = m.start()
            if window[j] == "\r" and window[j + 1 : j + 2] == "\n":
                continue  # the `\n` after it ends the line
            out.append(lo + j + 1)
        return out

    def _offset(self, starts: np.ndarray, position: types.Position) -> int:
        """The offset of a client position; past the line's end is its end, past the last line the
        document's end (as the LSP says)."""
        if position.line >= len(starts):
            return self.size()
        begin = int(starts[position.line])
        end = int(starts[position.line + 1]) if position.line + 1 < len(starts) else self.size()
        eol = self._text(max(begin, end - 2), end)
        end -= len(eol) - len(eol.rstrip("\r\n"))
        if self._narrow:
            return begin + min(position.character, end - begin)
        return begin + self._column(self._text(begin, end), position.character)

    def _units(self, text: str) -> int:
        """`text`'s length in client code units, counted by an encoder (pygls counts in a Python loop)."""
        encoding = self.position_codec.encoding
        if encoding == types.PositionEncodingKind.Utf8:
            return len(text.encode("utf-8", "surrogatepass"))
        if encoding == types.PositionEncodingKind.Utf32:
            return len(text)
        return len(text.encode("utf-16-le", "surrogatepass")) // 2

    def _column(self, line: str, units: int) -> int:
        """How many characters of `line` fit in `units` client code units (a binary search; C-speed)."""
        if self._units(line) <= units:
            return len(line)
        lo, hi = 0, min(units, len(line))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self._units(line[:mid]) <= units:
                lo = mid
            else:
                hi = mid - 1
        return lo


def install(workspace: Any) -> None:
    """Make `workspace` (a pygls Workspace) open every text document as a `Document`."""

    def create(doc_uri: str, source: str | None = None, version: int | None = None,
               language_id: str | None = None) -> Document:
        return Document(doc_uri, source=source, version=version, language_id=language_id,
                        sync_kind=workspace._sync_kind, position_codec=workspace._position_codec)

    workspace._create_text_document = create
