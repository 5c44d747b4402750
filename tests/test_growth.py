"""Growth (`<base>_growth` metrics) and program shape, end to end through the runtime.

No trained model predicts growth yet. The fixture model is the tiny random-weight model of
`conftest.py` with the rlm_config.json a growth-and-shape model's export writes: metrics
memory, memory_growth, latency, latency_growth (unit "exponent", signed) and the shaped
template. Its ONNX graphs decode any number of metrics, so every path below runs real sessions;
its numbers mean nothing, so the tests assert structure, folding and words, not values.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from rlm_lsp.runtime import template
from rlm_lsp.runtime.prediction import Prediction, growth_class, growth_label, growth_name
from rlm_lsp.runtime.predictor import Predictor, fold_growth

ROOT_BENCH = Path(__file__).resolve().parent.parent / "bench"

GROWTH_METRICS = [
    {"name": "memory", "unit": "bytes", "definition": "tracemalloc peak bytes while the code runs"},
    {"name": "memory_growth", "unit": "exponent", "nonnegative": False, "fixed_point": True,
     "definition": "slope of log peak memory against log input size"},
    {"name": "latency", "unit": "ms", "definition": "median wall time in milliseconds"},
    {"name": "latency_growth", "unit": "exponent", "nonnegative": False, "fixed_point": True,
     "definition": "slope of log run time against log input size"},
]


@pytest.fixture(scope="session")
def growth_model_dir(tiny_model_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("growth") / "model"
    shutil.copytree(tiny_model_dir, out)
    config = json.loads((out / "rlm_config.json").read_text())
    config.update(metrics=GROWTH_METRICS, input_template=template.SHAPED_TEMPLATE, model_version="tiny-growth")
    (out / "rlm_config.json").write_text(json.dumps(config, indent=2))
    return out


@pytest.fixture(scope="session")
def growth_predictor(growth_model_dir):
    return Predictor.from_dir(growth_model_dir)


def _p(metric="memory", value=1000.0, unit="bytes", growth=None, samples=(), growth_samples=(), **kw):
    return Prediction(metric, value, value / 2, value * 2, unit, tuple(samples), growth=growth,
                      growth_low=None if growth is None else growth - 0.4,
                      growth_high=None if growth is None else growth + 0.3,
                      growth_samples=tuple(growth_samples), **kw)


# -- classes -----------------------------------------------------------------------------------


@pytest.mark.parametrize("exponent, words", [
    (-0.5, "~1"), (0.0, "~1"), (0.19, "~1"), (0.2, "~log n"), (0.5, "~log n"), (0.7, "~n"), (1.0, "~n"),
    (1.14, "~n"), (1.15, "~n log n"), (1.49, "~n log n"), (1.5, "~n²"), (2.1, "~n²"), (2.49, "~n²"), (2.5, "~n³"),
    (3.0, "~n³"), (3.5, "~2ⁿ"), (7.0, "~2ⁿ"), (float("nan"), "?"),
])
def test_growth_classes(exponent, words):
    assert growth_class(exponent) == words


def test_a_wide_growth_interval_is_marked_unsure():
    assert growth_label(1.0) == growth_label(1.0, 0.3, 1.8) == "~n"  # 1.5 wide: still sure enough
    assert growth_label(1.0, 0.2, 1.8) == "~n?"


# -- folding in the Predictor ------------------------------------------------------------------


def test_growth_metrics_are_folded_into_their_base(growth_predictor):
    code = "def f(n):\n    return [0] * n\n"
    [result] = growth_predictor.predict([code])
    assert set(result) == {"memory", "latency"}  # no memory_growth of its own
    raw = growth_predictor.sample_values([code])[0]  # (N, M): the columns in config order
    for j, name in ((0, "memory"), (2, "latency")):
        p, g = result[name], raw[:, j + 1]
        assert p.samples == tuple(float(x) for x in raw[:, j])
        assert p.growth_samples == tuple(float(x) for x in g)
        assert p.growth == pytest.approx(float(np.median(g)))  # the median, not a mean
        assert (p.growth_low, p.growth_high) == pytest.approx(tuple(np.percentile(g, [10, 90])))
        assert p.growth_low <= p.growth_high


def test_growth_decodes_as_fixed_point_and_costs_are_untouched(growth_predictor):
    assert [m.fixed_point for m in growth_predictor.config.metrics] == [False, True, False, True]
    raw = growth_predictor.sample_values(["def f(n):\n    return sorted(range(n))\n"])[0]  # (N, M)
    growth = raw[:, [1, 3]]
    assert (np.abs(growth) <= 9.999).all()  # the random model cannot leave ±d.ddd
    assert np.allclose(growth, np.round(growth, 3))
    assert (raw[:, [0, 2]] >= 0).all()


def test_a_metric_filter_keeps_growth_with_its_base(growth_predictor):
    [result] = growth_predictor.predict(["def f(n):\n    return n\n"], metrics=["memory"])
    assert set(result) == {"memory"} and result["memory"].growth is not None


def test_fold_growth_leaves_a_growth_without_base_alone():
    g = _p("speed_growth", 1.2, "exponent")
    assert fold_growth({"speed_growth": g}) == {"speed_growth": g}
    folded = fold_growth({"memory": _p(), "memory_growth": _p("memory_growth", 2.0, "exponent", samples=(1.9, 2.1))})
    assert list(folded) == ["memory"] and folded["memory"].growth == 2.0
    assert folded["memory"].growth_samples == (1.9, 2.1)


def test_exponent_point_estimate_is_the_median_whatever_the_model_says():
    """A growth spread over flat and ~n is shown as one of them, not as the ~√n between."""
    from rlm_lsp.runtime.prediction import growth_class
    from rlm_lsp.runtime.predictor import GROWTH_POINT_ESTIMATE, point_estimate

    samples = np.array([-1.0, 0.0, 0.0, 0.1, 1.0, 1.0, 2.0])  # may be <= 0: no log mean
    assert GROWTH_POINT_ESTIMATE == "median"
    assert point_estimate(samples, GROWTH_POINT_ESTIMATE) == pytest.approx(0.1)
    bimodal = np.array([0.0] * 9 + [1.0] * 7)
    assert growth_class(point_estimate(bimodal, GROWTH_POINT_ESTIMATE)) == "~1"
    assert growth_class(float(np.mean(bimodal))) == "~log n"  # what the plain mean showed before


def test_models_without_growth_have_none(tiny_model_dir):
    [result] = Predictor.from_dir(tiny_model_dir).predict(["def f(n):\n    return n\n"])
    assert all(p.growth is None and p.growth_samples == () for p in result.values())


# -- shape in the template ---------------------------------------------------------------------


def test_shaped_template_reads_function_for_a_function(growth_predictor):
    text = growth_predictor.render("def f(n):\n    return n\n")
    assert text.startswith("<metrics> memory memory_growth latency latency_growth <lang> python <shape> function size ")


def test_shape_follows_the_code_or_the_callers_context():
    script = "n = int(input())\nprint(n)\n"
    assert " <shape> stdin " in template.render(template.SHAPED_TEMPLATE, ["memory"], "python", script)
    assert " <shape> script " in template.render(template.SHAPED_TEMPLATE, ["memory"], "python", "print(1)\n")
    forced = template.render(template.SHAPED_TEMPLATE, ["memory"], "python", script, shape="function")
    assert " <shape> function " in forced
    assert template.extra_fields(template.SHAPED_TEMPLATE, "python") == []
    assert template.shaped(template.SHAPED_TEMPLATE) and not template.shaped(template.SIZED_TEMPLATE)


def test_a_kernel_models_shape_field_is_its_work_size_not_a_program_shape():
    kernel = "<metrics> {metrics} <lang> {language} <gpu> {gpu} <shape> {shape} <code>\n{code}"
    assert template.extra_fields(kernel) == ["gpu", "shape"]  # still the caller's to fill
    assert not template.shaped(kernel, "triton")
    with pytest.raises(KeyError):
        template.render(kernel, ["kernel_latency"], "triton", "pass\n", gpu="A100")
    assert "<shape> n=4096 " in template.render(kernel, ["kernel_latency"], "triton", "pass\n", gpu="A100",
                                                shape="n=4096")


def test_shape_changes_the_input_and_so_the_cache_key(growth_predictor):
    code = "n = int(input())\nprint(n)\n"
    a = growth_predictor.render(code)
    b = growth_predictor.render(code, context={"shape": "function"})
    assert a != b and growth_predictor._key(a) != growth_predictor._key(b)


# -- words: hint, hover ------------------------------------------------------------------------


def _result(predictions, head=None, state="new"):
    from rlm_lsp.python import snippets
    from rlm_lsp.server.analysis import FunctionResult

    text = "def f(n):\n    return [0] * n\n"
    [s] = snippets.extract(text)
    lines = text.splitlines()
    return FunctionResult(s, predictions, head, state, lines[s.header_end_line], lines[s.name_line])


def test_hint_names_each_metrics_growth_class():
    from rlm_lsp.server import hints
    from rlm_lsp.server.settings import Settings

    r = _result({"memory": _p(value=1100.0, growth=1.05), "latency": _p("latency", 0.019, "ms", growth=2.1)})
    assert hints.label(r, Settings()) == "≈ mem ~n 1.1 kB · time ~n² 19 µs"  # growth leads
    at = _result({"memory": _p(value=1100.0, growth=1.05, n=1e4), "latency": _p("latency", 0.019, "ms", growth=2.1,
                                                                               n=1e4)})
    assert hints.label(at, Settings()) == "≈ mem ~n 1.1 kB · time ~n² 19 µs @ n=10⁴"  # the n it is for
    assert "how it grows" in hints.tooltip(at)
    wide = _result({"memory": Prediction("memory", 1100.0, 500.0, 2000.0, "bytes", growth=1.0, growth_low=0.2,
                                         growth_high=1.8)})
    assert hints.label(wide, Settings()) == "≈ mem ~n? 1.1 kB"  # p10–p90 spans ~√n to ~n²: unsure
    plain = _result({"memory": _p(value=1100.0), "latency": _p("latency", 0.019, "ms")})
    assert hints.label(plain, Settings()) == "≈ mem 1.1 kB · time 19 µs"  # no growth: as before
    assert "grows" not in hints.tooltip(plain)


def test_hover_says_how_it_grows_and_against_head():
    from rlm_lsp.server import hover
    from rlm_lsp.server.settings import Settings

    now = {"memory": _p(value=1100.0, growth=2.1), "latency": _p("latency", 0.019, "ms", growth=0.1)}
    head = {"memory": _p(value=1000.0, growth=1.0), "latency": _p("latency", 0.019, "ms", growth=0.0)}
    md = hover.markdown(_result(now, head, "changed"), Settings(), {}, "the shipped model on CPU")
    assert "  - grows ~n² with the input (exponent 2.1; p10–p90 1.7–2.4)" in md
    assert "  - ~1: does not grow with the input (exponent 0.1; p10–p90 −0.3–0.4)" in md
    assert "1.1× (+10%, HEAD 1 kB); grows ~n² now, ~n at HEAD" in md
    assert md.count("at HEAD") == 1  # flat at both: no growth note for latency
    plain = hover.markdown(_result({"memory": _p(value=1100.0)}), Settings(), {}, "m")
    assert "grow" not in plain


def test_server_analysis_shows_growth_from_a_real_model(growth_predictor):
    from rlm_lsp.server import hints
    from rlm_lsp.server.analysis import Analyzer
    from rlm_lsp.server.settings import Settings
    from rlm_lsp.server.unsure import FIXED
    from rlm_lsp.server.words import growth_suffix

    text = "def f(n):\n    return [0] * n\n\ndef g(n):\n    return sorted(range(n))\n"
    results = Analyzer(growth_predictor).analyze("file:///x.py", text, None)
    assert [set(r.predictions) for r in results] == [{"memory", "latency"}] * 2
    for r in results:
        label = hints.label(r, Settings())
        memory, latency = r.predictions["memory"], r.predictions["latency"]
        assert label.startswith(f"≈ mem{growth_suffix(memory, 'memory', FIXED)} ")
        assert f" · time{growth_suffix(latency, 'latency', FIXED)} " in label
        assert growth_suffix(memory).strip(" ?·") == growth_class(memory.growth)


# -- rlm predict -------------------------------------------------------------------------------

SCRIPT = ("import sys\n\ndef solve(xs):\n    return sorted(xs)\n\n"
          'if __name__ == "__main__":\n    print(solve(sys.stdin.read().split()))\n')


def _cli(capsys, *args):
    from rlm_lsp.app import cli

    code = cli.main(["predict", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_predict_json_gives_growth_and_a_script_row(growth_model_dir, tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text(SCRIPT)
    code, out, err = _cli(capsys, path, "--json", "--model", growth_model_dir)
    rows = json.loads(out)
    assert code == 0 and err == ""
    assert [(r["function"], r["line"], r["kind"], r["shape"]) for r in rows] == [
        ("<script>", 1, "script", "stdin"), ("solve", 3, "function", "function")]
    for row in rows:
        for m in ("memory", "latency"):
            p = row[m]
            assert set(p) == {"value", "low", "high", "unit", "n", "growth", "growth_low", "growth_high", "growth_class"}
            assert p["growth_low"] <= p["growth_high"] and p["growth_class"] == growth_name(p["growth"])
            assert p["n"] is None  # a growth metric of the RLM's own states no size
        assert "memory_growth" not in row
    # the script row is the whole file, read as a process on its stdin
    from rlm_lsp.runtime.predictor import Predictor

    direct = Predictor.from_dir(growth_model_dir).predict([SCRIPT], context={"shape": "stdin"})[0]
    assert rows[0]["memory"]["value"] == direct["memory"].value
    assert rows[0]["memory"]["growth"] == direct["memory"].growth


def test_predict_table_shows_the_growth_word(growth_model_dir, tmp_path, capsys):
    path = tmp_path / "b.py"
    path.write_text("print(sum(range(10**6)))\n")
    _, out, err = _cli(capsys, path, "--model", growth_model_dir)
    _, js, _ = _cli(capsys, path, "--json", "--model", growth_model_dir)
    [row] = json.loads(js)
    assert (row["function"], row["shape"]) == ("<script>", "script")  # replaces the <module> row
    line = out.splitlines()[1]
    assert line.startswith(f"{path}:1") and "<script>" in line
    for m in ("memory", "latency"):
        assert f" {growth_label(row[m]['growth'], row[m]['growth_low'], row[m]['growth_high'])} (" in line
    assert "note:" not in out + err  # a shaped model predicts the script: nothing to excuse


def test_a_model_without_shape_says_the_script_is_not_predicted(tiny_model_dir, tmp_path, capsys):
    path = tmp_path / "a.py"
    path.write_text(SCRIPT)
    _, out, _ = _cli(capsys, path, "--model", tiny_model_dir)
    assert out.splitlines()[-1] == (f"note: {path}: its top-level code runs as a script reading stdin; this model "
                                    "predicts only its functions (per call), so the script as a whole is not predicted")
    _, js, err = _cli(capsys, path, "--json", "--model", tiny_model_dir)
    rows = json.loads(js)  # stdout stays JSON; the note goes to stderr
    assert [r["function"] for r in rows] == ["solve"] and "note:" in err
    assert set(rows[0]["memory"]) == {"value", "low", "high", "unit"}  # no growth keys, no shape
    assert "shape" not in rows[0]
    only = tmp_path / "b.py"
    only.write_text("print(sum(range(10**6)))\n")
    _, out, _ = _cli(capsys, only, "--model", tiny_model_dir)
    assert "<module>" in out and out.splitlines()[-1].startswith(f"note: {only}: its top-level code runs as a script;")
    plain = tmp_path / "c.py"
    plain.write_text("def f(n):\n    return n\n")
    _, out, err = _cli(capsys, plain, "--model", tiny_model_dir)
    assert "note" not in out + err


def _jsonl(predictor, rows):
    import io

    from rlm_lsp.app.cli_jsonl import score_jsonl

    out = io.StringIO()
    score_jsonl(predictor, io.StringIO("".join(json.dumps(r) + "\n" for r in rows)), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_jsonl_rows_get_their_shape_and_growth(growth_predictor):
    script = "n = int(input())\nprint(n)\n"
    rows = [{"id": 1, "code": "def f(n):\n    return n\n"}, {"id": 2, "code": script},
            {"id": 3, "code": script, "shape": "function"}, {"id": 4, "code": script, "shape": "process"}]
    got = _jsonl(growth_predictor, rows)
    assert [g.get("shape") for g in got] == ["function", "stdin", "function", None]
    assert got[3]["error"] == '"shape" must be one of function, stdin, script, got "process"'
    assert "growth" in got[0]["memory"] and "memory_growth" not in got[0]
    for g, shape in ((got[1], "stdin"), (got[2], "function")):
        by_hand = growth_predictor.predict([script], context={"shape": shape})[0]["memory"]
        assert (g["memory"]["value"], g["memory"]["growth"]) == (by_hand.value, by_hand.growth)


def test_jsonl_of_a_model_without_shape_is_as_before(tiny_model_dir):
    got = _jsonl(Predictor.from_dir(tiny_model_dir), [{"id": 1, "code": "print(1)\n", "shape": "nonsense"}])
    assert set(got[0]) == {"id", "language", "memory", "latency"}
    assert set(got[0]["memory"]) == {"value", "low", "high", "unit"}


# -- the regression rule -----------------------------------------------------------------------


def _g(growth, draws=()):
    return _p(growth=growth, samples=(1000.0,) * len(draws), growth_samples=draws)


@pytest.mark.parametrize("old, new, regressed, confidence", [
    (_g(1.0), _g(2.0), True, 1.0),  # ~n -> ~n², no samples: the point estimates decide
    (_g(1.0), _g(1.75), True, 1.0),  # exactly one step
    (_g(1.0), _g(1.7), False, 0.0),
    (_g(2.0), _g(1.0), False, 0.0),  # faster growth gone is no regression
    (_g(-0.5), _g(0.3), True, 1.0),  # signed exponents
    # paired draws: 12 of 16 stepped up (0.75, the CONFIDENCE): flagged; 11 of 16: not
    (_g(1.0, (1.0,) * 16), _g(2.0, (2.0,) * 12 + (1.0,) * 4), True, 0.75),
    (_g(1.0, (1.0,) * 16), _g(2.0, (2.0,) * 11 + (1.0,) * 5), False, 11 / 16),
    (_g(1.3, (1.3,) * 16), _g(2.05, (2.05,) * 16), True, 1.0),  # 2.05 - 1.3 rounds below 0.75 in floats
])
def test_growth_step_rule(old, new, regressed, confidence):
    from rlm_lsp.policy import rules

    verdict = rules.judge_growth(old, new)
    assert (verdict.regressed, verdict.confidence) == (regressed, pytest.approx(confidence))


def test_growth_rule_needs_both_versions_and_says_the_step():
    from rlm_lsp.policy import rules

    assert rules.judge_growth(_p(), _g(3.0)) is None and rules.judge_growth(_g(0.0), _p()) is None
    assert rules.growth_regression(_p(), _g(3.0)) is None
    assert rules.growth_regression(_g(1.0), _g(1.2)) is None
    assert rules.growth_regression(_g(1.02), _g(2.1)) == "predicted growth ~n → ~n² (exponent 1.0 → 2.1)"
    assert rules.judge_growth(_g(1.02), _g(2.1)).words == "growth ~n → ~n² (exponent 1.0 → 2.1)"
    assert rules.growth_regression(_g(1.0, (1.0,) * 16), _g(2.0, (2.0,) * 12 + (1.0,) * 4), level=0.8) is None


def test_growth_rule_on_a_real_models_paired_draws(growth_predictor):
    """Shared draws pair the growth samples of two codes as they pair the values."""
    from rlm_lsp.policy import rules

    a, b = growth_predictor.predict(["def f(n):\n    return n\n", "def g(n):\n    return [[0] * n for _ in range(n)]\n"])
    verdict = rules.judge_growth(a["memory"], b["memory"])
    steps = [y - x for x, y in zip(a["memory"].growth_samples, b["memory"].growth_samples)]
    assert len(steps) == growth_predictor.samples == 16
    assert verdict.confidence == pytest.approx(sum(s >= rules.GROWTH_STEP - 1e-9 for s in steps) / 16)
    assert rules.judge_growth(a["memory"], a["memory"]).regressed is False  # the same code never regresses


# -- the real server ---------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_the_server_shows_growth_in_hints_and_hover(growth_model_dir, tmp_path):
    import re

    from lsp_client import LspClient, file_uri

    source = "def table(n):\n    return [[0] * n for _ in range(n)]\n\n\ndef total(xs):\n    return sum(xs)\n"
    (tmp_path / "g.py").write_text(source)
    classes = "|".join(re.escape(w) for w in ("~1", "~log n", "~n", "~n log n", "~n²", "~n³", "~2ⁿ"))
    hint = re.compile(rf"^≈ (⚠ )?mem ({classes})\?? \S+ \S+ · (⚠ )?time ({classes})\?? \S+ \S+$")
    client = LspClient(settings={"modelPath": str(growth_model_dir), "debounceMs": 50}, cwd=tmp_path)
    client.initialize(tmp_path)
    with client as c:
        uri = file_uri(tmp_path / "g.py")
        c.open(uri, source)
        hints = c.wait_hints(uri, 2)
        assert all(hint.match(h["label"]) for h in hints), hints
        assert all("how it grows" in h["tooltip"] for h in hints)
        text = c.hover(uri, 0, 5)["contents"]["value"]
        assert text.count(" with the input (exponent ") == 2, text  # memory and latency
        assert "memory_growth" not in text and "memory growth" not in text


def test_stability_bench_measures_how_far_a_rewrite_moves_growth(growth_predictor, tiny_model_dir):
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("stability_bench", ROOT_BENCH / "stability.py")
    bench = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT_BENCH))
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(ROOT_BENCH))
    codes = ["def f(n):\n    return [0] * n\n", "def g(xs):\n    return sorted(xs)\n"]
    rewritten = {"same": [(0, codes[0]), (1, codes[1])], "other": [(0, codes[1])]}
    res = bench.moved(growth_predictor, codes, rewritten)
    assert res["same"]["memory_growth"] == {"0.25": 0.0, "0.5": 0.0}   # an unchanged program: nothing moves
    assert set(res["other"]) >= {"programs", "gate", "memory", "latency", "memory_growth"}
    assert res["same"]["gate"] == 0.0  # the same code is no change to the rule: never flagged
    assert res["other"]["gate"] in (0.0, 1.0)
    text = bench.markdown({"m": res}, 2, 1.0)
    assert "predicted growth moves" in text and "memory growth" in text
    assert "| m flagged |" in text and text.count("| 0% |") >= 1
    plain = bench.moved(Predictor.from_dir(tiny_model_dir), codes, rewritten)
    assert not any(k.endswith("_growth") for k in plain["same"])   # a model without growth: no growth columns


def test_a_growth_samples_at_its_own_temperature_and_earlier_metrics_do_not_move(growth_model_dir, tmp_path):
    """`rlm-export --growth-temperature`: the growth's draws sharpen; a metric decoded before it stays."""
    from rlm_lsp.export.config import set_growth_temperature

    code = "def f(n):\n    return sorted(range(n))\n"
    base = Predictor.from_dir(growth_model_dir, cache_size=0)
    sharp_dir = tmp_path / "sharp"
    shutil.copytree(growth_model_dir, sharp_dir)
    set_growth_temperature(sharp_dir, 0.05)
    sharp = Predictor.from_dir(sharp_dir, cache_size=0)
    assert [m.temperature for m in sharp.config.metrics] == [None, 0.05, None, 0.05]
    assert sharp.config.position_temperatures()[:12] == [1.0] * 6 + [0.05] * 6
    [a], [b] = base.predict([code]), sharp.predict([code])
    assert a["memory"].samples == b["memory"].samples  # decoded before any growth position
    assert len(set(b["memory"].growth_samples)) <= len(set(a["memory"].growth_samples))
    assert b["memory"].growth_high - b["memory"].growth_low <= a["memory"].growth_high - a["memory"].growth_low


def test_growth_temperature_needs_a_growth_and_a_sane_value(tiny_model_dir, tmp_path):
    from rlm_lsp.export.config import set_growth_temperature

    shutil.copytree(tiny_model_dir, tmp_path / "m")
    with pytest.raises(ValueError, match="predicts no growth"):
        set_growth_temperature(tmp_path / "m", 0.6)
    with pytest.raises(ValueError, match="outside"):
        set_growth_temperature(tmp_path / "m", 0.0)
