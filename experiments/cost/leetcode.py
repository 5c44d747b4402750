"""The cost analyzer on the LeetCode cost curves: growth figures on one side of the problem split.

    python experiments/cost/leetcode.py [--side train|validation] [--limit N] [--misses FILE]

`train` is what the analyzer is developed on; `validation` is judged once per candidate by the rule
in experiments/log/14-*.md. Measured exponents: the asymptotic ones (`growth_eval.asymptotic_targets`).
"""
import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from rlm_lsp.python.cost_front import read  # noqa: E402


def bucket(k: float) -> int:
    return 0 if k < 0.5 else 1 if k < 1.5 else 2 if k < 2.5 else 3


def spearman(a, b) -> float:
    ra, rb = (np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(float) for x in (a, b))
    # average ties
    for r, x in ((ra, np.asarray(a)), (rb, np.asarray(b))):
        for v in np.unique(x):
            m = x == v
            r[m] = r[m].mean()
    return float(np.corrcoef(ra, rb)[0, 1])


def figures(y, p) -> dict:
    yb, pb = np.array([bucket(v) for v in y]), np.array([bucket(v) for v in p])
    rec = [float((pb[yb == b] == b).mean()) for b in range(4) if (yb == b).sum() >= 3]
    return {"accuracy": float((yb == pb).mean()), "balanced": float(np.mean(rec)), "rho": spearman(y, p),
            "linear_acc": float((yb == 1).mean()), "n": len(y)}


def boot(groups: list, fn, draws: int = 200) -> float:
    rnd = np.random.default_rng(0)
    vals = []
    for _ in range(draws):
        pick = [groups[i] for i in rnd.integers(0, len(groups), len(groups))]
        y = [a for g in pick for a, _ in g]
        p = [b for g in pick for _, b in g]
        vals.append(fn(y, p))
    return float(np.nanstd(vals))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--side", default="train")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--misses")
    ap.add_argument("--json")
    a = ap.parse_args()
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    T = asymptotic_targets()
    keys = sorted(k for k, t in T.items() if k in code and is_validation(str(t["problem_id"])) == (a.side == "validation")
                  and (t.get("latency") is not None))
    if a.limit:
        keys = keys[:: max(1, len(keys) // a.limit)]
    out, misses = {}, []
    for metric in ("latency", "memory"):
        by_problem: dict = {}
        for k in keys:
            y = T[k].get(metric)
            if y is None:
                continue
            s = read(code[k])
            g = s.growth(metric) if s is not None else 1.0
            by_problem.setdefault(T[k]["problem_id"], []).append((y, g))
            if a.misses and bucket(g) != bucket(y):
                misses.append(f"{metric} {y:5.2f} {g:5.2f} {s.text(metric) if s else '-':12s} {k}")
        groups = list(by_problem.values())
        y = [u for g in groups for u, _ in g]
        p = [v for g in groups for _, v in g]
        f = figures(y, p)
        f["rho_sd"] = boot(groups, lambda y, p: spearman(y, p))
        f["balanced_sd"] = boot(groups, lambda y, p: figures(y, p)["balanced"])
        f["accuracy_sd"] = boot(groups, lambda y, p: figures(y, p)["accuracy"])
        out[metric] = f
        print(metric, json.dumps({k: round(v, 3) for k, v in f.items()}))
    if a.misses:
        Path(a.misses).write_text("\n".join(misses) + "\n")
    if a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
