"""Rule S (`rlm_lsp.policy.structural`): a growth step read from the loop nests, in the rule, the
settings and the gate's findings, for a model that predicts no growth."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import pytest

from rlm_lsp.gate import compare, formats, report
from rlm_lsp.policy import project_config, structural
from rlm_lsp.policy.project_config import ConfigError, GateConfig

LOOP = "def parse(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n"
NESTED = ("def parse(xs):\n    total = 0\n    for x in xs:\n        for y in xs:\n            total += x * y\n"
          "    return total\n")
RENAMED = LOOP.replace("total", "acc").replace("x", "item")


@dataclass(frozen=True)
class P:
    value: float
    unit: str = "ms"
    growth: float | None = None
    features: object = None


def trees(value):
    return SimpleNamespace(value=value)


def test_s0_flags_a_loop_that_became_a_nested_loop_and_names_it():
    verdict = structural.judge(LOOP, NESTED, "latency", P(10), P(10), structural.S0)
    assert (verdict.old, verdict.new, verdict.regressed) == (1, 2, True)
    assert (verdict.what, verdict.lines, verdict.words) == ("nested loop", (3, 5), "~n → ~n²")
    assert structural.judge(NESTED, LOOP, "latency", P(10), P(10), structural.S0).regressed is False  # fewer levels
    assert structural.judge(LOOP, RENAMED, "latency", P(10), P(10), structural.S0).regressed is False
    # the same code for memory: a nested loop that stores nothing keeps memory's nest where it was
    assert structural.judge(LOOP, NESTED, "memory", P(10), P(10), structural.S0).regressed is False


def test_s1_needs_the_models_estimate_and_its_trees_not_to_fall():
    def s1(old, new):
        return structural.judge(LOOP, NESTED, "latency", old, new, structural.S1).regressed

    assert s1(P(10), P(10)) is True  # new/old 1.0: did not fall
    assert s1(P(10), P(9.9)) is False
    assert s1(P(10, features=trees(5.0)), P(12, features=trees(5.0))) is True
    assert s1(P(10, features=trees(5.0)), P(12, features=trees(4.0))) is False  # the trees read it as cheaper
    assert s1(P(10, features=trees(5.0)), P(12)) is True  # trees on one side only: the estimates decide
    assert structural.judge(LOOP, NESTED, "latency", P(10), P(9.9), structural.S0).regressed is True  # S0: no veto


SORT_IN_LOOP = "def parse(xs):\n    total = 0\n    for x in xs:\n        total += sorted(xs)[0]\n    return total\n"
HALVING = "def parse(xs):\n    total, i = 0, len(xs)\n    while i > 0:\n        for x in xs[:3]:\n" \
          "            total += x\n        i //= 2\n    return total\n"


def test_s2_reads_the_step_from_the_cost_analyzer_with_no_veto():
    verdict = structural.judge(LOOP, NESTED, "latency", P(10), P(5), structural.S2)  # the model read it cheaper
    assert (verdict.old, verdict.new, verdict.regressed) == (1.0, 2.0, True)
    assert (verdict.what, verdict.lines, verdict.words) == ("read as n²", (3, 4), "~n → ~n²")
    assert structural.judge(LOOP, RENAMED, "latency", P(10), P(10), structural.S2).regressed is False
    # a sort inside the loop: read as n² log n (S0 counts a sort as 1.2 levels of nest)
    assert structural.judge(LOOP, SORT_IN_LOOP, "latency", P(10), P(10), structural.S2).regressed is True
    # a nest as written whose outer loop halves and inner loop is three long: no step
    assert structural.judge(LOOP, HALVING, "latency", P(10), P(10), structural.S2).regressed is False
    assert structural.judge(LOOP, "def parse(xs:\n", "latency", P(10), P(10), structural.S2) is None  # unreadable


def test_s_applies_only_where_the_model_has_no_growth_and_the_metric_a_nest():
    assert structural.judge(LOOP, NESTED, "latency", P(10, growth=1.0), P(10, growth=1.0), structural.S0) is None
    assert structural.judge(LOOP, NESTED, "latency", P(10), P(10), None) is None  # off
    assert structural.judge(LOOP, NESTED, "kernel_latency", P(10), P(10), structural.S0) is None
    with pytest.raises(ValueError, match="s9"):
        structural.judge(LOOP, NESTED, "latency", P(10), P(10), "s9")


def test_depth_in_the_words_of_a_growth_class():
    assert [structural.depth_class(d) for d in (0, 1, 1.2, 2, 2.2, 3)] == [
        "~1", "~n", "~n log n", "~n²", "~n² log n", "~n³"]


@pytest.mark.parametrize(("value", "expected"), [(True, structural.CHOSEN), (False, None), ("S0", "s0"), ("s1", "s1")])
def test_the_setting(tmp_path: Path, value, expected):
    assert project_config.from_table({"structural_growth": value}, tmp_path).structural_growth == expected
    assert project_config.from_table({}, tmp_path).structural_growth == structural.DEFAULT


@pytest.mark.parametrize("bad", ["s9", 1, "yes"])
def test_a_bad_setting_names_the_key(tmp_path: Path, bad):
    with pytest.raises(ConfigError, match="structural-growth"):
        project_config.from_table({"structural-growth": bad}, tmp_path)


# -- in the gate's findings -------------------------------------------------------------------

FILE_OLD = "import os\n\n\n" + LOOP
FILE_NEW = "import os\n\n\n" + NESTED


def _judge(old_file, new_file, setting, old=P(10.0), new=P(10.5)):
    o, n = compare.parse_functions("x.py", old_file)[0], compare.parse_functions("x.py", new_file)[0]
    preds = {o.snippet.code: {"latency": old}, n.snippet.code: {"latency": new}}
    return compare.judge([compare.FunctionChange("modified", n, o)], preds, GateConfig(structural_growth=setting),
                         ["latency"])


def test_the_gate_flags_it_as_read_from_the_code_with_the_file_lines():
    [f] = _judge(FILE_OLD, FILE_NEW, structural.S1)
    assert (f.rule, f.old, f.new, f.limit, f.failed, f.lines) == ("structure", 1, 2, 1.0, True, (6, 8))
    assert report.finding_line(f) == "x.py:4: parse(): time grows ~n → ~n² as read from the code (nested loop, lines 6–8)"
    result = report.GateResult(GateConfig(), "HEAD", "index", findings=[f], metrics=["latency"])
    assert "| latency | ~n | ~n² | +1.0 loop levels, read from the code (nested loop, lines 6–8) | step 1 |" in (
        formats.to_markdown(result))
    assert '"ruleId": "latency/structure"' in formats.to_sarif(result)
    assert _judge(FILE_OLD, FILE_NEW, None) == []  # off
    assert _judge(FILE_OLD, FILE_NEW, structural.S1, old=P(10.0, growth=1.0), new=P(10.5, growth=1.2)) == []
    assert _judge(FILE_OLD, FILE_NEW, structural.S1, new=P(9.0)) == []  # S1: the model's estimate fell
    assert len(_judge(FILE_OLD, FILE_NEW, structural.S0, new=P(9.0))) == 1


def test_s2_names_the_analyzers_reading_and_its_file_lines():
    [f] = _judge(FILE_OLD, FILE_NEW, structural.S2, new=P(9.0))  # no veto: the model read it cheaper
    assert (f.rule, f.old, f.new, f.failed) == ("structure", 1.0, 2.0, True)
    assert report.finding_line(f).startswith("x.py:4: parse(): time grows ~n → ~n² as read from the code (read as n², lines ")


def test_a_pragma_lets_it_through_but_its_limits_do_not():
    pragma = FILE_NEW.replace("def parse", "# rlm: allow-regression quadratic on purpose\ndef parse")
    [f] = _judge(FILE_OLD, pragma, structural.S1)
    assert not f.failed and report.finding_line(f).endswith("; allowed by pragma: quadratic on purpose")
    capped = FILE_NEW.replace("def parse", "# rlm: allow-regression[latency<=4x] bounded\ndef parse")
    [f] = _judge(FILE_OLD, capped, structural.S1)
    assert f.failed and report.finding_line(f).endswith("the pragma's limits do not allow latency growth steps")


# -- a gate run in a repository -----------------------------------------------------------------


class GrowthlessPredictor:
    """The same values for every code (as the shipped model barely moves between a loop and a
    nest), with or without a growth exponent."""

    def __init__(self, growth=None):
        self.growth = growth
        self.config = SimpleNamespace(metrics=[SimpleNamespace(name="latency", unit="ms")], model_version="fake-s")

    def predict(self, codes, language="python", metrics=None, context=None):
        return [{"latency": P(10.0, "ms", self.growth)} for _ in codes]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    from test_gate_repo import GIT_ENV, sh

    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    for key in ("PRE_COMMIT_FROM_REF", "PRE_COMMIT_TO_REF", "GIT_INDEX_FILE", "GIT_DIR"):
        monkeypatch.delenv(key, raising=False)
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    sh(repo, "init", "-q", "-b", "main")
    (repo / "src" / "app.py").write_text(FILE_OLD)
    sh(repo, "add", "-A")
    sh(repo, "commit", "-qm", "init")
    monkeypatch.chdir(repo)
    return repo


def _gate(repo: Path, capsys, new_file: str, setting: str | None = None, growth=None) -> tuple[int, str]:
    from test_gate_repo import sh

    from rlm_lsp.gate import gate

    (repo / "src" / "app.py").write_text(new_file)
    if setting is not None:
        (repo / "pyproject.toml").write_text(textwrap.dedent(f"[tool.rlm]\nstructural-growth = {setting}\n"))
    sh(repo, "add", "-A")
    code = gate.main(["--metrics", "latency"], loader=lambda: GrowthlessPredictor(growth))
    return code, capsys.readouterr().out


def test_a_gate_run_flags_a_loop_that_became_nested_naming_the_lines(repo, capsys):
    code, out = _gate(repo, capsys, FILE_NEW, '"s1"')
    assert code == 1
    assert out.splitlines()[0] == ("src/app.py:4: parse(): time grows ~n → ~n² as read from the code "
                                   "(nested loop, lines 6–8)")
    # the summary does not call a step read from the code a prediction
    assert "FAILED: 1 growth step read from the code in 1 of" in out and "predicted regression" not in out


def test_a_gate_run_passes_it_with_the_setting_off(repo, capsys):
    assert _gate(repo, capsys, FILE_NEW, "false")[0] == 0


def test_a_gate_run_leaves_it_to_a_model_with_growth(repo, capsys):
    code, out = _gate(repo, capsys, FILE_NEW, '"s1"', growth=1.0)
    assert code == 0 and "read from the code" not in out


def test_a_gate_run_passes_a_rename(repo, capsys):
    code, out = _gate(repo, capsys, "import os\n\n\n" + RENAMED, '"s0"')
    assert code == 0 and "read from the code" not in out


def test_s3_reads_the_analyzers_time_step_beside_a_predicted_growth():
    def grown(v):  # a model that predicts growth
        return P(v, growth=1.0)

    verdict = structural.judge(LOOP, NESTED, "latency", grown(10), grown(10), structural.S3)
    assert verdict is not None and verdict.regressed and (verdict.old, verdict.new) == (1.0, 2.0)
    assert structural.judge(LOOP, RENAMED, "latency", grown(10), grown(10), structural.S3).regressed is False
    assert structural.judge(LOOP, NESTED, "memory", grown(10), grown(10), structural.S3) is None  # latency only
    assert structural.judge(LOOP, NESTED, "latency", grown(10), grown(10), structural.S2) is None  # S2 steps aside
