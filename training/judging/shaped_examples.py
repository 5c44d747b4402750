"""Data v2 as training examples for model v4 (issue 25): program shapes and growth targets.

``load_v4_examples(...)`` returns ``dataset.Example``s of three shapes, each naming its shape in
``extra["shape"]`` (the model's template says it: ``rlm_lsp.runtime.template.SHAPED_TEMPLATE``):

* ``function``: the v1 LeetCode rows (``large`` tier, as v3 trains on), plus, where the v2 ladders
  measured the program at three sizes, its growth: ``memory_growth`` / ``latency_growth`` = the slope
  of log cost against log input size (``training.measuring.packing.growth``).
* ``stdin``: a Kattis program, valued at the largest of its problem's measured inputs (by bytes) on
  which it ran ``ok``; a program that failed there has no value, only its growth (the value of a
  smaller input would not compare with its neighbours').  Growth from the package's inputs.
* ``script``: a Project Euler or Rosetta Code program (no input): its one row; no growth.

Latency is the in-process run time (``exec_ms``: the median of the warm timed runs of the program's
execution, as a function's latency is its calls' and not its process's; the process's wall time,
``latency_ms``, is kept in the rows but re-measures at Spearman 0.41 over 200 Kattis rows against
0.90 for ``exec_ms``: the interpreter's start-up dominates it, ``training/data/remeasure_v2_latency.json``),
and is missing (``None``, ignored by the loss) for memory-only rows.  A growth is kept only where the sizes
span at least ``MIN_SPAN`` (a slope over two close sizes is noise).

Problem ids are prefixed by their source (``kattis:…``), so they never collide with LeetCode's
numbers.  The split: Kattis problems by the packed rows' own ``validation`` (whole problems, fixed by
hash, ``training.measuring.splits``); every other source by ``dataset.is_validation`` of the prefixed id.
``extra["validation"]`` carries it, and ``dataset.split_by_problem`` honours it.

The code is read from ``../shared/corpora`` by key and never written anywhere.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from training.learning import dataset

DATA = dataset.ROOT / "training" / "data"
# RLM_CORPUS, as training.measuring.sources reads it: a staged copy on a GPU machine (training/device/device_v4.sh)
CORPORA = Path(os.environ.get("RLM_CORPUS", dataset.ROOT.parent / "shared" / "corpora"))
PROGRAM_FILES = {  # a source's program files, the first its own (Kattis: then solutions run on its inputs)
    "kattis": ("kattis_packages", "programs.jsonl.gz", "kattis_solutions"),
    "euler": ("project_euler", "programs.jsonl.gz"),
    "rosetta": ("rosetta", "programs.jsonl.gz"),
}
SHAPES = {"leetcode": "function", "kattis": "stdin", "euler": "script", "rosetta": "script"}
MIN_SPAN = 8.0  # largest / smallest input size a growth needs
# A growth is written shifted (rlm_lsp.runtime.numbers.Grammar): growth + 2 with the exponent <E0> (growth
# -1..7.999), so its first digit is 1-9 like every other number's and is the slope's integer part
# plus 2. Written fixed point (±d.ddd, models v4b-v4e), its many zeros taught the decoder leading
# zeros that leaked into latency; written as growth + 20 with <E1> (v4f), its samples spread over a
# decade (experiments/log/07-2026-12-01-sessions-16-19.md, session 18).
GROWTH_ENCODING = {"nonnegative": True, "offset": 2.0, "exponent": 0}
GROWTH_METRICS = (
    {"name": "memory_growth", "unit": "exponent", **GROWTH_ENCODING,
     "definition": "slope of log peak memory against log input size, over the measured sizes"},
    {"name": "latency_growth", "unit": "exponent", **GROWTH_ENCODING,
     "definition": "slope of log run time against log input size, over the measured sizes"},
)
V4_METRICS = (*dataset.METRICS, *GROWTH_METRICS)


def _rows(path: Path) -> Iterable[dict]:
    if not path.exists():
        return
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def program_codes(source: str, corpora: Path | None = None) -> dict[str, str]:
    """key -> the code as measured (``training.measuring.sources.measured_code``; a Rosetta REPL
    transcript's script under ``<key>#repl``, ``training.measuring.sources.repl_script``)."""
    from training.measuring.sources import REPL_SUFFIX, measured_code, repl_script

    folder, name, *more = PROGRAM_FILES[source]
    rows = itertools.chain(*(_rows(Path(corpora or CORPORA) / f / name) for f in (folder, *more)))
    out = {}
    for r in rows:
        if source == "rosetta" and r.get("language") != "python":
            continue
        key = "%s:%s" % (r["source"], r["path"])
        try:
            out[key] = measured_code(r)
        except Exception:  # noqa: BLE001 - a file the converter cannot read was not measured either
            continue
        script = repl_script(r) if source == "rosetta" else None
        if script is not None:
            out[key + REPL_SUFFIX] = script
    return out


def growth_by_key(sources: Sequence[str], data: Path | None = None, min_span: float = MIN_SPAN,
                  variants: bool = False) -> dict[str, dict]:
    """key -> {"memory_growth": slope or None, "latency_growth": ...} for programs whose sizes span enough
    (the measured programs, or with `variants` their controlled variants)."""
    out = {}
    for source in sources:
        for g in _rows(Path(data or DATA) / f"{source}_v2.growth.jsonl.gz"):
            if bool(g.get("parent")) != variants or g.get("n_sizes", 0) < 3:
                continue
            lo, hi = g.get("min_bytes") or 0, g.get("max_bytes") or 0
            if lo <= 0 or hi / lo < min_span:
                continue
            out[g["key"]] = {"memory_growth": g.get("growth_memory"), "latency_growth": g.get("growth_latency")}
    return out


def _latency(row: dict) -> float | None:
    return None if row.get("memory_only") else row.get("exec_ms")


def _script_examples(source: str, rows: list[dict], codes: dict[str, str], growth: dict) -> list:
    """One Example per program: Kattis at the problem's largest input it ran ok on; scripts their one row."""
    by_key: dict[str, list[dict]] = {}
    for r in rows:
        if r.get("parent") is None and r.get("key") in codes:
            by_key.setdefault(r["key"], []).append(r)
    largest: dict[str, int] = {}  # problem -> its largest measured input (any program, any status but skipped)
    for r in rows:
        if r.get("status") != "skipped":
            largest[r["problem_id"]] = max(largest.get(r["problem_id"], 0), int(r.get("input_bytes") or 0))
    out = []
    for key, rs in sorted(by_key.items()):
        ok = [r for r in rs if r["status"] == "ok" and int(r.get("input_bytes") or 0) == largest[r["problem_id"]]]
        values: dict[str, float | None] = {"memory": None, "latency": None}
        if ok:
            values = {"memory": float(ok[0]["memory_bytes"]), "latency": _latency(ok[0])}
        values.update(growth.get(key, {"memory_growth": None, "latency_growth": None}))
        if all(v is None for v in values.values()):
            continue
        pid = "%s:%s" % (source, rs[0]["problem_id"])
        val = rs[0].get("validation")
        out.append(dataset.Example(
            key=key, problem_id=pid, code=codes[key], values=values, tier="v2",
            extra={"source": source, "shape": SHAPES[source], "input_bytes": int((ok or rs)[0].get("input_bytes") or 0),
                   "validation": val if isinstance(val, bool) else dataset.is_validation(pid)}))
    return out


def load_v4_examples(
    v1_data: str | Sequence[str] | None = None,
    leetcode_corpus: str | dict = dataset.DEFAULT_CORPUS,
    sources: Sequence[str] = ("kattis", "euler", "rosetta"),
    data: Path | None = None,
    corpora: Path | None = None,
) -> list[dataset.Example]:
    """v1's LeetCode functions (with their ladder growth) and the v2 script sources
    (`data`: the packed rows, default training/data; `corpora`: default ../shared/corpora)."""
    data, corpora = Path(data or DATA), Path(corpora or CORPORA)
    v1_data = v1_data or str(data / "leetcode_v1.jsonl.gz")
    growth = growth_by_key(("leetcode", *sources), data)
    out = []
    for e in dataset.load_examples(v1_data, leetcode_corpus, tiers=("large",)):
        e.values.update(growth.get(e.key, {"memory_growth": None, "latency_growth": None}))
        e.extra.update(shape="function")
        out.append(e)
    for source in sources:
        rows = list(_rows(Path(data) / f"{source}_v2.jsonl.gz"))
        if rows:
            out.extend(_script_examples(source, rows, program_codes(source, corpora), growth))
    return out


def usable(pairs: Sequence[dict]) -> list[dict]:
    """Pairs whose variant gave the parent's output and both ran ok, one per (variant, input)."""
    seen, out = set(), []
    for p in pairs:
        if p.get("same_output") and p.get("status_parent") == p.get("status_variant") == "ok":
            if (p["key"], p.get("input_id")) not in seen:
                seen.add((p["key"], p.get("input_id")))
                out.append(p)
    return out


def variant_examples(parents: Sequence[dataset.Example], data: Path | None = None) -> list[dataset.Example]:
    """Data v2's controlled variants of `parents` (pass training programs only) as examples of their own.

    Issue 24's pairs train the regression decision: a variant is the parent's code with one mutation
    (``training.measuring.mutations.mutate(code, kind, seed=0)``, as the measuring run made it), kept where it gave
    the parent's output and both ran ok.  Its memory is the parent's value times the median measured
    variant / parent ratio over the inputs they shared (variants are measured at one ladder rung or on
    the package's inputs, the parent's value at its own size: the ratio carries over, the absolute value
    would not); latency is unknown (memory-only); its growth is the variant's own where measured."""
    from statistics import median

    from training.measuring.mutations import mutate

    by_key = {e.key: e for e in parents}
    ratios: dict[tuple[str, str], list[float]] = {}
    for p in usable(list(_rows(Path(data or DATA) / "variants_v2.pairs.jsonl.gz"))):
        if p["parent"] in by_key and p.get("memory_parent") and p.get("memory_variant"):
            ratios.setdefault((p["parent"], p["mutation"]), []).append(p["memory_variant"] / p["memory_parent"])
    growth = growth_by_key(("variants",), data, variants=True)
    out = []
    for (key, kind), rs in sorted(ratios.items()):
        parent = by_key[key]
        variant = mutate(parent.code, kind, seed=0)
        if parent.values.get("memory") is None or variant is None or variant.code == parent.code:
            continue
        values = dict.fromkeys(parent.values)
        values["memory"] = parent.values["memory"] * median(rs)
        values.update(growth.get(f"{key}#{kind}", {}))
        out.append(dataset.Example(
            key=f"{key}#{kind}", problem_id=parent.problem_id, code=variant.code, values=values,
            language=parent.language, tier="variant", extra={**parent.extra, "parent": key, "mutation": kind}))
    return out


def summary(examples: Sequence[dataset.Example]) -> dict:
    """Counts per shape: examples, with memory, with latency, with each growth; and validation rows."""
    out: dict = {}
    for e in examples:
        s = out.setdefault(e.extra.get("shape", "?"), {"examples": 0, "validation": 0})
        s["examples"] += 1
        s["validation"] += bool(e.extra.get("validation", dataset.is_validation(e.problem_id)))
        for m, v in e.values.items():
            if v is not None:
                s[m] = s.get(m, 0) + 1
    return out


if __name__ == "__main__":
    print(json.dumps(summary(load_v4_examples()), indent=1))
