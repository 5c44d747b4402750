"""`rlm measure` on growth-dev (issue 62's first figure): for how many real functions it builds
inputs without a hint, and how often its measured class equals the set's.

    python experiments/measure/growth_dev.py OUT.jsonl [--rows /work/gd/out.jsonl] [--every 4] [--start 0] [--budget 5]

Each sampled row's code goes to a temporary file and `rlm measure FILE::FUNCTION --json` runs on
it (the shipped CLI, in its sandbox). Resumable: rows already in OUT are skipped. `--summary` prints
the figures of OUT. The set's classes are words (linear, nlogn, ...); rlm measure's are the
project's labels (n, n log n, ...): mapped one to one. Each row keeps the measured curve (sizes, time_s,
memory_bytes), so a change of the fit can be judged on OUT without measuring again (`--refit`: the
figures with the curves refitted by the current `rlm_lsp.measure.run`). `--start K` samples every
`--every`-th row from row K (a second sample beside the first).
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

RLM = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "rlm")
WORDS = {"constant": "1", "log": "log n", "linear": "n", "nlogn": "n log n", "quadratic": "n²", "cubic": "n³",
         "exponential": "2ⁿ"}


def bucket(k):
    return None if k is None else 0 if k < 0.5 else 1 if k < 1.5 else 2 if k < 2.5 else 3


def measure(rows, out, budget):
    done = {json.loads(x)["id"] for x in open(out)} if Path(out).exists() else set()
    with open(out, "a") as fh:
        for r in rows:
            if r["id"] in done:
                continue
            with tempfile.TemporaryDirectory() as d:
                path = Path(d) / "fn.py"
                path.write_text(r["code"])
                p = subprocess.run([RLM, "measure", f"{path}::{r['function']}", "--json", "--budget", str(budget)],
                                   capture_output=True, text=True, timeout=budget * 6 + 60)
            try:
                got = json.loads(p.stdout)
                got = got[0] if isinstance(got, list) else got
            except (json.JSONDecodeError, IndexError):
                got = {"status": "error", "reason": (p.stderr.strip().splitlines() or [f"rc={p.returncode}"])[-1]}
            row = {"id": r["id"], "status": got.get("status"), "reason": got.get("reason"), "inputs": got.get("inputs"),
                   "set": {"time": [r["time_class"], r["time_exponent"]], "memory": [r["memory_class"], r["memory_exponent"]]},
                   "measured": {m: [(got.get(m) or {}).get("class"), (got.get(m) or {}).get("exponent")]
                                for m in ("time", "memory")},
                   "sizes": got.get("sizes"), "time_s": got.get("time_s"), "memory_bytes": got.get("memory_bytes"),
                   "stopped": got.get("stopped"), "wall_s": got.get("wall_s")}
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(r["id"], row["status"], row["measured"], row["set"], flush=True)


def refit(rows):
    """The rows with their curves' classes fitted again by the current code (rows without a curve kept)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from rlm_lsp.measure.run import FLOORS, _growth

    for r in rows:
        if r["status"] == "measured" and r.get("sizes"):
            for m, key in (("time", "time_s"), ("memory", "memory_bytes")):
                g = _growth(r["sizes"], [float(c) for c in r[key]], FLOORS[m])
                r["measured"][m] = [g.growth_class, g.exponent]
    return rows


def summary(out, again=False):
    rows = [json.loads(x) for x in open(out)]
    rows = refit(rows) if again else rows
    built = [r for r in rows if r["status"] == "measured" or (r["reason"] or "").find("n=") >= 0]
    measured = [r for r in rows if r["status"] == "measured"]
    print(f"{len(rows)} functions; inputs built without a hint for {len(built)} ({len(built) / len(rows):.0%}); "
          f"measured {len(measured)}")
    for m in ("time", "memory"):
        same = sum(WORDS.get(r["set"][m][0]) == r["measured"][m][0] for r in measured)
        same_bucket = sum(bucket(r["set"][m][1]) == bucket(r["measured"][m][1]) for r in measured)
        print(f"  {m}: class equal {same}/{len(measured)} ({same / max(1, len(measured)):.0%}); "
              f"exponent bucket equal {same_bucket}/{len(measured)} ({same_bucket / max(1, len(measured)):.0%})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--rows", default="/work/gd/out.jsonl")
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--budget", type=float, default=5.0)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--summary", action="store_true")
    ap.add_argument("--refit", action="store_true")
    a = ap.parse_args()
    if a.summary or a.refit:
        return summary(a.out, a.refit)
    rows = [json.loads(x) for x in open(a.rows)][a.start:: a.every]
    measure(rows, a.out, a.budget)


if __name__ == "__main__":
    sys.exit(main())
