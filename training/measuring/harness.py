"""Measure one Python program on its tests (the paper's protocol).

``measure(code, tests, ...)`` runs two fresh sandboxed processes
(``training.measuring.sandbox.run_child``):

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
   peak RSS (VmHWM) of this process, read by the parent from the host's /proc.

Sandbox (``training/measuring/sandbox.py``; the data card's "Sandbox" section has the
details and what the hostile-program tests in ``tests/test_sandbox_hostile.py``
show).  Every program runs inside bubblewrap: new user, PID, mount, network,
IPC and UTS namespaces, uid 65534 when the harness is root, a read-only view
of /usr, the interpreter and the helper modules, its own /proc, a minimal
/dev, a 64 MB tmpfs work folder, no network but its own ``lo``, rlimits on
address space, CPU, files, file size and processes (32), a wall clock and a
16 MB cap on stdout + stderr.  The interpreter is pid 1 of its namespace, so
every process it starts is dead when ``measure`` returns.  It sees only
``PYTHONHASHSEED=0``, ``PATH``, ``LANG``, ``LC_ALL``.  The runner's audit hook
is a second layer.  The result travels on its own pipe, nonce-tagged; the
parent measures wall time, CPU time and peak RSS itself and rejects results
that contradict them (row status ``error``, ``error`` starting "rejected:"):
among them RSS growth during the calls that the reported peak does not explain
(both runs, ``sandbox.unexplained_rss``) and a warm-up much slower than the
timed runs (``carried_state``).  The two runs import the same modules and every
run starts with fresh builtins, so a program cannot easily tell them apart or
carry a result from one run to the next.
Not contained: reads of what the sandbox shows (the interpreter, /usr); the
CPU time and memory a program uses within its limits; and numbers measured
inside the program's own process (tracemalloc, per-run times) are only as
trustworthy as the audit hook, which is not a security boundary.  Every row
records ``sandbox`` (``bwrap``; ``bwrap-root`` where only root can start it,
without the process limit; ``none`` with ``--unsafe-no-sandbox``).  Where
bubblewrap cannot start, ``measure`` raises ``SandboxUnavailable`` and the CLI
says so in one line and exits 2, unless ``unsafe_no_sandbox=True`` /
``--unsafe-no-sandbox``.

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

    python -m training.measuring.harness prog.py --tests tests.json [--entry twoSum] [--shape stdin] [--unsafe-no-sandbox]
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
from pathlib import Path

from training.measuring.sandbox import (
    RSS_FACTOR_TIME,
    Limits,
    SandboxUnavailable,
    run_child,
    sandbox_kind,
    unexplained_rss,
    unshare_prefix,
)

PROTOCOL = {
    "interpreter": "python -s -S -B -P (== -I without -E), env scrubbed to PYTHONHASHSEED=0",
    "memory": "tracemalloc peak bytes above the level at call start, max over tests, separate untimed process",
    "latency": "median wall time (perf_counter) of all test calls, 5 timed runs after 1 warm-up, one process",
}


def machine_info() -> dict:
    import os

    from rlm_lsp.runtime.machine import cpu_model

    cpu = cpu_model()
    return {"cpu_model": cpu, "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "python_impl": platform.python_implementation(), "platform": platform.platform(),
            "sandbox": sandbox_kind()[0] or "none",
            "network_namespace": bool(sandbox_kind()[0] or unshare_prefix())}


WARMUP_FACTOR = 5
WARMUP_FLOOR_MS = 20.0


def carried_state(warmup_cpu_ms: float, cpu_runs_ms: list) -> str | None:
    """Why a warm-up much slower than the timed runs looks like state carried between runs (None: it does not).

    Every run starts from a fresh namespace and fresh builtins (``runner.run``), but a program can still
    keep a result elsewhere (an attribute of an imported module): then only the warm-up computes it and the
    timed runs are nearly free.  Honest warm-ups are slower by page faults on fresh memory, the first
    import inside a call and the ``re`` cache: up to ~2x (a 300 MB run: 517 ms against 255 ms) plus a few
    milliseconds, so more than ``WARMUP_FACTOR`` x the slowest timed run + ``WARMUP_FLOOR_MS`` is flagged.
    A cached result cheaper than the floor goes unnoticed."""
    typical = statistics.median(cpu_runs_ms)
    if warmup_cpu_ms > WARMUP_FACTOR * typical + WARMUP_FLOOR_MS:
        return ("warm-up took %.1f ms of CPU, the timed runs %.3f ms (median; more than %dx + %d ms): "
                "state carried between runs" % (warmup_cpu_ms, typical, WARMUP_FACTOR, WARMUP_FLOOR_MS))
    # one timed run that recomputes what the others take from a cache (issue 61.1): judged against
    # the median too, so one slow run cannot hide the cache behind it
    slowest = max(cpu_runs_ms)
    if slowest > WARMUP_FACTOR * typical + WARMUP_FLOOR_MS:
        return ("one timed run took %.1f ms of CPU, the others %.3f ms (median; more than %dx + %d ms): "
                "state carried between runs" % (slowest, typical, WARMUP_FACTOR, WARMUP_FLOOR_MS))
    return None


def outputs_differ(memory_digests: list, run_digests: list) -> str | None:
    """Why the timed runs' outputs are not the memory run's (None: they are): a program that tells the
    runs apart and does its work only in the untimed one (issue 61.2)."""
    for i, ds in enumerate(run_digests):
        if len(ds) != len(memory_digests) or any(tuple(a) != tuple(b) for a, b in zip(ds, memory_digests)):
            return "timed run %d returned other outputs than the memory run" % (i + 1)
    return None


def _reject(row: dict, why: str) -> dict:
    """The row of a measurement the parent does not believe: status error, the figures dropped
    (the parent's own ``mem_rss_kb``/``rss_kb`` and the run lists stay, for diagnosis)."""
    row.update(status="error", error=("rejected: " + why)[:300], memory_bytes=None, latency_ms=None, cpu_ms=None)
    return row


def measure(code: str, tests: list[dict], *, entry: str | None = None, shape: str = "leetcode",
            prelude: bool = True, expected_digests: list | None = None, repeats: int = 5,
            warmup: int = 1, mem_limits: Limits | None = None, time_limits: Limits | None = None,
            python: str | None = None, sys_path: list | None = None, unsafe_no_sandbox: bool = False,
            guard: bool = True) -> dict:
    """Measure a program. Returns a row fragment; never raises for program failures.

    ``expected_digests``: optional per-test output digests (from a reference
    solution) used for correctness when tests carry no ``expected``.
    Raises ``SandboxUnavailable`` if bubblewrap cannot start, unless
    ``unsafe_no_sandbox``.  ``guard=False`` drops the audit hook (tests of the
    kernel sandbox alone).
    """
    box = dict(python=python, unsafe_no_sandbox=unsafe_no_sandbox, guard=guard)
    mem_limits = mem_limits or Limits(cpu_s=6, wall_s=6.0)
    time_limits = time_limits or Limits(cpu_s=30, wall_s=30.0)
    base = {"mode": "memory", "shape": shape, "code": code, "entry": entry, "prelude": prelude,
            "tests": tests, "sys_path": sys_path or []}
    row = {"status": "error", "memory_bytes": None, "latency_ms": None, "latency_runs": 0,
           "cpu_ms": None, "rss_kb": None, "correct": None, "n_tests": len(tests), "error": None}
    m = run_child(base, mem_limits, **box)
    row["sandbox"] = m.sandbox
    row["mem_rss_kb"] = m.maxrss_kb
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
    t = run_child(dict(base, mode="time", repeats=repeats, warmup=warmup), time_limits, **box)
    # VmHWM of the timing process, read by the parent (wait4's ru_maxrss also
    # counts the forked parent's pages before exec: only a fallback)
    row["rss_kb"] = t.maxrss_kb
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
    # the cost curves' clock (issue 47): CPU time of the calls, minimum over the timed runs; the warm-up's
    # own figures beside it (a warm-up much slower than every timed run is state carried between runs)
    w = t.result.get("warmup", warmup)
    row["cpu_min_ms"] = round(min(cpus), 4)
    row["cpu_runs_ms"] = [round(x, 4) for x in cpus]
    row["wall_runs_ms"] = [round(x, 4) for x in times]
    row["warmup_cpu_ms"] = round(t.result["cpu_ms"][0], 4) if w else None
    row["warmup_wall_ms"] = round(t.result["times_ms"][0], 4) if w else None
    # the timing run's RSS must be explained by the memory run's peak too: a program that can tell the
    # two runs apart (they import the same modules, but timing allocations under tracemalloc would tell)
    # and allocates only in the timing run is caught here
    bad = unexplained_rss(row["memory_bytes"], t.maxrss_kb, t.result.get("rss_start_kb"), RSS_FACTOR_TIME)
    if bad:
        return _reject(row, "timing run: " + bad)
    bad = carried_state(t.result["cpu_ms"][0], cpus) if w else None
    if bad:
        return _reject(row, bad)
    # checked where the memory run's outputs were right: a program whose outputs legitimately vary
    # (an unseeded shuffle with no expected output to hold it to) is not rejected for it
    bad = outputs_differ(digests, t.result.get("run_digests", [])[w:]) if digests and correct else None
    if bad:
        return _reject(row, bad)
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
    ap.add_argument("--unsafe-no-sandbox", action="store_true",
                    help="run the program even where bubblewrap cannot start (only rlimits and the audit hook)")
    a = ap.parse_args(argv)
    try:
        tests = json.loads(a.tests.read_text())
        program = a.program.read_text()
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # one line, never a traceback (issue 61.9)
        print("harness: cannot read %s" % (exc.filename if getattr(exc, "filename", None) else exc), file=sys.stderr)
        return 2
    try:
        row = measure(program, tests, entry=a.entry, shape=a.shape,
                      prelude=not a.no_prelude, repeats=a.repeats, warmup=a.warmup,
                      unsafe_no_sandbox=a.unsafe_no_sandbox)
    except SandboxUnavailable as e:
        print("harness: %s" % e, file=sys.stderr)
        return 2
    row.pop("digests", None)
    row["machine"] = machine_info()
    print(json.dumps(row, indent=1))
    return 0 if row["status"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
