"""Time-class trees: the learned correction of the cost analyzer's time reading (#60 item 2, time-v7).

    python -m training.learning.time_classes MODEL_DIR [--table TABLE.jsonl]
                                   # fit on every real function of the table, write, check numpy == sklearn

The analyzer reads the worst case of the code as written; real functions measured with the hidden
set's protocol (growth-dev's) often grow slower: a second input the measurement holds fixed, an
amortised graph walk, a stack that stays short. One gradient-boosted classifier of the four time
buckets (exponent < 0.5, 0.5-1.5, 1.5-2.5, >= 2.5) reads the analyzer's summary (`Summary.features`),
the entry's loop nest as written and whether the analyzer is sure, and says how likely the analyzer's
bucket is. `rlm_lsp.runtime.cost_growth` keeps the analyzer's exponent where it is sure and agrees
with the nest, or where the trees give its bucket at least `TRUST`; otherwise the centre of the
trees' most likely bucket.

Rows: `training/data/real_functions_time.jsonl.gz` (`experiments/time8/table.py --with-fresh5`, then
`experiments/time7/table.py --slim`): 1,442 real functions of ten public repositories (growth-dev
and growth-fresh 1-5, measured with growth-dev's protocol; time-v9, session 42: 909 of seven for
time-v7), their measured time exponent and the analyzer's features; no code. Each repository weighs
the same. Writes `time_classes.npz` (one raw-score ensemble per bucket, `class0` .. `class3`) and
`growth_analyzer.time_classes` into the model's rlm_config.json.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.runtime.cost_growth import CENTRES, TimeClasses, bucket  # noqa: E402
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file  # noqa: E402

FILE_NAME = "time_classes.npz"
TABLE = ROOT / "training" / "data" / "real_functions_time.jsonl.gz"
SETTINGS = {"max_iter": 120, "learning_rate": 0.06, "max_leaf_nodes": 7, "min_samples_leaf": 12,
            "l2_regularization": 1.0}
TRUST = 0.3  # the analyzer's bucket stands where the trees give it at least this (time-v9; 0.4 in time-v7)
CLASSES = len(CENTRES)


def table(path: Path = TABLE) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
    """(X, y buckets, weights: each repository the same in all, rows)."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    rows = [r for r in rows if r.get("features") is not None]
    per_repo = Counter(r["repo"] for r in rows)
    x = np.array([r["features"] + [float(r["nest"] or 0), float(bool(r["sure"]))] for r in rows])
    y = np.array([bucket(r["time"]) for r in rows])
    w = np.array([len(rows) / (len(per_repo) * per_repo[r["repo"]]) for r in rows])
    return x, y, w, rows


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray):
    from sklearn.ensemble import HistGradientBoostingClassifier
    model = HistGradientBoostingClassifier(**SETTINGS, random_state=0).fit(x, y, sample_weight=w)
    if list(model.classes_) != list(range(CLASSES)):
        raise SystemExit(f"time_classes: every bucket needs rows; got {list(model.classes_)}")
    return model


def write(model_dir: Path, model, rows: list[dict]) -> Path:
    from training.judging.feature_trees import arrays
    path = model_dir / FILE_NAME
    flat = {f"class{k}/{f}": v for k in range(CLASSES) for f, v in arrays(model, k).items()}
    np.savez_compressed(path, **flat)  # type: ignore[arg-type]
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw["growth_analyzer"]["time_classes"] = {
        "file": FILE_NAME, "features": list(TimeClasses.names()), "trust": TRUST, "rows": len(rows),
        "repositories": sorted({r["repo"] for r in rows}),
        "rows_from": "real functions measured with growth-dev's protocol (training/data/real_functions_time.jsonl.gz)"}
    raw.setdefault("files", {})[FILE_NAME] = sha256_file(path)
    config_path.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.learning.time_classes", description=__doc__.split("\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--table", type=Path, default=TABLE)
    a = ap.parse_args(argv)
    x, y, w, rows = table(a.table)
    model = fit(x, y, w)
    write(a.model_dir, model, rows)
    ours = TimeClasses(a.model_dir / FILE_NAME).proba(x)
    worst = float(np.max(np.abs(ours - model.predict_proba(x))))
    print(json.dumps({"rows": len(rows), "numpy_vs_sklearn": worst}))
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())
