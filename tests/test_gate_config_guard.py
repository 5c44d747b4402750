"""Issue 61.3: a change that loosens its own gate. `[tool.rlm]` is read at the base and at the head;
the stricter applies, and a loosening fails the gate unless `--trust-head-config`."""

from __future__ import annotations

import json
from pathlib import Path

import test_gate_repo
from test_gate_repo import run_gate, sh, stage, write

from rlm_lsp.app import config_guard
from rlm_lsp.policy.project_config import from_table

repo = test_gate_repo.repo  # the fixture: a git repository with a few Python files
BASE = '[tool.rlm]\nratio = 2\nexclude = ["vendor/*"]\n'
SLOW = "def add(a, b):\n    return sleepy(sleepy(a + b))\n"  # the fake predictor: latency 9x


def _base(repo_dir: Path) -> None:
    write(repo_dir, "pyproject.toml", BASE)
    sh(repo_dir, "add", "pyproject.toml")
    sh(repo_dir, "commit", "-qm", "settings")


def test_a_raised_ratio_in_the_change_is_said_and_fails(repo, capsys):
    _base(repo)
    stage(repo, "pyproject.toml", '[tool.rlm]\nratio = 1e300\nexclude = ["vendor/*"]\n')
    stage(repo, "src/util.py", SLOW)
    code, out = run_gate(capsys)
    assert code == 1
    assert "loosens its own [tool.rlm]:" in out and "latency ratio 2 → 1e+300" in out
    assert "add()" in out  # judged with the base's ratio: the 9x regression is found too


def test_an_exclude_everything_in_the_change_fails(repo, capsys):
    _base(repo)
    stage(repo, "pyproject.toml", '[tool.rlm]\nratio = 2\nexclude = ["vendor/*", "*"]\n')
    code, out = run_gate(capsys, "--format", "json")
    report = json.loads(out)
    assert code == 1 and report["loosened"] == ["exclude adds '*'"] and not report["passed"]


def test_trusting_the_head_accepts_it_and_still_says_so(repo, capsys):
    _base(repo)
    stage(repo, "pyproject.toml", '[tool.rlm]\nratio = 1e300\nexclude = ["vendor/*"]\n')
    stage(repo, "src/util.py", SLOW)
    code, out = run_gate(capsys, "--trust-head-config")
    assert code == 0 and "trusted: --trust-head-config" in out


def test_a_stricter_change_is_no_finding(repo, capsys):
    _base(repo)
    stage(repo, "pyproject.toml", '[tool.rlm]\nratio = 1.5\nexclude = []\n')
    code, out = run_gate(capsys)
    assert code == 0 and "loosens" not in out


def test_stricter_keeps_each_setting_at_the_base_where_the_head_loosens_it():
    base = from_table({"ratio": 2, "memory-budget": "10 MB", "fail-unjudged": True}, Path("."))
    head = from_table({"ratio": 1.5, "latency-ratio": 3}, Path("."))
    merged, said = config_guard.stricter(base, head)
    assert merged.ratio("memory") == 1.5 and merged.ratio("latency") == 2
    assert merged.budgets["memory"].value == base.budgets["memory"].value and merged.fail_unjudged
    assert any("latency ratio 2 → 3" in s for s in said) and any("budget" in s for s in said)


def test_a_file_of_thousands_of_functions_is_skipped_with_a_reason(repo, capsys):
    """Issue 61.6: generated code is not judged function by function; --fail-unjudged fails on it."""
    stage(repo, "src/gen.py", "\n\n".join(f"def f{i}(x):\n    return x + {i}" for i in range(2_100)) + "\n")
    code, out = run_gate(capsys)
    assert code == 0 and "src/gen.py: skipped: more than 2,000 functions (2,100)" in out
    code, out = run_gate(capsys, "--fail-unjudged")
    assert code == 1


def test_an_unknown_setting_is_said_with_a_suggestion(repo, capsys):
    """Issue 61.9: `ratoi = 3` is ignored, no longer silently."""
    stage(repo, "pyproject.toml", "[tool.rlm]\nratoi = 3\n")
    code, out = run_gate(capsys)
    assert code == 0 and "ignored unknown setting 'ratoi' (did you mean 'ratio'?)" in out
