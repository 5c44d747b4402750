"""Time growth read by the loop nests (rule S's reader, `rlm_lsp.python.loop_nests`), on the
development sets only: growth-dev's dev half and the LeetCode training problems (session 39).

    python experiments/cost/nests_dev.py [--leetcode-limit 1500]
"""
import argparse
import ast
import json
import sys
import textwrap
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, "/work/shared/growth-dev/tools")
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import bucket, spearman  # noqa: E402
from experiments.cost.sure_dev import depth, rows_leetcode  # noqa: E402
from rlm_lsp.python import loop_nests  # noqa: E402
from rlm_lsp.python.cost_front import entry_of  # noqa: E402


def entry_text(code, entry):
    try:
        node = entry_of(ast.parse(code), entry)
    except SyntaxError:
        return code
    if node is None:
        return code
    return textwrap.dedent(ast.get_source_segment(code, node, padded=True) or code)


def nest_growth(code, entry):
    r = loop_nests.read(entry_text(code, entry))
    return float(r.time.depth)


def report(name, rows):
    y, g, d = [], [], []
    for t, code, entry in rows:
        y.append(t)
        g.append(nest_growth(code, entry))
        d.append(depth(code, entry))
    acc = lambda p: float(np.mean([bucket(a) == bucket(b) for a, b in zip(y, p)]))  # noqa: E731

    def bal(p):
        yb, pb = np.array([bucket(v) for v in y]), np.array([bucket(v) for v in p])
        return float(np.mean([(pb[yb == b] == b).mean() for b in range(4) if (yb == b).sum() >= 3]))
    print(f"{name}: {len(y)} rows  nests acc {acc(g):.1%} bal {bal(g):.1%} rho {spearman(y, g):.3f}"
          f" | loop depth acc {acc(d):.1%} bal {bal(d):.1%} rho {spearman(y, d):.3f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--leetcode-limit", type=int, default=1500)
    a = ap.parse_args()
    gd = [(r["time_exponent"], r["code"], r["function"]) for r in map(json.loads, open("/work/gd/out.jsonl"))
          if half(r["id"]) == "dev"]
    report("growth-dev dev half", gd)
    report("LeetCode training problems", list(rows_leetcode(a.leetcode_limit)))


if __name__ == "__main__":
    main()
