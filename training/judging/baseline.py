"""Baselines on the same split as the RLM: gradient boosting on code-size/AST-count features,
and the constant "median of training".

    python -m training.judging.baseline                       # real data, prints the report
    python -m training.judging.baseline --json training/work/baseline.json

Features (of the code after the same normalisation the model reads): characters,
lines, lexical tokens, counts of AST node types, the deepest loop nesting, and a
few markers (recursion, memoisation, 2-D lists). One model per metric on
log10(value); p10/p90 from quantile models of the same kind, for coverage.
"""

from __future__ import annotations

import os

# On a shared, oversubscribed CPU, OpenMP's spin-waiting makes 2 threads ~5x slower than 1;
# passive waiting keeps 2 threads at least as fast as 1. Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlm_lsp.python import code_features
from rlm_lsp.runtime.prediction import is_growth
from training.judging.evaluate import add_data_args, score, score_by_shape
from training.learning import dataset

FEATURE_NAMES = code_features.FEATURE_NAMES
# The boosted trees' settings, shared with the gate's feature trees (`training.judging.feature_trees`).
GBM = {"max_iter": 300, "learning_rate": 0.05, "max_leaf_nodes": 31}


def features(code: str, preprocess_name: str = "strip_v1") -> list[float]:
    """`rlm_lsp.python.code_features.features` of `code` after `preprocess_name`."""
    return code_features.of(code, preprocess_name)


def fit_predict(
    train: Sequence[dataset.Example], val: Sequence[dataset.Example],
    metrics: Sequence[str] = dataset.METRIC_NAMES, seed: int = 0, max_iter: int = 300,
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """{"gbm": metric -> {value, low, high}, "median": metric -> {value}} for `val`."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    x_train = np.array([features(e.code) for e in train])
    x_val = np.array([features(e.code) for e in val])
    out: dict[str, dict] = {"gbm": {}, "median": {}}
    for metric in metrics:
        growth = is_growth(metric)  # an exponent (may be <= 0): fitted as it is, not in log10
        idx = [i for i, e in enumerate(train) if (e.values.get(metric) is not None if growth else e.values.get(metric))]
        if not idx:
            continue
        y = np.array([train[i].values[metric] if growth else math.log10(train[i].values[metric]) for i in idx])
        back = (lambda v: v) if growth else (lambda v: 10 ** v)
        preds = {}
        for name, kw in (("value", {}), ("low", {"loss": "quantile", "quantile": 0.1}),
                         ("high", {"loss": "quantile", "quantile": 0.9})):
            model = HistGradientBoostingRegressor(**{**GBM, "max_iter": max_iter}, random_state=seed, **kw)
            model.fit(x_train[idx], y)
            preds[name] = back(model.predict(x_val)).tolist()
        out["gbm"][metric] = preds
        med = float(back(np.median(y)))
        out["median"][metric] = {"value": [med] * len(val)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.judging.baseline", description=__doc__.split("\n")[0])
    add_data_args(p)
    p.add_argument("--json", help="write the report here")
    p.add_argument("--stdin-variant", action="store_true",
                   help="score the validation programs rewritten as stdin scripts")
    args = p.parse_args(argv)
    metrics = dataset.METRIC_NAMES
    if args.synthetic:
        examples = dataset.synthetic_examples(args.synthetic)
    elif args.v4_data:  # features know no shape; each shape is scored apart below
        from training.judging import shaped_examples as v4_data

        examples = v4_data.load_v4_examples(leetcode_corpus=args.corpus)
        metrics = tuple(m["name"] for m in v4_data.V4_METRICS)
    else:
        examples = dataset.load_examples(args.data, args.corpus, tiers=args.tiers.split(","))
    train, val = dataset.split_by_problem(examples, args.val_fraction)
    if args.stdin_variant:
        from training.judging.evaluate import stdin_variants

        val = stdin_variants(val)
    preds = fit_predict(train, val, metrics)
    report = {name: score(val, p, metrics) for name, p in preds.items()}
    report.update(score_by_shape(val, preds, metrics))
    report["_meta"] = {"train_examples": len(train), "validation_examples": len(val),
                       "validation_problems": len({e.problem_id for e in val})}
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
