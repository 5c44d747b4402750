"""Rosetta Code's C, C++, Go and Java programs as scripts (issue 51, item 1: "Rosetta programs run as scripts").

``tasks(language)``: one task per corpus program of that language (``rosetta/programs.jsonl.gz``), in the
Python Rosetta programs' hashed order (``sources._order``), keyed as they are (``<repo>:<path>``, ``input_id``
empty: a script gets no input).  Programs that cannot run as they are get a ``skip``: no ``main``, a Java
``package`` declaration or no class with ``main``, a Go file that is not ``package main``.

``measure(task, opts)``: ``compiled.build`` (the compile in the sandbox; C ``gcc -O2 -std=gnu11 -lm``), 3
sandboxed runs on empty stdin, memory = min peak RSS minus the language's empty program's, time = min CPU
time (``clock: process_cpu_min``); ``output_digest`` of the first run's stdout (no expected output: not
checked).  A run that exits non-zero is an ``error`` with the exit code.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re
import time
from datetime import datetime, timezone

LANGUAGES = ("c", "cpp", "go", "java")


def source_name(language: str) -> str:
    return "rosetta-%s" % language


def _strip(code: str) -> str:
    """Comments and string literals out, so a ``main`` in a comment does not count."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"|`[^`]*`', " ", code, flags=re.S)


def java_main(code: str) -> str | None:
    """The class to run: the public class (javac wants the file named after it), else the one with ``main``."""
    bare = _strip(code)
    m = re.search(r"\bpublic\s+(?:(?:final|abstract|strictfp)\s+)*(?:class|enum|interface|record)\s+(\w+)", bare)
    if m:
        return m.group(1)
    pos = re.search(r"\bstatic\s+(?:public\s+)?void\s+main\s*\(|\bvoid\s+main\s*\(", bare)
    if pos is None:
        return None
    heads = list(re.finditer(r"\b(?:class|enum|interface|record)\s+(\w+)", bare[: pos.start()]))
    return heads[-1].group(1) if heads else None


def skip_reason(code: str, language: str) -> str | None:
    bare = _strip(code)
    if language in ("c", "cpp"):
        return None if re.search(r"\bmain\s*\(", bare) else "no main function (a fragment, not a program)"
    if language == "go":
        if not re.search(r"^\s*package\s+main\b", bare, flags=re.M):
            return "not package main (a fragment or a library)"
        return None if re.search(r"\bfunc\s+main\s*\(\s*\)", bare) else "no func main"
    if re.search(r"^\s*package\s+[\w.]+\s*;", bare, flags=re.M):
        return "declares a package (needs its folder layout)"
    if not re.search(r"\bvoid\s+main\s*\(", bare):
        return "no main method (a fragment, not a program)"
    return None if java_main(code) else "no class holds main"


@functools.lru_cache(maxsize=1)
def _programs() -> list:
    from training.measuring.sources import CORPUS
    with gzip.open(CORPUS / "rosetta" / "programs.jsonl.gz", "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def tasks(language: str) -> list:
    from training.measuring.sources import _order
    out = []
    for r in _order([r for r in _programs() if r.get("language") == language]):
        row = {"source": source_name(language), "language": language, "repo": r["source"], "path": r["path"],
               "commit": r["commit"], "key": "%s:%s" % (r["source"], r["path"]), "problem_id": r["task"],
               "variant": r.get("variant"), "shape": "script", "input_id": "", "input_bytes": 0}
        out.append({"row": row, "code": r["code"], "compiled_script": language, "skip": skip_reason(r["code"], language)})
    return out


def measure(task: dict, opts: dict) -> dict:
    from training.measuring import compiled, diagnostics
    t0 = time.perf_counter()
    row, language = dict(task["row"]), task["compiled_script"]
    T = float(opts["time_limit"])
    row.update(status="error", reason=None, error=None, memory_bytes=None, latency_ms=None, output_digest=None,
               checked=False, memory_only=False, time_limit_s=T, memory_limit_mb=opts["memory_mb"], clock="process_cpu_min",
               machine=opts.get("machine"), measured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    try:
        if task.get("skip"):
            row.update(status="skipped", reason=task["skip"])
            return row
        code = task["code"]
        b = compiled.build(code, language, main=java_main(code) if language == "java" else None)
        row.update(compiler=b.compiler, compile_s=b.seconds, compile_cached=b.cached)
        if not b.ok:
            row.update(status="compile_error", error=diagnostics.compiler(b.error))
            return row
        base = compiled.baseline(language, memory_mb=int(opts["memory_mb"]))
        row.update(baseline_rss_kb=base["rss_kb"], baseline_cpu_ms=base["cpu_ms"])
        runs = max(3, int(opts.get("repeats") or 3))
        r = compiled.run(b, b"", runs=runs, time_limit_s=T, memory_mb=int(opts["memory_mb"]))
        row.update(sandbox=r.sandbox, runs=runs, rss_runs_kb=[x[1] for x in r.runs],
                   cpu_runs_ms=[round(1000 * x[2], 3) for x in r.runs], wall_s=r.wall_s)
        if r.status != "ok":
            row.update(status=r.status if r.status in ("timeout", "memory_limit") else "error",
                       error=diagnostics.runtime(r.error))
            return row
        rss = min(x[1] for x in r.runs)
        row.update(status="ok", rss_kb=rss, memory_bytes=max(0, rss - base["rss_kb"]) * 1024,
                   latency_ms=round(1000 * min(x[2] for x in r.runs), 3), output_bytes=len(r.stdout.encode()),
                   output_digest=hashlib.sha1(r.stdout.encode()).hexdigest()[:16])
        return row
    except Exception as e:  # noqa: BLE001 - a row, not a crash of the whole run
        from training.measuring.sandbox import SandboxUnavailable
        if isinstance(e, SandboxUnavailable):
            raise
        row.update(status="error", error="harness: %s: %s" % (type(e).__name__, str(e)[:150]))
        return row
    finally:
        row["measure_s"] = round(time.perf_counter() - t0, 2)
