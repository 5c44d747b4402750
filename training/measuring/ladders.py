"""Input-size ladders for LeetCode problems and measured growth (issue 24, item 2).

Today's ``large`` tier measures each program on the inputs ``Scaler.make(L, s)`` for the seeds
``s`` of the problem's recorded recipe (``L`` was chosen by probing the reference solution, see
``training.measuring.build_dataset``).  A ladder generates the same problem's inputs with the same generator
at ``L/16``, ``L/4`` and ``L``:

* ``ladder(problem, seed)`` -> ``[(size_label, size_param, inputs)]`` with labels ``"1/16"``,
  ``"1/4"``, ``"1"``; ``size_param`` is the generator's ``L`` and ``inputs`` a list of harness tests
  (``{"args": [...]}``), one per recipe seed.  ``seed=0`` uses the recipe's own seeds, so the ``"1"``
  rung is byte-for-byte today's ``large`` input (its SHA-1 is checked against the recorded one);
  ``seed=k`` shifts every seed by ``2k``.  Lengths stay within the parsed constraints (``Scaler``
  clamps them); a rung whose inputs come out no larger than the rung below (a lower bound clamped
  it) is dropped, so a ladder can have fewer than three rungs.
* ``input_size(problem, inputs)`` -> the size the generator actually produced (elements,
  characters, cells or the integer itself, the largest over the scaled arguments of a test).
* ``growth(sizes, costs)`` -> the least-squares slope of log cost on log size (1 = linear,
  2 = quadratic); None with fewer than three positive points or a single size.
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import math
from pathlib import Path

from training.measuring.gen_inputs import Scaler

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "data" / "leetcode_v1.jsonl.gz"
RUNGS = (("1/16", 16), ("1/4", 4), ("1", 1))
# cost curves (issue 47): five rungs spanning 256x of the generator's L (the top one clamped by the constraints)
# "1/2" is the fifth size where the constraints stop "4" (``measure_v2`` skips it where "4" ran)
CURVE_RUNGS = (("1/64", 64), ("1/16", 16), ("1/4", 4), ("1/2", 2), ("1", 1), ("4", 0.25))
SCALED = ("ints", "str", "strs", "grid", "pairs", "nodes")


@functools.lru_cache(maxsize=4)
def large_recipes(path: str = str(RECIPES)) -> dict:
    """problem_id -> the ``large`` tier's input recipe (with its ``input_sha1``), from the measured rows."""
    out = {}
    try:
        with gzip.open(path, "rt") as f:
            for line in f:
                r = json.loads(line)
                if r.get("tier") == "large" and r.get("input_recipe") and r.get("problem_id") is not None:
                    out.setdefault(r["problem_id"], dict(r["input_recipe"], input_sha1=r.get("input_sha1")))
    except OSError:
        return {}
    return out


def _version(recipe: dict) -> int:
    return int(str(recipe.get("gen", "gen-v1")).rsplit("v", 1)[1])


def _scaler(problem, recipe) -> Scaler:
    return Scaler(problem.tests, problem.arg_names, problem.constraints, version=_version(recipe))


def inputs_sha1(tests: list) -> str:
    """The hash ``build_dataset`` records for a list of tests (``input_sha1``)."""
    return hashlib.sha1(json.dumps(tests, sort_keys=True).encode()).hexdigest()


def _extent(kind: str, v) -> int:
    if kind == "int":
        return abs(v) if isinstance(v, int) else 0
    if kind == "grid":
        return sum(len(r) for r in v)
    if kind == "strs":
        return sum(len(w) for w in v)
    return len(v)


def _size(sc: Scaler, inputs: list) -> int:
    best = 0
    for t in inputs:
        for k, a in zip(sc.kinds, t["args"]):
            if (k in SCALED or (k == "int" and sc.only_scalars)) and "json" in a:
                best = max(best, _extent(k, a["json"]))
    return best


def input_size(problem, inputs: list, recipe: dict | None = None) -> int:
    """The largest extent over the scaled arguments of the tests (0 when nothing is scaled)."""
    sc = _scaler(problem, recipe or large_recipes().get(problem.problem_id) or {})
    return _size(sc, inputs) if sc.ok else 0


def ladder(problem, seed: int = 0, recipe: dict | None = None, rungs=RUNGS) -> list:
    """``[(size_label, size_param, inputs)]`` at about 1/16, 1/4 and 1 of the ``large`` size (or the
    ``rungs`` given, e.g. ``CURVE_RUNGS``); [] if no recipe."""
    recipe = recipe or large_recipes().get(problem.problem_id)
    if not recipe or not recipe.get("L") or not recipe.get("seeds"):
        return []
    sc = _scaler(problem, recipe)
    if not sc.ok:
        return []
    seeds = [s + 2 * seed for s in recipe["seeds"]]
    out, below = [], -1
    for label, div in rungs:
        L = max(1, round(recipe["L"] / div))
        tests = [{"args": sc.make(L, s)} for s in seeds]
        if any(t["args"] is None for t in tests):
            return []
        size = _size(sc, tests)
        if size > below:
            out.append((label, L, tests))
            below = size
    return out


def growth(sizes, costs) -> float | None:
    """Slope of log(cost) against log(size) by least squares over the positive points."""
    pts = [(math.log(s), math.log(c)) for s, c in zip(sizes, costs)
           if s is not None and c is not None and s > 0 and c > 0]
    if len(pts) < 3:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in pts) / sxx
