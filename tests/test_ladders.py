"""Input-size ladders (training/measuring/ladders.py): today's large inputs at 1/16, 1/4 and 1, and growth slopes."""
from __future__ import annotations

import glob
import gzip
import json
import math

import pytest

from training.measuring import lc_corpus
from training.measuring.gen_inputs import parse_constraints
from training.measuring.ladders import growth, input_size, inputs_sha1, ladder, large_recipes
from training.measuring.lc_corpus import Problem

HAVE_CORPUS = (lc_corpus.LEETCODE / "problems.jsonl.gz").is_file()
needs_corpus = pytest.mark.skipif(not HAVE_CORPUS, reason="LeetCode corpus not found at %s (../shared/corpora, "
                                  "or set RLM_CORPUS)" % lc_corpus.LEETCODE)


def corpus_problem(pid: int) -> Problem:
    """One problem as ``lc_corpus.load_problems`` builds it (tests, names, constraints), without loading all."""
    meta = None
    with gzip.open(lc_corpus.LEETCODE / "problems.jsonl.gz", "rt") as f:
        for line in f:
            r = json.loads(line)
            if r["problem_id"] == pid:
                meta = r
                break
    slug, best = meta["slug"], None
    for fn in sorted(glob.glob(str(lc_corpus.LEETCODE / "leetcodedataset" / "*.jsonl.gz"))):
        with gzip.open(fn, "rt") as f:
            for line in f:
                if slug not in line:
                    continue
                r = json.loads(line)
                if r.get("task_id") != slug or not r.get("entry_point", "").startswith("Solution()."):
                    continue
                tests, names = lc_corpus._lcd_tests(r["test"])
                if tests and (best is None or len(tests) > len(best[0])):  # the version with most tests
                    best = (tests, names)
    if best is None:
        best = lc_corpus._example_tests(meta.get("examples"), {})
    return Problem(problem_id=pid, slug=slug, entry=None, tests=best[0], arg_names=best[1],
                   constraints=meta.get("constraints") or "")


# problem id -> the argument whose length the ladder scales: two-sum (ints), valid-parentheses (str),
# merge-intervals (pairs), group-anagrams (strs), a number's double reversal (a lone int)
REAL = {1: "nums", 20: "s", 56: "intervals", 49: "strs", 2119: "num"}


@needs_corpus
@pytest.mark.parametrize("pid", sorted(REAL))
def test_ladder_on_real_problems(pid):
    recipe = large_recipes().get(pid)
    if recipe is None:
        pytest.skip("no large recipe for problem %d in training/data/leetcode_v1.jsonl.gz" % pid)
    pr = corpus_problem(pid)
    lad = ladder(pr, seed=0)
    assert [r[0] for r in lad] == ["1/16", "1/4", "1"]
    L = recipe["L"]
    assert [r[1] for r in lad] == [round(L / 16), round(L / 4), L]
    # rung "1" at seed 0 is exactly today's large input
    assert inputs_sha1(lad[-1][2]) == recipe["input_sha1"]
    sizes = [input_size(pr, r[2]) for r in lad]
    assert sizes == sorted(set(sizes))
    for (label, param, _), size in zip(lad, sizes):
        assert abs(math.log(size / param)) < 0.1, (label, param, size)  # the size asked for, within 10%
    # within the parsed constraints
    c = parse_constraints(pr.constraints)
    i = pr.arg_names.index(REAL[pid])
    for _, _, tests in lad:
        assert len(tests) == len(recipe["seeds"])
        for t in tests:
            v = t["args"][i]["json"]
            if isinstance(v, int):
                lo, hi = c["scalar"][REAL[pid]]
                assert lo <= v <= hi
                continue
            lo, hi = c["len"][REAL[pid]]
            assert lo <= len(v) <= hi
            if REAL[pid] in c["val"]:
                vlo, vhi = c["val"][REAL[pid]]
                assert all(vlo <= x <= vhi for x in v)


@needs_corpus
def test_ladder_seeds():
    if 1 not in large_recipes():
        pytest.skip("no large recipe for problem 1")
    pr = corpus_problem(1)
    a, b, c = ladder(pr, seed=3), ladder(pr, seed=3), ladder(pr, seed=4)
    assert [inputs_sha1(r[2]) for r in a] == [inputs_sha1(r[2]) for r in b]
    assert all(inputs_sha1(x[2]) != inputs_sha1(y[2]) for x, y in zip(a, c))
    assert inputs_sha1(a[-1][2]) != large_recipes()[1]["input_sha1"]


SYNTH = Problem(problem_id=-1, slug="synthetic", entry="f",
                tests=[{"args": [{"json": [3, 1, 2]}], "expected": None},
                       {"args": [{"json": [5, 4, 9, 7, 1, 6]}], "expected": None}],
                arg_names=["nums"], constraints="50 <= nums.length <= 10^4\n-10 <= nums[i] <= 10")


def test_ladder_clamped_rungs_are_dropped():
    recipe = {"gen": "gen-v2", "L": 400, "seeds": [1, 2]}
    lad = ladder(SYNTH, 0, recipe)
    # 400/16 = 25 is raised to the lower bound 50; 400/4 = 100; 400
    assert [(r[0], r[1], input_size(SYNTH, r[2], recipe)) for r in lad] == [("1/16", 25, 50), ("1/4", 100, 100),
                                                                           ("1", 400, 400)]
    assert all(-10 <= x <= 10 for r in lad for t in r[2] for x in t["args"][0]["json"])
    recipe = {"gen": "gen-v2", "L": 100, "seeds": [1]}
    lad = ladder(SYNTH, 0, recipe)  # 6 -> 50 and 25 -> 50: the second is no larger, dropped
    assert [r[0] for r in lad] == ["1/16", "1"] and len(lad[0][2]) == 1
    assert ladder(SYNTH, 0, {"gen": "gen-v2", "L": 0, "seeds": [1]}) == []
    assert ladder(Problem(problem_id=-2, slug=None, entry=None), 0) == []  # no recipe recorded


def test_growth_known_slopes():
    sizes = [625, 2500, 10000]
    assert growth(sizes, [3 * s for s in sizes]) == pytest.approx(1.0)
    assert growth(sizes, [s * s / 7 for s in sizes]) == pytest.approx(2.0)
    assert growth(sizes, [42, 42, 42]) == pytest.approx(0.0)
    # n log n over sizes evenly spaced in log: 1 + the end-to-end slope of log log n
    nlogn = 1 + (math.log(math.log(10000)) - math.log(math.log(625))) / (math.log(10000) - math.log(625))
    assert growth(sizes, [s * math.log(s) for s in sizes]) == pytest.approx(nlogn)
    assert 1.12 < nlogn < 1.14
    # least squares over noisy points: log-costs 0, 1.1, 1.9 at log-sizes 0, 1, 2 -> slope 0.95
    e = math.e
    assert growth([1, e, e * e], [1, math.exp(1.1), math.exp(1.9)]) == pytest.approx(0.95)


def test_growth_needs_three_positive_points():
    assert growth([1, 2], [1, 4]) is None
    assert growth([1, 2, 4], [1, 0, 16]) is None       # a zero cost is not a point
    assert growth([1, 2, 4, 8], [1, None, 16, 64]) == pytest.approx(2.0)
    assert growth([5, 5, 5], [1, 2, 3]) is None        # one size: no slope
    assert growth([], []) is None
