"""The growth rule (`rlm_lsp.policy.rules.judge_growth`) in the gate's findings and the editor's warning."""

from __future__ import annotations

from rlm_lsp.gate import compare, formats, report
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.python import snippets
from rlm_lsp.runtime.prediction import Prediction
from rlm_lsp.server import diagnostics
from rlm_lsp.server.analysis import FunctionResult
from rlm_lsp.server.settings import Settings

OLD_F = "def parse(xs):\n    return sorted(xs)\n"
NEW_F = "def parse(xs):\n    return [x for x in xs for y in xs]\n"


def P(value, unit, growth=None):
    return Prediction("m", value, value / 2, value * 2, unit, growth=growth)


def _change():
    new = compare.parse_functions("x.py", NEW_F)[0]
    return compare.FunctionChange("modified", new, compare.parse_functions("x.py", OLD_F)[0])


def _preds(old_growth, new_growth):
    return {OLD_F: {"memory": P(12e6, "bytes", old_growth), "latency": P(10, "ms", old_growth)},
            NEW_F: {"memory": P(13e6, "bytes", new_growth), "latency": P(10, "ms", None)}}


def test_the_gate_flags_a_growth_step_whatever_the_constants():
    findings = compare.judge([_change()], _preds(1.0, 2.1), GateConfig(), ["memory", "latency"])
    [f] = findings  # memory only: 1.1x is under the ratio; latency has no growth in its new version
    assert (f.metric, f.rule, f.old, f.new, f.limit, f.failed) == ("memory", "growth", 1.0, 2.1, 0.75, True)
    assert f.unit == "exponent" and report.to_dict(report.GateResult(GateConfig(), "HEAD", "index", findings=[f]))[
        "findings"][0]["message"] == report.finding_line(f)
    assert report.finding_line(f) == ("x.py:1: parse(): predicted memory grows ~n → ~n² (list built in a nested "
                                      "loop, line 2; exponent 1.0 → 2.1, a step of 1.1, limit 0.75)")
    assert ("| peak memory | ~n | ~n² | +1.1 in the exponent (list built in a nested loop, line 2) | step 0.75 |"
            in formats.to_markdown(
        report.GateResult(GateConfig(), "HEAD", "index", findings=findings, metrics=["memory"])))
    assert compare.judge([_change()], _preds(1.0, 1.5), GateConfig(), ["memory"]) == []
    assert compare.judge([_change()], _preds(None, 2.1), GateConfig(), ["memory"]) == []


def test_the_editor_warns_of_a_growth_step():
    [s] = snippets.extract(NEW_F)
    lines = NEW_F.splitlines()
    preds = _preds(1.0, 2.1)
    r = FunctionResult(s, preds[NEW_F], preds[OLD_F], "changed", lines[0], lines[0])
    assert diagnostics.messages(r, Settings()) == [
        ("regression", "parse: predicted memory growth ~n at HEAD → ~n² now (exponent 1.0 → 2.1)")]
    assert diagnostics.messages(r, Settings(regression_ratio=0)) == []  # regression warnings off
