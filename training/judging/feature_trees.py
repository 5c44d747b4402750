"""Fit the feature trees (`rlm_lsp.runtime.feature_trees`) and ship them in a model directory.

    python -m training.judging.feature_trees rlm_lsp/models/default [--data DIR] [--agree memory=2.0,latency=1.5]
                                     [--level memory=0.5,latency=0.5] [--exponent memory=0.7,latency=0.85]

One `HistGradientBoostingRegressor` per metric (`training.judging.baseline.GBM`: 300 iterations, rate
0.05, 31 leaves; seed 0) on log10 of the measured value, from `code_features.features` of the
canonical code, fitted on model v4's data (`training.judging.shaped_examples`: functions, scripts, stdin programs),
training split only. Writes `feature_trees.npz` (the trees as plain arrays) and the config's
`feature_trees` entry, and refreshes the file hashes. The default `--agree`, `--level` and
`--exponent` are the ones chosen on validation pairs in
experiments/log/10-2026-12-04-sessions-27-30.md (session 30); choose
them again for another model.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.python import code_features  # noqa: E402
from rlm_lsp.runtime.feature_trees import FILE_NAME, FeatureTrees  # noqa: E402
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file  # noqa: E402
from training.judging.baseline import GBM  # noqa: E402

PREPROCESS = "canon_v1"
METRICS = ("memory", "latency")


def rows(examples) -> np.ndarray:
    """The examples' features, as the trees read them (`code_features.of`, canonical code)."""
    return np.array([code_features.of(e.code, PREPROCESS) for e in examples])


def fit(examples, x: np.ndarray, metrics=METRICS, seed: int = 0) -> dict:
    """metric -> fitted regressor on log10(value) of the examples that have it; `x`: their `rows`."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    models = {}
    for m in metrics:
        idx = [i for i, e in enumerate(examples) if e.values.get(m)]
        y = np.log10([examples[i].values[m] for i in idx])
        models[m] = HistGradientBoostingRegressor(**GBM, random_state=seed).fit(x[idx], y)
    return models


def arrays(model, k: int = 0) -> dict[str, np.ndarray]:
    """A fitted HistGradientBoostingRegressor as flat node arrays (`FeatureTrees`' layout); of a
    multi-class HistGradientBoostingClassifier, class `k`'s raw score (its softmax input)."""
    nodes, roots = [], []
    for per_class in model._predictors:  # one predictor per iteration (per class, for a classifier)
        tree = per_class[k]
        if tree.nodes["is_categorical"].any():
            raise ValueError("categorical splits are not supported")
        roots.append(sum(len(n) for n in nodes))
        nodes.append(tree.nodes)
    offsets = np.repeat(roots, [len(n) for n in nodes])
    allnodes = np.concatenate(nodes)
    return {
        "feature": allnodes["feature_idx"].astype(np.int32),
        "threshold": allnodes["num_threshold"].astype(np.float64),
        "left": (allnodes["left"] + offsets).astype(np.int32),
        "right": (allnodes["right"] + offsets).astype(np.int32),
        "value": allnodes["value"].astype(np.float64),
        "leaf": allnodes["is_leaf"].astype(bool),
        "roots": np.array(roots, dtype=np.int32),
        "baseline": np.array(float(np.ravel(model._baseline_prediction)[k])),
    }


def write(model_dir: Path, models: dict, agree: dict[str, float], level: dict[str, float], about: dict,
          exponent: dict[str, float] | None = None) -> Path:
    path = model_dir / FILE_NAME
    flat = {f"{m}/{k}": v for m, model in models.items() for k, v in arrays(model).items()}
    np.savez_compressed(path, **flat)  # type: ignore[arg-type]
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw["feature_trees"] = {"file": FILE_NAME, "preprocess": PREPROCESS, "features": list(code_features.FEATURE_NAMES),
                            "agree": agree, "level": level, "exponent": exponent or {m: 1.0 for m in agree}, **about}
    raw.setdefault("files", {})[FILE_NAME] = sha256_file(path)
    config_path.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return path


def check(path: Path, models: dict, rows: np.ndarray) -> float:
    """Largest |numpy trees - scikit-learn| over `rows`, every metric (0.0 expected)."""
    trees = FeatureTrees.load(path, PREPROCESS)
    return max(float(np.max(np.abs(trees.predict(rows, m) - model.predict(rows)))) for m, model in models.items())


def _pairs(text: str) -> dict[str, float]:
    return {k: float(v) for k, v in (item.split("=") for item in text.split(",") if item)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.judging.feature_trees", description=__doc__.split("\n")[0])
    p.add_argument("model_dir")
    p.add_argument("--data", help="the packed measurements (default training/data); the shipped trees were fitted on "
                   "data v2 as packed at 17:31 on 2026-12-04, the files of commit 19b610e")
    p.add_argument("--agree", default="memory=2.0,latency=1.5", help="the trees' new/old needed at ratio 2")
    p.add_argument("--level", default="memory=0.5,latency=0.5", help="the rule's confidence level with the trees")
    p.add_argument("--exponent", default="memory=0.7,latency=0.85",
                   help="the model's own limit for a ratio R is R ** this (its estimates are drawn towards the middle)")
    args = p.parse_args(argv)
    from training.judging import shaped_examples as v4_data
    from training.learning import dataset

    train, _ = dataset.split_by_problem(v4_data.load_v4_examples(data=Path(args.data) if args.data else None))
    x = rows(train)
    models = fit(train, x)
    about = {"fitted_on": f"model v4's data, training split ({len(train)} programs)",
             "chosen": "experiments/log/10-2026-12-04-sessions-27-30.md, session 30"}
    path = write(Path(args.model_dir), models, _pairs(args.agree), _pairs(args.level), about, _pairs(args.exponent))
    worst = check(path, models, x[:500])
    print(f"{path}: {path.stat().st_size / 1e3:.0f} kB, {len(train)} training programs; "
          f"numpy against scikit-learn on 500 rows: largest difference {worst:.2e}")
    return 0 if worst <= 1e-9 and math.isfinite(worst) else 1


if __name__ == "__main__":
    raise SystemExit(main())
