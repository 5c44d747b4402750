"""The gate through the real `pre-commit` package: `pre-commit run` and `git commit` in a
temporary repository whose `.pre-commit-config.yaml` points at this checkout.

pre-commit installs a hook repository with pip from a git commit, so the checkout's files
that make the package (pyproject.toml, rlm_lsp/, hooks/, export/, .pre-commit-hooks.yaml) are
copied into a scratch repository and committed with fixed dates: the same files give the
same commit, and with `RLM_GATE_PRE_COMMIT_HOME` set to a lasting folder pre-commit reuses
the environment it built last time (first build: pip installs onnxruntime and friends).

The tiny random model checks the mechanics with settings that make its numbers irrelevant;
the shipped model (`rlm_lsp/models/default/`, as installed with the hook) checks that a real
materializing rewrite is blocked, and is skipped only when that model is absent;
`RLM_GATE_TEST_MODEL=DIR` runs that check on a candidate model directory instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
PACKAGE_FILES = ("pyproject.toml", "README.md", "LICENSE", "setup.cfg", "MANIFEST.in", ".pre-commit-hooks.yaml")
PACKAGE_DIRS = ("rlm_lsp", "hooks", "export")
FIXED_DATE = "2026-01-01T00:00:00+00:00"
SHIPPED = ROOT / "rlm_lsp" / "models" / "default" / "rlm_config.json"

pytest.importorskip("pre_commit")


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT", "VIRTUAL_ENV"))}
    env.update(
        PRE_COMMIT_HOME=str(home),
        GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com", GIT_COMMITTER_NAME="t",
        GIT_COMMITTER_EMAIL="t@example.com", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
        PRE_COMMIT_COLOR="never", PYTHONDONTWRITEBYTECODE="1",
    )  # fmt: skip
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """stdout and stderr together in .stdout: git prints its hooks' output on stderr."""
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)  # fmt: skip


def ok(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 120) -> str:
    proc = run(cmd, cwd, env, timeout)
    assert proc.returncode == 0, f"{cmd}: {proc.stdout}"
    return proc.stdout


@pytest.fixture(scope="module")
def hook(tmp_path_factory) -> tuple[Path, str, dict[str, str]]:
    """(hook repository, its commit, environment with PRE_COMMIT_HOME), environment built."""
    lasting = os.environ.get("RLM_GATE_PRE_COMMIT_HOME")
    home = Path(lasting) if lasting else tmp_path_factory.mktemp("pre-commit-home")
    env = base_env(home)
    snap = home / "hook-repo" if lasting else tmp_path_factory.mktemp("hook-repo")
    shutil.rmtree(snap, ignore_errors=True)
    snap.mkdir(parents=True)
    listed = (
        subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=ROOT, capture_output=True, check=True
        )
        .stdout.decode()
        .split("\0")
    )
    for rel in listed:
        if (rel in PACKAGE_FILES or rel.split("/")[0] in PACKAGE_DIRS) and (ROOT / rel).is_file():
            (snap / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, snap / rel)
    if not (snap / "README.md").exists():
        (snap / "README.md").write_text("rlm-lsp\n")  # pyproject's readme, before the checkout has one
    dated = {**env, "GIT_AUTHOR_DATE": FIXED_DATE, "GIT_COMMITTER_DATE": FIXED_DATE}
    ok(["git", "init", "-q"], snap, env)
    ok(["git", "add", "-A"], snap, env)
    ok(["git", "commit", "-qm", "snapshot"], snap, dated)
    rev = ok(["git", "rev-parse", "HEAD"], snap, env).strip()
    return snap, rev, env


def make_repo(path: Path, hook: tuple[Path, str, dict[str, str]], args: list[str], files: dict[str, str]) -> Path:
    snap, rev, env = hook
    path.mkdir()
    ok(["git", "init", "-q"], path, env)
    args_yaml = ", ".join(f'"{a}"' for a in args)
    config = textwrap.dedent(f"""
        repos:
          - repo: {snap}
            rev: {rev}
            hooks:
              - id: rlm-gate
                args: [{args_yaml}]
    """).lstrip()
    write(path, ".pre-commit-config.yaml", config)
    for name, text in files.items():
        write(path, name, text)
    ok(["git", "add", "-A"], path, env)
    ok([*PRE_COMMIT, "install"], path, env)
    return path


def write(repo: Path, name: str, text: str | bytes) -> None:
    target = repo / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(text, encoding="utf-8")


def commit(repo: Path, env: dict[str, str], message: str) -> subprocess.CompletedProcess[str]:
    return run(["git", "commit", "-m", message], repo, env, timeout=600)


def head(repo: Path, env: dict[str, str]) -> str:
    return ok(["git", "rev-parse", "HEAD"], repo, env).strip()


STREAMING = textwrap.dedent('''
    def squares_total(n):
        """Sum of the first n squares."""
        total = 0
        for i in range(n):
            total += i * i
        return total


    def word_count(text):
        return len(text.split())
''').lstrip()

# Materializes an n-by-n table and a list of n squares where the old code kept one number.
MATERIALIZED = textwrap.dedent('''
    def squares_total(n):
        """Sum of the first n squares."""
        squares = [i * i for i in range(n)]
        table = [[i * j for j in range(n)] for i in range(n)]
        return sum(squares) + 0 * sum(map(sum, table))


    def word_count(text):
        return len(text.split())
''').lstrip()


def test_pre_commit_mechanics_with_the_tiny_model(hook, tiny_model_dir, tmp_path):
    _, _, env = hook
    repo = make_repo(
        tmp_path / "work",
        hook,
        ["--model", str(tiny_model_dir), "--samples", "2"],
        {
            "pyproject.toml": "[tool.rlm]\nratio = 1e9\n",
            "src/calc.py": STREAMING,
            "src/old.py": "def f():\n    return 1\n",
        },
    )
    first = commit(repo, env, "init")  # every function is new: budgets only, and there are none
    assert first.returncode == 0, first.stdout
    assert "rlm-gate" in first.stdout and "Passed" in first.stdout
    assert "passed: 3 changed functions in 3 files" not in first.stdout  # pyproject.toml is not Python
    assert "passed: 3 changed functions in 2 files" in first.stdout

    # comment-only and rename-only: nothing to predict
    edited = STREAMING.replace('"""Sum of the first n squares."""', "# the sum of squares").replace(
        "def word_count", "def count_words"
    )
    write(repo, "src/calc.py", edited)
    ok(["git", "mv", "src/old.py", "src/legacy.py"], repo, env)
    ok(["git", "add", "-A"], repo, env)
    proc = commit(repo, env, "cosmetic")
    assert proc.returncode == 0, proc.stdout
    assert "rlm-gate: passed: 0 changed functions in 2 files, no predicted regression" in proc.stdout
    assert "1 renamed only" in proc.stdout

    # new, deleted, binary and syntax-error files
    write(repo, "src/new.py", "def g(n):\n    return list(range(n))\n")
    write(repo, "src/blob.py", b"\x00\x01\x02 not text")
    write(repo, "src/broken.py", "def broken(:\n    pass\n")
    ok(["git", "rm", "-q", "src/legacy.py"], repo, env)
    ok(["git", "add", "-A"], repo, env)
    proc = commit(repo, env, "files")
    assert proc.returncode == 0, proc.stdout
    assert "src/blob.py: skipped: binary file" in proc.stdout
    assert "src/broken.py: skipped: syntax error at line 1" in proc.stdout
    assert "passed: 1 changed function in 1 file" in proc.stdout

    # a budget every prediction exceeds blocks `pre-commit run` and `git commit`
    write(repo, "pyproject.toml", '[tool.rlm]\nratio = 1e9\nmemory-budget = "0 B"\n')
    write(repo, "src/calc.py", MATERIALIZED)
    ok(["git", "add", "-A"], repo, env)
    proc = run([*PRE_COMMIT, "run"], repo, env, timeout=600)
    assert proc.returncode == 1, proc.stdout
    assert "src/calc.py:1: squares_total(): predicted peak memory" in proc.stdout
    assert "exceeds budget 0 B" in proc.stdout
    assert "rlm-gate: FAILED: 1 predicted regression in 1 of 1 changed function in 1 file" in proc.stdout
    before = head(repo, env)
    proc = commit(repo, env, "blocked")
    assert proc.returncode != 0 and head(repo, env) == before
    assert "exceeds budget 0 B" in proc.stdout

    # the pragma lets it through and its reason is printed
    write(repo, "src/calc.py", MATERIALIZED.replace(
        "def squares_total(n):", "def squares_total(n):  # rlm: allow-regression n is at most 100"
    ))  # fmt: skip
    ok(["git", "add", "-A"], repo, env)
    proc = commit(repo, env, "allowed")
    assert proc.returncode == 0, proc.stdout
    assert "; allowed by pragma: n is at most 100" in proc.stdout
    assert head(repo, env) != before


# Kadane's running maximum, then the same answer from a materialized n-by-n table of prefix sums.
KADANE = textwrap.dedent("""
    class Solution:
        def maxSubArray(self, nums: List[int]) -> int:
            best = cur = nums[0]
            for x in nums[1:]:
                cur = max(x, cur + x)
                best = max(best, cur)
            return best
""").lstrip()
TABLE = textwrap.dedent("""
    class Solution:
        def maxSubArray(self, nums: List[int]) -> int:
            n = len(nums)
            s = [[0] * (n + 1) for _ in range(n + 1)]
            for i in range(n):
                for j in range(i, n):
                    s[i][j + 1] = s[i][j] + nums[j]
            return max(s[i][j] for i in range(n) for j in range(i + 1, n + 1))
""").lstrip()


CANDIDATE = os.environ.get("RLM_GATE_TEST_MODEL")  # try a model before shipping it: a model directory


@pytest.mark.skipif(not (SHIPPED.is_file() or CANDIDATE), reason="shipped model not present (rlm_lsp/models/default)")
def test_pre_commit_blocks_a_materializing_rewrite_with_the_shipped_model(hook, tmp_path):
    _, _, env = hook
    # The shipped model (python-v3, geometric mean) predicts 65 kB -> 141 kB (2.2x) for this rewrite,
    # but only 6 of its 16 paired samples grow by 1.3x: the default rule (2.0x, 70% of the pairs)
    # lets it through. Real n x n tables on real inputs are far bigger; the model's intervals are
    # wide (rlm_lsp/models/default/MODEL_CARD.md, the confidence rule). This test is about the real hook running the real
    # model end to end, so it asks for 1.3x on the estimates alone (and the model's feature trees, which
    # see the table's growth too).
    args = ["--ratio=1.3", "--confidence=0"] + (["--model", CANDIDATE] if CANDIDATE else [])
    repo = make_repo(tmp_path / "work", hook, args, {"solution.py": KADANE})
    first = commit(repo, env, "init")
    assert first.returncode == 0, first.stdout
    write(repo, "solution.py", TABLE)
    ok(["git", "add", "-A"], repo, env)
    before = head(repo, env)
    proc = commit(repo, env, "materialize")
    assert proc.returncode != 0, proc.stdout
    assert head(repo, env) == before
    assert "solution.py:2: Solution.maxSubArray(): predicted peak memory" in proc.stdout
    assert "exceeds 1.3×" in proc.stdout

    pragma = "    # rlm: allow-regression the table is reused by the report\n    def maxSubArray"
    write(repo, "solution.py", TABLE.replace("    def maxSubArray", pragma))
    ok(["git", "add", "-A"], repo, env)
    proc = commit(repo, env, "materialize, on purpose")
    assert proc.returncode == 0, proc.stdout
    assert "allowed by pragma: the table is reused by the report" in proc.stdout
    assert head(repo, env) != before
