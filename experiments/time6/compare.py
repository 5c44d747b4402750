"""Per repository: time growth's 4-bucket accuracy / balanced / rho of loop depth, the analyzer, and
simple mixes (session 40's development figures; spent sets only).

    python experiments/time6/compare.py TABLE.jsonl
"""
import json
import sys
from collections import defaultdict

sys.path.insert(0, "/work/shared/growth-dev/tools")
import score  # noqa: E402


def fig(rs, key):
    f = score.figures([r["time"] for r in rs], [key(r) for r in rs])
    return f"{f['accuracy']:.2f}/{f['balanced']:.2f}/{f['rho']:.3f}"


def main(path):
    R = [json.loads(x) for x in open(path)]
    by = defaultdict(list)
    for r in R:
        by[r["repo"]].append(r)
    a = lambda r: r["analyzer"] if r["analyzer"] is not None else 1.0  # noqa: E731
    ways = {"LD": lambda r: r["loop_depth"], "AN": a, "MEAN": lambda r: (a(r) + r["loop_depth"]) / 2}
    for repo, rs in [*by.items(), ("ALL", R), ("not keon", [r for r in R if r["set"] != "growth-dev"])]:
        print(f"{repo[:26]:26s} {len(rs):4d} " + "  ".join(f"{k} {fig(rs, f)}" for k, f in ways.items()))


if __name__ == "__main__":
    main(sys.argv[1])
