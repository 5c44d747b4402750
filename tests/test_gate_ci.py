"""The gate where teams run it (issue 49): three outcomes, CI formats (GitHub workflow commands,
SARIF 2.1.0, a Markdown summary, JSON), exit codes, per-function and per-path limits, and the CI
recipe of docs/gate.md run in scratch repositories; and issue 52's gate cases (a shallow clone,
bad values, odd file names, a merge conflict).

A fake predictor whose numbers follow the code, with 16 paired draws per prediction:
`materialize` multiplies memory by 8 in every draw (a regression), `maybe` by 3 in the point
estimate but in only 4 of the 16 draws (inconclusive), `lighter` divides it by 8 (an improvement).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest

from rlm_lsp.gate import gate
from rlm_lsp.runtime.prediction import Prediction

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip
SCHEMA = Path(__file__).parent / "fixtures" / "sarif-schema-2.1.0.json"
DRAWS = 16


class FakePredictor:
    def __init__(self):
        metrics = [SimpleNamespace(name="memory", unit="bytes"), SimpleNamespace(name="latency", unit="ms")]
        self.config = SimpleNamespace(metrics=metrics, model_version="fake-ci")

    def predict(self, codes, language="python", metrics=None, context=None):
        out = []
        for code in codes:
            mem = 1e6 * 8 ** code.count("materialize") / 8 ** code.count("lighter")
            draws = (mem,) * DRAWS
            if "maybe" in code:  # the estimate grew 3x, 4 of the 16 paired draws agree
                draws = (mem * 3,) * 4 + (mem,) * (DRAWS - 4)
                mem *= 3
            out.append({"memory": Prediction("memory", mem, mem, mem, "bytes", samples=draws),
                        "latency": Prediction("latency", 10.0, 10.0, 10.0, "ms", samples=(10.0,) * DRAWS)})
        return [{k: v for k, v in d.items() if metrics is None or k in metrics} for d in out]


def broken_model():
    raise RuntimeError("no model here")


APP = """
    def stream(path):
        total = 0
        for line in open(path):
            total += int(line)
        return total


    def load(path):
        rows = []
        for line in open(path):
            rows.append(line.split(","))
        return rows


    def keys(table):
        out = set()
        for row in table:
            out.add(row[0])
        return out
"""
REGRESSED = ("total = 0\n", "total = 0\n    lines = list(open(path))  # materialize\n")
MAYBE = ("rows = []\n", "rows = []\n    seen = {}  # maybe\n")
LIGHTER = ("out = set()\n", "out = set()  # lighter\n    out.clear()\n")


def app(*edits: tuple[str, str]) -> str:
    text = textwrap.dedent(APP).lstrip("\n")
    for old, new in edits:
        assert old in text
        text = text.replace(old, new, 1)
    return text


def sh(repo: Path, *args: str, check: bool = True) -> str:
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env={**os.environ, **GIT_ENV})
    assert proc.returncode == 0 or not check, proc.stderr
    return proc.stdout


def write(repo: Path, path: str | bytes, text: str) -> None:
    target = Path(os.fsdecode(os.path.join(os.fsencode(repo), os.fsencode(path))))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def stage(repo: Path, path: str, text: str) -> None:
    write(repo, path, text)
    sh(repo, "add", "--", path)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    sh(repo, "init", "-q", "-b", "main")
    stage(repo, "src/app.py", app())
    sh(repo, "commit", "-qm", "init")
    monkeypatch.chdir(repo)
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "GIT_DIR", "GITHUB_STEP_SUMMARY"):
        monkeypatch.delenv(key, raising=False)
    return repo


def run_gate(capsys, *argv: str, loader=FakePredictor) -> tuple[int, str]:
    code = gate.main(list(argv), loader=loader)
    return code, capsys.readouterr().out


# -- outcomes -----------------------------------------------------------------------------------


def test_regressed_inconclusive_improved_and_new_each_say_so(repo, capsys):
    stage(repo, "src/app.py", app(REGRESSED, MAYBE, LIGHTER))
    stage(repo, "src/fresh.py", "def grow(n):\n    return [0] * n\n")
    code, out = run_gate(capsys)
    assert code == 1
    assert out.splitlines() == [
        "src/app.py:1: stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×",
        "src/app.py:9: load(): inconclusive: predicted peak memory 1 MB → 3 MB (3.0×) past 2.0×, "
        "but only 25% of the paired draws agree (needs 65%); not blocking",
        "src/app.py:17: keys(): improved: predicted peak memory 1 MB → 125 kB (8.0× less)",
        "rlm-gate: FAILED: 1 predicted regression in 1 of 4 changed functions in 2 files "
        "(1 new, judged against budgets only; 1 inconclusive; 1 improved)",
    ]


def test_inconclusive_never_blocks_unless_configured(repo, capsys):
    stage(repo, "src/app.py", app(MAYBE))
    code, out = run_gate(capsys)
    assert code == 0 and "passed" in out.splitlines()[-1] and "1 inconclusive" in out
    code, out = run_gate(capsys, "--fail-inconclusive")
    assert code == 1 and "; fails (fail-inconclusive)" in out
    write(repo, "pyproject.toml", "[tool.rlm]\nfail-inconclusive = true\n")
    assert run_gate(capsys)[0] == 1


def test_an_improvement_alone_passes(repo, capsys):
    stage(repo, "src/app.py", app(LIGHTER))
    code, out = run_gate(capsys)
    assert code == 0 and out.splitlines()[-1].endswith(
        "no predicted regression (2 unchanged after normalizing; 1 improved)")


# -- exit codes ---------------------------------------------------------------------------------


def test_exit_codes_and_exit_zero(repo, capsys, tmp_path):
    assert run_gate(capsys)[0] == 0  # nothing staged
    stage(repo, "src/app.py", app(REGRESSED))
    assert run_gate(capsys)[0] == 1
    assert run_gate(capsys, "--exit-zero")[0] == 0
    for argv in (["--ratio", "inf"], ["--base", "no-such-ref"], ["--budget", "memory=lots"]):
        code, out = run_gate(capsys, *argv)
        assert code == 2 and len(out.splitlines()) == 1 and out.startswith("rlm-gate: FAILED: "), (argv, out)
        assert run_gate(capsys, "--exit-zero", *argv)[0] == 2  # not judged is not a pass
    code, out = run_gate(capsys, loader=broken_model)
    assert code == 2 and "cannot load the model: RuntimeError: no model here" in out
    assert run_gate(capsys, "--fail-open", loader=broken_model)[0] == 0
    code, out = run_gate(capsys, "--summary", str(tmp_path / "no" / "such" / "dir.md"))
    assert code == 2 and "cannot write the summary" in out
    with pytest.raises(SystemExit) as usage:
        gate.main(["--format", "yaml"])
    assert usage.value.code == 2


@pytest.mark.parametrize("argv", [["--samples", "0"], ["--samples", "-1"], ["--threads", "0"]])
def test_counts_below_one_are_refused_by_the_parser(repo, capsys, argv):
    # the options' own types (rlm_lsp.policy.options) refuse them before the gate reads anything: one line, exit 2
    stage(repo, "src/app.py", app(REGRESSED))
    with pytest.raises(SystemExit) as exc:
        gate.main(list(argv), loader=FakePredictor)
    err = capsys.readouterr().err.strip().splitlines()
    assert exc.value.code == 2
    assert f"argument {argv[0]}: expected a whole number of at least 1" in err[-1]


@pytest.mark.parametrize("argv, says", [
    (["--ratio", "inf"], "--ratio inf: a ratio must be a finite number greater than 1"),
])
def test_values_that_used_to_be_accepted_silently(repo, capsys, argv, says):
    stage(repo, "src/app.py", app(REGRESSED))
    code, out = run_gate(capsys, *argv)
    assert (code, out) == (2, f"rlm-gate: FAILED: bad setting: {says}, got 'inf'\n" if "inf" in says
                           else f"rlm-gate: FAILED: bad setting: {says}\n")


@pytest.mark.parametrize("body, says", [
    ('tool = "x"\n', "tool: expected a table ([tool.rlm]), got 'x'"),
    ("[tool.rlm]\nmemory-budget = [1]\n", "memory-budget: expected a number or a quantity like '512 MB' or "
                                          "'200 ms', got [1]"),
    ("[tool.rlm]\nratio = inf\n", "ratio: a ratio must be a finite number greater than 1, got inf"),
    ("[tool.rlm]\nbudgets = 3\n", "budgets: expected a table of path globs"),
    ('[tool.rlm.budgets]\n"src/**" = { memory = [1] }\n', "budgets: 'src/**': memory: expected a number"),
    ('[tool.rlm.budgets]\n"src/**" = "1 MB"\n', "budgets: 'src/**': expected a table like"),
])
def test_a_bad_pyproject_is_one_line_naming_the_key(repo, capsys, body, says):
    write(repo, "pyproject.toml", body)
    stage(repo, "src/app.py", app(REGRESSED))
    code, out = run_gate(capsys)
    assert code == 2 and len(out.splitlines()) == 1 and says in out, out


# -- formats ------------------------------------------------------------------------------------

ANNOTATION = re.compile(r"^::(error|warning|notice) (?:file=([^,]*),)?(?:line=(\d+),)?title=([^:]*)::(.*)$")


def test_github_annotations_parse(repo, capsys):
    stage(repo, "src/app.py", app(REGRESSED, MAYBE, LIGHTER))
    stage(repo, "src/bad.py", "def f(:\n")
    code, out = run_gate(capsys, "--format", "github")
    assert code == 1
    *commands, last = out.splitlines()
    parsed = [ANNOTATION.match(line) for line in commands]
    assert all(parsed), commands
    assert [(m[1], m[2], m[3]) for m in parsed] == [
        ("error", "src/app.py", "1"), ("warning", "src/app.py", "9"), ("notice", "src/app.py", "17"),
        ("warning", "src/bad.py", None)]  # the skipped file: `file=` alone, no line
    assert commands[-1].startswith("::warning file=src/bad.py,title=rlm-gate::skipped: syntax error at line 1")
    assert parsed[0][4] == "rlm-gate%3A stream() peak memory regressed"
    assert parsed[0][5] == "stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×"
    assert last.startswith("rlm-gate: FAILED: 1 predicted regression")


def test_github_annotation_of_an_error(repo, capsys):
    code, out = run_gate(capsys, "--format", "github", "--base", "nope")
    assert code == 2 and out.splitlines()[0] == "::error title=rlm-gate::rlm-gate: FAILED: unknown git revision 'nope'"


def sarif_errors(text: str) -> list[str]:
    import jsonschema

    validator = jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(json.loads(text))]


def test_sarif_validates_against_the_2_1_0_schema(repo, capsys):
    stage(repo, "src/app.py", app(REGRESSED, MAYBE, LIGHTER).replace(
        "def stream(path):", "def stream(path):  # rlm: allow-regression[memory<=10x] read once"))
    stage(repo, "src/bad.py", "def f(:\n")
    stage(repo, "src/café é.py", "def g():\n    return 1  # materialize\n")
    code, out = run_gate(capsys, "--format", "sarif")
    assert code == 0, out
    assert sarif_errors(out) == []
    log = json.loads(out)
    assert log["version"] == "2.1.0"
    [run] = log["runs"]
    levels = [(r["ruleId"], r["level"], r["locations"][0]["physicalLocation"]["region"]["startLine"])
              for r in run["results"]]
    assert levels == [("memory/regressed", "note", 1), ("memory/inconclusive", "warning", 9),
                      ("memory/improved", "note", 17)]
    assert run["results"][0]["suppressions"] == [{"kind": "inSource", "justification": "read once"}]
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "src/bad.py"
    assert run["invocations"][0]["executionSuccessful"] is True
    code, out = run_gate(capsys, "--format", "sarif", "--budget", "memory=2MB")  # a name to percent-encode
    assert code == 1 and sarif_errors(out) == []
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in json.loads(out)["runs"][0]["results"]]
    assert "src/caf%C3%A9%20%C3%A9.py" in uris
    # an error
    code, out = run_gate(capsys, "--format", "sarif", "--base", "nope")
    assert code == 2 and sarif_errors(out) == []
    assert json.loads(out)["runs"][0]["invocations"][0]["executionSuccessful"] is False


def test_sarif_schema_catches_a_broken_log():
    """The vendored schema is the real one: it rejects what SARIF 2.1.0 does not allow."""
    assert sarif_errors(json.dumps({"version": "2.1.0", "runs": [{"results": []}]}))  # no tool
    assert sarif_errors(json.dumps({"version": "2.0.0", "runs": []}))


def test_json_has_every_judged_function_with_its_outcome(repo, capsys):
    stage(repo, "src/app.py", app(REGRESSED, MAYBE, LIGHTER))
    stage(repo, "src/fresh.py", "def grow(n):\n    return [0] * n\n")
    code, out = run_gate(capsys, "--format", "json")
    data = json.loads(out)
    assert code == 1 and data["exit_code"] == 1 and data["passed"] is False
    assert [(f["qualname"], f["outcome"], f["judged"]) for f in data["functions"]] == [
        ("stream", "regressed", "ratio and budgets"), ("load", "inconclusive", "ratio and budgets"),
        ("keys", "improved", "ratio and budgets"), ("grow", "new", "budgets only")]
    assert [(f["outcome"], f["status"], f["limit_source"]) for f in data["findings"]] == [
        ("regressed", "fail", "ratio"), ("inconclusive", "inconclusive", "ratio"), ("improved", "improved", "ratio")]
    assert data["counts"] == {"regressed": 1, "allowed": 0, "inconclusive": 1, "improved": 1, "unchanged": 0,
                              "new": 1}


@pytest.mark.parametrize("edits, head", [
    ((REGRESSED,), "### ❌ rlm-gate: 1 regressed · 0 inconclusive · 0 improved · 2 unchanged · 0 new"),
    ((MAYBE,), "### ✅ rlm-gate: 0 regressed · 1 inconclusive · 0 improved · 2 unchanged · 0 new"),
    ((LIGHTER, MAYBE), "### ✅ rlm-gate: 0 regressed · 1 inconclusive · 1 improved · 1 unchanged · 0 new"),
])
def test_markdown_summary_for_each_outcome_mix(repo, capsys, tmp_path, edits, head):
    stage(repo, "src/app.py", app(*edits))
    summary = tmp_path / "summary.md"
    code, out = run_gate(capsys, "--summary", str(summary))
    assert out.splitlines()[-1].startswith("rlm-gate: ")  # the text report still goes to stdout
    md = summary.read_text()
    assert md.splitlines()[0] == head
    assert "| outcome | function | metric | before | after | change | limit |" in md


def test_markdown_summary_is_one_line_when_nothing_changed(repo, capsys, tmp_path):
    stage(repo, "src/app.py", app() + "# a comment\n")
    summary = tmp_path / "summary.md"
    assert run_gate(capsys, "--summary", str(summary))[0] == 0
    assert summary.read_text() == (
        "✅ rlm-gate: passed: 0 changed functions in 1 file, no predicted regression (3 unchanged after normalizing)\n")


# -- limits -------------------------------------------------------------------------------------


def with_pragma(pragma: str) -> str:
    return app(REGRESSED).replace("def stream(path):", f"def stream(path):  {pragma}")


@pytest.mark.parametrize("pragma, code, says", [
    ("# rlm: allow-regression reads small files", 0, "; allowed by pragma: reads small files"),
    ("# rlm: allow-regression[memory<=10x] reads small files", 0,
     "; allowed by pragma (memory<=10x): reads small files"),
    ("# rlm: allow-regression[memory<=4x] reads small files", 1, "exceeds 2.0×; over the pragma's limit memory<=4x"),
    ("# rlm: allow-regression[latency<=4x] reads small files", 1,
     "exceeds 2.0×; the pragma's limits do not allow peak memory"),
    ("# rlm: allow-regression[memory, 4] reads small files", 1, "exceeds 2.0×"),
])
def test_a_pragma_with_limits_allows_that_much_and_no_more(repo, capsys, pragma, code, says):
    stage(repo, "src/app.py", with_pragma(pragma))
    got, out = run_gate(capsys)
    assert got == code and out.splitlines()[0].endswith(says), out
    if "memory, 4" in pragma:
        assert "src/app.py: line 1: `# rlm: allow-regression[memory, 4]`: limit 'memory' is not like memory<=4x; " \
               "ignored" in out


def test_budgets_per_path_glob_name_the_glob(repo, capsys):
    write(repo, "pyproject.toml", textwrap.dedent("""
        [tool.rlm]
        memory-budget = "100 MB"

        [tool.rlm.budgets]
        "src/hot/**" = { memory = "2 MB" }
        "src/**" = { latency = "1 ms" }
    """))
    stage(repo, "src/hot/loop.py", "def spin(n):\n    return [0] * n  # materialize\n")
    stage(repo, "src/cold.py", "def rest(n):\n    return [0] * n  # materialize\n")
    code, out = run_gate(capsys, "--metrics", "memory", "--format", "json")
    data = json.loads(out)
    assert code == 1
    assert [(f["path"], f["limit_source"]) for f in data["findings"]] == [("src/hot/loop.py", "budgets 'src/hot/**'")]
    assert data["findings"][0]["message"] == (
        "src/hot/loop.py:1: spin() (new): predicted peak memory 8 MB exceeds budget 2 MB (budgets 'src/hot/**')")
    # the metric a glob does not name falls through to the next glob, then to the global budget
    code, out = run_gate(capsys, "--metrics", "latency")
    assert code == 1 and "src/cold.py:1: rest() (new): predicted latency 10 ms exceeds budget 1 ms (budgets 'src/**')" in out
    write(repo, "pyproject.toml", '[tool.rlm.budgets]\n"src/**" = { memroy = "1 MB" }\n')
    code, out = run_gate(capsys)
    assert code == 2 and "bad setting: ratio or budget for 'memroy'" in out
    write(repo, "pyproject.toml", '[tool.rlm.budgets]\n"src/**" = { memory = "1 ms" }\n')
    code, out = run_gate(capsys)
    assert code == 2 and "memory budget for 'src/**' '1 ms' is not in bytes" in out


# -- the CI recipe ------------------------------------------------------------------------------


def git_in(where: Path, *args: str) -> str:
    return sh(where, *args)


def upstream(tmp_path: Path) -> Path:
    """A repository standing in for the remote: main with two commits."""
    origin = tmp_path / "origin"
    origin.mkdir()
    sh(origin, "init", "-q", "-b", "main")
    stage(origin, "src/app.py", app())
    sh(origin, "commit", "-qm", "init")
    stage(origin, "README.md", "hello\n")
    sh(origin, "commit", "-qm", "readme")
    return origin


def test_ci_recipe_in_a_scratch_repository(tmp_path, capsys, monkeypatch):
    """docs/gate.md's job: a full checkout of a pull request's branch, then
    `rlm gate --base origin/main --format github --summary "$GITHUB_STEP_SUMMARY"`."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    origin = upstream(tmp_path)
    work = tmp_path / "work"
    subprocess.run(["git", "clone", "-q", f"file://{origin}", str(work)], check=True, env={**os.environ, **GIT_ENV})
    sh(work, "checkout", "-q", "-b", "feature")
    stage(work, "src/app.py", app(REGRESSED))
    sh(work, "commit", "-qm", "read it all")
    # main moves on after the branch forked: its change must not be read backwards as the branch's
    stage(origin, "src/app.py", app(LIGHTER))
    sh(origin, "commit", "-qm", "keys: lighter")
    sh(work, "fetch", "-q", "origin")
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.chdir(work)
    code, out = run_gate(capsys, "--base", "origin/main", "--format", "github", "--summary",
                         os.environ["GITHUB_STEP_SUMMARY"])
    assert code == 1
    assert out.splitlines() == [
        "::error file=src/app.py,line=1,title=rlm-gate%3A stream() peak memory regressed::stream(): predicted peak "
        "memory 1 MB → 8 MB (8.0×) exceeds 2.0×",
        "rlm-gate: FAILED: 1 predicted regression in 1 of 1 changed function in 1 file (2 unchanged after normalizing)",
    ]
    assert summary.read_text().startswith("### ❌ rlm-gate: 1 regressed · 0 inconclusive · 0 improved · 2 unchanged")


def test_a_shallow_clone_fails_and_says_to_fetch_more_history(tmp_path, capsys, monkeypatch):
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    origin = upstream(tmp_path)
    stage(origin, "src/app.py", app(REGRESSED))
    sh(origin, "commit", "-qm", "read it all")
    work = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(work)], check=True,
                   env={**os.environ, **GIT_ENV})
    monkeypatch.chdir(work)
    code, out = run_gate(capsys, "--head", "HEAD")
    assert (code, out) == (2, "rlm-gate: FAILED: the parent of HEAD is not in this shallow clone: fetch more history "
                              "(actions/checkout: `fetch-depth: 0`; or `git fetch --deepen=50`)\n")
    code, out = run_gate(capsys, "--base", "HEAD~1")
    assert code == 2 and "unknown git revision 'HEAD~1' in this shallow clone: fetch more history" in out
    sh(work, "fetch", "-q", "--deepen=1")
    code, out = run_gate(capsys, "--head", "HEAD")
    assert code == 1 and "src/app.py:1: stream(): predicted peak memory 1 MB → 8 MB (8.0×) exceeds 2.0×" in out


# -- file names and merge conflicts -------------------------------------------------------------


def test_odd_file_names_are_escaped_in_text_and_exact_in_json(repo, capsys):
    names = [b"src/caf\xe9.py", b"src/evil\nname.py", "src/rtl\u200fx.py".encode()]
    for name in names:
        target = os.path.join(os.fsencode(repo), name)
        with open(target, "wb") as fh:
            fh.write(b"def f(n):\n    return [0] * n  # materialize\n")
    sh(repo, "add", "-A")
    code, out = run_gate(capsys, "--budget", "memory=2MB")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) == 4  # three findings and the summary: no name breaks or reorders a line
    assert lines[:3] == [
        "src/caf\\xe9.py:1: f() (new): predicted peak memory 8 MB exceeds budget 2 MB",
        "src/evil\\nname.py:1: f() (new): predicted peak memory 8 MB exceeds budget 2 MB",
        "src/rtl\\u200fx.py:1: f() (new): predicted peak memory 8 MB exceeds budget 2 MB",
    ]
    code, out = run_gate(capsys, "--budget", "memory=2MB", "--format", "json")
    assert sorted(os.fsencode(f["path"]) for f in json.loads(out)["findings"]) == sorted(names)


def test_a_merge_conflict_is_named(repo, capsys):
    sh(repo, "checkout", "-q", "-b", "other")
    stage(repo, "src/app.py", app(LIGHTER))
    sh(repo, "commit", "-qm", "other")
    sh(repo, "checkout", "-q", "main")
    stage(repo, "src/app.py", app(LIGHTER).replace("# lighter", "# lighter still"))
    sh(repo, "commit", "-qm", "main")
    sh(repo, "merge", "-q", "other", check=False)
    code, out = run_gate(capsys)
    assert "src/app.py: skipped: unresolved merge conflict" in out.splitlines()
    assert "not a regular file" not in out
