"""The learned part (#60 item 2), selected without a look: trees on the training curves that read the
cost analyzer's summary beside the counts, by 5-fold CV over training problems and on growth-dev's dev half.

    python experiments/cost/blend.py [--bags 1]

Recipes compared (each metric): the analyzer alone; B (the counts and loop nests, today's growth-tree
row); A+B (that row and the analyzer's features); the mean of the analyzer and A+B.
"""
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import figures  # noqa: E402
from rlm_lsp.cost.analyze import FEATURE_NAMES  # noqa: E402
from rlm_lsp.python import reader  # noqa: E402
from rlm_lsp.python.cost_front import read  # noqa: E402

SETTINGS = {"max_iter": 120, "learning_rate": 0.08, "max_leaf_nodes": 15, "min_samples_leaf": 20}


def row(code: str, entry=None):
    s = read(code, entry)
    a = s.features() if s is not None else [1.0, 1.0] + [0.0] * (len(FEATURE_NAMES) - 2)
    try:
        b = reader.growth_features(code, "canon_v1")
    except Exception:  # noqa: BLE001
        b = [0.0] * len(reader.GROWTH_FEATURE_NAMES)
    return a, b


def main():
    from sklearn.ensemble import HistGradientBoostingRegressor

    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    T = asymptotic_targets()
    keys = sorted(k for k, t in T.items() if k in code and not is_validation(str(t["problem_id"])))
    A, B = zip(*(row(code[k]) for k in keys))
    A, B = np.array(A), np.array(B)
    prob = np.array([T[k]["problem_id"] for k in keys])
    gd = [json.loads(x) for x in open("/work/gd/out.jsonl")]
    gd = [r for r in gd if half(r["id"]) == "dev"]
    GA, GB = zip(*(row(r["code"], r["function"]) for r in gd))
    GA, GB = np.array(GA), np.array(GB)
    report = {}
    for mi, (metric, field) in enumerate((("latency", "time_exponent"), ("memory", "memory_exponent"))):
        y = np.array([T[k].get(metric) if T[k].get(metric) is not None else np.nan for k in keys])
        ok = ~np.isnan(y)
        uniq = np.unique(prob[ok])
        rnd = np.random.default_rng(0)
        fold = dict(zip(uniq, rnd.integers(0, 5, len(uniq))))
        f = np.array([fold.get(p, -1) for p in prob])
        preds = {name: np.full(len(keys), np.nan) for name in ("B", "A+B")}
        for k in range(5):
            tr, te = ok & (f != k), ok & (f == k)
            for name, X in (("B", B), ("A+B", np.hstack([A, B]))):
                m = HistGradientBoostingRegressor(**SETTINGS, random_state=0).fit(X[tr], y[tr])
                preds[name][te] = m.predict(X[te])
        preds["analyzer"] = A[:, mi]
        preds["mean(analyzer, A+B)"] = (A[:, mi] + preds["A+B"]) / 2
        preds["mean(analyzer, B)"] = (A[:, mi] + preds["B"]) / 2
        gy = np.array([r[field] for r in gd])
        full = {name: HistGradientBoostingRegressor(**SETTINGS, random_state=0).fit(X[ok], y[ok])
                for name, X in (("B", B), ("A+B", np.hstack([A, B])))}
        gp = {"B": full["B"].predict(GB), "A+B": full["A+B"].predict(np.hstack([GA, GB])), "analyzer": GA[:, mi]}
        gp["mean(analyzer, A+B)"] = (gp["analyzer"] + gp["A+B"]) / 2
        gp["mean(analyzer, B)"] = (gp["analyzer"] + gp["B"]) / 2
        for name in preds:
            cv = figures(y[ok], preds[name][ok])
            dv = figures(gy, gp[name])
            report[f"{metric}/{name}"] = {"cv": {k: round(v, 3) for k, v in cv.items()},
                                         "dev": {k: round(v, 3) for k, v in dv.items()}}
            print(f"{metric:8s} {name:22s} CV acc {cv['accuracy']:.3f} bal {cv['balanced']:.3f} rho {cv['rho']:.3f}"
                  f"  | dev acc {dv['accuracy']:.3f} bal {dv['balanced']:.3f} rho {dv['rho']:.3f}")
    Path("experiments/cost/blend_selection.json").write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
