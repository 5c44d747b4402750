"""Session 42: the shipped memory growth of every real function of the spent sets (and growth-fresh-5),
beside the time8 table's row, for a memory-class corrector's development (leave one repository out).

    python experiments/time8/memory_table.py TABLE.jsonl OUT.jsonl [REBUILT_DIR]

Adds `shipped_memory` (`rlm predict --jsonl`'s memory growth, the row's function as the entry).
"""
import json
import subprocess
import sys
from pathlib import Path

RLM = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "rlm")


def main(table: str, out: str, rebuilt: str = "/work/rebuilt") -> None:
    code = {}
    for f in ("gd", "fresh1", "fresh2", "fresh3", "fresh4"):
        for r in map(json.loads, open(f"{rebuilt}/{f}.jsonl")):
            code[r["id"]] = (r["code"], r["function"])
    rows = [json.loads(x) for x in open(table)]
    lines = [json.dumps({"id": r["id"], "code": code[r["id"]][0], "language": "python", "entry": code[r["id"]][1]})
             for r in rows]
    done = subprocess.run([RLM, "predict", "--jsonl", "-"], input="\n".join(lines) + "\n", capture_output=True,
                          text=True, check=True)
    got = {p.get("id"): p for p in map(json.loads, filter(str.strip, done.stdout.splitlines()))}
    with open(out, "w") as fh:
        for r in rows:
            m = (got.get(r["id"]) or {}).get("memory") or {}
            fh.write(json.dumps({**r, "shipped_memory": m.get("growth")}) + "\n")


if __name__ == "__main__":
    main(*sys.argv[1:])
