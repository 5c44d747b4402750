"""The time-class trees (time-v7, `rlm_lsp.runtime.cost_growth.TimeClasses`): the learned correction
of the cost analyzer's time reading, read with numpy exactly as scikit-learn fitted it, and the rule
that keeps a sure reading agreeing with the loop nest."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rlm_lsp.python.cost_front import read
from rlm_lsp.runtime.cost_growth import AnalyzerSpec, TimeClasses
from rlm_lsp.runtime.errors import ModelError

NESTED = "def f(xs):\n    c = 0\n    for a in xs:\n        for b in xs:\n            c += a * b\n    return c\n"
# an inner loop over a second input that real measurements mostly hold fixed (a pattern's length)
TWO = "def f(text, m):\n    c = 0\n    for i in range(len(text)):\n        for j in range(m):\n            c += 1\n    return c\n"


def test_numpy_reads_the_classifier_as_scikit_learn_does(tmp_path: Path):
    sk = pytest.importorskip("sklearn.ensemble")
    from training.judging.feature_trees import arrays

    rnd = np.random.default_rng(0)
    x = rnd.normal(size=(400, len(TimeClasses.names())))
    y = (x[:, 0] > 0).astype(int) + (x[:, 1] > 0.5).astype(int) + (x[:, 2] > 1).astype(int)
    model = sk.HistGradientBoostingClassifier(max_iter=20, max_leaf_nodes=7, random_state=0).fit(x, y)
    np.savez(tmp_path / "t.npz", **{f"class{k}/{f}": v for k in range(4) for f, v in arrays(model, k).items()})
    got = TimeClasses(tmp_path / "t.npz").proba(x[:50])
    assert np.allclose(got, model.predict_proba(x[:50]), atol=1e-9)
    assert np.allclose(got.sum(axis=1), 1.0)


class _Fixed(TimeClasses):
    def __init__(self, p):
        self.p, self.trust = np.array([p]), 0.4

    def proba(self, rows):
        return self.p


def test_a_sure_reading_that_agrees_with_the_nest_stands_whatever_the_trees_say():
    s = read(NESTED)
    assert s.sure and s.nest == 2 and s.growth("latency") == 2.0
    assert _Fixed([0.0, 1.0, 0.0, 0.0]).correct(s) == 2.0


def test_elsewhere_the_trees_decide_between_the_reading_and_their_likelier_bucket():
    s = read(TWO)
    assert s.growth("latency") == 2.0 and s.nest == 2  # n·m
    s = s.__class__(s.time, s.memory, s.symbols, s.scaled, ("call of g (line 3)",), s.recursion, s.nest)  # unsure
    assert _Fixed([0.0, 0.7, 0.3, 0.0]).correct(s) == 1.0   # n² below trust: the likelier bucket's centre
    assert _Fixed([0.0, 0.55, 0.45, 0.0]).correct(s) == 2.0  # its bucket at trust or above: the reading stands


def test_a_model_whose_trees_read_other_features_is_refused(tmp_path: Path):
    raw = {"reference_n": 10000, "time_classes": {"file": "t.npz", "trust": 0.4, "features": ["a", "b"]}}
    with pytest.raises(ModelError, match="time_classes were fitted on other features"):
        AnalyzerSpec.parse(raw)
    raw["time_classes"] = {"file": "t.npz", "trust": 0.0, "features": list(TimeClasses.names())}
    with pytest.raises(ModelError, match="trust above 0"):
        AnalyzerSpec.parse(raw)
