"""Measure one Python program on its tests (the paper's protocol).

``measure(code, tests, ...)`` runs two fresh sandboxed processes
(``training.sandbox.run_child``):

1. **memory** (untimed): the module is compiled and executed (definitions),
   arguments are built, then ``tracemalloc`` is started; for every test the
   peak of traced bytes above the level at the start of that call is taken;
   ``memory_bytes`` = max over tests.  Outputs are digested and compared with
   the expected ones where the tests give them.
2. **timing**: ``warmup`` (default 1) + ``repeats`` (default 5) runs inside one
   fresh process; each run re-executes the compiled module in a fresh
   namespace, builds the arguments (untimed), then times all test calls
   together.  ``latency_ms`` = median wall time of the timed runs,
   ``cpu_ms`` = median CPU (process_time) of the timed runs, ``rss_kb`` =
   peak RSS (VmHWM) of this process.

Program shapes:
  * ``leetcode``: ``class Solution`` whose method ``entry`` (or its only public
    method) is called with each test's positional ``args``; the LeetCode
    import block (``runner.PRELUDE``) is executed before the program.
  * ``stdin``: the module is executed as ``__main__`` with the test's
    ``stdin`` text on ``sys.stdin``; stdout is compared token-wise with
    ``expected`` when given.

Test format (JSON-able): ``{"args": [ARG, ...], "expected": ARG | None}`` with
``ARG = {"json": value, "wrap": "tree_node" | "list_node" | None}`` or
``{"expr": "python expression"}``; stdin tests: ``{"stdin": str, "expected": str}``.

CLI (measure your own code)::

    python -m training.harness prog.py --tests tests.json [--entry twoSum] [--shape stdin]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

from training.sandbox import Limits, run_child, unshare_prefix

PROTOCOL = {
    "interpreter": "python -s -S -B -P (== -I without -E), env scrubbed to PYTHONHASHSEED=0",
    "memory": "tracemalloc peak bytes above the level at call start, max over tests, separate untimed process",
    "latency": "median wall time (perf_counter) of all test calls, 5 timed runs after 1 warm-up, one process",
}


def machine_info() -> dict:
    cpu = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import os
    return {"cpu_model": cpu, "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "python_impl": platform.python_implementation(), "platform": platform.platform(),
            "network_namespace": bool(unshare_prefix())}


def measure(code: str, tests: list[dict], *, entry: str | None = None, shape: str = "leetcode",
            prelude: bool = True, expected_digests: list | None = None, repeats: int = 5,
            warmup: int = 1, mem_limits: Limits | None = None, time_limits: Limits | None = None,
            python: str | None = None, sys_path: list | None = None) -> dict:
    """Measure a program. Returns a row fragment; never raises for program failures.

    ``expected_digests``: optional per-test output digests (from a reference
    solution) used for correctness when tests carry no ``expected``.
    """
    mem_limits = mem_limits or Limits(cpu_s=6, wall_s=6.0)
    time_limits = time_limits or Limits(cpu_s=30, wall_s=30.0)
    base = {"mode": "memory", "shape": shape, "code": code, "entry": entry, "prelude": prelude,
            "tests": tests, "sys_path": sys_path or []}
    row = {"status": "error", "memory_bytes": None, "latency_ms": None, "latency_runs": 0,
           "cpu_ms": None, "rss_kb": None, "correct": None, "n_tests": len(tests), "error": None}
    m = run_child(base, mem_limits, python=python)
    row["mem_rss_kb"] = m.result.get("vmhwm_kb") or m.maxrss_kb
    if m.status != "ok":
        row["status"] = m.status
        row["error"] = (m.result.get("error") or m.stderr_tail[-300:] or "")[:300]
        return row
    row["memory_bytes"] = int(m.result["memory_bytes"])
    match = m.result.get("match") or []
    digests = m.result.get("digests") or []
    if expected_digests is not None:
        match = [None if e is None else (d[0] == e[0] or d[1] == e[1])
                 for d, e in zip(digests, expected_digests)]
    known = [x for x in match if x is not None]
    correct = all(known) if known else None
    row["correct"] = correct
    row["digests"] = digests
    t = run_child(dict(base, mode="time", repeats=repeats, warmup=warmup), time_limits, python=python)
    # VmHWM of the timing process (ru_maxrss from wait4 counts the forked
    # parent's pages before exec); wait4's value only as a fallback
    row["rss_kb"] = t.result.get("vmhwm_kb") or t.maxrss_kb
    if t.status != "ok":
        row["status"] = t.status
        row["error"] = (t.result.get("error") or t.stderr_tail[-300:] or "")[:300]
        return row
    times = t.result["times_ms"][t.result.get("warmup", warmup):]
    cpus = t.result["cpu_ms"][t.result.get("warmup", warmup):]
    row["latency_ms"] = round(statistics.median(times), 4)
    row["latency_runs"] = len(times)
    row["cpu_ms"] = round(statistics.median(cpus), 4)
    row["latency_min_ms"] = round(min(times), 4)
    row["latency_max_ms"] = round(max(times), 4)
    row["status"] = "wrong" if correct is False else "ok"
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("program", type=Path)
    ap.add_argument("--tests", type=Path, required=True, help="JSON list of tests (see module doc)")
    ap.add_argument("--entry", default=None)
    ap.add_argument("--shape", choices=["leetcode", "stdin"], default="leetcode")
    ap.add_argument("--no-prelude", action="store_true")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--warmup", type=int, default=1)
    a = ap.parse_args(argv)
    tests = json.loads(a.tests.read_text())
    row = measure(a.program.read_text(), tests, entry=a.entry, shape=a.shape,
                  prelude=not a.no_prelude, repeats=a.repeats, warmup=a.warmup)
    row.pop("digests", None)
    row["machine"] = machine_info()
    print(json.dumps(row, indent=1))
    return 0 if row["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
