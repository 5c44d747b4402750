"""bench/report.py: a bench rewrites its own section of the benchmarks doc and no other; progress is
silent off a terminal."""

from __future__ import annotations

import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402


def test_a_section_is_replaced_in_place_and_the_others_are_kept(tmp_path):
    doc = tmp_path / "benchmarks.md"
    report.write_section("a", "## A\n\nfirst", doc)
    report.write_section("b", "## B\n\nkept", doc)
    report.write_section("a", "## A\n\nsecond", doc)
    text = doc.read_text()
    assert text.startswith(report.HEAD)
    assert "second" in text and "first" not in text and "kept" in text
    assert text.index("<!-- bench:a -->") < text.index("<!-- bench:b -->")  # replaced where it was
    assert text.count("<!-- bench:a -->") == 1 and text.count("<!-- /bench:a -->") == 1


def test_publish_prints_and_writes_only_when_asked(tmp_path, capsys):
    doc = tmp_path / "benchmarks.md"
    report.publish("x", "## X\n\nfigures", write=False, doc=doc)
    assert "figures" in capsys.readouterr().out and not doc.exists()
    report.publish("x", "## X\n\nfigures", write=True, doc=doc)
    assert "figures" in doc.read_text()


def test_the_shipped_doc_has_one_section_per_bench():
    text = report.DOC.read_text()
    for name in ("predict", "lsp", "gate", "jsonl", "stability"):
        assert text.count(f"<!-- bench:{name} -->") == 1 and text.count(f"<!-- /bench:{name} -->") == 1, name


def test_progress_is_silent_off_a_terminal(monkeypatch):
    err = io.StringIO()  # not a tty
    monkeypatch.setattr(sys, "stderr", err)
    assert list(report.progress(range(5), desc="x")) == [0, 1, 2, 3, 4]
    with report.bar(3, desc="y") as bar:
        bar.update(3)
    assert err.getvalue() == ""
