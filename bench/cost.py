"""The cost analyzer's speed: how long reading one function takes, and the memory growth it ships.

    python bench/cost.py [--rows OUT.jsonl] [--programs 400] [--no-write]

Over real functions (growth-dev's rebuilt rows, `--rows`, each with its entry) and LeetCode programs
(`training.measuring.build_dataset`, the first `--programs`), the calling thread's CPU time, the
minimum of 3 repeats per function:

- *the analyzer*: `cost_front.read` (parse, the loop-and-call form, the summary); issue 60's budget is
  5 ms per function at p95;
- *the shipped growth*: what the default adds to a prediction for memory's growth (the analyzer, the
  counts and loop nests of the canonical code, the trees), `CostGrowth.exponent` uncached.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import report  # noqa: E402
from rlm_lsp.python.cost_front import read  # noqa: E402


def cpu_ms(fn, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.thread_time()
        fn()
        best = min(best, time.thread_time() - t)
    return best * 1e3


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=Path, default=Path("/work/gd/out.jsonl"))
    ap.add_argument("--programs", type=int, default=400)
    report.add_write_flag(ap)
    a = ap.parse_args(argv)
    from rlm_lsp.runtime.predictor import Predictor
    growth = Predictor.from_dir(ROOT / "rlm_lsp" / "models" / "default", threads=1).growth
    sets = {}
    if a.rows.is_file():
        sets["growth-dev (real functions)"] = [(r["code"], r["function"]) for r in map(json.loads, open(a.rows))]
    from training.measuring import build_dataset as bd
    programs = [p.code for P in bd.problems().values() for p in P.programs][: a.programs]
    sets["LeetCode programs"] = [(c, None) for c in programs]
    lines = ["| functions | n | analyzer p50 | analyzer p95 | analyzer max | shipped growth p50 | shipped growth p95 |",
             "|---|---|---|---|---|---|---|"]
    for name, items in sets.items():
        an = [cpu_ms(lambda c=c, e=e: read(c, e)) for c, e in items]

        def whole(c, e):
            s = read(c, e)
            if s is not None:
                growth.exponent(s, "memory", c)
        sh = [cpu_ms(lambda c=c, e=e: whole(c, e)) for c, e in items]
        p = lambda xs, q: float(np.percentile(xs, q))  # noqa: E731
        lines.append(f"| {name} | {len(items)} | {p(an, 50):.2f} ms | {p(an, 95):.2f} ms | {max(an):.1f} ms | "
                     f"{p(sh, 50):.2f} ms | {p(sh, 95):.2f} ms |")
    md = (f"Machine: {report.machine()}. `python bench/cost.py`; CPU time of the calling thread, the minimum of "
          "3 repeats per function. Budget (issue 60): the analyzer at most 5 ms per function at p95.\n\n"
          + "\n".join(lines) + "\n")
    report.publish("The cost analyzer (`bench/cost.py`)", md, not a.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
