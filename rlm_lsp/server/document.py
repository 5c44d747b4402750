"""Open documents that apply an incremental edit in time proportional to the edit.

pygls' TextDocument re-splits the whole text into lines for every change, walks every line
in Python to rebuild it, and converts a column by walking the line one character at a time:
100 edits on a 20 MB document took 17 s, 50 keystrokes at the end of a 20 MB single line
about 5 minutes. `Document` keeps the text plus a sorted array of line-start offsets. An
edit finds its two offsets by a lookup in that array (and, in a document whose characters
are all one code unit in the client's position encoding, by plain addition), splices the
text once (one copy, at memcpy speed), rescans only the inserted text and the two characters
around it for line breaks, and shifts the later line starts in one array operation.

Lines follow the LSP: a line ends at `\\n`, `\\r\\n` or `\\r` and nowhere else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np
from lsprotocol import types
from pygls.workspace import TextDocument

_BREAK = re.compile(r"\r\n|\r|\n")
_EOL = re.compile(r"[\r\n]")
_WIDE = {  # characters that take more than one code unit, per client position encoding
    types.PositionEncodingKind.Utf8: re.compile(r"[^\x00-\x7f]"),
    types.PositionEncodingKind.Utf16: re.compile("[\U00010000-\U0010ffff]"),
}


class Document(TextDocument):
    """A pygls TextDocument whose incremental edits cost the edit's size, not the document's."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._starts: np.ndarray | None = None  # offsets where each line starts; built on the first edit
        self._narrow: bool | None = None  # every character is one client code unit (columns are offsets)
        self._lines: tuple[str, ...] | None = None
        self.scanned = 0  # characters searched for line breaks, for tests that count work

    # --- pygls hooks ----------------------------------------------------------------------

    def _apply_incremental_change(self, change: types.TextDocumentContentChangePartial) -> None:
        text = self._source or ""
        starts = self._index(text)
        a = self._offset(text, starts, change.range.start)
        b = max(a, self._offset(text, starts, change.range.end))
        new = change.text
        self._source = text[:a] + new + text[b:]
        if self._narrow and self._wide(new):
            self._narrow = False  # stays False until a full change: only the fast path is lost
        self._lines = None
        lo, hi = max(a, 1), a + len(new)  # the only line starts the edit can create or remove
        found = [s for s in self._breaks(self._source, lo - 1, hi + 1) if lo <= s <= hi]
        first, last = np.searchsorted(starts, lo, "left"), np.searchsorted(starts, b, "right")
        self._starts = np.concatenate(
            (starts[:first], np.asarray(found, dtype=np.int64), starts[last:] + (len(new) - (b - a)))
        )

    def _apply_full_change(self, change: types.TextDocumentContentChangeEvent) -> None:
        super()._apply_full_change(change)
        self._starts = self._narrow = self._lines = None

    @property
    def lines(self) -> Sequence[str]:
        if self._lines is None:
            text = self.source
            ends = [m.end() for m in _BREAK.finditer(text)]
            self._lines = tuple(text[i:j] for i, j in zip([0, *ends], [*ends, len(text)], strict=True) if i < j)
        return self._lines

    # --- helpers --------------------------------------------------------------------------

    def _index(self, text: str) -> np.ndarray:
        if self._starts is None:
            self.scanned += len(text)
            self._starts = np.fromiter((m.end() for m in _BREAK.finditer(text)), dtype=np.int64)
            self._starts = np.concatenate((np.zeros(1, dtype=np.int64), self._starts))
            self._narrow = not self._wide(text)
        return self._starts

    def _wide(self, text: str) -> bool:
        wide = _WIDE.get(self.position_codec.encoding)  # type: ignore[call-overload]
        return wide is not None and wide.search(text) is not None

    def _breaks(self, text: str, lo: int, hi: int) -> list[int]:
        """Line starts s (after a `\\n`, after a `\\r` not followed by `\\n`) with lo < s <= hi."""
        lo, hi = max(lo, 0), min(hi, len(text))
        self.scanned += hi - lo
        out = []
        for m in _EOL.finditer(text, lo, hi):
            j = m.start()
            if text[j] == "\r" and text[j + 1 : j + 2] == "\n":
                continue  # the `\n` after it ends the line
            out.append(j + 1)
        return out

    def _offset(self, text: str, starts: np.ndarray, position: types.Position) -> int:
        """The offset in `text` of a client position; past the line's end is its end, past the last
        line the document's end (as the LSP says)."""
        if position.line >= len(starts):
            return len(text)
        begin = int(starts[position.line])
        end = int(starts[position.line + 1]) if position.line + 1 < len(starts) else len(text)
        while end > begin and text[end - 1] in "\r\n":
            end -= 1
        if self._narrow:
            return begin + min(position.character, end - begin)
        return begin + self._column(text[begin:end], position.character)

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
        count = self._units
        if count(line) <= units:
            return len(line)
        lo, hi = 0, min(units, len(line))
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if count(line[:mid]) <= units:
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
