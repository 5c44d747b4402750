"""Session 40: the real-code table for time growth's next candidate (time-v6).

    python experiments/time6/table.py OUT.jsonl

One row per kept function of growth-dev (all 336, spent), growth-fresh and growth-fresh-2 (both spent
for the analyzer family): its repository, measured time and memory exponents, the cost analyzer's
time reading (exponent, sure, features), the code's counts, and the loop-depth baseline. The code
itself stays in /work (never committed); OUT holds no code either.
"""
import json
import sys

sys.path.insert(0, "/work/shared/growth-dev/tools")
sys.path.insert(0, "/work/main/experiments/fresh")
import score  # noqa: E402
from judge import kept  # noqa: E402

from rlm_lsp.runtime import readers  # noqa: E402

SETS = [("growth-dev", "/work/gd/out.jsonl", None),
        ("fresh", "/work/fresh/rows_all.jsonl", "/work/main/experiments/fresh/measured.jsonl"),
        ("fresh2", "/work/fresh2/rows_all.jsonl", "/work/main/experiments/fresh/measured2.jsonl")]


def rows():
    for name, path, measured in SETS:
        meas = {m["id"]: m for m in map(json.loads, open(measured))} if measured else None
        for r in map(json.loads, filter(str.strip, open(path))):
            if meas is not None:
                if r["id"] not in meas or not kept(meas[r["id"]])[0]:
                    continue
                r = {**r, **meas[r["id"]]}
            yield name, r


def main(out: str) -> None:
    rd = readers.reader()
    with open(out, "w") as fh:
        for name, r in rows():
            s = rd.cost(r["code"], r["function"])
            counts = list(rd.growth_features(r["code"], "canon_v1", ""))
            row = {"nest": None if s is None else s.nest, "set": name, "repo": r["repo"], "id": r["id"], "time": r["time_exponent"],
                   "memory": r["memory_exponent"], "loop_depth": score.loop_depth(r["code"], r["function"]),
                   "analyzer": None if s is None else s.growth("latency"),
                   "analyzer_memory": None if s is None else s.growth("memory"),
                   "sure": None if s is None else bool(s.sure),
                   "features": None if s is None else list(s.features()), "counts": counts}
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
