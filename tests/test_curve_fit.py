"""Fitted growth of cost curves (training/measuring/curve_fit.py): synthetic curves of every class, with noise."""
import math
import random

import pytest

from training.measuring.curve_fit import CLASSES, FLOORS, bucket, fit, growth_class

SIZES = [64, 256, 1024, 2048, 4096, 16384]
CURVES = {  # class -> (cost(n), expected exponent range over SIZES)
    "1": (lambda n: 5.0, (-0.05, 0.05)),
    "log n": (lambda n: 0.2 * math.log(n), (0.1, 0.45)),
    "n": (lambda n: 0.01 * n, (0.95, 1.05)),
    "n log n": (lambda n: 0.01 * n * math.log(n), (1.05, 1.3)),
    "n²": (lambda n: 1e-5 * n * n, (1.95, 2.05)),
    "n³": (lambda n: 1e-9 * n ** 3, (2.95, 3.05)),
}


@pytest.mark.parametrize("name", list(CURVES))
@pytest.mark.parametrize("noise", [0.0, 0.1])
def test_every_class_is_recovered(name, noise):
    f, (lo, hi) = CURVES[name]
    rnd = random.Random(7)
    costs = [f(n) * (1 + rnd.uniform(-noise, noise)) for n in SIZES]
    r = fit(SIZES, costs, floor=FLOORS["latency_ms"])
    assert lo <= r.exponent <= hi
    assert r.growth_class == name
    if name != "1":
        assert r.r2 >= 0.9


def test_exponential_on_small_sizes():
    sizes = [4, 8, 12, 16, 20]
    r = fit(sizes, [1e-3 * 2 ** n for n in sizes], floor=FLOORS["latency_ms"])
    assert r.growth_class == "2ⁿ"
    assert r.exponent > 3


def test_a_constant_term_hides_slow_growth_at_small_sizes():
    # 1 ms of set-up plus a linear part that only shows at the top: the slope is small, the class is n
    costs = [1.0 + 1e-4 * n for n in SIZES]
    r = fit(SIZES, costs, floor=FLOORS["latency_ms"])
    assert r.exponent < 0.5
    assert r.growth_class == "n"


def test_costs_under_the_floor_are_flat():
    r = fit(SIZES, [0.002, 0.004, 0.003, 0.005, 0.004, 0.006], floor=0.01)
    assert r.above_floor == 0
    assert r.exponent == pytest.approx(0.0, abs=1e-9)
    assert r.growth_class == "1"


def test_only_points_above_the_floor_set_the_slope():
    # the two smallest sizes sit at the timer's floor; the rest is quadratic
    costs = [0.003, 0.004] + [1e-5 * n * n for n in SIZES[2:]]
    r = fit(SIZES, costs, floor=0.01)
    assert r.above_floor == 4
    assert 1.9 <= r.exponent <= 2.1


def test_too_few_sizes_give_no_fit():
    r = fit([10, 10, 100], [1.0, 1.1, 5.0], floor=0.01)
    assert r.exponent is None and r.growth_class is None
    assert growth_class([1, 2], [1, 2]) is None


def test_buckets_and_classes_are_the_documented_ones():
    assert CLASSES == ("1", "log n", "n", "n log n", "n²", "n³", "2ⁿ")
    assert [bucket(x) for x in (0.0, 0.49, 0.5, 1.49, 1.5, 2.49, 2.5, 4)] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_the_card_counts_kattis_tasks_left(tmp_path, monkeypatch):
    """#47's Kattis item: the card says how many (program, input) tasks of the packages are measured."""
    import gzip
    import json

    from training.measuring import curves_card, sources
    rows = [{"key": "k:a.py", "problem_id": "p", "input_id": f"{i}.in", "status": "ok"} for i in range(2)]
    with gzip.open(tmp_path / "kattis_v2.jsonl.gz", "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    tasks = [{"row": {"key": "k:a.py", "input_id": f"{i}.in"}} for i in range(3)]
    monkeypatch.setattr(sources, "kattis_tasks", lambda corpus, k: tasks)
    (line,) = [x for x in curves_card.kattis_lines(tmp_path) if x]
    assert "2 rows, 2 ok, 1 programs on 2 distinct inputs" in line and "2 of 3 tasks measured" in line
    assert curves_card.kattis_lines(tmp_path / "none") == []


def test_the_card_counts_a_variant_pair_only_with_three_sizes_ok_on_both_sides(tmp_path):
    """#47's variant item: a pair is a variant program beside its parent, both ok on 3+ of the same
    sizes; a variant ok at two sizes is not one; a class that rose is counted per metric."""
    import gzip
    import json

    from training.measuring import curves_card

    def pair(parent, key, size, ok=True):
        return {"parent": parent, "key": key, "mutation": key.split("#")[1], "input_id": f"curve:{size}:s0",
                "status_parent": "ok", "status_variant": "ok" if ok else "timeout"}
    rows = [pair("a.py", "a.py#nxn_table", s) for s in ("1/16", "1/4", "1")]
    rows += [pair("b.py", "b.py#rename", s) for s in ("1/16", "1/4")] + [pair("b.py", "b.py#rename", "1", ok=False)]
    files = {"leetcode_variant_curves.pairs.jsonl.gz": rows,
             "leetcode_variant_curves.growth.jsonl.gz": [{"key": "a.py#nxn_table", "time_class": "n",
                                                          "memory_class": "n²"}],
             "leetcode_curves.growth.jsonl.gz": [{"key": "a.py", "time_class": "n", "memory_class": "n"}],
             "leetcode_variant_curves.jsonl.gz": [
                 {"key": "b.py#rename", "status": "skipped", "reason": "predicted over the time limit: ~12 s at n=9"},
                 {"key": "b.py#rename", "status": "skipped", "reason": "ran out of time or memory at the smaller rung 1"}]}
    for name, items in files.items():
        with gzip.open(tmp_path / name, "wt") as f:
            f.writelines(json.dumps(r) + "\n" for r in items)
    line, order = [x for x in curves_card.variant_lines(tmp_path) if x]
    assert "--order cheap" in order and "(1 rows skipped so" in order
    assert "**1 pairs**" in line and "over 1 parents, 5 (variant, size) rows" in line
    assert "nxn_table 1" in line and "rename" not in line and "time 0, memory 1" in line
    assert curves_card.variant_lines(tmp_path / "none") == []


def test_the_card_shows_every_remeasurement_and_says_whether_one_ran_on_another_day(tmp_path):
    import json

    from training.measuring import curves_card

    def run(when, rho):
        return {"summary": {"when": when, "programs": 40, "rows_again_ok": 200, "latency_spearman": rho,
                            "memory_spearman": 1.0, "memory_identical": 0.97, "time_exponent_within_0.15": 0.95}}
    (tmp_path / "remeasure_curves.json").write_text(json.dumps(run("2026-12-06T02:32:36Z", 0.99)))
    (tmp_path / "remeasure_curves_1.json").write_text(json.dumps(run("2026-12-06T15:00:00Z", 0.98)))
    ok = [{"measured_at": "2026-12-06T01:00:00Z"}]
    lines = curves_card.remeasure_lines(tmp_path, ok)
    assert "| check | 2026-12-06T02:32:36Z | 2026-12-06T15:00:00Z | target |" in lines
    assert "| time (CPU, min of 3) Spearman | 0.99 | 0.98 | 0.95 |" in lines
    assert lines[-1].startswith("The rows were measured on 2026-12-06, and every check ran on that day too")
    (tmp_path / "remeasure_curves_2.json").write_text(json.dumps(run("2026-12-07T09:00:00Z", 0.97)))
    assert curves_card.remeasure_lines(tmp_path, ok)[-1] == "1 of them on another day than the rows' measurement."
    assert curves_card.remeasure_lines(tmp_path / "none", ok) == []


def test_class_rose_orders_by_classes_and_knows_when_it_cannot():
    from training.measuring.curve_fit import class_rose
    assert class_rose("n²", "n") is True
    assert class_rose("n", "n log n") is False
    assert class_rose("n", "n") is False
    assert class_rose(None, "n") is None
    assert class_rose("n", "quadratic") is None
