"""LeetCode programs on input-size ladders (issue 24, item 2): shape ``function``, one task per (program, rung).

``ladder_tasks()`` lists, for every program with an ``ok`` row of today's ``large`` tier in
``training/data/leetcode_v1.jsonl.gz``, one task per rung of ``training.measuring.ladders.ladder(problem)``
(about 1/16, 1/4 and 1 of the ``large`` size; the ``"1"`` rung is today's ``large`` input).
Problems come in a fixed hashed order and a problem's programs and rungs together, so the
reference's outputs on a rung are computed once per process.  Tasks are small: the code and the
inputs are looked up / generated in the measuring process (``measure``), never stored.

``measure(task, opts)`` runs the program's memory run (``training.measuring.sandbox.run_child``, the LeetCode
runner protocol of ``training.measuring.harness``, prelude included) on the rung's tests; with
``memory_only`` off it uses ``training.measuring.harness.measure`` (memory run + timed runs).  Correctness:
each test's output digest against the reference's (``pr.reference`` or the corpus reference, as
``build_dataset`` chooses it for the ``large`` tier), run on the same tests.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import time
from datetime import datetime, timezone

from training.measuring.sandbox import Limits, run_child

STATUS = {"ok": "ok", "error": "error", "timeout": "timeout", "memout": "memory_limit"}


@functools.lru_cache(maxsize=1)
def _bd():
    from training.measuring import build_dataset as bd
    return bd


def problems() -> dict:
    return _bd().problems()


def large_ok() -> dict:
    """problem_id -> sorted keys of programs with an ``ok`` ``large`` row in leetcode_v1."""
    from training.measuring.ladders import RECIPES
    out: dict = {}
    with gzip.open(RECIPES, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("tier") == "large" and r.get("status") == "ok":
                out.setdefault(r["problem_id"], set()).add(r["key"])
    return {p: sorted(k) for p, k in out.items()}


def input_id(label: str, seed: int = 0) -> str:
    return "ladder:%s:s%d" % (label, seed)


def _order(pids) -> list:
    return sorted(pids, key=lambda p: hashlib.sha1(("v2:leetcode:%s" % p).encode()).hexdigest())


@functools.lru_cache(maxsize=4)  # large inputs: a problem's programs come together, keep a few
def rungs(pid: int, seed: int = 0, plan: str = "ladder") -> tuple:
    """The problem's ladder as ``((label, L, tests, input_size, input_bytes, input_sha1), ...)``; cached.
    ``plan``: ``"ladder"`` (1/16, 1/4, 1) or ``"curve"`` (the five rungs of ``ladders.CURVE_RUNGS``)."""
    from training.measuring.ladders import CURVE_RUNGS, RUNGS, input_size, inputs_sha1, ladder
    pr = problems()[pid]
    out = []
    for label, L, tests in ladder(pr, seed, rungs=CURVE_RUNGS if plan == "curve" else RUNGS):
        out.append((label, L, tests, input_size(pr, tests), len(json.dumps(tests, sort_keys=True)),
                    inputs_sha1(tests)))
    return tuple(out)


def program(pid: int, key: str):
    return next(p for p in problems()[pid].programs if p.key == key)


def base_row(pid: int, key: str) -> dict:
    p = program(pid, key)
    return {"source": "leetcode", "repo": p.source, "path": p.path, "key": key, "problem_id": pid,
            "shape": "function", "py2_converted": bool(p.converted)}


def curve_tasks(seed: int = 0) -> list:
    """Cost curves (issue 47): one task per (program, rung of ``ladders.CURVE_RUNGS``), time and memory.

    Programs come round-robin over the problems (every problem's first program, in the hashed
    order, then every problem's second, ...), so a partial run covers as many problems as it can;
    a program's rungs come together, smallest first (``measure_v2`` skips the rungs above one that
    timed out)."""
    from training.measuring.ladders import CURVE_RUNGS
    ok = large_ok()
    P = problems()
    order = [pid for pid in _order(ok) if pid in P]
    out = []
    for k in range(max((len(v) for v in ok.values()), default=0)):
        for pid in order:
            if k >= len(ok[pid]):
                continue
            key = ok[pid][k]
            try:
                row = base_row(pid, key)
            except StopIteration:
                continue
            row["source"] = "curves"
            # "1/2" last: it is measured only where "4" did not run (``measure_v2._stopped``)
            for label, _div in sorted(CURVE_RUNGS, key=lambda r: r[0] == "1/2"):
                out.append({"shape": "function",
                            "fn": {"pid": pid, "key": key, "label": label, "seed": seed, "plan": "curve"},
                            "row": dict(row, input_id="curve:%s:s%d" % (label, seed), rung=label)})
    return out


def variant_curve_tasks(seed: int = 0, more: bool = True) -> list:
    """The LeetCode variants of data v2 (``variants_v2.jsonl.gz``: rows with ``role: "variant"`` that
    ran) at their parent's cost-curve rungs (issue 47: "variants at the same sizes as their parents"):
    one task per (variant, rung), with the same input ids as the parent's ``curves`` rows, so
    ``streams pack --source variant-curves`` pairs them; then (``more``) the variants of every other
    program with packed curves (``_more_variants``).  The variant's code is made again by
    ``mutations.mutate(parent code, kind, seed=0)`` (deterministic); no code is stored."""
    from training.measuring import workfiles
    from training.measuring.mutations import mutate
    path = workfiles.data_path("variants")
    if not path.exists():
        return []
    seen, picked = set(), []
    with gzip.open(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if (r.get("role") == "variant" and r.get("source") == "leetcode" and r.get("status") == "ok"
                    and r["key"] not in seen):
                seen.add(r["key"])
                picked.append((r["problem_id"], r["parent"], r["mutation"]))
    P = problems()
    order = {pid: i for i, pid in enumerate(_order({pid for pid, _, _ in picked}))}
    out: list = []
    for pid, parent, kind in sorted(picked, key=lambda x: (order[x[0]], x[1], x[2])):
        if pid not in P:
            continue
        try:
            v = mutate(program(pid, parent).code, kind, seed=0)
        except StopIteration:
            continue
        if v is not None:
            _variant_rungs(out, pid, parent, v, seed)
    if more:
        have = {(parent, kind) for _, parent, kind in picked}
        for pid, parent, v in _more_variants(path.with_name("leetcode_curves.jsonl.gz"), have):
            _variant_rungs(out, pid, parent, v, seed)
    return out


def _variant_rungs(out: list, pid: int, parent: str, v, seed: int) -> None:
    """One task per curve rung of variant ``v`` of ``parent``, with the parent's input ids."""
    from training.measuring.ladders import CURVE_RUNGS
    row = dict(base_row(pid, parent), source="variant-curves", key="%s#%s" % (parent, v.kind), parent=parent,
               mutation=v.kind, expected_direction=v.expected, expected_metrics=list(v.metrics), role="variant")
    for label, _div in sorted(CURVE_RUNGS, key=lambda r: r[0] == "1/2"):
        out.append({"shape": "function", "code": v.code,
                    "fn": {"pid": pid, "key": parent, "label": label, "seed": seed, "plan": "curve"},
                    "row": dict(row, input_id="curve:%s:s%d" % (label, seed), rung=label)})


def _more_variants(curves_path, have: set, min_ok: int = 3) -> list:
    """Variants beyond data v2's: every mutation kind that applies (``mutations.variants``, seed 0) to
    every program with ``min_ok`` or more ok rows in the packed cost curves (``curves_path``), except
    the (parent, kind) pairs in ``have``.  Interleaved by kind (each kind's first variant, then each
    kind's second, ...), a kind's parents round-robin over the problems in the hashed order, so a
    partial run holds every kind over as many problems as it can.  ``(pid, parent, Variant)``."""
    from training.measuring.mutations import KINDS, variants
    if not curves_path.exists():
        return []
    oks: dict = {}
    with gzip.open(curves_path, "rt") as f:
        for line in f:
            r = json.loads(line)
            if r.get("status") == "ok":
                oks.setdefault((r["problem_id"], r["key"]), set()).add(r.get("rung"))
    by_pid: dict = {}
    for (pid, key), rs in oks.items():
        if len(rs) >= min_ok:
            by_pid.setdefault(pid, []).append(key)
    P = problems()
    order = [pid for pid in _order(by_pid) if pid in P]
    per_kind: dict = {k: [] for k in KINDS}
    for k in range(max((len(v) for v in by_pid.values()), default=0)):
        for pid in order:
            keys = sorted(by_pid[pid])
            if k >= len(keys):
                continue
            try:
                code = program(pid, keys[k]).code
            except StopIteration:
                continue
            for v in variants(code, seed=0):
                if (keys[k], v.kind) not in have:
                    per_kind[v.kind].append((pid, keys[k], v))
    out = []
    for i in range(max((len(v) for v in per_kind.values()), default=0)):
        out.extend(per_kind[kind][i] for kind in KINDS if i < len(per_kind[kind]))
    return out


def ladder_tasks(seed: int = 0, labels=None) -> list:
    """One task per (program, rung label); ``labels`` keeps only those rungs (e.g. ``("1/4",)``).

    The inputs are generated in the measuring process (``rungs``), which also fills the row's
    ``size_param``, ``input_size``, ``input_bytes`` and ``input_sha1``; a rung the ladder dropped
    (clamped to a bound) becomes a ``skipped`` row."""
    from training.measuring.ladders import RUNGS
    ok = large_ok()
    P = problems()
    out = []
    for pid in _order(ok):
        if pid not in P:
            continue
        for key in ok[pid]:
            try:
                row = base_row(pid, key)
            except StopIteration:  # a program of the committed rows no longer in the corpus
                continue
            for label, _div in RUNGS:
                if labels and label not in labels:
                    continue
                out.append({"shape": "function", "fn": {"pid": pid, "key": key, "label": label, "seed": seed},
                            "row": dict(row, input_id=input_id(label, seed), rung=label)})
    return out


def _rung(pid: int, label: str, seed: int, plan: str = "ladder"):
    return next((r for r in rungs(pid, seed, plan) if r[0] == label), None)


def _tests(pid: int, label: str, seed: int, plan: str = "ladder") -> list:
    return _rung(pid, label, seed, plan)[2]


_REFS: dict = {}


def reference_cached(pid: int, label: str, seed: int, time_limit: float, plan: str, path) -> tuple | None:
    """``reference``, kept across runs in a JSON-lines file (``path``; a rung's inputs depend only on
    (problem, label, seed)): a curve run visits each problem once per pass, so the cache in memory
    alone would run the reference again for every program."""
    import os
    if path is None:
        return reference(pid, label, seed, time_limit, plan)
    if path not in _REFS:
        _REFS[path] = {}
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                for line in f:
                    try:
                        r = json.loads(line)
                        _REFS[path][r["k"]] = r["d"]
                    except (ValueError, KeyError):
                        continue
    k = "%s|%s|%d" % (pid, label, seed)
    if k not in _REFS[path]:
        d = reference(pid, label, seed, time_limit, plan)
        _REFS[path][k] = d
        with open(path, "a", encoding="utf-8") as f:
            f.write(json.dumps({"k": k, "d": d}) + "\n")
    d = _REFS[path][k]
    return None if d is None else tuple(tuple(x) if x else None for x in d)


def digest(digests) -> str | None:
    """One hash of a run's per-test output digests (equal iff every test's output is)."""
    if not digests:
        return None
    return hashlib.sha1(json.dumps(digests).encode()).hexdigest()[:16]


@functools.lru_cache(maxsize=256)
def reference(pid: int, label: str, seed: int, time_limit: float, plan: str = "ladder"):
    """The reference's per-test output digests on the rung (None where it fails)."""
    bd = _bd()
    pr = problems()[pid]
    ref = pr.reference or bd.reference_program(pr).code
    wall = 6 * time_limit + 5
    out, err = bd._probe(ref, [{"args": t["args"]} for t in _tests(pid, label, seed, plan)], pr.entry,
                         Limits(cpu_s=int(wall), wall_s=wall))
    if err or not out:
        return None
    d = [None] * len(out)
    for o in out:
        d[o["i"]] = o.get("digest")
    return tuple(tuple(x) if x else None for x in d)


def judged(row: dict, digests: list, fn: dict, time_limit: float, plan: str, ref_cache) -> dict:
    """`row` with its output digest and its verdict against the reference's outputs on the same rung
    (``ok``, or ``wrong_answer`` where a known output differs): one rule for every language's programs."""
    row["output_digest"] = digest(digests)
    ref = reference_cached(fn["pid"], fn["label"], fn["seed"], time_limit, plan, ref_cache)
    if ref is not None and len(ref) == len(digests):
        known = [_bd()._same(d, e) for d, e in zip(digests, ref) if e is not None]
        if known:
            row.update(checked=True, correct=all(known))
    row["status"] = "wrong_answer" if row["correct"] is False else "ok"
    return row


def measure(task: dict, opts: dict) -> dict:
    """The row of one function-shape task (a ladder rung, or a variant when ``task["code"]`` is set)."""
    t0 = time.perf_counter()
    fn = task["fn"]
    row = dict(task["row"])
    T = float(opts["time_limit"])
    memory_only = bool(opts.get("memory_only"))
    row.update(status="error", reason=None, error=None, memory_bytes=None, latency_ms=None, cpu_ms=None, latency_runs=0,
               rss_kb=None, correct=None, checked=False, output_digest=None, memory_only=memory_only,
               time_limit_s=T, memory_limit_mb=opts["memory_mb"], machine=opts.get("machine"),
               python=opts.get("python"), sandbox=None,
               measured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    if task.get("skip"):
        row.update(status="skipped", reason=task["skip"], memory_only=False)
        row["measure_s"] = round(time.perf_counter() - t0, 2)
        return row
    try:
        bd = _bd()
        pr = problems()[fn["pid"]]
        code = task.get("code") or program(fn["pid"], fn["key"]).code
        plan = fn.get("plan", "ladder")
        rung = _rung(fn["pid"], fn["label"], fn["seed"], plan)
        if rung is None:
            row.update(status="skipped", reason="rung dropped by the ladder (clamped to a bound)")
            return row
        _label, L, tests, size, nbytes, sha = rung
        row.update(size_param=L, input_size=size, input_bytes=nbytes, input_sha1=sha)
        wall = 6 * T + 5  # tracemalloc slows allocation-heavy programs down 5-20x
        mem = Limits(address_space=int(opts["memory_mb"]) << 20, cpu_s=int(wall), wall_s=wall)
        if memory_only:
            m = run_child({"mode": "memory", "code": code, "entry": pr.entry, "tests": tests,
                           "sys_path": bd.sys_path()}, mem)
            row["sandbox"] = m.sandbox
            if m.status != "ok":
                row.update(status=STATUS.get(m.status, "error"),
                           error=str(m.result.get("error") or m.stderr_tail[-300:] or "")[:200])
                return row
            row["memory_bytes"] = int(m.result["memory_bytes"])
            digests = m.result.get("digests") or []
        else:
            from training.measuring.harness import measure as hmeasure
            r = hmeasure(code, tests, entry=pr.entry, sys_path=bd.sys_path(), mem_limits=mem,
                         repeats=int(opts.get("repeats") or 5),
                         time_limits=Limits(address_space=mem.address_space, cpu_s=int(10 * T), wall_s=10 * T))
            row.update(sandbox=r.get("sandbox"), memory_bytes=r["memory_bytes"], latency_ms=r["latency_ms"],
                       cpu_ms=r["cpu_ms"], latency_runs=r["latency_runs"], rss_kb=r["rss_kb"],
                       mem_rss_kb=r.get("mem_rss_kb"))
            if plan == "curve":  # the curves' clock: CPU time of the calls, min over the timed runs
                row.update(clock="cpu_min", wall_median_ms=r["latency_ms"], latency_ms=r.get("cpu_min_ms"),
                           wall_min_ms=r.get("latency_min_ms"), cpu_runs_ms=r.get("cpu_runs_ms"),
                           wall_runs_ms=r.get("wall_runs_ms"), warmup_cpu_ms=r.get("warmup_cpu_ms"),
                           warmup_wall_ms=r.get("warmup_wall_ms"))
            digests = r.get("digests") or []
            if r["status"] not in ("ok", "wrong"):
                row.update(status=STATUS.get(r["status"], "error"), error=(r.get("error") or "")[:200])
                return row
        return judged(row, digests, fn, T, plan, opts.get("ref_cache"))
    except Exception as e:  # noqa: BLE001 - a row, not a crash of the whole run
        from training.measuring.sandbox import SandboxUnavailable
        if isinstance(e, SandboxUnavailable):
            raise
        row.update(status="error", error="driver: %s: %s" % (type(e).__name__, str(e)[:150]))
        return row
    finally:
        row["measure_s"] = round(time.perf_counter() - t0, 2)
