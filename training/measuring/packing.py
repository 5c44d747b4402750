"""Packing data v2: the work rows of a source -> ``training/data/<source>_v2.jsonl.gz`` and its growth file.

``pack`` merges the committed file and the work file (per (key, input_id) the first full row, else the
first memory-only row), sorts, and writes the rows (ids and numbers, no code, no inputs) and the growth
per program (``growth``; the cost curves' fits, ``curves``, for the curve sources), plus the variant/parent
pairs (``pairs``) of ``variants`` and ``variant-curves``.  Run by ``python -m training.measuring.streams pack``;
where the files live: ``training.measuring.workfiles``.  The gzip is written with mtime 0, so a pack of the
same rows is the same bytes.
"""
from __future__ import annotations

import gzip
import json
import math
import os
from collections import Counter
from pathlib import Path

from training.measuring import diagnostics, workfiles
from training.measuring.splits import validation
from training.measuring.workfiles import CURVED, POLYGLOT, ROSETTA_COMPILED, data_path, read_rows

FORBIDDEN = {"code", "stdin", "input", "answer", "expected", "text"}  # never in a packed row


def slope(xs: list, ys: list) -> float | None:
    """Least-squares slope of log(y) against log(x); None unless x takes >= 3 distinct values."""
    pts = [(math.log(x), math.log(y)) for x, y in zip(xs, ys) if x > 0 and y > 0]
    if len({p[0] for p in pts}) < 3:
        return None
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    return round(sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx, 4)


def size_of(r: dict):
    """The size growth is read against: the generator's extent for LeetCode ladders (``input_size``),
    else the input's bytes."""
    return r.get("input_size") if r.get("shape") == "function" else r.get("input_bytes")


def growth(rows: list) -> list:
    """Per program with ``ok`` rows at >= 3 distinct input sizes (``size_of``): the slopes of memory and time.

    ``growth_memory`` uses ``memory_bytes`` (floored at 1 byte; the runner's copy of the input is not in
    it); ``growth_latency`` uses ``exec_ms`` (in-process), because ``latency_ms`` carries a constant
    process start-up; LeetCode rows time the calls only, so they use ``latency_ms``."""
    by: dict = {}
    for r in rows:
        if r["status"] == "ok" and size_of(r):
            by.setdefault(r["key"], []).append(r)
    out = []
    for key in sorted(by):
        rs = by[key]
        xs = [size_of(r) for r in rs]
        if len(set(xs)) < 3:
            continue
        mem = [max(1, r["memory_bytes"]) for r in rs]
        tkey = "latency_ms" if rs[0].get("shape") == "function" else "exec_ms"
        lat = [(size_of(r), max(r[tkey], 1e-3)) for r in rs if r.get(tkey) is not None]
        g = {"source": rs[0]["source"], "problem_id": rs[0]["problem_id"], "key": key, "shape": rs[0].get("shape"),
             "size": "input_size" if rs[0].get("shape") == "function" else "input_bytes",
             "n_sizes": len(set(xs)), "min_bytes": min(xs), "max_bytes": max(xs),
             "growth_memory": slope(xs, mem), "growth_latency": slope([x for x, _ in lat], [y for _, y in lat])}
        if rs[0].get("parent"):
            g.update(parent=rs[0]["parent"], mutation=rs[0].get("mutation"))
        out.append(g)
    return out


def curves(rows: list) -> list:
    """Per program of the ``curves`` source: its sizes and both metrics' fitted growth
    (``training.measuring.curve_fit``: exponent above the noise floor, R², class), from its ``ok`` rows."""
    from training.measuring.curve_fit import FLOORS, fit
    by: dict = {}
    stopped: dict = {}  # a program that ran out of time or memory at a rung keeps the smaller ones
    for r in rows:
        if r["status"] == "ok" and r.get("input_size"):
            by.setdefault(r["key"], []).append(r)
        elif r["status"] in ("timeout", "memory_limit"):
            stopped.setdefault(r["key"], "%s at rung %s" % (r["status"], r.get("rung")))
    out = []
    for key in sorted(by):
        rs = sorted(by[key], key=lambda r: r["input_size"])
        xs = [r["input_size"] for r in rs]
        if len(set(xs)) < 3:
            continue
        g = {"source": rs[0]["source"], "problem_id": rs[0]["problem_id"], "key": key, "shape": "function",
             "size": "input_size", "n_sizes": len(set(xs)), "min_size": min(xs), "max_size": max(xs),
             "span": round(max(xs) / min(xs), 2), "rungs": [r["rung"] for r in rs],
             "validation": rs[0].get("validation"), "stopped": stopped.get(key)}
        for metric, prefix in (("memory_bytes", "memory"), ("latency_ms", "time")):
            f = fit(xs, [r.get(metric) for r in rs], FLOORS[metric])
            g.update(f.as_row(prefix))
        out.append(g)
    return out


def pairs(rows: list) -> list:
    """Variant rows joined with their parent's row on the same input: one row per (variant, input)."""
    parents = {(r["key"], r["input_id"]): r for r in rows if r.get("role") == "parent"}
    out = []
    for v in rows:
        if v.get("role") != "variant":
            continue
        p = parents.get((v["parent"], v["input_id"]))
        if p is None:
            continue
        both_ran = p["status"] in ("ok", "wrong_answer") and v["status"] in ("ok", "wrong_answer")
        same = (both_ran and p.get("output_digest") is not None and p.get("output_digest") == v.get("output_digest"))
        out.append({"source": v["source"], "shape": v.get("shape"), "problem_id": v["problem_id"],
                    "parent": v["parent"], "key": v["key"], "mutation": v["mutation"], "expected_direction": v["expected_direction"],
                    "expected_metrics": v["expected_metrics"], "input_id": v["input_id"],
                    "input_bytes": v.get("input_bytes"), "input_size": v.get("input_size"),
                    "status_parent": p["status"], "status_variant": v["status"], "same_output": same,
                    "memory_parent": p.get("memory_bytes"), "memory_variant": v.get("memory_bytes"),
                    "latency_parent": p.get("latency_ms"), "latency_variant": v.get("latency_ms"),
                    "exec_ms_parent": p.get("exec_ms"), "exec_ms_variant": v.get("exec_ms"),
                    "memory_only": bool(p.get("memory_only") or v.get("memory_only")),
                    "validation": v.get("validation")})
    return out


MIN_SIZES = 3  # a variant pair: the variant and its parent both ok on 3+ of the same sizes


def curve_pair_sizes(rows, min_sizes: int = MIN_SIZES) -> dict[tuple, dict[str, dict]]:
    """The variant pairs of the variant curves (issue 47's count, the gate's figure on them): for each
    variant program whose variant and parent both ran ok on ``min_sizes``+ of the same inputs,
    (parent, key, mutation) -> input id -> its pair row (``pairs``; a size measured twice counts once)."""
    ok: dict = {}
    for r in rows:
        if r["status_parent"] == r["status_variant"] == "ok":
            ok.setdefault((r["parent"], r["key"], r["mutation"]), {})[r["input_id"]] = r
    return {k: v for k, v in ok.items() if len(v) >= min_sizes}


def _write_gz(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            for r in rows:
                f.write((json.dumps(r, sort_keys=True) + "\n").encode())
    os.replace(tmp, path)


def quoted_lines_cut(rows: list) -> None:
    """Compiler and run messages without the program's lines or host paths (``diagnostics``), in place; a
    compile error keeps its group (``diagnostics.why``) in ``reason``, read before the cut."""
    for r in rows:
        if r.get("status") == "compile_error":
            r["reason"] = r.get("reason") or diagnostics.why(r)
            r["error"] = diagnostics.compiler(r.get("error"))
        elif r.get("error"):
            r["error"] = diagnostics.runtime(r["error"])


def pack(source: str) -> dict:
    best: dict = {}
    for p in (data_path(source), workfiles.work_path(source)):
        for r in read_rows(p):
            k = (r["key"], r["input_id"])
            was_skipped, skipped = best.get(k, {}).get("status") == "skipped", r.get("status") == "skipped"
            ran = r.get("status") not in ("skipped", "error")  # an error measured again (--retry-errors) and run
            if (k not in best or (was_skipped and not skipped) or (best[k].get("status") == "error" and ran)
                    or (not skipped and best[k].get("memory_only") and not r.get("memory_only"))):
                best[k] = r
    rows = sorted(best.values(), key=lambda r: (str(r["problem_id"]), r["key"], r.get("input_bytes") or 0,
                                                r["input_id"]))
    if source in POLYGLOT or source in ROSETTA_COMPILED:
        quoted_lines_cut(rows)
    for r in rows:
        bad = FORBIDDEN & set(r)
        if bad:
            raise ValueError("row %s carries %s" % (r["key"], sorted(bad)))
        r["validation"] = validation(r)  # whole problems, by hash (training.measuring.splits)
    g = curves(rows) if source in CURVED else growth(rows)
    _write_gz(data_path(source), rows)
    _write_gz(workfiles.growth_path(source), g)
    info = {"source": source, "rows": len(rows), "status": dict(Counter(r["status"] for r in rows)),
            "growth_programs": len(g), "path": str(data_path(source))}
    if source == "variant-curves":  # each variant row beside its parent's curves row on the same input
        parents = {(r["key"], r["input_id"]): r for r in read_rows(data_path("curves"))}
        pr = pairs([dict(p, role="parent") for p in parents.values()] + rows)
        _write_gz(workfiles.DATA / "leetcode_variant_curves.pairs.jsonl.gz", pr)
        info["pairs"] = len(pr)
        info["pairs_both_ok"] = sum(p["status_parent"] == p["status_variant"] == "ok" for p in pr)
    if source == "variants":
        pr = pairs(rows)
        _write_gz(workfiles.pairs_path(), pr)
        info["pairs"] = len(pr)
        info["pairs_ok_same_output"] = dict(sorted(Counter(
            p["mutation"] for p in pr if p["same_output"] and p["status_parent"] == p["status_variant"] == "ok"
        ).items()))
    return info
