"""value-v1's table (session 43): how far the shipped value sits from real functions' measured values,
per function, with what the runtime knows of it at the reference n.

    python experiments/value1/table.py OUT.jsonl ROWS.jsonl[:SET] ...   # rows with code; measured fields inline
                                                                        # or from --measured MEASURED.jsonl

Each row: its code predicted once through the shipped path (`rlm predict --jsonl`, entry = its function,
at the reference n), the analyzer's features of its entry (`Summary.features`), and per metric the shift
target: the mean over its measured sizes of log10(measured) - log10(the shipped value moved to that n
along the shipped growth), as `rlm predict --n` gives it. No code is written to OUT.
"""
from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from rlm_lsp.python.cost_front import read  # noqa: E402

RLM = str(ROOT / ".venv" / "bin" / "rlm")
FIELDS = {"latency": "time_ms", "memory": "memory_bytes"}
FLOOR = {"latency": 1e-4, "memory": 64.0}  # ms, bytes: a measured 0 is read as this


def predict(rows: list[dict], model: str | None = None) -> dict:
    lines = [json.dumps({"id": r["id"], "code": r["code"], "language": "python", "entry": r["function"]}) for r in rows]
    out = subprocess.run([RLM, "predict", "--jsonl", "-"] + (["--model", model] if model else []),
                         input="\n".join(lines) + "\n", capture_output=True, text=True, check=True)
    return {p.get("id"): p for p in map(json.loads, filter(str.strip, out.stdout.splitlines()))}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("rows", nargs="+", help="ROWS.jsonl:SETNAME")
    ap.add_argument("--measured", action="append", default=[], help="MEASURED.jsonl:SETNAME (by id)")
    ap.add_argument("--model", help="a model directory WITHOUT value_trees (the factor is fitted on the network's "
                                    "own values); default: the shipped one, refused if it has them")
    a = ap.parse_args()
    config = json.loads((Path(a.model or ROOT / "rlm_lsp" / "models" / "default") / "rlm_config.json").read_text())
    if "value_trees" in config.get("growth_analyzer", {}):
        print("table.py: the model already applies value_trees; give --model a copy without them", file=sys.stderr)
        return 2
    measured = {}
    for spec in a.measured:
        path, _, name = spec.partition(":")
        for m in map(json.loads, filter(str.strip, open(path))):
            measured[(name, m["id"])] = m
    with open(a.out, "w") as fh:
        for spec in a.rows:
            path, _, name = spec.partition(":")
            rows = [json.loads(x) for x in open(path) if x.strip()]
            rows = [r | measured.get((name, r["id"]), {}) for r in rows]
            rows = [r for r in rows if r.get("sizes") and r.get("time_ms") and r.get("code")]
            got = predict(rows, a.model)
            kept = 0
            for r in rows:
                p = got.get(r["id"]) or {}
                s = read(r["code"], r["function"])
                if s is None or any((p.get(m) or {}).get("value") is None for m in FIELDS):
                    continue
                out = {"id": r["id"], "set": name, "features": [float(v) for v in s.features()] + [float(s.nest), float(s.sure)]}
                for m, field in FIELDS.items():
                    q = p[m]
                    v, g, n0 = float(q["value"]), float(q.get("growth") or 0.0), float(q.get("n") or 1e4)
                    ys = r.get(field) or []
                    resid = [math.log10(max(float(y), FLOOR[m])) - math.log10(v * (n / n0) ** g)
                             for n, y in zip(r["sizes"], ys) if y is not None]
                    out[m] = {"value": v, "growth": g, "n": n0, "shift": sum(resid) / len(resid) if resid else None,
                              "sizes": r["sizes"], "measured": ys}
                fh.write(json.dumps(out) + "\n")
                kept += 1
            print(f"{name}: {kept} of {len(rows)} rows", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
