"""Incremental edits on huge documents: the server's `Document` against pygls' `TextDocument`.

    python bench/edits.py [--mb 20] [--pygls-mb 2]

Issue 52 (item 6): 100 edits on a multi-line 20 MB document, and 50 keystrokes at the end of
a 20 MB single line. pygls' own document runs at --pygls-mb (it takes minutes at 20 MB), and
both are timed in-process, edits only (no JSON-RPC, no analysis). Prints one line per case.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lsprotocol import types  # noqa: E402
from pygls.workspace import PositionCodec, TextDocument  # noqa: E402

from rlm_lsp.server.document import Document  # noqa: E402

CODEC = PositionCodec(types.PositionEncodingKind.Utf16)


def change(line: int, char: int, text: str) -> types.TextDocumentContentChangePartial:
    at = types.Position(line=line, character=char)
    return types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text=text)


def multiline(cls: type, size: int) -> float:
    line = "value = compute(1, 2, 3)  # a line of code\n"
    text = line * (size // len(line))
    doc = cls("file:///many.py", text, position_codec=CODEC)
    rng = random.Random(0)
    count = len(text) // len(line)
    start = time.perf_counter()
    for _ in range(100):
        doc.apply_change(change(rng.randrange(count), 4, "x"))
    return time.perf_counter() - start


def single_line(cls: type, size: int, keys: int) -> float:
    doc = cls("file:///one.py", "x" * size, position_codec=CODEC)
    start = time.perf_counter()
    for i in range(keys):
        doc.apply_change(change(0, size + i, "y"))
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--pygls-mb", type=float, default=2)
    args = parser.parse_args(argv)
    for name, cls, mb in (("Document", Document, args.mb), ("pygls TextDocument", TextDocument, args.pygls_mb)):
        size = int(mb * 1_000_000)
        keys = 50 if cls is Document else 5
        print(f"{name}: 100 edits on a {mb:g} MB multi-line document: {multiline(cls, size):.2f} s; "
              f"{keys} keystrokes at the end of a {mb:g} MB line: {single_line(cls, size, keys):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
