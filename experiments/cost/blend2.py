"""Candidate 3's selection, without a look: the trees also learn from growth-dev's dev half (real
functions measured with the hidden set's protocol), and each metric gets its own blend weight.

    python experiments/cost/blend2.py

LeetCode: 5-fold CV over training problems (the dev half always in training). growth-dev dev half:
5-fold CV over its functions (the LeetCode rows always in training). Nothing of the check half or
the validation problems is read.
"""
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import figures  # noqa: E402
from training.learning import cost_trees  # noqa: E402

WEIGHTS = (0.0, 0.25, 0.5)  # the trees' weight in the blend
DEV_WEIGHT = 10.0  # a dev-half row counts as this many LeetCode rows


def main():
    from sklearn.ensemble import HistGradientBoostingRegressor
    keys, x, y = cost_trees.training_table()
    from training.judging.growth_eval import asymptotic_targets
    T = asymptotic_targets()
    prob = np.array([T[k]["problem_id"] for k in keys])
    gd = [json.loads(r) for r in open("/work/gd/out.jsonl")]
    gd = [r for r in gd if half(r["id"]) == "dev"]
    gx = np.array([cost_trees.row(r["code"], r["function"]) or [1.0] * x.shape[1] for r in gd])
    gy = {"latency": np.array([r["time_exponent"] for r in gd]), "memory": np.array([r["memory_exponent"] for r in gd])}
    rnd = np.random.default_rng(0)
    uniq = np.unique(prob)
    fold = dict(zip(uniq, rnd.integers(0, 5, len(uniq))))
    f = np.array([fold[p] for p in prob])
    gf = rnd.integers(0, 5, len(gd))
    out = {}
    for mi, metric in enumerate(cost_trees.METRICS):
        yy, ok = y[metric], ~np.isnan(y[metric])
        an_lc, an_gd = x[:, mi], gx[:, mi]
        for source in ("leetcode", "leetcode+dev"):
            lc_pred, gd_pred = np.full(len(keys), np.nan), np.full(len(gd), np.nan)
            for k in range(5):
                tr = ok & (f != k)
                xs, ys, ws = [x[tr]], [yy[tr]], [np.ones(tr.sum())]
                if source == "leetcode+dev":
                    xs.append(gx)
                    ys.append(gy[metric])
                    ws.append(np.full(len(gd), DEV_WEIGHT))
                m = HistGradientBoostingRegressor(**cost_trees.SETTINGS, random_state=0).fit(
                    np.vstack(xs), np.concatenate(ys), sample_weight=np.concatenate(ws))
                lc_pred[ok & (f == k)] = m.predict(x[ok & (f == k)])
                gtr = gf != k
                xs2, ys2, ws2 = [x[ok]], [yy[ok]], [np.ones(ok.sum())]
                if source == "leetcode+dev":
                    xs2.append(gx[gtr])
                    ys2.append(gy[metric][gtr])
                    ws2.append(np.full(gtr.sum(), DEV_WEIGHT))
                m2 = HistGradientBoostingRegressor(**cost_trees.SETTINGS, random_state=0).fit(
                    np.vstack(xs2), np.concatenate(ys2), sample_weight=np.concatenate(ws2))
                gd_pred[~gtr] = m2.predict(gx[~gtr])
            for w in WEIGHTS:
                if w == 0.0 and source != "leetcode":
                    continue
                name = "analyzer" if w == 0.0 else f"{1 - w:.2f} analyzer + {w:.2f} trees({source})"
                a = figures(yy[ok], ((1 - w) * an_lc + w * lc_pred)[ok])
                b = figures(gy[metric], np.maximum(0.0, (1 - w) * an_gd + w * gd_pred))
                out[f"{metric}/{name}"] = {"cv": a, "dev": b}
                print(f"{metric:8s} {name:42s} CV acc {a['accuracy']:.3f} bal {a['balanced']:.3f} rho {a['rho']:.3f}"
                      f" | dev acc {b['accuracy']:.3f} bal {b['balanced']:.3f} rho {b['rho']:.3f}")
    Path("experiments/cost/blend2_selection.json").write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
