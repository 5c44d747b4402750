"""value-v1 (session 43): trees for the factor between the shipped value and real functions' measured
calls (`rlm_lsp.runtime.value_shift`), checked leaving one set out, and written into a model directory.

    python experiments/value1/fit.py TABLE.jsonl --cv                 # leave one set out: values along n
    python experiments/value1/fit.py TABLE.jsonl --ship MODEL_DIR     # fit on every row; write the trees

The shipped trees (value-v3, refitted with mem-v6's analyzer): `python experiments/value1/fit.py
training/data/real_functions_values.jsonl.gz --analyzer-only --ship MODEL_DIR` (the table: table.py's
rows of the seven spent sets, no code).

TABLE: experiments/value1/table.py's rows. Each set weighs the same. The figure: Spearman ρ over every
(function, measured n) row of the value at n against the measured value (the fresh judge's "values
along n"), the shipped value moved along the shipped growth against the same times the trees' factor.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rlm_lsp.runtime import value_shift  # noqa: E402
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file  # noqa: E402

METRICS = value_shift.METRICS
SETTINGS = {"max_iter": 150, "learning_rate": 0.05, "max_leaf_nodes": 15, "min_samples_leaf": 20, "l2_regularization": 1.0}


def load(path: str) -> list[dict]:
    import gzip
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as fh:
        return [r for r in map(json.loads, fh) if all(r[m]["shift"] is not None for m in METRICS)]


WITH_VALUES = True  # --no-values: the analyzer's features and the growths alone
ANALYZER_ONLY = False  # --analyzer-only: the analyzer's features, loop nest and `sure` alone (value-v3)


def x_of(rows: list[dict]) -> np.ndarray:
    if ANALYZER_ONLY:
        return np.array([r["features"] for r in rows])
    if not WITH_VALUES:
        return np.array([r["features"] + [r[m]["growth"] for m in METRICS] for r in rows])
    return np.array([r["features"] + [np.log10(max(r[m]["value"], 1e-12)) for m in METRICS]
                     + [r[m]["growth"] for m in METRICS] for r in rows])


def weights(rows: list[dict]) -> np.ndarray:
    sets = [r["set"] for r in rows]
    count = {s: sets.count(s) for s in set(sets)}
    return np.array([1.0 / count[s] for s in sets]) * len(rows) / len(count)


def fit(rows: list[dict]) -> dict:
    from sklearn.ensemble import HistGradientBoostingRegressor
    x, w = x_of(rows), weights(rows)
    return {m: HistGradientBoostingRegressor(**SETTINGS, random_state=0).fit(x, np.array([r[m]["shift"] for r in rows]),
                                                                            sample_weight=w) for m in METRICS}


def along_n(rows: list[dict], metric: str, shift: np.ndarray | None = None) -> float:
    y, p = [], []
    for i, r in enumerate(rows):
        q = r[metric]
        k = 10 ** shift[i] if shift is not None else 1.0
        for n, v in zip(q["sizes"], q["measured"]):
            if v is not None:
                y.append(v)
                p.append(q["value"] * (n / q["n"]) ** q["growth"] * k)
    return float(spearmanr(y, p).correlation)


def cv(rows: list[dict]) -> dict:
    out = {}
    for held in sorted({r["set"] for r in rows}):
        train = [r for r in rows if r["set"] != held]
        test = [r for r in rows if r["set"] == held]
        models = fit(train)
        x = x_of(test)
        out[held] = {"functions": len(test)} | {
            m: {"shipped": round(along_n(test, m), 3),
                "shifted": round(along_n(test, m, np.clip(models[m].predict(x), -3, 3)), 3)} for m in METRICS}
        print(held, json.dumps(out[held]), flush=True)
    for m in METRICS:
        d = [out[s][m]["shifted"] - out[s][m]["shipped"] for s in out]
        print(f"{m}: mean gain {np.mean(d):+.3f}, sets better {sum(x > 0 for x in d)} of {len(d)}")
    return out


def ship(rows: list[dict], model_dir: Path) -> None:
    from training.judging.feature_trees import arrays
    models = fit(rows)
    path = model_dir / value_shift.FILE_NAME
    np.savez_compressed(path, **{f"{m}/{f}": v for m, model in models.items() for f, v in arrays(model).items()})
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw["growth_analyzer"]["value_trees"] = {
        "file": value_shift.FILE_NAME, "metrics": list(METRICS), "features": list(value_shift.feature_names(
            "analyzer" if ANALYZER_ONLY else "values" if WITH_VALUES else "growth")),
        "rows": len(rows), "sets": sorted({r["set"] for r in rows}),
        "rows_from": "real functions of growth-dev and growth-fresh 1-6 (experiments/value1/table.py), each set weighing the same"}
    raw.setdefault("files", {})[value_shift.FILE_NAME] = sha256_file(path)
    config_path.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    from rlm_lsp.runtime.feature_trees import FeatureTrees
    trees = FeatureTrees(path, METRICS, "")
    x = x_of(rows)
    worst = max(float(np.max(np.abs(trees.predict(x, m) - models[m].predict(x)))) for m in METRICS)
    print(json.dumps({"rows": len(rows), "numpy_vs_sklearn": worst}))


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("table")
    ap.add_argument("--cv", action="store_true")
    ap.add_argument("--ship", type=Path)
    ap.add_argument("--no-values", action="store_true")
    ap.add_argument("--analyzer-only", action="store_true")
    a = ap.parse_args()
    global WITH_VALUES, ANALYZER_ONLY
    WITH_VALUES = not a.no_values
    ANALYZER_ONLY = a.analyzer_only
    rows = load(a.table)
    if a.cv:
        cv(rows)
    if a.ship:
        ship(rows, a.ship)
    return 0


if __name__ == "__main__":
    sys.exit(main())
