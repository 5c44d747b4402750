"""Re-measure a random sample of the dataset and compare with the first run.

    nice -n 5 python -m training.measuring.remeasure [--n 200] [--tier large] [--seed 0] [--workers 2]

Samples ``n`` rows with status ``ok`` (one per program, seeded), re-measures
each program on the same inputs (the large-tier inputs are regenerated from
their recipe and checked against the recorded hash) with the same protocol,
and reports: share of memory values reproduced exactly and within 1%,
Spearman correlation of latency (and of memory), and the status of the
second run.  Writes training/data/remeasure_<tier>.json.
"""
from __future__ import annotations

import argparse
import json
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

from training.measuring import build_dataset as bd
from training.measuring.dataset_stats import load
from training.measuring.harness import measure


def spearman(a, b) -> float:
    from scipy.stats import spearmanr

    if len(set(a)) < 2 or len(set(b)) < 2:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def _one(row):
    pr = bd.problems()[row["problem_id"]]
    prog = next(p for p in pr.programs if p.key == row["key"])
    if row["tier"] == "large":
        large = bd.gen_large(pr)
        if "tests" not in large or large.get("input_sha1") != row.get("input_sha1"):
            return {"key": row["key"], "status": "inputs-changed"}
        m = measure(prog.code, large["tests"], entry=pr.entry, expected_digests=large["digests"],
                    sys_path=bd.sys_path())
    else:
        m = measure(prog.code, pr.tests, entry=pr.entry, sys_path=bd.sys_path())
    return {"key": row["key"], "tier": row["tier"], "status": m["status"],
            "memory_1": row["memory_bytes"], "memory_2": m["memory_bytes"],
            "latency_1": row["latency_ms"], "latency_2": m["latency_ms"],
            "cpu_1": row["cpu_ms"], "cpu_2": m["cpu_ms"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--tier", default="large")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=None, help="default: training/data/remeasure_<tier>.json")
    a = ap.parse_args(argv)
    rows = [r for r in load() if r["status"] == "ok" and r["tier"] == a.tier]
    rows.sort(key=lambda r: r["key"])
    sample = random.Random(a.seed).sample(rows, min(a.n, len(rows)))
    bd.problems()
    if a.workers > 1:
        import multiprocessing as mp
        with mp.get_context("fork").Pool(a.workers) as pool:
            res = list(pool.imap_unordered(_one, sample))
    else:
        res = [_one(r) for r in sample]
    both = [r for r in res if r["status"] == "ok" and r.get("memory_2") is not None]
    exact = sum(r["memory_1"] == r["memory_2"] for r in both)
    within = sum(abs(r["memory_1"] - r["memory_2"]) <= 0.01 * max(r["memory_1"], 1) for r in both)
    summary = {
        "tier": a.tier, "sampled": len(sample), "population": len(rows), "seed": a.seed,
        "remeasured_ok": len(both),
        "second_run_status": {s: sum(r["status"] == s for r in res) for s in sorted({r["status"] for r in res})},
        "memory_exact_share": round(exact / len(both), 4) if both else None,
        "memory_within_1pct_share": round(within / len(both), 4) if both else None,
        "memory_spearman": round(spearman([r["memory_1"] for r in both], [r["memory_2"] for r in both]), 4)
        if len(both) > 2 else None,
        "latency_spearman": round(spearman([r["latency_1"] for r in both], [r["latency_2"] for r in both]), 4)
        if len(both) > 2 else None,
        "cpu_spearman": round(spearman([r["cpu_1"] for r in both], [r["cpu_2"] for r in both]), 4)
        if len(both) > 2 else None,
        "latency_median_abs_rel_diff": None,
        "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    rel = sorted(abs(r["latency_2"] - r["latency_1"]) / max(r["latency_1"], 1e-6) for r in both)
    if rel:
        summary["latency_median_abs_rel_diff"] = round(rel[len(rel) // 2], 4)
    out = {"summary": summary, "rows": sorted(res, key=lambda r: r["key"])}
    bd.DATA.mkdir(parents=True, exist_ok=True)
    path = Path(a.out) if a.out else bd.DATA / f"remeasure_{a.tier}.json"
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
