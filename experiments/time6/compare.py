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
    ways = {"LD": lambda r: r["loop_depth"], "AN": a, "MEAN": lambda r: (a(r) + r["nest"]) / 2,
            "MEAN|nest>0": lambda r: (a(r) + r["nest"]) / 2 if r["nest"] else a(r),
            "CLIP": lambda r: min(max(a(r), r["nest"] - 1), r["nest"] + 1),
            "CLIP2": lambda r: min(max(a(r), r["nest"] - 1), r["nest"] + 1.5),
            "CLIP1": lambda r: min(max(a(r), r["nest"] - 0.75), r["nest"] + 1.25),
            "SURE": lambda r: a(r) if r["sure"] else (a(r) + r["nest"]) / 2,
            "SURE1": lambda r: a(r) if r["sure"] and abs(a(r) - r["nest"]) <= 1.25 else (a(r) + r["nest"]) / 2,
            "PULL": lambda r: a(r) + 0.5 * (min(max(r["nest"], a(r) - 1), a(r) + 1) - a(r))}
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else list(ways)
    ways = {k: v for k, v in ways.items() if k in only}
    for repo, rs in [*by.items(), ("ALL", R), ("not keon", [r for r in R if r["set"] != "growth-dev"])]:
        print(f"{repo[:26]:26s} {len(rs):4d} " + "  ".join(f"{k} {fig(rs, f)}" for k, f in ways.items()))


if __name__ == "__main__":
    main(sys.argv[1])
