"""The gate on changes it used to let through unjudged (issue 23): files in a PEP 263 encoding,
files it cannot judge, and `--head REF` alone. Real temporary git repositories, and a fake
predictor whose numbers follow the code (each `materialize` multiplies memory by 8)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from rlm_lsp.gate import gate

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip

OLD = "# -*- coding: latin-1 -*-\ndef label(rows):\n    return 'caf\xe9 ' + str(len(rows))\n"
NEW = OLD.replace("def label(rows):\n", "def label(rows):\n    rows = list(rows)  # materialize\n")


class FakePredictor:
    def __init__(self):
        metrics = [SimpleNamespace(name="memory", unit="bytes"), SimpleNamespace(name="latency", unit="ms")]
        self.config = SimpleNamespace(metrics=metrics, model_version="fake-1")

    def predict(self, codes, language="python", metrics=None, context=None):
        out = []
        for code in codes:
            mem = 1e6 * 8 ** code.count("materialize")
            out.append({"memory": SimpleNamespace(metric="memory", value=mem, low=mem, high=mem, unit="bytes"),
                        "latency": SimpleNamespace(metric="latency", value=10.0, low=10.0, high=10.0, unit="ms")})
        return [{k: v for k, v in d.items() if metrics is None or k in metrics} for d in out]


def sh(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def stage(repo: Path, path: str, data: bytes) -> None:
    (repo / path).parent.mkdir(parents=True, exist_ok=True)
    (repo / path).write_bytes(data)
    sh(repo, "add", path)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    stage(repo, "src/label.py", OLD.encode("latin-1"))
    stage(repo, "src/util.py", b"def add(a, b):\n    return a + b\n")
    sh(repo, "commit", "-qm", "init")
    monkeypatch.chdir(repo)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "GIT_DIR"):
        monkeypatch.delenv(key, raising=False)
    return repo


def run_gate(capsys, *argv: str) -> tuple[int, str]:
    code = gate.main(list(argv), loader=FakePredictor)
    return code, capsys.readouterr().out


def test_a_latin1_file_with_a_coding_cookie_is_judged(repo, capsys):
    stage(repo, "src/label.py", NEW.encode("latin-1"))
    code, out = run_gate(capsys)
    assert code == 1, out
    assert "src/label.py:2: label(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×" in out
    assert "skipped" not in out


def test_a_bad_or_lying_coding_cookie_is_one_line_not_a_crash(repo, capsys):
    stage(repo, "src/odd.py", b"# coding: no-such-codec\ndef f():\n    return 1\n")
    stage(repo, "src/ascii.py", b"# coding: ascii\ndef f():\n    return '\xe9'\n")
    stage(repo, "src/rot.py", b"# coding: rot13\ndef f():\n    return 1\n")
    code, out = run_gate(capsys)
    assert code == 0, out
    assert "src/odd.py: skipped: bad coding cookie: unknown encoding: no-such-codec" in out
    assert "src/ascii.py: skipped: not ascii text (byte 37)" in out
    assert "src/rot.py: skipped: bad coding cookie: 'rot13' is not a text encoding" in out
    assert out.splitlines()[-1].endswith("(3 files skipped)")


def test_unjudged_files_pass_by_default_and_fail_when_configured(repo, capsys):
    stage(repo, "src/broken.py", b"def f(:\n    pass\n")
    stage(repo, "src/latin.py", "def f():\n    return 'caf\xe9'\n".encode("latin-1"))  # no cookie
    code, out = run_gate(capsys)
    assert code == 0, out
    assert "src/broken.py: skipped: syntax error at line 1:" in out
    assert "src/latin.py: skipped: not UTF-8 text (byte 24)" in out

    code, out = run_gate(capsys, "--fail-unjudged")
    assert code == 1, out
    assert "src/broken.py: skipped: syntax error at line 1:" in out
    assert out.splitlines()[-1] == (
        "rlm-gate: FAILED: 2 files not judged (fail-unjudged): 0 changed functions in 0 files"
    )

    (repo / "pyproject.toml").write_text("[tool.rlm]\nfail-unjudged = true\n")
    code, out = run_gate(capsys)
    assert code == 1 and "2 files not judged (fail-unjudged)" in out, out

    (repo / "pyproject.toml").write_text('[tool.rlm]\nfail-unjudged = "yes"\n')
    code, out = run_gate(capsys)
    assert code == 2 and "fail-unjudged: expected true or false, got 'yes'" in out, out


def test_fail_unjudged_does_not_fail_a_clean_change(repo, capsys):
    stage(repo, "src/util.py", b"def add(a, b):\n    return b + a\n")
    code, out = run_gate(capsys, "--fail-unjudged")
    assert code == 0, out
    assert out.splitlines()[-1].startswith("rlm-gate: passed: 1 changed function in 1 file")


def test_head_alone_judges_that_commit_against_its_parent(repo, capsys):
    stage(repo, "src/label.py", NEW.encode("latin-1"))
    sh(repo, "commit", "-qm", "regress")
    code, out = run_gate(capsys, "--head", "HEAD")
    assert code == 1, out
    assert "src/label.py:2: label(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×" in out
    assert "in 1 of 1 changed function in 1 file" in out.splitlines()[-1]

    code, out = run_gate(capsys, "--head", "HEAD", "--report", "json")
    assert code == 1 and '"base": "HEAD~1"' in out and '"head": "HEAD"' in out


def test_head_alone_on_a_root_commit_judges_every_function_as_new(repo, capsys):
    code, out = run_gate(capsys, "--head", "HEAD", "--budget", "memory=0.5MB")
    assert code == 1, out
    assert "src/label.py:2: label() (new): predicted peak memory 1 MB exceeds budget 500 kB" in out
    assert "2 changed functions in 2 files" in out.splitlines()[-1]
