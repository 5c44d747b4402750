"""Session 41: time6's real-code table plus growth-fresh-3 (spent for the analyzer family in session 40).

    python experiments/time7/table.py OUT.jsonl
"""
import importlib.util
import sys

_spec = importlib.util.spec_from_file_location("time6_table", "/work/main/experiments/time6/table.py")
time6 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(time6)
time6.SETS.append(("fresh3", "/work/fresh3/rows_all.jsonl", "/work/main/experiments/fresh/measured3.jsonl"))
rows = time6.rows

if __name__ == "__main__":
    time6.main(sys.argv[1])
