"""value_shift: the factor between the network's value and real functions' measured calls
(rlm_lsp/runtime/value_shift.py): read from the analyzer's summary and the growths, the same at every n."""

from __future__ import annotations

import numpy as np
import pytest

from rlm_lsp.python.cost_front import read
from rlm_lsp.runtime import growth, value_shift
from rlm_lsp.runtime.prediction import Prediction

LOOP = "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
NEST = "def g(xs):\n    c = 0\n    for a in xs:\n        for b in xs:\n            c += a < b\n    return c\n"


def _trees(tmp_path, layout: str = "growth"):
    """Trees that give log10 factor +1 to a function whose latency grows ≥ 1.5 and −1 otherwise."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    from training.judging.feature_trees import arrays

    width = len(value_shift.feature_names(layout))
    rnd = np.random.default_rng(0)
    x = rnd.uniform(0, 3, (400, width))
    col = value_shift.feature_names(layout).index("growth_latency")
    y = np.where(x[:, col] >= 1.5, 1.0, -1.0)
    model = HistGradientBoostingRegressor(max_iter=50, random_state=0).fit(x, y)
    path = tmp_path / value_shift.FILE_NAME
    np.savez_compressed(path, **{f"{m}/{k}": v for m in value_shift.METRICS for k, v in arrays(model).items()})
    return {"file": value_shift.FILE_NAME, "metrics": list(value_shift.METRICS),
            "features": list(value_shift.feature_names(layout))}


def _predictions(g_latency: float) -> dict[str, Prediction]:
    return {"latency": Prediction("latency", 2.0, 1.0, 4.0, "ms", samples=(1.0, 2.0, 4.0), growth=g_latency, n=1e4),
            "memory": Prediction("memory", 1000.0, 500.0, 2000.0, "bytes", samples=(500.0, 1000.0, 2000.0),
                                 growth=1.0, n=1e4)}


def test_the_factor_scales_value_interval_and_samples_and_keeps_the_growth(tmp_path):
    shift = value_shift.of_spec(_trees(tmp_path), tmp_path)
    s = read(NEST, "g")
    out = shift.apply(s, _predictions(2.0))
    k = out["latency"].value / 2.0
    x = np.array([value_shift.row(s, {}, {"latency": 2.0, "memory": 1.0}, "growth")])
    assert k == pytest.approx(10 ** float(shift.trees.predict(x, "latency")[0]))  # the trees' own number
    assert k > 5  # trained to +1 where latency grows ≥ 1.5
    assert out["latency"].low == pytest.approx(1.0 * k) and out["latency"].high == pytest.approx(4.0 * k)
    assert out["latency"].samples == pytest.approx(tuple(v * k for v in (1.0, 2.0, 4.0)))
    assert out["latency"].growth == 2.0 and out["latency"].n == 1e4
    # the same factor at every n: the curve keeps its shape
    for n in (100.0, 1e6):
        assert growth.at(out["latency"], n).value == pytest.approx(growth.at(_predictions(2.0)["latency"], n).value * k)
    low = shift.apply(read(LOOP, "f"), _predictions(1.0))
    assert low["latency"].value < 2.0 / 5  # trained to −1 below


def test_without_a_growth_nothing_is_scaled(tmp_path):
    shift = value_shift.of_spec(_trees(tmp_path), tmp_path)
    p = _predictions(1.0)
    p["memory"] = Prediction("memory", 1000.0, 500.0, 2000.0, "bytes")
    assert shift.apply(read(LOOP, "f"), p) == p


def test_trees_of_other_features_are_refused(tmp_path):
    spec = _trees(tmp_path)
    spec["features"] = spec["features"][:-1]
    with pytest.raises(ValueError, match="other features"):
        value_shift.of_spec(spec, tmp_path)
    assert value_shift.of_spec(_trees(tmp_path, "growth"), tmp_path).layout == "growth"
    assert value_shift.of_spec(None, tmp_path) is None


def test_the_shipped_layout_reads_the_analyzer_alone_so_a_neutral_edit_cannot_move_it():
    s = read(LOOP, "f")
    moved = read(LOOP.replace("    t = 0\n", "    _x = 0\n    t = 0\n"), "f")
    names = value_shift.feature_names()
    assert not any(n.startswith(("growth_", "log10_")) for n in names)
    assert value_shift.row(s, {}, {}) == value_shift.row(moved, {}, {})
