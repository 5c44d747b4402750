"""The gate on measured variant curves (`training.judging.gate_curves`): which pairs count, their
measured labels, and the gate's flags from a fake predictor (no ONNX)."""
from __future__ import annotations

import gzip
import json
from types import SimpleNamespace

import pytest
from test_v2_pairs_splits import PROG

from training.judging import gate_curves
from training.measuring.mutations import mutate

PARENT = "doocs:p/Solution.py"
RUNGS = ("1/64", "1/16", "1/4", "1/2", "1", "4")
SIZE = {"1/64": 16, "1/16": 64, "1/4": 256, "1/2": 512, "1": 1024, "4": 4096}


def _row(kind, label, memory=(1000, 1000), latency=(1.0, 1.0), status=("ok", "ok"), parent=PARENT):
    return {"key": f"{parent}#{kind}", "parent": parent, "mutation": kind, "source": "variant-curves",
            "problem_id": 1, "validation": True, "input_id": f"curve:{label}:s0", "input_size": SIZE[label],
            "status_parent": status[0], "status_variant": status[1],
            "memory_parent": memory[0], "memory_variant": memory[1],
            "latency_parent": latency[0], "latency_variant": latency[1]}


def _curve(kind, at_one=None, **kw):
    """Rows of one variant program on every rung, ok on both sides; `at_one`: rung "1"'s fields."""
    return [_row(kind, label, **(dict(kw, **at_one) if label == "1" and at_one else kw)) for label in RUNGS]


def test_a_pair_needs_three_common_ok_sizes_and_is_compared_at_rung_one_else_the_largest():
    rows = (_curve("rename", at_one={"memory": (1000, 3000)})
            + _curve("swap", at_one={"status": ("ok", "timeout")}, memory=(10, 10))
            + [_row("materialize", label, status=("ok", "ok" if label in ("1/64", "1/16") else "error"))
               for label in RUNGS]  # two common ok sizes: no pair
            + [_row("sort_in_loop", label, status=("timeout" if label == "1/4" else "ok", "ok"))
               for label in ("1/64", "1/16", "1/4")])  # three rows, two with both sides ok: no pair
    pairs = {p["mutation"]: p for p in gate_curves.curve_pairs(rows)}
    assert set(pairs) == {"rename", "swap"}
    assert pairs["rename"]["input_id"] == "curve:1:s0" and pairs["rename"]["memory_variant"] == 3000
    assert pairs["rename"]["sizes"] == 6
    assert pairs["swap"]["input_id"] == "curve:4:s0" and pairs["swap"]["input_size"] == 4096  # rung 1 failed
    assert pairs["swap"]["sizes"] == 5


def test_labels_class_rose_by_the_growth_files_and_two_x_at_the_compared_size():
    [pair] = gate_curves.curve_pairs(_curve("sort_in_loop", memory=(1000, 2000), latency=(2.0, 3.0)))
    variant = {pair["key"]: {"time_class": "n²", "memory_class": "1"}}
    parent = {PARENT: {"time_class": "n", "memory_class": "n"}}
    label = gate_curves.labels(pair, variant, parent)
    assert label["rose"] == {"memory": False, "latency": True}  # memory fell a class, time rose one
    assert label["ratio"] == {"memory": 2.0, "latency": 1.5}
    assert label["neutral"] is False
    assert gate_curves.labels(pair, {}, parent)["rose"] == {"memory": None, "latency": None}  # no fit: unknown
    assert gate_curves.labels(dict(pair, mutation="swap"), variant, parent)["neutral"] is True


class FakePredictor:
    """Memory 10× for the codes in `costly`, else 1000; latency 1.0 always. Records each call's
    context (a model that reads n is asked with `{"n": ...}`)."""

    def __init__(self, costly=(), reads_n=False):
        self.costly, self.asked = set(costly), []
        self.config = SimpleNamespace(reads_n=reads_n, model_version="fake")

    def predict(self, codes, language="python", metrics=None, context=None):
        self.asked += [(c, None if context is None else dict(context)) for c in codes]
        return [{"memory": SimpleNamespace(value=10000.0 if c in self.costly else 1000.0),
                 "latency": SimpleNamespace(value=1.0)} for c in codes]


def _judged(predictor):
    rows = (_curve("materialize", memory=(1000, 5000))  # measured 5× costlier, memory class rose
            + _curve("sort_in_loop", latency=(1.0, 4.0))  # 4× slower, time class rose
            + _curve("rename") + _curve("swap", memory=(1000, 1100)))  # neutral
    pairs = gate_curves.curve_pairs(rows)
    variant = {f"{PARENT}#materialize": {"memory_class": "n", "time_class": "n"},
               f"{PARENT}#sort_in_loop": {"memory_class": "1", "time_class": "n log n"},
               f"{PARENT}#rename": {"memory_class": "1", "time_class": "n"},
               f"{PARENT}#swap": {"memory_class": "1", "time_class": "n"}}
    parent = {PARENT: {"memory_class": "1", "time_class": "n"}}
    judged = gate_curves.judged(pairs, {PARENT: PROG}, predictor, n_of=lambda p: p.get("input_size"))
    return judged, gate_curves.summarise(judged, variant, parent)


def test_flags_from_a_predictor_that_regresses_on_one_known_variant():
    costly = mutate(PROG, "materialize", seed=0).code
    rows, s = _judged(FakePredictor(costly=[costly]))
    flags = {r["pair"]["mutation"]: r["flags"] for r in rows}
    assert flags["materialize"] == {"memory": True, "latency": False}
    assert not any(any(f.values()) for k, f in flags.items() if k != "materialize")
    assert s["memory"]["class_rose"] == {"n": 1, "flagged": 1.0, "ci95": pytest.approx([0.2065, 1.0], abs=1e-3)}
    assert (s["latency"]["class_rose"]["n"], s["latency"]["class_rose"]["flagged"]) == (1, 0.0)
    assert (s["any"]["class_rose"]["n"], s["any"]["class_rose"]["flagged"]) == (2, 0.5)
    assert (s["any"]["regressions"]["n"], s["any"]["regressions"]["flagged"]) == (2, 0.5)
    assert (s["any"]["neutral_kinds"]["n"], s["any"]["neutral_kinds"]["flagged"]) == (2, 0.0)
    # near-equal in both metrics: rename and swap (1.1× memory); materialize's latency alone is near-equal
    assert s["any"]["near_equal"]["n"] == 2 and s["latency"]["near_equal"]["n"] == 3
    assert s["any"]["by_kind"]["materialize"] == {"n": 1, "class_rose": 1.0, "measured_2x": 1.0, "flagged": 1.0}
    text = gate_curves.markdown(s, {"model_version": "fake", "pairs": len(rows), "split": "test", "asked": "at n"})
    assert "| any | 50% of 2" in text and "≥ 80%" in text


def test_a_model_that_reads_n_is_asked_at_the_compared_sizes_n():
    reading = FakePredictor(reads_n=True)
    _judged(reading)
    assert reading.asked and {ctx["n"] for _, ctx in reading.asked} == {SIZE["1"]}
    plain = FakePredictor(reads_n=False)
    _judged(plain)
    assert plain.asked and all(ctx is None for _, ctx in plain.asked)


def test_the_largest_common_size_sets_n_where_rung_one_failed():
    rows = _curve("materialize", at_one={"status": ("ok", "timeout")})
    predictor = FakePredictor(reads_n=True)
    gate_curves.judged(gate_curves.curve_pairs(rows), {PARENT: PROG}, predictor, n_of=lambda p: p.get("input_size"))
    assert {ctx["n"] for _, ctx in predictor.asked} == {SIZE["4"]}


def test_a_missing_data_file_is_one_line_and_exit_2(tmp_path, capsys):
    assert gate_curves.main(["--pairs", str(tmp_path / "none.jsonl.gz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read the measured curves" in err
    bad = tmp_path / "pairs.jsonl.gz"
    with gzip.open(bad, "wt") as f:
        f.write(json.dumps({"key": "x"}) + "\n")  # a row without the pair fields
    assert gate_curves.main(["--pairs", str(bad)]) == 2


class CheaperPredictor(FakePredictor):
    """Memory 100 (a tenth) for the codes in `cheap`, else as FakePredictor."""

    def __init__(self, cheap=()):
        super().__init__()
        self.cheap = set(cheap)

    def predict(self, codes, language="python", metrics=None, context=None):
        out = super().predict(codes, language, metrics, context)
        return [dict(o, memory=SimpleNamespace(value=100.0)) if c in self.cheap else o for c, o in zip(codes, out)]


def test_rule_s_flags_a_variant_whose_loop_nest_deepened_through_the_gates_own_rule():
    rows = _curve("copy_in_loop") + _curve("rename")
    pairs = gate_curves.curve_pairs(rows)
    nested = mutate(PROG, "copy_in_loop", seed=0).code  # a copy of the input in the loop: one level deeper

    def flags(predictor, structure):
        judged = gate_curves.judged(pairs, {PARENT: PROG}, predictor, structure=structure)
        return {r["pair"]["mutation"]: (r["flags"], r["structure"]) for r in judged}

    assert flags(FakePredictor(), None)["copy_in_loop"][0] == {"memory": False, "latency": False}
    s0 = flags(FakePredictor(), "s0")
    assert s0["copy_in_loop"] == ({"memory": True, "latency": True}, {"memory": True, "latency": True})
    assert s0["rename"][0] == {"memory": False, "latency": False}  # no change to the gate, nothing to read
    # S1: the model's memory estimate fell a tenth, so memory's step is vetoed; latency's held
    s1 = flags(CheaperPredictor(cheap=[nested]), "s1")
    assert s1["copy_in_loop"][0] == {"memory": False, "latency": True}
    assert flags(CheaperPredictor(cheap=[nested]), "s0")["copy_in_loop"][0] == {"memory": True, "latency": True}


def test_the_command_chooses_the_split_and_prints_a_table_per_rule(tmp_path, monkeypatch, capsys):
    rows = _curve("copy_in_loop") + [dict(r, key=f"{PARENT}#x", parent="other") for r in _curve("rename")]
    path = tmp_path / "pairs.jsonl.gz"
    growth = tmp_path / "growth.jsonl.gz"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    with gzip.open(growth, "wt") as f:
        f.write(json.dumps({"key": PARENT, "memory_class": "1", "time_class": "n"}) + "\n")
    monkeypatch.setattr(gate_curves, "is_validation", lambda p: p["parent"] == PARENT)
    monkeypatch.setattr(gate_curves, "parent_codes", lambda pairs: {p["parent"]: PROG for p in pairs})
    from rlm_lsp.runtime import predictor as runtime

    monkeypatch.setattr(runtime.Predictor, "default", staticmethod(lambda threads=1: FakePredictor()))
    common = ["--pairs", str(path), "--variant-growth", str(growth), "--parent-growth", str(growth)]
    assert gate_curves.main([*common, "--split", "training", "--structure", "none,s0", "--json", str(tmp_path / "o.json")]) == 0
    out = capsys.readouterr().out
    assert out.count("1 variant/parent curve pairs (training problems") == 2 and "with rule S0" in out
    assert [r["meta"]["structure"] for r in json.loads((tmp_path / "o.json").read_text())] == [None, "s0"]
    assert gate_curves.main([*common, "--structure", "s9"]) == 2
    assert "--structure 's9'" in capsys.readouterr().err
