"""Special files cost one line, never a hang or a whole read (issue 52, item 10).

A FIFO swapped in for a tracked file, a FIFO given as `--config`, a kernel pseudo-file such as
/proc/kmsg, and a file far over the size limit are all refused after a stat of what was opened,
before a byte is read.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import test_gate_robust
from test_gate_robust import run_gate, sh, stage

from rlm_lsp.app import cli
from rlm_lsp.gate import git
from rlm_lsp.runtime import source_text
from rlm_lsp.runtime.errors import FileProblem

pytestmark = pytest.mark.timeout(60)  # a hang fails here instead of holding the run


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    """test_gate_robust's repository: src/label.py and src/util.py committed."""
    return test_gate_robust.repo.__wrapped__(tmp_path, monkeypatch)


def test_a_tracked_file_replaced_by_a_fifo_is_one_note(repo, capsys):
    (repo / "src/util.py").unlink()
    os.mkfifo(repo / "src/util.py")
    code, out = run_gate(capsys, "--base", "HEAD")
    assert code == 0, out
    assert "src/util.py: skipped: not a regular file (a FIFO)" in out


def test_a_fifo_as_config_is_one_line(repo, capsys):
    os.mkfifo(repo / "conf.toml")
    code, out = run_gate(capsys, "--config", str(repo / "conf.toml"))
    assert code == 2  # a settings error (docs/gate.md, exit codes)
    assert "not a regular file (a FIFO)" in out and "Traceback" not in out


def test_a_huge_sparse_working_tree_file_is_refused_by_its_size(repo, capsys, monkeypatch):
    with open(repo / "src/util.py", "wb") as fh:
        fh.truncate(50 * 1024**2)  # sparse zeros: read whole, it would be called binary after 50 MB
    reads: list[int] = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    code, out = run_gate(capsys, "--base", "HEAD")
    assert "src/util.py: skipped: file is larger than 1 MB" in out, out
    assert sum(reads) <= 2 * 1024**2  # the other files only


def test_a_staged_blob_over_the_limit_is_never_read(repo, capsys, monkeypatch):
    stage(repo, "src/util.py", b"\0" * 3_000_000)
    asked: list[str] = []
    real = git.read_blobs
    monkeypatch.setattr(git, "read_blobs", lambda ids, cwd: real(asked.extend(ids) or ids, cwd))
    big = sh(repo, "rev-parse", ":src/util.py").strip()
    code, out = run_gate(capsys)
    assert "src/util.py: skipped: larger than 1 MB" in out, out
    assert big not in asked


def test_a_previous_version_over_the_limit_is_said_and_not_read(repo, capsys, monkeypatch):
    stage(repo, "src/util.py", b"x = 1\n" * 300_000)  # 1.8 MB of text
    sh(repo, "commit", "-qm", "big")
    stage(repo, "src/util.py", b"def add(a, b):\n    return a + b\n")
    old = sh(repo, "rev-parse", "HEAD:src/util.py").strip()
    asked: list[str] = []
    real = git.read_blobs
    monkeypatch.setattr(git, "read_blobs", lambda ids, cwd: real(asked.extend(ids) or ids, cwd))
    code, out = run_gate(capsys)
    assert "src/util.py: previous version larger than 1 MB; its functions count as new" in out, out
    assert old not in asked


def test_kernel_pseudo_files_are_refused_unread(tmp_path):
    for name in ("/proc/self/status", "/proc/kmsg"):  # kmsg: a read blocks, or consumes the kernel log
        if not os.path.exists(name):
            continue
        with pytest.raises(FileProblem, match="kernel pseudo-file|Permission|not permitted"):
            cli.read_source(Path(name))


def test_read_bytes_refuses_a_fifo_without_a_writer(tmp_path):
    os.mkfifo(tmp_path / "p.py")
    with pytest.raises(FileProblem, match="a FIFO"):
        source_text.read_bytes(tmp_path / "p.py")
