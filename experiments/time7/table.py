"""Session 41: time6's real-code table plus growth-fresh-3 (spent for the analyzer family in session 40).

    python experiments/time7/table.py OUT.jsonl
    python experiments/time7/table.py --slim TABLE.jsonl training/data/real_functions_time.jsonl.gz
                                     # what training.learning.time_classes reads: no counts, no code
"""
import gzip
import importlib.util
import json
import sys

_spec = importlib.util.spec_from_file_location("time6_table", "/work/main/experiments/time6/table.py")
time6 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(time6)
time6.SETS.append(("fresh3", "/work/fresh3/rows_all.jsonl", "/work/main/experiments/fresh/measured3.jsonl"))
rows = time6.rows

KEEP = ("id", "set", "repo", "time", "memory", "features", "nest", "sure")


def slim(table: str, out: str) -> None:
    with gzip.open(out, "wt", encoding="utf-8") as fh:
        for r in map(json.loads, open(table)):
            fh.write(json.dumps({k: r[k] for k in KEEP}) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "--slim":
        slim(sys.argv[2], sys.argv[3])
    else:
        time6.main(sys.argv[1])
