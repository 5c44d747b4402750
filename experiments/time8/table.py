"""Session 42: the real-code table for time-v8: growth-dev and growth-fresh 1-4 (all spent for the
analyzer family), code rebuilt with `fetch` (`experiments/fresh/rows.py build`) into REBUILT.

    python experiments/time8/table.py OUT.jsonl [REBUILT_DIR]       # rows as experiments/time6/table.py's
    python experiments/time7/table.py --slim OUT.jsonl training/data/real_functions_time.jsonl.gz
"""
import importlib.util
import sys

_spec = importlib.util.spec_from_file_location("time6_table", "/work/main/experiments/time6/table.py")
time6 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(time6)

if __name__ == "__main__":
    rebuilt = sys.argv[2] if len(sys.argv) > 2 else "/work/rebuilt"
    time6.SETS[:] = [("growth-dev", f"{rebuilt}/gd.jsonl", None)] + [
        (f"fresh{k}" if k > 1 else "fresh", f"{rebuilt}/fresh{k}.jsonl",
         f"/work/main/experiments/fresh/measured{k if k > 1 else ''}.jsonl") for k in range(1, 5)]
    time6.main(sys.argv[1])
