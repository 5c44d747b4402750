"""Incremental edits cost the edit, not the document (issue 52, item 6).

100 edits on a 20 MB document took 17 s and 50 keystrokes in a 20 MB single line about
5 minutes, because every edit re-split the whole text. These tests count the characters
searched for line breaks (Document.scanned) instead of timing; bench/edits.py times it.
"""

from __future__ import annotations

import random

import pytest
from lsprotocol import types
from pygls.workspace import PositionCodec, TextDocument

from rlm_lsp.server.document import PIECE, Document

UTF16 = PositionCodec(types.PositionEncodingKind.Utf16)


def edit(doc: TextDocument, l0: int, c0: int, l1: int, c1: int, text: str) -> None:
    rng = types.Range(start=types.Position(line=l0, character=c0), end=types.Position(line=l1, character=c1))
    doc.apply_change(types.TextDocumentContentChangePartial(range=rng, text=text))


def units(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2


def random_position(rng: random.Random, text: str) -> tuple[int, int]:
    """A line and a UTF-16 column at a character boundary within the line's content."""
    lines = text.splitlines(True) or [""]
    line = rng.randrange(len(lines) + 1)
    if line == len(lines):
        return line, 0
    content = lines[line].rstrip("\r\n")
    return line, units(content[: rng.randint(0, len(content))])


def test_same_text_as_pygls_after_random_edits():
    rng = random.Random(52)
    for _ in range(300):
        text = "".join(rng.choice(["a", "b", "\n", "\r\n", "\r", "é", "😀"]) for _ in range(rng.randint(0, 30)))
        ours = Document("file:///t.py", text, position_codec=UTF16)
        theirs = TextDocument("file:///t.py", text, position_codec=UTF16)
        for _ in range(8):
            (l0, c0), (l1, c1) = sorted([random_position(rng, theirs.source), random_position(rng, theirs.source)])
            new = "".join(rng.choice(["x", "\n", "\r", "\r\n", "😀", ""]) for _ in range(rng.randint(0, 4)))
            edit(theirs, l0, c0, l1, c1, new)
            edit(ours, l0, c0, l1, c1, new)
            assert ours.source == theirs.source, (text, l0, c0, l1, c1, new)
            assert ours.lines == tuple(theirs.source.splitlines(True))


def test_keystrokes_in_a_huge_single_line_cost_at_most_a_piece_each_at_any_size():
    work = []
    for size in (2_000_000, 8_000_000):
        doc = Document("file:///one.py", "x" * size, position_codec=UTF16)
        edit(doc, 0, 0, 0, 0, "")  # builds the pieces and the line index: one pass, once
        base = doc.scanned
        assert base <= size + PIECE + 4
        for i in range(50):
            edit(doc, 0, size + i, 0, size + i, "y")
        assert doc.source == "x" * size + "y" * 50
        work.append(doc.scanned - base)
    assert max(work) <= 50 * (PIECE + 4)  # one piece and a few characters a keystroke, however long the line


@pytest.mark.parametrize("wide", ["", "😀"])  # a wide character turns column lookup into a search of its line
def test_edits_across_a_huge_multiline_document_scan_only_the_edits(wide):
    text = "".join(f"line_{i} = {i}{wide}\n" for i in range(100_000))
    doc = Document("file:///many.py", text, position_codec=UTF16)
    rng = random.Random(7)
    expected = text.splitlines(True)
    for _ in range(100):
        line = rng.randrange(len(expected))
        edit(doc, line, 0, line, 0, "# edited\n")
        expected[line:line] = ["# edited\n"]
    assert doc.source == "".join(expected)
    assert doc.lines == tuple(expected)
    assert doc.scanned <= len(text) + 100 * (PIECE + 2 * len("# edited\n") + 8)  # a piece, the insert, around it


def test_full_change_resets_the_index():
    doc = Document("file:///f.py", "a\nb\n", position_codec=UTF16)
    edit(doc, 1, 0, 1, 1, "c")
    doc.apply_change(types.TextDocumentContentChangeWholeDocument(text="x\ny\nz"))
    edit(doc, 2, 0, 2, 1, "w")
    assert doc.source == "x\ny\nw"


@pytest.mark.timeout(180)
def test_a_document_over_the_cap_gets_one_notice_and_edits_stay_answered(tiny_model_dir, tmp_path):
    from lsp_client import LspClient, file_uri

    err = open(tmp_path / "server.err", "wb")
    with LspClient(settings={"modelPath": str(tiny_model_dir), "debounceMs": 0}, cwd=tmp_path, stderr=err) as c:
        c.initialize(tmp_path)
        uri = file_uri(tmp_path / "big.py")
        size = 2_000_000
        c.open(uri, "x" * size)
        for i in range(20):
            c.notify("textDocument/didChange", {
                "textDocument": {"uri": uri, "version": i + 2},
                "contentChanges": [{"range": {"start": {"line": 0, "character": size + i},
                                              "end": {"line": 0, "character": size + i}}, "text": "y"}]})
        assert c.inlay_hints(uri) == []  # answered, after every edit was applied
        c.wait_for(lambda m: "larger than 1 MB" in str(m.get("params", {}).get("message", "")), timeout=60)
        c.open(file_uri(tmp_path / "small.py"), "def f(n):\n    return n\n")
        assert len(c.wait_hints(file_uri(tmp_path / "small.py"), 1)) >= 1  # the worker is past the big one
        said = [m for m in c.messages("window/logMessage") if "larger than 1 MB" in m["params"]["message"]]
        assert len(said) == 1, said
