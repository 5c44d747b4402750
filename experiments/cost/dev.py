"""The cost analyzer on growth-dev: predictions for `tools/score.py --predictions`, on one half.

    python experiments/cost/dev.py OUT.jsonl [--half dev|check|all] [--rows /work/gd/out.jsonl]

The halves split the 336 functions by a hash of their id: `dev` is what the analyzer was developed
on; `check` is looked at only to judge a candidate (journal: experiments/log/14-*.md).
"""
import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from rlm_lsp.python.cost_front import read  # noqa: E402


def half(row_id: str) -> str:
    return "dev" if int(hashlib.sha1(row_id.encode()).hexdigest(), 16) % 2 == 0 else "check"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--half", default="dev")
    ap.add_argument("--rows", default="/work/gd/out.jsonl")
    a = ap.parse_args()
    rows = [json.loads(x) for x in open(a.rows)]
    rows = [r for r in rows if a.half == "all" or half(r["id"]) == a.half]
    with open(a.out, "w") as f, open(a.out + ".rows", "w") as g:
        for r in rows:
            t = time.perf_counter()
            s = read(r["code"], r["function"])
            ms = (time.perf_counter() - t) * 1e3
            p = {"id": r["id"], "ms": ms}
            if s is not None:
                p.update({"latency": {"growth": s.growth("latency"), "cost": s.text("latency")},
                          "memory": {"growth": s.growth("memory"), "cost": s.text("memory")},
                          "unknown": list(s.unknown)})
            f.write(json.dumps(p) + "\n")
            g.write(json.dumps({k: r[k] for k in ("id", "function", "n_meaning", "time_exponent", "memory_exponent")}) + "\n")


if __name__ == "__main__":
    main()
