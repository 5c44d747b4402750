"""Issue 61.4 and 61.9: the gate writes its report and summary only as regular files, never through a
symlink (a repository can track one), never into a FIFO (it would hang), never outside the working
directory by a relative path; a closed stdout is an error of the run (exit 2), never a traceback."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from rlm_lsp.gate import gate, report


def test_a_symlink_is_refused_and_its_target_untouched(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outside = tmp_path.parent / f"{tmp_path.name}-victim.txt"
    outside.write_text("keep me")
    (tmp_path / "summary.md").symlink_to(outside)
    out = io.StringIO()
    assert gate._write("summary.md", "x", "summary", out) == report.EXIT_ERROR
    assert outside.read_text() == "keep me" and "symlink" in out.getvalue()
    outside.unlink()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
def test_a_fifo_is_refused_without_hanging(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo("pipe")
    out = io.StringIO()
    assert gate._write("pipe", "x", "summary", out) == report.EXIT_ERROR
    assert "not a regular file" in out.getvalue()


def test_a_relative_path_out_of_the_working_directory_is_refused(tmp_path, monkeypatch):
    (tmp_path / "repo").mkdir()
    monkeypatch.chdir(tmp_path / "repo")
    out = io.StringIO()
    assert gate._write("../out.md", "x", "summary", out) == report.EXIT_ERROR
    assert not (tmp_path / "out.md").exists() and "absolute path" in out.getvalue()


def test_a_regular_file_is_written_and_replaced(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("r.json").write_text("old old old old")
    assert gate._write("r.json", "new", "report", io.StringIO()) == 0
    assert Path("r.json").read_text() == "new"
    assert gate._write(str(tmp_path / "abs.json"), "x", "report", io.StringIO()) == 0


def test_a_control_character_in_a_file_name_never_reaches_the_github_line_raw():
    """Issue 61.9: `file=` passed ANSI escapes through."""
    from rlm_lsp.gate.formats import _prop
    assert _prop("a\x1b[31mred.py") == "a%1B[31mred.py" and _prop("x:y,z.py") == "x%3Ay%2Cz.py"
