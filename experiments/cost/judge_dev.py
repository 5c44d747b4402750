"""growth-dev figures with their noise, through the shipped path (`rlm predict --jsonl`, rows as
`tools/score.py` sends them: at the middle of each row's sizes, with its entry), beside the two
baselines, on one half of the set.

    python experiments/cost/judge_dev.py --half check [--rlm .venv/bin/rlm] [--json FILE]
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, "/work/shared/growth-dev/tools")
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import figures, spearman  # noqa: E402


def loop_depth(code, function):
    import score  # growth-dev's tools/score.py
    return score.loop_depth(code, function)


def _growth(p, metric):
    """The row's predicted growth; 1.0 (linear) only where it has none (0.0 is a prediction: flat)."""
    g = ((p or {}).get(metric) or {}).get("growth")
    return 1.0 if g is None else g


def boot(y, p, fn, draws=200):
    rnd = np.random.default_rng(0)
    y, p = np.asarray(y), np.asarray(p)
    out = []
    for _ in range(draws):
        i = rnd.integers(0, len(y), len(y))
        out.append(fn(y[i], p[i]))
    return float(np.nanstd(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", default="check")
    ap.add_argument("--rlm", default=".venv/bin/rlm")
    ap.add_argument("--rows", default="/work/gd/out.jsonl")
    ap.add_argument("--json")
    a = ap.parse_args()
    rows = [json.loads(x) for x in open(a.rows)]
    rows = [r for r in rows if a.half == "all" or half(r["id"]) == a.half]
    lines = [json.dumps({"id": r["id"], "code": r["code"], "language": "python",
                         "n": r["sizes"][len(r["sizes"]) // 2], "entry": r["function"]}) for r in rows]
    got = subprocess.run([a.rlm, "predict", "--jsonl", "-"], input="\n".join(lines) + "\n",
                         capture_output=True, text=True, check=True).stdout
    preds = {p["id"]: p for p in map(json.loads, got.splitlines())}
    report = {"half": a.half, "rows": len(rows)}
    for metric, field in (("latency", "time_exponent"), ("memory", "memory_exponent")):
        y = [r[field] for r in rows]
        cands = {"analyzer": [_growth(preds.get(r["id"]), metric) for r in rows],
                 "always_linear": [1.0] * len(rows),
                 "loop_depth": [loop_depth(r["code"], r["function"]) for r in rows]}
        for name, p in cands.items():
            f = figures(y, p)
            f["accuracy_sd"] = boot(y, p, lambda a_, b_: figures(a_, b_)["accuracy"])
            f["balanced_sd"] = boot(y, p, lambda a_, b_: figures(a_, b_)["balanced"])
            f["rho_sd"] = boot(y, p, lambda a_, b_: spearman(a_, b_)) if name != "always_linear" else 0.0
            if name == "always_linear":
                f["rho"] = float("nan")
            report[f"{metric}/{name}"] = {k: round(v, 4) for k, v in f.items()}
            print(metric, name, json.dumps(report[f"{metric}/{name}"]))
    missing = sum(1 for r in rows if "latency" not in preds.get(r["id"], {}) or
                  preds[r["id"]]["latency"].get("growth") is None)
    report["without_growth"] = missing
    print("rows without a growth:", missing)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
