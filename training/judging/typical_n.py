"""What "a typical large input" is, in n: the sizes of the inputs a model's training rows ran on.

    python -m training.judging.typical_n MODEL_DIR [--write]

A model that predicts no growth says its numbers are "per call, for a typical large input". Its
LeetCode rows (the `large` tier of `leetcode_v1.jsonl.gz`) ran each program on its problem's large
input, and that input is the cost curves' rung `1` (`leetcode_curves.jsonl.gz`; the same input, sha1
for sha1), whose `input_size` is its n: elements, characters, cells or the integer, as the ladders
count it. This reads those sizes and prints their median, p10 and p90; `--write` records them in the
model's rlm_config.json as `typical_n`, and every surface then says that n beside "a typical large
input" (`rlm_lsp.runtime.sizes.per_call`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from training.judging.usual_spread import record_in_config
from training.measuring.curves_card import DATA, read_gz


def typical_n(large_rows, curve_rows) -> dict:
    """{median, p10, p90, rows, same_input} of the rung-1 sizes of the programs of `large_rows` (ok
    rows of the large tier), where the curves' rung-1 row is the same input (`input_sha1`)."""
    large = {r["key"]: r.get("input_sha1") for r in large_rows if r.get("tier") == "large" and r.get("status") == "ok"}
    sizes, other = [], 0
    for r in curve_rows:
        if r.get("rung") == "1" and r.get("status") == "ok" and r.get("key") in large and r.get("input_size"):
            if r.get("input_sha1") == large[r["key"]]:
                sizes.append(float(r["input_size"]))
            else:
                other += 1
    if not sizes:
        raise SystemExit("typical_n: no large-tier program has its input among the curves' rung-1 rows")
    p10, median, p90 = (float(np.percentile(sizes, q, method="nearest")) for q in (10, 50, 90))
    return {"median": median, "p10": p10, "p90": p90, "rows": len(sizes), "other_input": other,
            "rows_from": "LeetCode large-tier programs; their input is the cost curves' rung 1 (input_size)"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.judging.typical_n", description=__doc__.splitlines()[0])
    ap.add_argument("model_dir")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--write", action="store_true", help="record it in the model's rlm_config.json")
    a = ap.parse_args(argv)
    record = typical_n(read_gz(a.data / "leetcode_v1.jsonl.gz"), read_gz(a.data / "leetcode_curves.jsonl.gz"))
    print(json.dumps(record, indent=2))
    if a.write:
        record_in_config(a.model_dir, "typical_n", record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
