"""The feature trees: read with numpy exactly as scikit-learn fitted them, invariant under what
the canonical form removes, and asked by the regression rule only to veto a flag."""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pytest

from rlm_lsp.policy import rules
from rlm_lsp.python import code_features
from rlm_lsp.runtime.feature_trees import FeatureCheck, FeatureTrees
from rlm_lsp.runtime.model_dir import DEFAULT_DIR, feature_tree_levels
from rlm_lsp.runtime.prediction import Prediction

SHIPPED = DEFAULT_DIR / "feature_trees.npz"


def test_numpy_trees_give_scikit_learns_predictions_exactly(tmp_path):
    pytest.importorskip("sklearn")
    from sklearn.ensemble import HistGradientBoostingRegressor

    from training.judging import feature_trees as fit

    rng = np.random.default_rng(0)
    x = rng.integers(0, 40, size=(400, len(code_features.FEATURE_NAMES))).astype(float)
    y = np.log10(1 + x[:, 0] * x[:, 3] + x[:, 7]) + rng.normal(0, 0.1, 400)
    model = HistGradientBoostingRegressor(max_iter=60, learning_rate=0.05, max_leaf_nodes=31, random_state=0).fit(x, y)
    (tmp_path / "rlm_config.json").write_text(json.dumps({"files": {}}))
    path = fit.write(tmp_path, {"memory": model}, {"memory": 2.0}, {"memory": 0.5}, {})
    trees = FeatureTrees.load(path, "canon_v1")
    assert np.array_equal(trees.predict(x, "memory"), model.predict(x))
    raw = json.loads((tmp_path / "rlm_config.json").read_text())
    assert raw["feature_trees"]["agree"] == {"memory": 2.0} and "feature_trees.npz" in raw["files"]


def test_shipped_trees_see_no_difference_a_rename_or_reformat_makes():
    trees = FeatureTrees.load(SHIPPED, "canon_v1")
    assert set(trees.metrics) == {"memory", "latency"}
    a = "def total(items):\n    s = 0\n    for x in items:\n        s += x\n    return s\n"
    b = ('def add_up(values: list[int]) -> int:\n    """Sum."""\n    acc=0\n    for v in values:  # each\n'
         "        acc += v\n    return acc\n")
    grid = "def grid(n):\n    t = [[0] * n for _ in range(n)]\n    for i in range(n):\n        for j in range(n):\n            t[i][j] = i * j\n    return t\n"
    assert trees.estimate(a) == trees.estimate(b)
    assert trees.value(grid, "memory") > trees.value(a, "memory")  # an n x n table costs more than a sum
    assert feature_tree_levels() == {"memory": 0.5, "latency": 0.5}


@dataclass(frozen=True)
class FixedCheck:  # a FeatureCheck with a fixed tree estimate
    value: float
    agree: float = 1.5
    level: float = 0.5
    exponent: float = 1.0

    def limit(self, ratio: float) -> float:
        return FeatureCheck.limit(self, ratio)  # type: ignore[arg-type]

    def model_limit(self, ratio: float) -> float:
        return FeatureCheck.model_limit(self, ratio)  # type: ignore[arg-type]


def pred(value: float, trees: float | None = None, samples=None) -> Prediction:
    check = None if trees is None else FixedCheck(trees)
    return Prediction("memory", value, value, value, "bytes", samples=samples or (value,) * 16, features=check)


def test_the_trees_veto_a_flag_they_do_not_support_and_say_so_when_they_agree():
    assert rules.judge(pred(1.0), pred(3.0), 2.0, 0.5).regressed  # no trees: the draws decide
    vetoed = rules.judge(pred(1.0, trees=10.0), pred(3.0, trees=14.0), 2.0, 0.5)  # trees: 1.4x < 1.5
    assert not vetoed.regressed and vetoed.trees == pytest.approx(1.4)
    agreed = rules.judge(pred(1.0, trees=10.0), pred(3.0, trees=15.0), 2.0, 0.5)  # exactly 1.5x: inclusive
    assert agreed.regressed and agreed.trees == pytest.approx(1.5)
    quiet = rules.judge(pred(1.0, trees=10.0), pred(1.5, trees=100.0), 2.0, 0.5)  # the draws do not flag
    assert not quiet.regressed and quiet.trees is None  # and the trees are never read


def test_the_trees_limit_scales_with_the_ratio_and_levels_come_from_them():
    check = FixedCheck(1.0, agree=1.5)
    assert check.limit(2.0) == 1.5 and check.limit(4.0) == pytest.approx(2.25) and check.limit(1.0) == 1.0
    assert rules.level_for("memory", None, pred(1.0, trees=1.0)) == 0.5
    assert rules.level_for("memory", None, pred(1.0)) == rules.CONFIDENCE_BY_METRIC["memory"]
    assert rules.level_for("memory", 0.9, pred(1.0, trees=1.0)) == 0.9  # the project's setting wins
    # the trees' level only where both versions carry them
    assert rules.level_for("memory", None, pred(1.0), pred(1.0, trees=1.0)) == rules.CONFIDENCE_BY_METRIC["memory"]
    assert rules.level_for("memory", None, pred(1.0, trees=1.0), pred(1.0, trees=1.0)) == 0.5


def test_default_predictions_carry_the_trees_and_read_them_only_when_asked():
    from rlm_lsp.runtime.predictor import Predictor

    p = Predictor.default(samples=4)
    code = "def f(n):\n    return [[0] * n for _ in range(n)]\n"
    before = p.trees.estimate.cache_info().currsize
    [out] = p.predict([code])
    assert p.trees.estimate.cache_info().currsize == before  # predicting reads no trees
    check = out["memory"].features
    assert isinstance(check, FeatureCheck) and check.level == 0.5 and check.agree == 2.0
    assert out["latency"].features.agree == 1.5
    assert check.value == pytest.approx(p.trees.value(code, "memory")) and check.value > 0


def test_the_gate_and_the_editor_say_what_the_trees_saw():
    from rlm_lsp.gate import compare, report
    from rlm_lsp.gate.compare import FunctionChange, parse_functions
    from rlm_lsp.policy.project_config import GateConfig

    old_code, new_code = "def f(n):\n    return n\n", "def f(n):\n    return [n] * n\n"
    [old_fn] = parse_functions("x.py", old_code)
    [new_fn] = parse_functions("x.py", new_code)
    change = FunctionChange("modified", new_fn, old_fn)
    old, new = pred(1000.0, trees=10.0), pred(3000.0, trees=25.0)
    predictions = {old_fn.snippet.code: {"memory": old}, new_fn.snippet.code: {"memory": new}}
    [finding] = compare.judge([change], predictions, GateConfig(), ["memory"])
    assert finding.trees == pytest.approx(2.5)
    assert report.finding_line(finding).endswith("exceeds 2.0×; the code's features agree (2.5×)")
    vetoed = {old_fn.snippet.code: {"memory": old}, new_fn.snippet.code: {"memory": pred(3000.0, trees=12.0)}}
    [unsure] = compare.judge([change], vetoed, GateConfig(), ["memory"])  # the trees' veto: reported, not failed
    assert unsure.outcome == "inconclusive" and not unsure.failed
    assert report.finding_line(unsure).endswith(
        "past 2.0×, but the code's features do not agree (1.2×); not blocking")

    from rlm_lsp.server import diagnostics
    from rlm_lsp.server.analysis import FunctionResult
    from rlm_lsp.server.settings import Settings

    def result(now):
        return FunctionResult(new_fn.snippet, {"memory": now}, {"memory": old}, "changed", "def f(n):", "def f(n):")
    [(code, text)] = diagnostics.messages(result(new), Settings())
    assert code == "regression" and text.endswith("(3.0×, limit 2.0×, code features 2.5×)")
    assert diagnostics.messages(result(pred(3000.0, trees=12.0)), Settings()) == []  # the trees veto it


def test_a_broken_feature_trees_entry_is_a_clear_model_error(tmp_path):
    import shutil

    from rlm_lsp.runtime.errors import ModelError
    from rlm_lsp.runtime.predictor import Predictor

    model = tmp_path / "m"
    shutil.copytree(DEFAULT_DIR, model)
    raw = json.loads((model / "rlm_config.json").read_text())
    raw["feature_trees"]["agree"] = "memory"  # not a mapping
    (model / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="feature_trees in rlm_config.json is invalid"):
        Predictor.from_dir(model)
    raw["feature_trees"]["agree"] = {"memory": 2.0}
    raw["feature_trees"]["preprocess"] = "nope"
    (model / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="invalid"):
        Predictor.from_dir(model)


def test_missing_trees_are_refused_at_load_and_a_prediction_with_trees_pickles(tmp_path):
    import pickle
    import shutil

    from rlm_lsp.runtime.errors import ModelError
    from rlm_lsp.runtime.model_dir import ModelConfig

    model = tmp_path / "m"
    shutil.copytree(DEFAULT_DIR, model)
    trees = FeatureTrees.load(model / "feature_trees.npz", "canon_v1", ("memory", "latency"))
    check = FeatureCheck(trees, "def f(n):\n    return n\n", "memory", 2.0, 0.5)
    p = Prediction("memory", 1.0, 1.0, 1.0, "bytes", features=check)
    again = pickle.loads(pickle.dumps(p))
    assert again.features.value == pytest.approx(check.value)
    (model / "feature_trees.npz").unlink()
    with pytest.raises(ModelError, match="model file missing: .*feature_trees.npz"):
        ModelConfig.load(model)


def test_with_trees_the_model_is_held_to_its_own_limit_and_the_message_says_so():
    from rlm_lsp.gate import compare, report
    from rlm_lsp.gate.compare import FunctionChange, parse_functions
    from rlm_lsp.policy.project_config import GateConfig

    def scaled(value, trees):
        return Prediction("memory", value, value, value, "bytes", samples=(value,) * 16,
                          features=FixedCheck(trees, agree=2.0, exponent=0.7))

    assert not rules.judge(pred(1.0), pred(1.7), 2.0, 0.5).regressed  # without trees: 1.7x < 2x
    verdict = rules.judge(scaled(1.0, 10.0), scaled(1.7, 25.0), 2.0, 0.5)  # 1.7x >= 2 ** 0.7 = 1.62x
    assert verdict.regressed and verdict.limit == pytest.approx(2 ** 0.7) and verdict.trees == pytest.approx(2.5)
    assert not rules.judge(scaled(1.0, 10.0), scaled(1.6, 25.0), 2.0, 0.5).regressed  # under 1.62x
    assert not rules.judge(scaled(1.0, 10.0), scaled(1.7, 19.0), 2.0, 0.5).regressed  # the trees see 1.9x < 2x
    [old_fn] = parse_functions("x.py", "def f(n):\n    return n\n")
    [new_fn] = parse_functions("x.py", "def f(n):\n    return [n] * n\n")
    predictions = {old_fn.snippet.code: {"memory": scaled(1000.0, 10.0)}, new_fn.snippet.code: {"memory": scaled(1700.0, 25.0)}}
    [finding] = compare.judge([FunctionChange("modified", new_fn, old_fn)], predictions, GateConfig(), ["memory"])
    assert report.finding_line(finding).endswith(
        "1 kB → 1.7 kB (1.7×) exceeds 2.0× (1.6× on the model's scale); the code's features agree (2.5×)")


def test_the_editor_names_the_models_limit_only_where_it_explains_the_flag():
    from rlm_lsp.gate.compare import parse_functions
    from rlm_lsp.server import diagnostics
    from rlm_lsp.server.analysis import FunctionResult
    from rlm_lsp.server.settings import Settings

    def scaled(value, trees):
        return Prediction("memory", value, value, value, "bytes", samples=(value,) * 16,
                          features=FixedCheck(trees, agree=2.0, exponent=0.7))

    [fn] = parse_functions("x.py", "def f(n):\n    return [n] * n\n")
    old = scaled(1000.0, 10.0)

    def message(now):
        [(_, text)] = diagnostics.messages(FunctionResult(fn.snippet, {"memory": now}, {"memory": old}, "changed",
                                                          "def f(n):", "def f(n):"), Settings())
        return text
    assert message(scaled(1700.0, 25.0)).endswith("(1.7×, limit 2.0×: 1.6× on the model's scale, code features 2.5×)")
    assert message(scaled(8000.0, 25.0)).endswith("(8.0×, limit 2.0×, code features 2.5×)")
