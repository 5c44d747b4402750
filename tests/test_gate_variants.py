"""The gate on measured variant pairs (`training.judging.gate_variants`): the gate's own rule, per mutation kind."""
from __future__ import annotations

import pytest
from test_v2_pairs_splits import PROG

from rlm_lsp.policy import rules
from rlm_lsp.runtime.predictor import Predictor
from training.judging import gate_variants
from training.learning import dataset
from training.measuring.mutations import mutate


def _pair(kind, memory_parent, memory_variant, **kw):
    return dict({"key": "k#%s" % kind, "parent": "k", "mutation": kind, "source": "kattis", "problem_id": "p",
                 "input_id": "1", "same_output": True, "status_parent": "ok", "status_variant": "ok",
                 "memory_parent": memory_parent, "memory_variant": memory_variant, "validation": True}, **kw)


def test_only_same_output_ok_pairs_count_once():
    pairs = [_pair("swap", 10, 10), _pair("swap", 10, 10), _pair("rename", 10, 10, same_output=False),
             _pair("materialize", 10, 99, status_variant="timeout")]
    assert gate_variants.usable(pairs) == [pairs[0]]
    assert gate_variants.is_validation(pairs[0]) is True
    for pid in range(1, 60):  # model v4's split: LeetCode by v1's ids, scripts by the prefixed id
        assert gate_variants.is_validation(_pair("swap", 1, 1, source="leetcode", problem_id=pid, validation=None)) \
            == dataset.is_validation(pid)
        assert gate_variants.is_validation(_pair("swap", 1, 1, source="euler", problem_id=str(pid), validation=None)) \
            == dataset.is_validation("euler:%d" % pid)


def test_pairs_are_judged_by_the_gates_rule(tiny_model_dir):
    predictor = Predictor.from_dir(tiny_model_dir)
    kinds = [k for k in ("rename", "swap", "materialize", "set_to_list") if mutate(PROG, k, seed=0)]
    assert "rename" in kinds and len(kinds) >= 3
    pairs = [_pair(k, 1000, 1000 if k in ("rename", "swap") else 4000) for k in kinds]
    rows = gate_variants.judged(pairs, {"k": PROG}, predictor)
    assert [r["pair"]["mutation"] for r in rows] == kinds
    predicted = dict(zip([PROG], predictor.predict([PROG])))
    for r in rows:
        new = mutate(PROG, r["pair"]["mutation"], seed=0).code
        assert r["changed"] == rules.changed(PROG, new, rules.file_names(PROG), rules.file_names(new))
        [b] = predictor.predict([new])
        verdict = rules.judge(predicted[PROG]["memory"], b["memory"], rules.DEFAULT_RATIO)
        assert r["flags"]["memory"] == (r["changed"] and verdict.regressed)
        assert r["ratio"]["memory"] == pytest.approx(verdict.ratio)
    rename = next(r for r in rows if r["pair"]["mutation"] == "rename")
    assert rename["changed"] is False and rename["flags"]["memory"] is False  # a rename is no change to the gate
    s = gate_variants.summarise(rows)["memory"]
    assert s["regressions"]["n"] == len(kinds) - sum(k in ("rename", "swap") for k in kinds)
    assert s["near_equal"]["n"] == s["neutral_kinds"]["n"] == sum(k in ("rename", "swap") for k in kinds)
    assert set(s["by_kind"]) == set(kinds)
    assert "≥ 2× regressions flagged" in gate_variants.markdown(
        gate_variants.summarise(rows), {"model_version": "tiny", "pairs": len(rows), "split": "test"})
