"""The gate end to end in real temporary git repositories, with a fake predictor whose numbers
follow the code (each `materialize` multiplies memory by 8, each `sleepy` latency by 3), so
every expected verdict is known in advance."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from rlm_lsp.gate import gate

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip


@dataclass(frozen=True)
class P:
    metric: str
    value: float
    low: float
    high: float
    unit: str


class FakePredictor:
    def __init__(self):
        metrics = [SimpleNamespace(name="memory", unit="bytes"), SimpleNamespace(name="latency", unit="ms")]
        self.config = SimpleNamespace(metrics=metrics, model_version="fake-1")
        self.calls: list[list[str]] = []

    def predict(self, codes, language="python", metrics=None, context=None):
        self.calls.append(list(codes))
        out = []
        for code in codes:
            mem = 1e6 * 8 ** code.count("materialize")
            lat = 10.0 * 3 ** code.count("sleepy")
            out.append({"memory": P("memory", mem, mem, mem, "bytes"), "latency": P("latency", lat, lat, lat, "ms")})
        return [{k: v for k, v in d.items() if metrics is None or k in metrics} for d in out]


def no_model():
    raise AssertionError("the model must not be loaded when nothing needs predicting")


def sh(repo: Path, *args: str) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def write(repo: Path, path: str, text: str | bytes) -> None:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        target.write_bytes(text)
    else:
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


APP = """
    import json


    def stream(path):
        '''Sum the numbers of a file, one line at a time.'''
        total = 0
        with open(path) as fh:
            for line in fh:
                total += int(line)
        return total


    class Store:
        def load(self, path):
            return json.load(open(path))

        def keys(self):
            return sorted(self.data)
"""

MATERIALIZED = APP.replace(
    """        with open(path) as fh:
            for line in fh:
                total += int(line)""",
    """        with open(path) as fh:
            lines = fh.readlines()  # materialize
        for line in lines:
            total += int(line)""",
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    write(repo, "src/app.py", APP)
    write(repo, "src/util.py", "def add(a, b):\n    return a + b\n")
    write(repo, "README.md", "hello\n")
    sh(repo, "add", "-A")
    sh(repo, "commit", "-qm", "init")
    monkeypatch.chdir(repo)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "GIT_DIR"):
        monkeypatch.delenv(key, raising=False)
    return repo


def run_gate(capsys, *argv: str, loader=FakePredictor) -> tuple[int, str]:
    code = gate.main(list(argv), loader=loader)
    return code, capsys.readouterr().out


def stage(repo: Path, path: str, text: str | bytes) -> None:
    write(repo, path, text)
    sh(repo, "add", path)


def test_materialized_regression_is_blocked(repo, capsys):
    stage(repo, "src/app.py", MATERIALIZED)
    code, out = run_gate(capsys)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "src/app.py:4: stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×"
    assert lines[-1] == (
        "rlm-gate: FAILED: 1 predicted regression in 1 of 1 changed function in 1 file (2 unchanged after normalizing)"
    )
    assert len(lines) == 2


def test_comment_docstring_and_rename_only_pass_without_loading_the_model(repo, capsys):
    edited = APP.replace("Sum the numbers", "Add up the numbers").replace("total = 0", "total = 0  # int")
    edited = edited.replace("def keys(self)", "def sorted_keys(self)")
    stage(repo, "src/app.py", edited)
    sh(repo, "mv", "src/util.py", "src/helpers.py")
    code, out = run_gate(capsys, loader=no_model)
    assert code == 0
    assert out.splitlines()[-1] == (
        "rlm-gate: passed: 0 changed functions in 2 files, no predicted regression "
        "(3 unchanged after normalizing; 1 renamed only)"
    )


def test_pragma_passes_and_prints_the_reason(repo, capsys):
    stage(
        repo,
        "src/app.py",
        MATERIALIZED.replace("def stream(path):", "def stream(path):  # rlm: allow-regression inputs are tiny"),
    )
    code, out = run_gate(capsys)
    assert code == 0
    assert "stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×; allowed by pragma: inputs are tiny" in out
    assert "1 allowed by pragma" in out.splitlines()[-1]


def test_pragma_without_reason_does_not_count(repo, capsys):
    stage(
        repo, "src/app.py", MATERIALIZED.replace("def stream(path):", "# rlm: allow-regression\n    def stream(path):")
    )
    code, out = run_gate(capsys)
    assert code == 1
    assert "src/app.py: line 5: `# rlm: allow-regression` needs a reason; ignored" in out


def test_new_deleted_binary_non_utf8_and_syntax_error_files(repo, capsys):
    stage(repo, "src/fresh.py", "def grow(n):\n    return [0] * n  # materialize materialize\n")
    sh(repo, "rm", "-q", "src/util.py")
    stage(repo, "src/blob.py", b"\x00\x01binary\x00")
    stage(repo, "src/latin.py", "def f():\n    return 'caf\xe9'\n".encode("latin-1"))
    stage(repo, "src/broken.py", "def f(:\n    pass\n")
    code, out = run_gate(capsys)
    assert code == 0, out  # a new function meets budgets only, and there are none
    assert "src/blob.py: skipped: binary file" in out
    assert "src/latin.py: skipped: not UTF-8 text (byte 24)" in out
    assert "src/broken.py: skipped: syntax error at line 1:" in out
    assert out.splitlines()[-1] == (
        "rlm-gate: passed: 1 changed function in 1 file, no predicted regression "
        "(1 new, judged against budgets only; 3 files skipped)"
    )
    code, out = run_gate(capsys, "--budget", "memory=10MB")
    assert code == 1
    assert "src/fresh.py:1: grow() (new): predicted peak memory 64 MB exceeds budget 10 MB" in out


def test_syntax_error_fixed_counts_functions_as_new(repo, capsys):
    stage(repo, "src/broken.py", "def f(:\n    pass\n")
    sh(repo, "commit", "-qm", "broken")
    stage(repo, "src/broken.py", "def f():\n    pass\n")
    code, out = run_gate(capsys)
    assert code == 0
    assert "src/broken.py: previous version syntax error at line 1: invalid syntax; its functions count as new" in out


def test_missing_model_fails_clearly_and_fail_open_passes(repo, capsys, tmp_path):
    stage(repo, "src/app.py", MATERIALIZED)
    code, out = run_gate(capsys, "--model", str(tmp_path / "nowhere"), loader=None)
    assert code == 2
    assert out.splitlines()[-1].startswith(
        f"rlm-gate: FAILED: cannot load the model: ModelError: model directory not found: {tmp_path / 'nowhere'}"
    )
    code, out = run_gate(capsys, "--model", str(tmp_path / "nowhere"), "--fail-open", loader=None)
    assert code == 0
    assert out.splitlines()[-1].startswith(
        "rlm-gate: WARNING: not checked, passing because of --fail-open: cannot load"
    )


def test_broken_predictor_fails(repo, capsys):
    class Broken(FakePredictor):
        def predict(self, codes, language="python", metrics=None, context=None):
            raise RuntimeError("session exploded")

    stage(repo, "src/app.py", MATERIALIZED)
    code, out = run_gate(capsys, loader=Broken)
    assert code == 2 and "prediction failed: RuntimeError: session exploded" in out


def test_reports_to_files(repo, capsys, tmp_path):
    stage(repo, "src/app.py", MATERIALIZED)
    code, out = run_gate(capsys, "--report", "json", "--report-file", str(tmp_path / "r.json"))
    assert code == 1 and out.startswith("src/app.py:4: stream()")
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["passed"] is False and data["model_version"] == "fake-1"
    [finding] = data["findings"]
    assert finding["path"] == "src/app.py" and finding["line"] == 4 and finding["ratio"] == 8.0
    assert finding["status"] == "fail" and finding["rule"] == "ratio"
    [function] = data["functions"]
    assert function["predictions"]["memory"]["old"]["value"] == 1e6
    assert data["settings"]["ratios"] == {"memory": 2.0, "latency": 2.0}

    code, out = run_gate(capsys, "--report", "markdown", "--report-file", str(tmp_path / "r.md"))
    md = (tmp_path / "r.md").read_text()
    assert md.startswith("### ❌ rlm-gate")
    assert md.startswith("### ❌ rlm-gate: 1 regressed · 0 inconclusive · 0 improved · 2 unchanged · 0 new\n")
    assert "| ❌ regressed | `src/app.py:4` `stream()` | peak memory | 1 MB | 8 MB | 8.0× | 2.0× |" in md
    code, out = run_gate(capsys, "--report", "json")  # no file: the report replaces the text on stdout
    assert json.loads(out)["summary"].startswith("rlm-gate: FAILED")
    code, out = run_gate(capsys, "--report-file", str(tmp_path / "r.txt"))
    assert (tmp_path / "r.txt").read_text() == out and out.startswith("src/app.py:4: stream()")
    code, out = run_gate(capsys, "--report", "json", "--report-file", str(tmp_path / "missing" / "r.json"))
    assert code == 2 and "cannot write the report" in out


def tree_state(repo: Path) -> tuple[str, str, bytes]:
    files = sorted(p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts)
    digest = hashlib.sha256(b"".join(p.read_bytes() + str(p).encode() for p in files)).hexdigest()
    return digest, sh(repo, "status", "--porcelain"), (repo / ".git" / "index").read_bytes()


def test_never_touches_the_tree_or_index_and_is_deterministic(repo, capsys):
    stage(repo, "src/app.py", MATERIALIZED)
    write(repo, "src/util.py", "def add(a, b):\n    return a - b  # unstaged: not judged\n")
    stage(repo, "src/new.py", "def g():\n    return 1\n")
    before = tree_state(repo)
    first = run_gate(capsys)
    run_gate(capsys, "--report", "json")
    third = run_gate(capsys)
    assert tree_state(repo) == before
    assert first == third and "src/util.py" not in first[1]


def test_only_the_files_pre_commit_passes(repo, capsys):
    stage(repo, "src/app.py", MATERIALIZED)
    stage(repo, "src/util.py", "def add(a, b):\n    return [a, b]  # materialize\n")
    code, out = run_gate(capsys, "src/util.py")
    assert code == 1 and "src/app.py" not in out and "src/util.py:1: add()" in out
    code, out = run_gate(capsys, "--exclude", "src/util.py")
    assert "src/util.py" not in out and "src/app.py:4" in out


def test_pyproject_settings_and_command_line_override(repo, capsys):
    write(repo, "pyproject.toml", "[tool.rlm]\nmemory-ratio = 10\n")
    stage(repo, "src/app.py", MATERIALIZED)
    code, _ = run_gate(capsys)
    assert code == 0
    code, out = run_gate(capsys, "--ratio", "memory=8")
    assert code == 1 and "exceeds 8.0×" in out
    write(repo, "pyproject.toml", "[tool.rlm]\nmemory-ratio = 0.5\n")
    code, out = run_gate(capsys)
    assert code == 2 and "bad setting" in out and "memory-ratio" in out


def test_a_metric_the_model_does_not_predict_is_a_bad_setting(repo, capsys):
    stage(repo, "src/app.py", MATERIALIZED)
    write(repo, "pyproject.toml", '[tool.rlm]\nmetrics = ["memroy"]\n')
    code, out = run_gate(capsys)
    assert code == 2 and "bad setting: metrics: 'memroy' not predicted by this model (it predicts" in out
    write(repo, "pyproject.toml", "[tool.rlm]\nmetrics = []\n")
    code, out = run_gate(capsys)
    assert code == 2 and "bad setting: metrics: none named" in out
    code, out = run_gate(capsys, "--metrics", "memory,latncy")
    assert code == 2 and "'latncy' not predicted" in out
    write(repo, "pyproject.toml", "[tool.rlm]\n")
    code, out = run_gate(capsys, "--ratio", "memroy=3")
    assert code == 2 and "bad setting: ratio or budget for 'memroy', not predicted by this model" in out


def test_base_and_head_refs_for_ci(repo, capsys):
    base = sh(repo, "rev-parse", "HEAD").strip()
    stage(repo, "src/app.py", MATERIALIZED)
    sh(repo, "commit", "-qm", "materialize")
    stage(repo, "src/util.py", "def add(a, b):\n    return a + b + 0\n")
    sh(repo, "commit", "-qm", "tweak")
    code, out = run_gate(capsys)  # nothing staged
    assert code == 0 and "0 changed functions in 0 files" in out
    code, out = run_gate(capsys, "--base", base, "--head", "HEAD")
    assert code == 1 and "src/app.py:4: stream()" in out and "2 changed functions in 2 files" in out
    write(repo, "src/app.py", APP)  # working tree back to the old code, unstaged
    code, out = run_gate(capsys, "--base", base)
    assert code == 0 and "1 changed function in 1 file" in out
    code, out = run_gate(capsys, "--base", "no-such-ref")
    assert code == 2 and "unknown git revision 'no-such-ref'" in out


def test_pre_commit_from_and_to_ref(repo, capsys, monkeypatch):
    sh(repo, "checkout", "-qb", "topic")
    stage(repo, "src/app.py", MATERIALIZED)
    sh(repo, "commit", "-qm", "materialize")
    monkeypatch.setenv("PRE_COMMIT_FROM_REF", "main")
    monkeypatch.setenv("PRE_COMMIT_TO_REF", "topic")
    code, out = run_gate(capsys)
    assert code == 1 and "src/app.py:4: stream()" in out


def test_first_commit_and_moves_between_files(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "fresh"
    repo.mkdir()
    sh(repo, "init", "-q")
    monkeypatch.chdir(repo)
    stage(repo, "a.py", APP)
    code, out = run_gate(capsys)
    assert code == 0 and "3 changed functions in 1 file" in out
    sh(repo, "commit", "-qm", "one")
    moved = APP.replace("def stream", "def streamed").replace(
        "\n        def keys(self):\n            return sorted(self.data)\n", "\n"
    )
    assert moved.count("def ") == 2
    stage(repo, "a.py", moved)
    stage(repo, "c.py", "class Store:\n    def keys(self):\n        return sorted(self.data)\n")
    code, out = run_gate(capsys, loader=no_model)
    assert code == 0, out
    assert out.splitlines()[-1] == (
        "rlm-gate: passed: 0 changed functions in 2 files, no predicted regression "
        "(2 unchanged after normalizing; 1 renamed only)"
    )


def test_not_a_repository(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out = run_gate(capsys)
    assert code == 2 and out.startswith("rlm-gate: FAILED: git rev-parse --show-toplevel: fatal: not a git repository")


def test_symlinks_are_skipped_with_a_note(repo, capsys):
    (repo / "src" / "link.py").symlink_to("app.py")
    sh(repo, "add", "src/link.py")
    code, out = run_gate(capsys, loader=no_model)
    assert code == 0 and "src/link.py: skipped: not a regular file" in out


def test_kernel_metric_note_only_when_a_kernel_changed(repo, capsys):
    stage(repo, "src/app.py", MATERIALIZED)
    code, out = run_gate(capsys)
    assert "kernel_latency" not in out  # default metric, no kernel in the change: silent
    stage(repo, "src/k.py", "import triton\n\n\n@triton.jit\ndef k(x_ptr):\n    pass\n")
    code, out = run_gate(capsys)
    assert "(settings): metric 'kernel_latency' is not predicted by this model; ignored" in out


RENAME_PROGRAMS = [
    """
    import heapq


    def smallest(values, k):
        heap = []
        for value in values:
            heapq.heappush(heap, -value)
            if len(heap) > k:
                heapq.heappop(heap)
        return sorted(-x for x in heap)


    def top(values):
        return smallest(values, {k})[0]
    """,
    """
    class Graph:
        def __init__(self, n):
            self.adj = [[] for _ in range(n)]

        def connect(self, a, b):
            self.adj[a].append(b)
            self.adj[b].append(a)

        def reach(self, start):
            seen, todo = {{start}}, [start]
            while todo:
                node = todo.pop()
                for nxt in self.adj[node]:
                    if nxt not in seen:
                        seen.add(nxt)
                        todo.append(nxt)
            return len(seen) + {k}
    """,
    """
    def count_pairs(nums, target):
        seen = {{}}
        pairs = 0
        for i, x in enumerate(nums):
            pairs += seen.get(target - x, 0)
            seen[x] = seen.get(x, 0) + {k}
        return pairs
    """,
]


def test_rename_only_commit_of_30_files_passes_without_the_model(repo, capsys):
    """Locals, parameters, functions and methods renamed consistently in 30 files (bench/rewrites.py,
    which finds the names with the compiler's symtable): no function changed, nothing predicted."""
    import random
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import rewrites

    rng = random.Random(0)
    originals = {f"pkg/m{i:02d}.py": textwrap.dedent(RENAME_PROGRAMS[i % 3].format(k=i)).lstrip("\n")
                 for i in range(30)}
    for path, text in originals.items():
        write(repo, path, text)
    sh(repo, "add", "-A")
    sh(repo, "commit", "-qm", "thirty files")
    for path, text in originals.items():
        renamed = rewrites.rename_functions(rewrites.rename_locals(text, rng), rng)
        assert renamed != text
        stage(repo, path, renamed)
    assert len(sh(repo, "diff", "--cached", "--name-only").split()) == 30
    code, out = run_gate(capsys, loader=no_model)
    assert code == 0, out
    assert "FAILED" not in out


def test_rename_with_rewrite_reported_as_delete_and_add_is_judged_as_a_modification(repo, capsys):
    """git pairs a moved file only above 50% similarity; below that it lists a delete and an add.
    The function keeps its name, so it is still compared with its old self (issue 23)."""
    filler = "".join(f"\n\ndef extra_{i}(x):\n    return x + {i}\n" for i in range(12))
    sh(repo, "rm", "-q", "src/app.py")
    stage(repo, "src/core/app_v2.py", textwrap.dedent(MATERIALIZED).lstrip("\n") + filler)
    raw = sh(repo, "diff", "--cached", "--name-status", "-M")
    assert "D\tsrc/app.py" in raw and "A\tsrc/core/app_v2.py" in raw  # not paired as a rename
    code, out = run_gate(capsys)
    assert code == 1, out
    assert "stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×" in out
