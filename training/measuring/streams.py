"""Measure data v2, script shapes: Kattis packages (stdin), Project Euler and Rosetta Code (script).

    nice -n 5 python -m training.measuring.streams run --source kattis|euler|rosetta|all [--limit N]
        [--workers N --memory-only] [--time-limit S] [--memory-limit MB] [--inputs-per-problem K] [--repeats R]
    python -m training.measuring.streams pack [--source ...]     # work rows -> training/data/<source>_v2.jsonl.gz
                                                          #   + <source>_v2.growth.jsonl.gz

``run`` appends one row per (program, input) to ``training/work/v2/<source>.jsonl`` (git-ignored) as
soon as it is measured, and skips every (key, input_id) already there or in the committed file, so it
can be killed and restarted at any time (``--limit`` counts the rows of this run, per source).
Latency wants one measuring process per core and nothing else running: ``--workers`` > 1 is refused
unless ``--memory-only`` (tracemalloc peaks do not depend on load); ``--shard I/K`` runs one process per core
instead, each on its own programs; a full run later re-measures rows
that only have memory.  ``pack``: ``training.measuring.packing``.  The row schema and the protocol are in
``training/data/README.md``, "Data v2 (script shapes)"; the measuring itself is ``training/measuring/execute.py``.
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import time
from collections import Counter
from pathlib import Path

from training.measuring import execute, packing, sources
from training.measuring.workfiles import CURVED, HARNESS, POLYGLOT, ROSETTA_COMPILED, data_path, read_rows, work_path

SOURCES = sources.SOURCES + ("leetcode", "variants", "curves", "variant-curves")


def done_set(source: str, memory_only: bool) -> tuple[set, set, set]:
    """(done, skipped, seen), each of (key, input_id), in one read of the committed and the work file.
    done: measured, any row for a memory-only run, else a row that is not memory-only; skipped:
    written as skipped (measured again where the current task no longer is, ``run_source``); seen:
    any row at all (a latency run measures what was never measured before it re-times memory-only rows)."""
    done, skipped, seen = set(), set(), set()
    for p in (data_path(source), work_path(source)):
        for r in read_rows(p):
            k = (r["key"], r["input_id"])
            seen.add(k)
            if r.get("status") == "skipped":
                skipped.add(k)
            elif memory_only or not r.get("memory_only"):
                done.add(k)
    return done, skipped, seen


def retry_set(source: str, text: str) -> set:
    """(key, input_id) whose latest row is an `error` whose message contains `text`."""
    latest = {}
    for p in (data_path(source), work_path(source)):
        for r in read_rows(p):
            latest[(r["key"], r["input_id"])] = r
    return {k for k, r in latest.items() if r.get("status") == "error" and text in (r.get("error") or "")}


def _open_append(path: Path):
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size:
        with open(path, "rb") as f:
            f.seek(-1, 2)
            torn = f.read(1) != b"\n"
        if torn:  # end a torn last line, so the next row starts on its own line
            with open(path, "a") as f:
                f.write("\n")
    return open(path, "a", encoding="utf-8")


def _unpaired(task: dict, ran: dict) -> dict | None:
    """A variant task whose parent did not run on its input becomes a skip (no pair to make)."""
    r = task["row"]
    if r.get("role") != "variant":
        return None
    st = ran.get((r["parent"], r["input_id"]))
    if st is None or st in ("ok", "wrong_answer"):
        return None
    return dict(task, skip="parent did not run on this input: %s" % st)


def _stopped(task: dict, stopped: dict) -> dict | None:
    """A curve rung above one where the program ran out of time or memory becomes a skip, and so does
    the spare rung "1/2" where the top rung "4" ran (``stopped[key] == "ran:4"``)."""
    r = task["row"]
    if r["key"] not in stopped:
        return None
    if stopped[r["key"]] == "ran:4":
        return dict(task, skip="not needed: the rung 4 ran") if r.get("rung") == "1/2" else None
    return dict(task, skip="ran out of time or memory at the smaller rung %s" % stopped[r["key"]])


SLOW_MARGIN = 2.0  # a rung predicted over twice the time limit is not run


def _too_slow(task: dict, oks: dict, sizes: dict, limit_s: float) -> dict | None:
    """A curve rung whose CPU time, extrapolated from the program's own ok rungs below it (along the
    slope of the two largest, floored at 0; slope 1 from one rung), is over ``SLOW_MARGIN`` times the
    time limit becomes a skip.  It would time out, and a timeout costs up to ten limits of wall time:
    2.5 of 5.2 hours of the variant curves of 2026-12-06 went to 217 timed-out rows.  ``oks``:
    key -> [(n, cpu ms)] of ok rows; ``sizes``: (problem id, input id) -> n, from any program's row
    (a problem's programs share its rung inputs)."""
    r = task["row"]
    n = sizes.get((r.get("problem_id"), r.get("input_id")))
    below = sorted(p for p in oks.get(r["key"], ()) if n and p[0] < n and p[1] > 0)
    if not below:
        return None
    n1, c1 = below[-1]
    s = 1.0
    if len(below) >= 2 and below[-2][0] < n1:
        s = max(0.0, math.log(c1 / below[-2][1]) / math.log(n1 / below[-2][0]))
    est = c1 * (n / n1) ** s
    if est <= SLOW_MARGIN * 1000 * limit_s:
        return None
    return dict(task, skip="predicted over the time limit: ~%.0f s at n=%d, from %.0f ms at n=%d along slope %.2f"
                % (est / 1000, n, c1, n1, s))


def _curve_times_add(oks: dict, sizes: dict, r: dict) -> None:
    """Row ``r`` into ``_too_slow``'s ``oks`` (its program's ok (n, cpu ms)) and ``sizes`` (its input's n), in place."""
    if r.get("input_size") is not None:
        sizes[(r.get("problem_id"), r.get("input_id"))] = r["input_size"]
    if r.get("status") == "ok" and r.get("latency_ms") and r.get("input_size"):
        oks.setdefault(r["key"], []).append((r["input_size"], r["latency_ms"]))


def _parent_cost(oks: dict):
    """``--order cheap``: a task's sort key, its parent's CPU time summed over the parent's ok rungs
    (a variant costs about what its parent does; unknown: last). The programs of the variant curves
    cost 2.8 s each at the median and 14 s on average, the dearest tenth half of all the time
    (2026-12-06), so the cheap ones first give about twice the pairs an hour; every program is still
    measured, the dear ones later. A program's rungs keep their order (the sort is stable)."""
    def cost(task: dict) -> float:
        parent = task["row"].get("parent")
        return sum(ms for _, ms in oks[parent]) if parent in oks else math.inf
    return cost


def _measure(args):
    task, opts = args
    if task.get("compiled_script"):
        from training.measuring import rosetta_compiled
        return rosetta_compiled.measure(task, opts)
    if task.get("language"):
        from training.measuring import polyglot_ladders
        return polyglot_ladders.measure(task, opts)
    if task.get("shape") == "function":
        from training.measuring import leetcode_ladders as leetcode
        return leetcode.measure(task, opts)
    return execute.measure(task, opts)


def source_tasks(source: str, a) -> list:
    """The tasks of a source in their fixed order: the corpus sources, ``leetcode`` ladders, ``variants``."""
    if source == "leetcode":
        from training.measuring import leetcode_ladders as leetcode
        return leetcode.ladder_tasks()
    if source == "curves":
        from training.measuring import leetcode_ladders as leetcode
        return leetcode.curve_tasks()
    if source == "variant-curves":
        from training.measuring import leetcode_ladders as leetcode
        return leetcode.variant_curve_tasks()
    if source in POLYGLOT:
        from training.measuring import polyglot_ladders
        return polyglot_ladders.tasks(source.split("-", 1)[1])
    if source in ROSETTA_COMPILED:
        from training.measuring import rosetta_compiled
        return rosetta_compiled.tasks(source.split("-", 1)[1])
    if source == "variants":
        from training.measuring import variants
        return variants.tasks(a.corpus, getattr(a, "per_kind", 600), getattr(a, "variant_inputs", 3),
                              scan_cache=work_path("variants").with_name("variants_scan.json"))
    return sources.tasks(source, a.corpus, a.inputs_per_problem)


def in_shard(key: str, i: int, k: int) -> bool:
    """Whether program ``key`` belongs to shard ``i`` of ``k``: a program's rows stay in one shard."""
    import hashlib
    return int(hashlib.sha1(key.encode()).hexdigest(), 16) % k == i


def shard_arg(text: str) -> tuple:
    """``"I/K"`` (0 <= I < K) -> (I, K); anything else is a one-line argparse error."""
    try:
        i, k = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected I/K, for example 0/2, got %r" % text) from None
    if not 0 <= i < k:
        raise argparse.ArgumentTypeError("expected 0 <= I < K in I/K, got %r" % text)
    return i, k


def run_source(source: str, a) -> dict:
    from training.measuring.harness import machine_info
    todo_all = source_tasks(source, a)
    if getattr(a, "shard", None):
        todo_all = [t for t in todo_all if in_shard(t["row"]["key"], *a.shard)]
    done, skipped, seen = done_set(source, a.memory_only)
    retry = retry_set(source, a.retry_errors) if getattr(a, "retry_errors", None) else set()
    done -= retry  # the harness learnt to run these: measured again, with the new tasks
    # a task still skipped is not written again; one that no longer is (a source learnt to run it) is measured
    todo = [t for t in todo_all if (k := (t["row"]["key"], t["row"]["input_id"])) not in done
            and not (k in skipped and t.get("skip"))]
    # what the skip rules need of the rows so far, in one read of the work file:
    # - variants: a variant is measured only where its parent ran on that input (else no pair): the
    #   parents' statuses so far, updated as rows come in (exact with one worker; a pool reads ahead)
    # - curves: a program's rungs come smallest first; past a rung that ran out of time or memory, the
    #   larger ones are not run (the program keeps the sizes it finished, and the reason); a rung
    #   predicted over the limit neither (`_too_slow`: each program's ok times, each rung input's n)
    ran, stopped, top, oks, sizes = {}, {}, set(), {}, {}
    for r in read_rows(work_path(source)):
        if source == "variants":
            ran[(r["key"], r["input_id"])] = r["status"]
        if source in CURVED + POLYGLOT and r.get("status") in ("timeout", "memory_limit"):
            stopped[r["key"]] = r["rung"]
        if r.get("rung") == "4" and r.get("status") == "ok":
            top.add(r["key"])
        if source in CURVED:
            _curve_times_add(oks, sizes, r)
    stopped.update({k: "ran:4" for k in top if k not in stopped})
    if source in CURVED:  # the packed rows too, and the parents' (a problem's programs share its rung inputs)
        for path in {data_path(source), work_path("curves"), data_path("curves")} - {work_path(source)}:
            for r in read_rows(path):
                _curve_times_add(oks, sizes, r)
    # new measurements (and retried errors) first, then the memory-only rows a latency run times again (stable: the
    # order within each stays the source's; a program's inputs stay together); `--order cheap`: cheap parents first
    cost = _parent_cost(oks) if getattr(a, "order", "source") == "cheap" else (lambda t: 0.0)
    todo.sort(key=lambda t: ((k := (t["row"]["key"], t["row"]["input_id"])) in seen and k not in retry, cost(t)))
    pending = len(todo)
    if a.limit is not None:
        todo = todo[: a.limit]
    info = machine_info()
    opts = {"time_limit": a.time_limit, "memory_mb": a.memory_limit, "repeats": a.repeats,
            "memory_only": a.memory_only, "python": platform.python_version(),
            "machine": {k: info[k] for k in ("cpu_model", "cpu_count", "platform")},
            "ref_cache": (str(work_path(source).with_name("curves_refs.jsonl")) if source in CURVED else
                          str(work_path(source).with_name("polyglot_refs.jsonl")) if source in POLYGLOT else None)}
    from tqdm import tqdm
    bar = tqdm(total=len(todo), desc=source, unit="row", file=sys.stderr, dynamic_ncols=True, smoothing=0.05,
               disable=not sys.stderr.isatty())
    statuses: Counter = Counter()
    t0, measured = time.time(), 0
    work = ((_unpaired(t, ran) or _stopped(t, stopped) or _too_slow(t, oks, sizes, a.time_limit) or t, opts)
            for t in todo)
    if a.workers > 1:
        import multiprocessing as mp
        pool = mp.get_context("fork").Pool(a.workers, maxtasksperchild=500)
        results = pool.imap(_measure, work, chunksize=1)
    else:
        pool, results = None, map(_measure, work)
    try:
        with _open_append(work_path(source)) as out:
            for row in results:
                row["harness"] = HARNESS
                if row.get("role") == "parent":
                    ran[(row["key"], row["input_id"])] = row["status"]
                if source in CURVED + POLYGLOT and row["status"] in ("timeout", "memory_limit"):
                    stopped.setdefault(row["key"], row.get("rung"))
                elif source in CURVED and row.get("rung") == "4" and row["status"] == "ok":
                    stopped.setdefault(row["key"], "ran:4")
                if source in CURVED:
                    _curve_times_add(oks, sizes, row)
                out.write(json.dumps(row, sort_keys=True) + "\n")
                out.flush()
                statuses[row["status"]] += 1
                measured += row["status"] != "skipped"
                bar.update(1)
                bar.set_postfix(ok=statuses["ok"], refresh=False)
    finally:
        bar.close()
        if pool is not None:
            pool.terminate()
    secs = time.time() - t0
    return {"source": source, "rows": sum(statuses.values()), "measured": measured, "seconds": round(secs, 1),
            "measured_per_min": round(60 * measured / secs, 1) if secs > 0 else None,
            "status": dict(sorted(statuses.items())), "left": pending - len(todo), "tasks": len(todo_all),
            "workers": a.workers, "memory_only": a.memory_only}


def cmd_run(a) -> int:
    if a.workers > 1 and not a.memory_only:
        print("measure_v2: --workers > 1 only with --memory-only (latency: one process per core, nothing else)",
              file=sys.stderr)
        return 2
    from training.measuring.sandbox import SandboxUnavailable, sandbox_kind
    kind, why = sandbox_kind()
    if kind is None:
        print("measure_v2: %s" % SandboxUnavailable(why), file=sys.stderr)
        return 2
    if a.source in POLYGLOT + ROSETTA_COMPILED:
        from training.measuring.compiled import CompilerMissing, compiler_version
        try:
            compiler_version(a.source.split("-", 1)[1])
        except CompilerMissing as e:
            print("measure_v2: %s" % e, file=sys.stderr)
            return 2
    for source in SOURCES if a.source == "all" else [a.source]:
        print(json.dumps(run_source(source, a)), file=sys.stderr)
    return 0


def cmd_pack(a) -> int:
    for source in SOURCES if a.source == "all" else [a.source]:
        if work_path(source).exists() or data_path(source).exists():
            print(json.dumps(packing.pack(source)))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.streams", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure (resumable, append-only)")
    r.add_argument("--source", choices=SOURCES + POLYGLOT + ROSETTA_COMPILED + ("all",), default="all")
    r.add_argument("--limit", type=int, default=None, help="at most N rows per source in this run")
    r.add_argument("--workers", type=int, default=1)
    r.add_argument("--memory-only", action="store_true", help="no timing run (rows get memory_only: true)")
    r.add_argument("--shard", type=shard_arg, default=None, metavar="I/K",
                   help="only the programs of shard I of K (one process per core, each timing its own "
                        "programs; they append to the same file)")
    r.add_argument("--order", choices=("source", "cheap"), default="source",
                   help="the source's order (default), or variants of the cheapest parents first (variant curves)")
    r.add_argument("--time-limit", type=float, default=10.0, help="seconds per execution (default 10)")
    r.add_argument("--memory-limit", type=int, default=2048, help="address-space limit in MiB (default 2048)")
    r.add_argument("--inputs-per-problem", type=int, default=4, help="Kattis: inputs per problem (default 4)")
    r.add_argument("--repeats", type=int, default=3, help="timed runs after one warm-up (default 3)")
    r.add_argument("--per-kind", type=int, default=600, help="variants: candidates per mutation kind (default 600)")
    r.add_argument("--variant-inputs", type=int, default=3, help="variants: Kattis inputs per program (default 3)")
    r.add_argument("--corpus", type=Path, default=None, help="corpora folder (default ../shared/corpora)")
    r.add_argument("--retry-errors", metavar="TEXT", default=None,
                   help="measure again the rows that failed with an error containing TEXT (after a harness fix); "
                        "pack keeps the new row where it ran")
    p = sub.add_parser("pack", help="write training/data/<source>_v2.jsonl.gz and the growth file")
    p.add_argument("--source", choices=SOURCES + POLYGLOT + ROSETTA_COMPILED + ("all",), default="all")
    a = ap.parse_args(argv)
    return cmd_run(a) if a.cmd == "run" else cmd_pack(a)


if __name__ == "__main__":
    sys.exit(main())
