"""LeetCode's C++, Java and Go solutions on the Python ladders' rungs (issue 51, item 1).

``tasks(language)``: for every problem with a Python ladder (``leetcode_ladders.large_ok``), every corpus
solution in ``language`` (``../shared/corpora/leetcode/solutions.jsonl.gz``), one task per rung of
``ladders.RUNGS`` (1/16, 1/4, 1 of the ``large`` size), problems in the same hashed order as the Python
ladders and round-robin (every problem's first solution, then every problem's second...), a solution's
rungs together, smallest first.  The rung's tests are the Python ladders' (``leetcode_ladders.rungs``), so
a problem's Python, C++, Java and Go programs run on identical inputs.

``measure(task, opts)``: ``training.measuring.compiled.measure`` (compile once, 3 sandboxed runs, peak RSS
minus the language's empty-program baseline, min CPU time), then correctness: each test's output digest
against the Python reference's on the same tests (``leetcode_ladders.reference_cached``).
"""
from __future__ import annotations

import functools
import gzip
import json
import time
from datetime import datetime, timezone

from training.measuring import leetcode_ladders as leetcode

LANGUAGES = ("cpp", "java", "go")


def source_name(language: str) -> str:
    return "leetcode-%s" % language


@functools.lru_cache(maxsize=1)
def _solutions() -> dict:
    """language -> problem_id -> [(key, repo, path, variant)] (no code: it is read again when measured)."""
    from training.measuring.lc_corpus import LEETCODE
    out: dict = {lang: {} for lang in LANGUAGES}
    with gzip.open(LEETCODE / "solutions.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("language") in out and r.get("problem_id") is not None:
                out[r["language"]].setdefault(r["problem_id"], []).append(
                    ("%s:%s" % (r["source"], r["path"]), r["source"], r["path"]))
    return out


@functools.lru_cache(maxsize=4096)
def code_of(key: str) -> str:
    from training.measuring.lc_corpus import LEETCODE
    source, path = key.split(":", 1)
    with gzip.open(LEETCODE / "solutions.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if path in line:
                r = json.loads(line)
                if r["source"] == source and r["path"] == path:
                    return r["code"]
    raise KeyError(key)


def tasks(language: str, seed: int = 0) -> list:
    from training.measuring.ladders import RUNGS
    ok = leetcode.large_ok()
    P = leetcode.problems()
    sols = _solutions()[language]
    order = [pid for pid in leetcode._order(ok) if pid in P and pid in sols]
    out = []
    for k in range(max((len(sols[p]) for p in order), default=0)):
        for pid in order:
            if k >= len(sols[pid]):
                continue
            key, repo, path = sols[pid][k]
            row = {"source": source_name(language), "language": language, "repo": repo, "path": path, "key": key,
                   "problem_id": pid, "shape": "function"}
            for label, _div in RUNGS:
                out.append({"shape": "function", "language": language,
                            "fn": {"pid": pid, "key": key, "label": label, "seed": seed},
                            "row": dict(row, input_id=leetcode.input_id(label, seed), rung=label)})
    return out


def measure(task: dict, opts: dict) -> dict:
    from training.measuring import compiled
    t0 = time.perf_counter()
    fn, row = task["fn"], dict(task["row"])
    T = float(opts["time_limit"])
    row.update(status="error", reason=None, error=None, memory_bytes=None, latency_ms=None, correct=None,
               checked=False, output_digest=None, memory_only=False, time_limit_s=T, memory_limit_mb=opts["memory_mb"],
               machine=opts.get("machine"), measured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    if task.get("skip"):
        row.update(status="skipped", reason=task["skip"])
        return row
    try:
        rung = leetcode._rung(fn["pid"], fn["label"], fn["seed"])
        if rung is None:
            row.update(status="skipped", reason="rung dropped by the ladder (clamped to a bound)")
            return row
        _label, L, tests, size, nbytes, sha = rung
        row.update(size_param=L, input_size=size, input_bytes=nbytes, input_sha1=sha)
        pr = leetcode.problems()[fn["pid"]]
        m = compiled.measure(code_of(fn["key"]), task["language"], pr.entry, tests, runs=max(3, int(opts.get("repeats") or 3)),
                             time_limit_s=T, memory_mb=int(opts["memory_mb"]))
        digests = m.pop("digests")
        row.update(m)
        if m["status"] != "ok":
            return row
        return leetcode.judged(row, digests, fn, T, "ladder", opts.get("ref_cache"))
    except Exception as e:  # noqa: BLE001 - a row, not a crash of the whole run
        from training.measuring.sandbox import SandboxUnavailable
        if isinstance(e, SandboxUnavailable):
            raise
        row.update(status="error", error="driver: %s: %s" % (type(e).__name__, str(e)[:150]))
        return row
    finally:
        row["measure_s"] = round(time.perf_counter() - t0, 2)
