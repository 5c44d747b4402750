"""The measured cost curves as training rows (issue 48, item 1): a row per size, or one per program.

``load_curve_examples()`` turns ``training/data/leetcode_curves.jsonl.gz`` into ``dataset.Example``s:
one per ``ok`` (program, size) row, its code by key from the LeetCode corpus (as
``dataset.load_examples`` joins it), with

* ``extra["n"]``: the row's ``input_size`` (the size of the function's largest input, as the
  ladders count it): what the template's ``{n}`` states (``rlm_lsp.runtime.template.n_field``);
* ``memory`` / ``latency``: ``memory_bytes`` and ``latency_ms`` at that n (repeats at one size: median);
* ``memory_growth`` / ``latency_growth``: the program's asymptotic exponent, the same on each of its
  rows (``training.measuring.curve_fit.asymptotic``: the slope over its three largest ``ok`` sizes
  spanning at least 4x above the noise floor; else the curve's own exponent, ``curve_fit.fit``),
  clipped to the growth grammar's range (``GROWTH_RANGE``).

``load_anchor_examples()`` gives one row per program instead, for a model that never reads n: its
``memory`` / ``latency`` are the program's **anchor**, its value at n0 = 10^4 (``curve_fit.ANCHOR_N``)
on the line of its growth through its ok sizes (``curve_fit.anchor``), and its ``_growth`` the same
exponents; the runtime moves the numbers from n0 along the growth (``rlm_lsp.runtime.growth.at``).

The split is by problem, ``dataset.is_validation`` of the problem id (``extra["validation"]``), as
``dataset.split_by_problem`` reads it: a problem's every program and size falls on one side.
``python -m training.learning.curve_rows [--corpus FILE] [--anchor]`` prints the counts.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from training.judging.shaped_examples import DATA, V4_METRICS
from training.learning import dataset
from training.measuring.curve_fit import ANCHOR_N, FLOORS, anchor, asymptotic, fit

CURVES = DATA / "leetcode_curves.jsonl.gz"
FIELDS = {"memory": "memory_bytes", "latency": "latency_ms"}
METRICS = V4_METRICS  # memory, latency and their _growth, written as model v4 writes them
# A growth is written + 2 as a non-negative number below 10 (`shaped_examples.GROWTH_ENCODING`):
# exponents outside this range would be written as other exponents, so they are clipped to it.
GROWTH_RANGE = (-1.0, 7.0)


def program_growth(points: dict[str, list[tuple[float, float]]]) -> dict[str, float | None]:
    """{metric_growth: the asymptotic exponent, else the curve's own, clipped; None without either}
    from {metric: [(n, cost)]} of one program's ok rows."""
    out: dict[str, float | None] = {}
    for metric, field in FIELDS.items():
        pts = points.get(metric, [])
        g = asymptotic(pts, FLOORS[field])
        if g is None and pts:
            g = fit([n for n, _ in pts], [c for _, c in pts], FLOORS[field]).exponent
        out[metric + "_growth"] = None if g is None else min(max(g, GROWTH_RANGE[0]), GROWTH_RANGE[1])
    return out


def _value(rows: list[dict], field: str) -> float | None:
    values = [float(r[field]) for r in rows if r.get(field) is not None and float(r[field]) > 0]
    return statistics.median(values) if values else None


def load_curve_examples(curves: str | Path | Iterable[str | Path] = CURVES,
                        corpus: str | dict = dataset.DEFAULT_CORPUS) -> list[dataset.Example]:
    """One Example per ok (program, size) of the curves whose code the corpus has."""
    out = []
    for prog in _programs(curves, corpus):
        for n, v in sorted(prog.values.items()):
            if v["memory"] is None and v["latency"] is None:
                continue
            out.append(dataset.Example(
                key=f"{prog.key}@n={n:g}", problem_id=prog.problem_id, code=prog.code, values={**v, **prog.growth},
                tier="curve", extra={**prog.extra, "n": n}))
    return out


def load_anchor_examples(curves: str | Path | Iterable[str | Path] = CURVES,
                         corpus: str | dict = dataset.DEFAULT_CORPUS, n0: float = ANCHOR_N) -> list[dataset.Example]:
    """One Example per program of the curves whose code the corpus has: each metric's anchor, its
    value at `n0` on its asymptotic line (`curve_fit.anchor`, through the program's ok sizes with
    the slope its `_growth` states, clipped as that is), and the growth. A model of these rows never
    reads n: the runtime moves its numbers from n0 along its growth (`rlm_lsp.runtime.growth.at`)."""
    out = []
    for prog in _programs(curves, corpus):
        values: dict[str, float | None] = dict(prog.growth)
        for metric, field in FIELDS.items():
            g = prog.growth[metric + "_growth"]
            pts = [(n, v[metric]) for n, v in prog.values.items() if v[metric] is not None]
            a = None if g is None else anchor(pts, g, FLOORS[field], n0)
            values[metric] = None if a is None else 10 ** a
        if values["memory"] is None and values["latency"] is None:
            continue
        out.append(dataset.Example(key=prog.key, problem_id=prog.problem_id, code=prog.code, values=values,
                                   tier="anchor", extra={**prog.extra, "n0": n0}))
    return out


@dataclass(frozen=True)
class _Program:
    key: str
    problem_id: str
    code: str
    values: dict[float, dict[str, float | None]]  # n -> {metric: its value at n (repeats: their median)}
    growth: dict[str, float | None]  # program_growth's
    extra: dict


def _programs(curves, corpus) -> list[_Program]:
    """The curves' programs whose code the corpus has, with their ok sizes' values and growth."""
    code_by_key = dataset.load_corpus(corpus) if isinstance(corpus, str) else corpus
    paths = [curves] if isinstance(curves, (str, Path)) else list(curves)
    by_key: dict[str, dict[float, list[dict]]] = {}
    for r in dataset.read_jsonl(paths):
        if r.get("status") != "ok" or not r.get("input_size") or r.get("key") not in code_by_key:
            continue
        by_key.setdefault(r["key"], {}).setdefault(float(r["input_size"]), []).append(r)
    out = []
    for key, sizes in sorted(by_key.items()):
        values = {n: {m: _value(rows, f) for m, f in FIELDS.items()} for n, rows in sizes.items()}
        growth = program_growth({m: [(n, v[m]) for n, v in sorted(values.items()) if v[m] is not None]
                                 for m in FIELDS})
        crow = code_by_key[key]
        first = next(iter(sizes.values()))[0]
        pid = str(first.get("problem_id", crow.get("problem_id", key)))
        out.append(_Program(key, pid, dataset.program_code(crow), values, growth,
                            {"source": crow.get("source"), "shape": "function", "program": key,
                             "validation": dataset.is_validation(pid)}))
    return out


def summary(examples: list[dataset.Example]) -> dict:
    """Rows, programs, problems and validation rows; rows with each target."""
    out = {"rows": len(examples), "programs": len({e.extra["program"] for e in examples}),
           "problems": len({e.problem_id for e in examples}),
           "validation_rows": sum(e.extra["validation"] for e in examples)}
    for m in (m["name"] for m in METRICS):
        out[m] = sum(e.values.get(m) is not None for e in examples)
    return out


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(prog="python -m training.learning.curve_rows", description=__doc__.split("\n")[0])
    ap.add_argument("--curves", default=str(CURVES))
    ap.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    ap.add_argument("--anchor", action="store_true", help="the anchor rows (one per program at n0), not a row per size")
    a = ap.parse_args()
    load = load_anchor_examples if a.anchor else load_curve_examples
    print(json.dumps(summary(load(a.curves, a.corpus))))
