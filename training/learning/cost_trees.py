"""The learned part of the cost analyzer's growth (#60 item 2): trees on the training curves that read the
analyzer's summary (`Summary.features`) beside the counts and loop nests (the growth trees' row), one
per metric; the shipped growth is the mean of the analyzer's exponent and the trees'.

    python -m training.learning.cost_trees MODEL_DIR [--growth-dev OUT.jsonl]
                                         # fit on every training problem (and growth-dev's dev half), write, check

Writes `cost_trees.npz` into MODEL_DIR and `growth_analyzer.trees` into its rlm_config.json
(`rlm_lsp.runtime.cost_growth` reads them). Targets: the curves' asymptotic exponents
(`growth_eval.asymptotic_targets`), training problems only (`dataset.is_validation` is never fitted).
With `--growth-dev` (the rows `../shared/growth-dev/tools/rebuild.py` writes), the dev half of
growth-dev (`dev_half`: sha1 of the id even; the other half is kept for judging) is fitted too, each
row weighing `DEV_WEIGHT` LeetCode rows: real functions measured with the protocol of the hidden set.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.cost.analyze import FEATURE_NAMES  # noqa: E402
from rlm_lsp.python import reader  # noqa: E402
from rlm_lsp.python.cost_front import read  # noqa: E402
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file  # noqa: E402

FILE_NAME = "cost_trees.npz"
PREPROCESS = "canon_v1"
SETTINGS = {"max_iter": 120, "learning_rate": 0.08, "max_leaf_nodes": 15, "min_samples_leaf": 20}
METRICS = ("latency", "memory")
BLEND = 0.5  # the trees' weight in the shipped growth; the analyzer's is 1 - BLEND
DEV_WEIGHT = 10.0


def dev_half(row_id: str) -> bool:
    """growth-dev's development half (the other half judges candidates: experiments/log/14-*.md)."""
    return int(hashlib.sha1(row_id.encode()).hexdigest(), 16) % 2 == 0


def growth_dev_table(path: Path):
    """(X, {metric: y}) of growth-dev's dev half, each function read with its entry."""
    rows = [json.loads(line) for line in open(path)]
    rows = [r for r in rows if dev_half(r["id"])]
    x = [row(r["code"], r["function"]) for r in rows]
    keep = [i for i, v in enumerate(x) if v is not None]
    return (np.array([x[i] for i in keep]),
            {"latency": np.array([rows[i]["time_exponent"] for i in keep]),
             "memory": np.array([rows[i]["memory_exponent"] for i in keep])})


def names() -> tuple[str, ...]:
    return tuple(FEATURE_NAMES) + tuple(reader.GROWTH_FEATURE_NAMES)


def row(code: str, entry: str | None = None) -> list[float] | None:
    """The trees' row of `code`: the analyzer's features, then the counts and loop nests; None where
    the analyzer reads nothing (no growth is predicted then)."""
    s = read(code, entry)
    if s is None:
        return None
    return s.features() + list(reader.growth_features(code, PREPROCESS))


def training_table():
    """(keys, X, {metric: y}) over the training problems' programs with a measured curve."""
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    targets = asymptotic_targets()
    keys, rows = [], []
    for k in sorted(targets):
        if k in code and not is_validation(str(targets[k]["problem_id"])):
            r = row(code[k])
            if r is not None:
                keys.append(k)
                rows.append(r)
    y = {m: np.array([targets[k].get(m) if targets[k].get(m) is not None else np.nan for k in keys]) for m in METRICS}
    return keys, np.array(rows), y


def fit(x: np.ndarray, y: dict, extra: tuple | None = None) -> dict:
    """One tree ensemble per metric on (x, y), and `extra` = (X, y) rows weighing `DEV_WEIGHT` each."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    out = {}
    for m in METRICS:
        ok = ~np.isnan(y[m])
        xs, ys, ws = [x[ok]], [y[m][ok]], [np.ones(ok.sum())]
        if extra is not None:
            xs.append(extra[0])
            ys.append(extra[1][m])
            ws.append(np.full(len(extra[0]), DEV_WEIGHT))
        out[m] = HistGradientBoostingRegressor(**SETTINGS, random_state=0).fit(
            np.vstack(xs), np.concatenate(ys), sample_weight=np.concatenate(ws))
    return out


def write(model_dir: Path, models: dict, rows: int, dev_rows: int = 0) -> Path:
    from training.judging.feature_trees import arrays
    path = model_dir / FILE_NAME
    flat = {f"{m}/{f}": v for m, model in models.items() for f, v in arrays(model).items()}
    np.savez_compressed(path, **flat)  # type: ignore[arg-type]
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw["growth_analyzer"]["trees"] = {
        "file": FILE_NAME, "preprocess": PREPROCESS, "features": list(names()), "metrics": list(models),
        "blend": BLEND, "rows": rows, "growth_dev_rows": dev_rows, "growth_dev_weight": DEV_WEIGHT if dev_rows else 0,
        "rows_from": "the LeetCode cost curves of training problems (targets: asymptotic exponents)"
                     + (" and growth-dev's dev half (sha1 of the id even)" if dev_rows else "")}
    raw.setdefault("files", {})[FILE_NAME] = sha256_file(path)
    config_path.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.learning.cost_trees", description=__doc__.split("\n")[0])
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--growth-dev", type=Path, help="growth-dev's rebuilt rows (tools/rebuild.py's out.jsonl)")
    a = ap.parse_args(argv)
    keys, x, y = training_table()
    extra = growth_dev_table(a.growth_dev) if a.growth_dev else None
    models = fit(x, y, extra)
    write(a.model_dir, models, len(keys), 0 if extra is None else len(extra[0]))
    from rlm_lsp.runtime.feature_trees import FeatureTrees
    trees = FeatureTrees(a.model_dir / FILE_NAME, METRICS, PREPROCESS)
    worst = max(float(np.max(np.abs(trees.predict(x[:500], m) - models[m].predict(x[:500])))) for m in METRICS)
    print(json.dumps({"rows": len(keys), "numpy_vs_sklearn": worst}))
    return 0 if worst < 1e-6 else 1


if __name__ == "__main__":
    raise SystemExit(main())
