"""Where is the analyzer's *time* reading sure enough to stand alone? Development sets only:
growth-dev's dev half and the LeetCode training problems (session 39; rule in experiments/log/15-*.md).

    python experiments/cost/sure_dev.py [--leetcode-limit 1500]

For each definition of "sure", on the rows it covers: coverage, 4-bucket accuracy and rho of the
analyzer, of always linear and of the loop depth on the same rows.
"""
import argparse
import ast
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, "/work/shared/growth-dev/tools")
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import bucket, spearman  # noqa: E402
from rlm_lsp.python.cost_front import entry_of, read  # noqa: E402

DEFINITIONS = {
    "all": lambda s: True,
    "no unknown": lambda s: not s.unknown,
    "no unknown, no recursion": lambda s: not s.unknown and not s.recursion,
    "no unknown, polynomial": lambda s: not s.unknown and not s.features()[6],
}


def depth(code, entry):
    import score
    try:
        e = entry_of(ast.parse(code), entry)
        return score.loop_depth(code, e.name) if e is not None else 1.0
    except Exception:  # noqa: BLE001
        return 1.0


def rows_growth_dev():
    for r in map(json.loads, open("/work/gd/out.jsonl")):
        if half(r["id"]) == "dev":
            yield r["time_exponent"], r["code"], r["function"]


def rows_leetcode(limit):
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    T = asymptotic_targets()
    keys = sorted(k for k, t in T.items() if k in code and not is_validation(str(t["problem_id"]))
                  and t.get("latency") is not None)
    for k in keys[:: max(1, len(keys) // limit)]:
        yield T[k]["latency"], code[k], None


def report(name, rows):
    table = []
    for y, code, entry in rows:
        s = read(code, entry)
        table.append((y, s, s.growth("latency") if s is not None else None, depth(code, entry)))
    print(f"\n{name}: {len(table)} rows")
    for dname, sure in DEFINITIONS.items():
        cov = [(y, g, d) for y, s, g, d in table if s is not None and sure(s)]
        if len(cov) < 5:
            continue
        y, g, d = (np.array(v) for v in zip(*cov))
        acc = lambda p, y=y: float(np.mean([bucket(a) == bucket(b) for a, b in zip(y, p)]))  # noqa: E731
        print(f"  {dname:28s} cover {len(cov) / len(table):5.1%}  analyzer acc {acc(g):.1%} rho {spearman(y, g):.3f}"
              f" | linear acc {acc(np.ones_like(y)):.1%} | loop depth acc {acc(d):.1%} rho {spearman(y, d):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--leetcode-limit", type=int, default=1500)
    a = ap.parse_args()
    report("growth-dev dev half", list(rows_growth_dev()))
    report("LeetCode training problems", list(rows_leetcode(a.leetcode_limit)))


if __name__ == "__main__":
    main()
