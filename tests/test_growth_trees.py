"""Growth trees in a model directory (rlm_lsp.runtime.growth): folded into the Predictor's
Predictions, moved along the curve by `at`, refused when malformed."""
import json

import pytest

from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.growth import at, curve
from rlm_lsp.runtime.predictor import Predictor
from tests.conftest import GROWTH_CODES


def test_predictions_carry_growth_and_the_reference_n(growth_model_dir):
    pr = Predictor.from_dir(growth_model_dir, samples=8)
    const, linear, pairs, table, triple = (pr.predict([c])[0] for c in GROWTH_CODES)
    assert const["latency"].growth < 0.5 < linear["latency"].growth < 1.5 < pairs["latency"].growth < 2.5
    assert triple["latency"].growth > 2.5
    assert table["memory"].growth > 1.5 > linear["memory"].growth
    p = pairs["latency"]
    assert p.n == 10_000 and len(p.growth_samples) == 4 and p.growth_low <= p.growth <= p.growth_high


def test_value_at_n_follows_the_growth_draw_by_draw(growth_model_dir):
    p = Predictor.from_dir(growth_model_dir, samples=8).predict([GROWTH_CODES[2]])[0]["latency"]
    q = at(p, 100_000)
    assert q.n == 100_000
    assert q.value == pytest.approx(p.value * 10 ** p.growth)
    assert q.low <= q.value <= q.high
    assert list(q.samples) == pytest.approx([s * 10 ** g for s, g in zip(p.samples, p.growth_samples * 2)],
                                            rel=1e-9)
    assert at(p, p.n) is p
    with pytest.raises(ValueError):
        at(p, 0)
    assert [n for n, _ in curve(p)] == [100, 1000, 10_000, 100_000, 1_000_000]


def test_a_model_without_growth_trees_predicts_as_before(tiny_model_dir):
    p = Predictor.from_dir(tiny_model_dir, samples=4).predict([GROWTH_CODES[1]])[0]["latency"]
    assert p.growth is None and p.n is None and at(p, 5) is p


def test_malformed_growth_trees_are_one_model_error(growth_model_dir, tmp_path):
    import shutil
    dest = tmp_path / "m"
    shutil.copytree(growth_model_dir, dest)
    cfg = json.loads((dest / "rlm_config.json").read_text())
    cfg["growth_trees"]["features"] = ["chars"]
    (dest / "rlm_config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match="other features"):
        Predictor.from_dir(dest)


def test_trees_that_read_the_encoder_get_its_state_from_the_predictor(tiny_model_dir, tmp_path):
    import shutil

    import numpy as np
    from sklearn.ensemble import HistGradientBoostingRegressor

    from rlm_lsp.python.reader import GROWTH_FEATURE_NAMES, growth_features
    from training.learning.growth_trees import ESTIMATES, with_encoder, write

    dest = tmp_path / "m"
    shutil.copytree(tiny_model_dir, dest)
    pr = Predictor.from_dir(dest, samples=4)
    codes = list(GROWTH_CODES)
    x = np.array([growth_features(c, "canon_v1") for c in codes])
    pooled = pr.pooled_states(codes)
    est = np.array([[np.log10(p[m].value) for m in ESTIMATES] for p in pr.predict(codes)])
    xe, mean, axes = with_encoder(x, pooled, est, 2)
    assert xe.shape == (len(codes), len(GROWTH_FEATURE_NAMES) + 2 + 2)
    depth = GROWTH_FEATURE_NAMES.index("nest_time_depth")
    models = {m: [HistGradientBoostingRegressor(max_iter=5, min_samples_leaf=1, random_state=k).fit(
        np.repeat(xe, 4, axis=0), np.repeat(x[:, depth], 4)) for k in range(2)] for m in ("memory", "latency")}
    write(dest, models, 2, 10_000, {"fitted_on": "tests"}, (mean, axes))
    pr = Predictor.from_dir(dest, samples=4)
    got = [pr.predict([c])[0]["latency"] for c in codes]
    assert all(p.growth is not None and p.n == 10_000 for p in got)
    # the trees see the same row through the Predictor as the fitter built
    want = [float(np.median([m.predict(xe[i:i + 1])[0] for m in models["latency"]])) for i in range(len(codes))]
    assert [p.growth for p in got] == pytest.approx(want, abs=1e-6)
    with pytest.raises(ModelError, match="encoder"):
        pr.growth.row(codes[0])
