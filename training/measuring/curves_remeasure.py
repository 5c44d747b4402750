"""Re-measure a random sample of the cost curves and compare (issue 47: values' rank correlation >= 0.95,
fitted time exponents within 0.15 for >= 90% of programs).

    python -m training.measuring.curves_remeasure [--programs 40] [--seed 0] [--out FILE]

Draws `--programs` programs with five or more `ok` sizes from the packed curves (seed fixed), measures
every one of their rungs again with the same protocol (``leetcode_ladders.measure``, time and memory),
and writes the summary and the pairs (numbers only) to `--out`. Run it on another day than the
measurement, on the same kind of machine: time is CPU time, so load moves it little, but a re-run in
the same hour shares the hour's conditions.
"""
from __future__ import annotations

import argparse
import json
import platform
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

from training.measuring.curve_fit import FLOORS, fit
from training.measuring.curves_card import DATA, read_gz


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.curves_remeasure", description=__doc__.split("\n")[0])
    ap.add_argument("--programs", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--out", type=Path, default=None,
                    help="default training/data/remeasure_curves.json for seed 0, remeasure_curves_K.json for seed K "
                         "(the card shows every one)")
    a = ap.parse_args(argv)
    a.out = a.out or a.data / ("remeasure_curves.json" if a.seed == 0 else f"remeasure_curves_{a.seed}.json")
    from scipy.stats import spearmanr

    from training.measuring import leetcode_ladders as lad
    from training.measuring.harness import machine_info
    rows = [r for r in read_gz(a.data / "leetcode_curves.jsonl.gz") if r["status"] == "ok"]
    by: dict = {}
    for r in rows:
        by.setdefault(r["key"], []).append(r)
    keys = sorted(k for k, rs in by.items() if len({r["input_size"] for r in rs}) >= 5)
    pick = random.Random(a.seed).sample(keys, min(a.programs, len(keys)))
    info = machine_info()
    opts = {"time_limit": 5.0, "memory_mb": 2048, "repeats": 3, "memory_only": False,
            "python": platform.python_version(), "machine": {k: info[k] for k in ("cpu_model", "cpu_count", "platform")},
            "ref_cache": None}
    pairs, exps = [], []
    for key in pick:
        again = []
        for r in sorted(by[key], key=lambda r: r["input_size"]):
            task = {"shape": "function", "fn": {"pid": r["problem_id"], "key": key, "label": r["rung"], "seed": 0,
                                                "plan": "curve"}, "row": {k: r[k] for k in ("key", "problem_id", "rung")}}
            n = lad.measure(task, opts)
            if n["status"] == "ok":
                pairs.append({"key": key, "rung": r["rung"], "latency_ms": [r["latency_ms"], n["latency_ms"]],
                              "memory_bytes": [r["memory_bytes"], n["memory_bytes"]]})
                again.append((r["input_size"], r["latency_ms"], n["latency_ms"]))
        if len(again) >= 3:
            f1 = fit([s for s, _, _ in again], [x for _, x, _ in again], FLOORS["latency_ms"]).exponent
            f2 = fit([s for s, _, _ in again], [y for _, _, y in again], FLOORS["latency_ms"]).exponent
            exps.append({"key": key, "time_exponent": [f1, f2]})
    lat = [p["latency_ms"] for p in pairs]
    mem = [p["memory_bytes"] for p in pairs]
    close = [abs(e["time_exponent"][0] - e["time_exponent"][1]) <= 0.15 for e in exps]
    summary = {"when": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "programs": len(pick),
               "rows_again_ok": len(pairs), "latency_spearman": round(float(spearmanr(*zip(*lat))[0]), 4),
               "memory_spearman": round(float(spearmanr(*zip(*mem))[0]), 4),
               "memory_identical": round(sum(a == b for a, b in mem) / max(1, len(mem)), 4),
               "time_exponent_within_0.15": round(sum(close) / max(1, len(close)), 4),
               "programs_fitted": len(exps), "machine": opts["machine"]}
    print(json.dumps(summary, indent=1))
    a.out.write_text(json.dumps({"summary": summary, "pairs": pairs, "exponents": exps}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
