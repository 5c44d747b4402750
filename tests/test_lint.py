"""Lint and type checks, so that CI runs them: ruff over the repository and mypy over the runtime.

Both read their settings from pyproject.toml (`[tool.ruff.lint]`, `[tool.mypy]`), where the
per-file exceptions are listed with what is left to clean. Both tools come with the `dev` extra.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(module: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"{module} is not installed: pip install -e '.[dev]'")
    return subprocess.run([sys.executable, "-m", module, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)


def test_ruff_finds_nothing():
    done = _run("ruff", "check", "--no-fix", "--output-format", "concise", ".")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_mypy_passes_on_the_runtime():
    done = _run("mypy")  # files and strictness: [tool.mypy] in pyproject.toml
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "Success" in done.stdout
