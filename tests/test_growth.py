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

import numpy as np
import pytest

from rlm_lsp import template
from rlm_lsp.prediction import Prediction, growth_class
from rlm_lsp.predictor import Predictor, fold_growth

GROWTH_METRICS = [
    {"name": "memory", "unit": "bytes", "definition": "tracemalloc peak bytes while the code runs"},
    {"name": "memory_growth", "unit": "exponent", "nonnegative": False,
     "definition": "slope of log peak memory against log input size"},
    {"name": "latency", "unit": "ms", "definition": "median wall time in milliseconds"},
    {"name": "latency_growth", "unit": "exponent", "nonnegative": False,
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
    (-0.5, "flat"), (0.0, "flat"), (0.24, "flat"), (0.25, "~√n"), (0.5, "~√n"), (0.75, "~n"), (1.0, "~n"),
    (1.24, "~n"), (1.25, "~n^1.5"), (1.5, "~n^1.5"), (1.75, "~n²"), (2.1, "~n²"), (2.49, "~n²"), (2.5, "~n³"),
    (3.0, "~n³"), (3.5, "faster than ~n³"), (7.0, "faster than ~n³"), (float("nan"), "?"),
])
def test_growth_classes(exponent, words):
    assert growth_class(exponent) == words


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
        assert p.growth == pytest.approx(float(np.mean(g)))  # the plain mean, not the log mean
        assert (p.growth_low, p.growth_high) == pytest.approx(tuple(np.percentile(g, [10, 90])))
        assert p.growth_low <= p.growth_high


def test_a_metric_filter_keeps_growth_with_its_base(growth_predictor):
    [result] = growth_predictor.predict(["def f(n):\n    return n\n"], metrics=["memory"])
    assert set(result) == {"memory"} and result["memory"].growth is not None


def test_fold_growth_leaves_a_growth_without_base_alone():
    g = _p("speed_growth", 1.2, "exponent")
    assert fold_growth({"speed_growth": g}) == {"speed_growth": g}
    folded = fold_growth({"memory": _p(), "memory_growth": _p("memory_growth", 2.0, "exponent", samples=(1.9, 2.1))})
    assert list(folded) == ["memory"] and folded["memory"].growth == 2.0
    assert folded["memory"].growth_samples == (1.9, 2.1)


def test_exponent_point_estimate_is_the_mean_whatever_the_model_says():
    from rlm_lsp.predictor import point_estimate

    samples = np.array([-1.0, 0.0, 1.0, 2.0])
    assert point_estimate(samples, "mean") == pytest.approx(0.5)
    assert point_estimate(np.array([1.0, 100.0]), "log_mean") == pytest.approx(10.0, rel=0.5)


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
