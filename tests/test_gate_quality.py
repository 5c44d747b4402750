"""training/judging/gate_quality.py: pairing and rates on hand-made examples and predictions."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

dataset = pytest.importorskip("training.learning.dataset")
from training.judging import gate_quality  # noqa: E402


@dataclass(frozen=True)
class P:
    value: float


def ex(key: str, pid: str, memory: float) -> object:
    return dataset.Example(key=key, problem_id=pid, code=f"# {key}\n", values={"memory": memory, "latency": None})


def test_pairs_and_rates():
    examples = [
        ex("a", "1", 1e6), ex("b", "1", 4e6), ex("c", "1", 1.1e6),  # a<b (4x), c<b (3.6x), a~c (near)
        ex("d", "2", 1e6), ex("e", "2", 2e6),  # d<e (2x)
        ex("f", "3", 5e6),  # alone: no pair
    ]  # fmt: skip
    far, near = gate_quality.pairs_by_metric(examples, "memory", 2.0)
    assert sorted((c.key, d.key) for c, d, _ in far) == [("a", "b"), ("c", "b"), ("d", "e")]
    assert [(a.key, b.key) for a, b, _ in near] == [("a", "c")]

    # the model sees a->b and d->e grow by 2x or more, c->b only 1.5x
    predicted = {"a": 1.0, "b": 3.0, "c": 2.0, "d": 1.0, "e": 2.0, "f": 1.0}
    preds = {k: {"memory": P(v)} for k, v in predicted.items()}
    r = gate_quality.evaluate(examples, preds, "memory", 2.0, 2.0)
    assert r["pairs"] == 3 and r["problems"] == 2
    assert r["recall"] == pytest.approx(2 / 3)  # a->b 3x, d->e 2x flagged; c->b 1.5x not
    assert r["false_alarm_rate"] == 0.0
    assert r["near_equal_flag_rate"] == 1.0  # a->c predicted 2x
    assert r["recall_ci95"] == pytest.approx([0.208, 0.939], abs=1e-3)
    assert "| memory | 3 | 2 | 67% (21–94%) | 0% (0–56%) |" in gate_quality.markdown(
        [r], {"model_version": "m", "tier": "large", "ratio": 2.0, "min_gap": 2.0}
    )


@dataclass(frozen=True)
class G:
    value: float
    growth: float
    growth_samples: tuple = ()


def test_growth_pairs_and_the_growth_rule():
    def gx(key, pid, g):
        return dataset.Example(key=key, problem_id=pid, code=f"# {key}\n", values={"memory_growth": g})

    examples = [gx("a", "1", 0.0), gx("b", "1", 1.0), gx("c", "1", 0.1), gx("d", "2", 1.0), gx("e", "2", 2.2),
                gx("f", "2", None)]  # fmt: skip
    far, near = gate_quality.growth_pairs(examples, "memory_growth", 0.75)
    assert sorted((a.key, b.key) for a, b, _ in far) == [("a", "b"), ("c", "b"), ("d", "e")]
    assert [(a.key, b.key) for a, b, _ in near] == [("a", "c")]
    # predicted: a->b a full step, c->b only 0.5, d->e a step; a and c equal
    predicted = {"a": 0.0, "b": 1.0, "c": 0.5, "d": 1.0, "e": 2.0}
    preds = {k: {"memory": G(1.0, g)} for k, g in predicted.items()}
    r = gate_quality.evaluate_growth(examples, preds, "memory", 0.75, 0.7)
    assert (r["pairs"], r["problems"], r["near_equal_pairs"]) == (3, 2, 1)
    assert r["recall"] == pytest.approx(2 / 3) and r["false_alarm_rate"] == 0.0
    assert r["near_equal_flag_rate"] == 0.0


def test_rule_s_beside_the_gates_rule_on_the_programs_codes():
    loop = "def f(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
    nested = "def f(xs):\n    t = [x for x in xs for y in xs]\n    return t\n"  # memory: a list built in a nested loop
    examples = [dataset.Example(key="a", problem_id="1", code=loop, values={"memory": 1e6}),
                dataset.Example(key="b", problem_id="1", code=nested, values={"memory": 4e6}),
                dataset.Example(key="c", problem_id="1", code=loop + "\n", values={"memory": 1.1e6})]
    preds = {k: {"memory": P(1.0)} for k in "abc"}  # the model sees no difference
    today = gate_quality.evaluate(examples, preds, "memory", 2.0, 2.0)
    assert (today["recall"], today["false_alarm_rate"], today["near_equal_flag_rate"]) == (0.0, 0.0, 0.0)
    s1 = gate_quality.evaluate(examples, preds, "memory", 2.0, 2.0, structure="s1")
    # a->b and c->b stepped a level (flagged); b->a and b->c fell (not); a~c read alike (not)
    assert (s1["recall"], s1["false_alarm_rate"], s1["near_equal_flag_rate"]) == (1.0, 0.0, 0.0)
    cheaper = dict(preds, b={"memory": P(0.5)})  # S1: the model reads b as cheaper, so no flag
    assert gate_quality.evaluate(examples, cheaper, "memory", 2.0, 2.0, structure="s1")["recall"] == 0.0
    assert gate_quality.evaluate(examples, cheaper, "memory", 2.0, 2.0, structure="s0")["recall"] == 1.0
