"""Session 42: the real-code table for time-v8: growth-dev and growth-fresh 1-4 (all spent for the
analyzer family), code rebuilt with `fetch` (`experiments/fresh/rows.py build`) into REBUILT.

    python experiments/time8/table.py OUT.jsonl [REBUILT_DIR] [--with-fresh5]  # rows as experiments/time6/table.py's
    python experiments/time7/table.py --slim OUT.jsonl training/data/real_functions_time.jsonl.gz
"""
import importlib.util
import sys

_spec = importlib.util.spec_from_file_location("time6_table", "/work/main/experiments/time6/table.py")
time6 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(time6)

if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    rebuilt = args[1] if len(args) > 1 else "/work/rebuilt"
    time6.SETS[:] = [("growth-dev", f"{rebuilt}/gd.jsonl", None)] + [
        (f"fresh{k}" if k > 1 else "fresh", f"{rebuilt}/fresh{k}.jsonl",
         f"/work/main/experiments/fresh/measured{k if k > 1 else ''}.jsonl") for k in range(1, 5)]
    if "--with-fresh5" in sys.argv:  # growth-fresh-5's rows (spent by time-v8 and mem-v4)
        time6.SETS.append(("fresh5", "/work/fresh5/rows_all.jsonl", "/work/main/experiments/fresh/measured5.jsonl"))
    time6.main(args[0])
