"""What the hover's "mostly from line N" costs (issue 48, item 3): one prediction against the
leave-one-out attribution of the same function, side by side.

    python bench/attribution.py [--repeats 5] [--threads 1] [--no-write]

Functions of 3 to 30 statements (`CASES`, written here, no corpus code). For each, in turn on a
fresh Predictor cache every repeat: `predict([code])` alone, then `attribute()` (the code and one
variant per statement, one batch). Figures: the calling thread's CPU time (onnxruntime runs on it
with one thread), median over `--repeats`, and their ratio. Writes the `attribution` section of
docs/benchmarks.md unless `--no-write`.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import add_write_flag, machine, publish  # noqa: E402


def _function(statements: int) -> str:
    body = ["    total = 0", "    seen = set()"]
    while len(body) < statements - 1:
        i = len(body)
        body += [f"    for x{i} in xs:", f"        total += x{i} * {i}"] if i % 3 == 0 else [f"    seen.add(len(xs) + {i})"]
    return "def work(xs):\n" + "\n".join(body[: statements - 1]) + "\n    return total + len(seen)\n"


CASES = {"3 statements": _function(3), "10 statements": _function(10), "30 statements": _function(30)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python bench/attribution.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--threads", type=int, default=1)
    add_write_flag(p)
    a = p.parse_args(argv)
    from rlm_lsp.python.leave_out import leave_each_out
    from rlm_lsp.runtime.attribution import attribute
    from rlm_lsp.runtime.predictor import Predictor

    rows = []
    for name, code in CASES.items():
        one, whole = [], []
        split = leave_each_out(code)
        for _ in range(a.repeats):
            pr = Predictor.default(threads=a.threads)  # an empty cache: nothing comes free
            t = time.thread_time()
            pr.predict([code])
            one.append(time.thread_time() - t)
            pr = Predictor.default(threads=a.threads)
            t = time.thread_time()
            attribute(pr, code, split)
            whole.append(time.thread_time() - t)
        m1, mw = statistics.median(one), statistics.median(whole)
        rows.append(f"| {name} | {len(split.items)} | {m1 * 1e3:.0f} ms | {mw * 1e3:.0f} ms | {mw / m1:.1f}x |")
        print(rows[-1], flush=True)
    md = "\n".join([
        "## Attribution on hover (`bench/attribution.py`)", "",
        f"Command: `python bench/attribution.py --repeats {a.repeats} --threads {a.threads}`. Machine: {machine()}; "
        "the calling thread's CPU time, median of the repeats, the shipped model, an empty cache each time.", "",
        "| function | variants | one prediction | attribution | ratio |", "|---|---|---|---|---|", *rows, "",
        "The hover waits for the attribution at most 1.5 s of wall time and says it is still being worked out past "
        "that (the next hover has it); plain hints never wait for it."])
    publish("attribution", md, not a.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
