"""`rlm predict --jsonl`: resident memory while scoring many rows, read from /proc while it runs.

    python bench/jsonl.py [--rows 10000] [--samples 1] [--no-write]

Rows are distinct generated functions (so the cache never hits), fed on stdin to a real
`rlm predict --jsonl -` process with the shipped model. Writes the `jsonl` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import add_write_flag, bar, machine, publish  # noqa: E402


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=1)
    add_write_flag(parser)
    args = parser.parse_args(argv)
    proc = subprocess.Popen([sys.executable, "-m", "rlm_lsp.app.cli", "predict", "--jsonl", "-", "--samples",
                             str(args.samples)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    done = [0]
    readings: list[tuple[int, float]] = []
    rows_bar = bar(args.rows, desc="rows scored", unit="row")
    every = max(1, args.rows // 10)

    def read():
        for _ in proc.stdout:
            done[0] += 1
            rows_bar.update()
            if done[0] % every == 0:
                readings.append((done[0], rss_mib(proc.pid)))

    reader = threading.Thread(target=read)
    reader.start()
    start = time.perf_counter()
    for i in range(args.rows):
        code = f"def f_{i}(values):\n    out = []\n    for v in values:\n        out.append(v * {i % 97} + {i})\n    return out\n"
        proc.stdin.write(json.dumps({"id": i, "code": code, "language": "python"}) + "\n")
    proc.stdin.close()
    reader.join()
    rows_bar.close()
    proc.wait()
    seconds = time.perf_counter() - start
    table = ", ".join(f"{n:,} rows: {mib:.0f} MiB" for n, mib in readings)
    print(f"{args.rows} rows in {seconds:.0f} s; RSS {table}")
    md = (f"## Batch scoring memory (`bench/jsonl.py`)\n\n"
          f"Command: `python bench/jsonl.py --rows {args.rows} --samples {args.samples}`. Machine: {machine()}, "
          f"one thread, shipped model, distinct rows (no cache hits).\n\n"
          f"{args.rows:,} rows scored in {seconds:.0f} s. Resident memory of the `rlm predict --jsonl -` process "
          f"as rows came out: {table}.\n")
    publish("jsonl", md, write=not args.no_write)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
