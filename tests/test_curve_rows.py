"""The measured cost curves as training rows (`training.learning.curve_rows`) and `train --curve-data`."""

import gzip
import json

import pytest

from training.learning import curve_rows, dataset
from training.measuring.curve_fit import asymptotic

LINEAR = "def total(xs):\n    s = 0\n    for x in xs:\n        s += x\n    return s\n"
QUADRATIC = "def pairs(xs):\n    return [(a, b) for a in xs for b in xs]\n"
SIZES = (100, 400, 1600, 6400)


def _row(key, pid, n, memory, latency, status="ok"):
    return {"key": key, "problem_id": pid, "input_size": n, "status": status,
            "memory_bytes": memory, "latency_ms": latency}


def _write(tmp_path, problems=12):
    """A corpus of one linear and one quadratic program per problem, and their curves: time has a
    constant 1 ms beside its growth, so the smallest sizes pull the all-sizes slope down."""
    corpus, rows = [], []
    for pid in range(1, problems + 1):
        for name, code, g in (("lin", LINEAR, 1), ("quad", QUADRATIC, 2)):
            path = f"p{pid}/{name}.py"
            corpus.append({"source": "doocs", "path": path, "language": "python", "problem_id": pid, "code": code})
            key = f"doocs:{path}"
            rows += [_row(key, pid, n, 2000.0 * n ** g, 1.0 + 1e-5 * n ** g) for n in SIZES]
            rows.append(_row(key, pid, 25600, None, None, status="timeout"))  # not ok: no row
    rows.append(_row("doocs:missing.py", 1, 100, 1.0, 1.0))  # no code in the corpus: no row
    for path, items in ((tmp_path / "corpus.jsonl.gz", corpus), (tmp_path / "curves.jsonl.gz", rows)):
        with gzip.open(path, "wt") as f:
            f.writelines(json.dumps(r) + "\n" for r in items)
    return tmp_path / "curves.jsonl.gz", tmp_path / "corpus.jsonl.gz"


def test_asymptotic_is_the_slope_over_the_three_largest_sizes():
    pts = [(n, 1.0 + 1e-5 * n * n) for n in SIZES]
    assert asymptotic(pts, 0.01) == pytest.approx(1.83, abs=0.01)  # over all four sizes: 1.45
    assert asymptotic([(1000, 11.0), (1600, 26.6), (3000, 91.0)], 0.01) is None  # the top three span under 4x
    assert asymptotic(pts, 100.0) is None  # under the floor


def test_each_ok_size_is_a_row_at_its_n_with_its_programs_growth(tmp_path):
    curves, corpus = _write(tmp_path)
    examples = curve_rows.load_curve_examples(curves, str(corpus))
    assert len(examples) == 12 * 2 * len(SIZES)
    quad = {e.extra["n"]: e for e in examples if e.extra["program"] == "doocs:p3/quad.py"}
    assert sorted(quad) == [float(n) for n in SIZES]
    e = quad[1600.0]
    assert e.code == QUADRATIC and e.problem_id == "3" and e.extra["shape"] == "function"
    assert e.values["memory"] == 2000.0 * 1600 ** 2 and e.values["latency"] == pytest.approx(1.0 + 1e-5 * 1600 ** 2)
    assert e.values["memory_growth"] == pytest.approx(2.0)
    assert e.values["latency_growth"] == pytest.approx(1.83, abs=0.01)  # the asymptote, not the all-sizes 1.45
    assert {q.values["latency_growth"] for q in quad.values()} == {e.values["latency_growth"]}
    lin = next(x for x in examples if x.extra["program"] == "doocs:p3/lin.py")
    assert lin.values["memory_growth"] == pytest.approx(1.0)


def test_growth_falls_back_to_the_curves_own_exponent_and_is_clipped():
    short = [(100, 1e4), (200, 2e4), (300, 3e4)]  # the top three span 3x: no asymptote
    assert curve_rows.program_growth({"memory": short})["memory_growth"] == pytest.approx(1.0)
    steep = [(n, 1e4 * n ** 9) for n in (10, 40, 160)]
    assert curve_rows.program_growth({"memory": steep})["memory_growth"] == curve_rows.GROWTH_RANGE[1]
    assert curve_rows.program_growth({})["latency_growth"] is None


def test_split_is_by_problem(tmp_path):
    curves, corpus = _write(tmp_path, problems=40)
    examples = curve_rows.load_curve_examples(curves, str(corpus))
    train, val = dataset.split_by_problem(examples)
    assert val and train
    assert {e.problem_id for e in val} == {e.problem_id for e in examples if dataset.is_validation(e.problem_id)}
    assert not {e.problem_id for e in train} & {e.problem_id for e in val}


def test_train_with_curve_data_reads_each_row_at_its_n(tmp_path, monkeypatch):
    from rlm_lsp.export.cli import export
    from rlm_lsp.runtime.predictor import Predictor
    from training.learning import train

    curves, corpus = _write(tmp_path, problems=40)
    seen = []
    real = train.encode_examples

    def spy(tok, examples, metrics, args, **kw):
        from training.learning.train_data import render_example
        seen.extend(render_example(train.TEMPLATES[args.template], metrics, e, e.code) for e in examples)
        return real(tok, examples, metrics, args, **kw)

    monkeypatch.setattr(train, "encode_examples", spy)
    common = ["--curve-data", str(curves), "--corpus", str(corpus), "--size", "tiny", "--vocab-size", "400",
              "--batch-size", "8", "--eval-every", "2", "--no-progress", "--eval-max", "16", "--max-steps", "2"]
    with pytest.raises(SystemExit, match="needs --template curves"):
        train.train(common + ["--out", str(tmp_path / "no")])
    best = train.train(common + ["--template", "curves", "--reference-n", "100000", "--out", str(tmp_path / "run")])
    meta = json.loads((best / "rlm_meta.json").read_text())
    assert [m["name"] for m in meta["metrics"]] == ["memory", "latency", "memory_growth", "latency_growth"]
    assert meta["reference_n"] == 100000 and "{n}" in meta["input_template"]
    assert any(" n 2.0 size " in t for t in seen) and any(" n 3.8 size " in t for t in seen)  # 100 and 6400
    # exported, the model says the n its numbers are for, and how they grow from there
    export(best, tmp_path / "model", int8=False)
    p = Predictor.from_dir(tmp_path / "model", samples=2).predict([QUADRATIC])[0]
    assert set(p) == {"memory", "latency"} and p["memory"].n == 100000.0 and p["memory"].growth is not None


def test_an_anchor_row_is_the_programs_value_at_n0_on_its_growth_line(tmp_path):
    """v = c n^g at every size gives the anchor c 10^(4g) and the growth g, one row per program."""
    curves, corpus = _write(tmp_path)
    examples = curve_rows.load_anchor_examples(curves, str(corpus))
    assert len(examples) == 12 * 2 and len({e.key for e in examples}) == 24
    quad = next(e for e in examples if e.key == "doocs:p3/quad.py")
    assert quad.code == QUADRATIC and quad.problem_id == "3" and "n" not in quad.extra
    assert quad.values["memory_growth"] == pytest.approx(2.0)
    assert quad.values["memory"] == pytest.approx(2000.0 * 10 ** (4 * 2))  # c 10^(4g), c = 2000, g = 2
    lin = next(e for e in examples if e.key == "doocs:p3/lin.py")
    assert lin.values["memory"] == pytest.approx(2000.0 * 10 ** 4) and lin.values["memory_growth"] == pytest.approx(1.0)
    # another n0: the same line, read at 10^5
    at_1e5 = next(e for e in curve_rows.load_anchor_examples(curves, str(corpus), n0=1e5) if e.key == quad.key)
    assert at_1e5.values["memory"] == pytest.approx(2000.0 * 10 ** (5 * 2))


def test_the_anchor_is_the_mean_of_the_points_placed_on_the_growth_line():
    from training.measuring.curve_fit import anchor
    # the line 3 n, measured x0.5 at n = 10 and x2 at n = 1000: the line's 3 n0 = 3e4 (x1 in log10 mean)
    assert 10 ** anchor([(10, 15.0), (1000, 6000.0)], 1.0, 0.0) == pytest.approx(3e4)
    # raised to the floor, 100 at n = 100 and 1000: on slope 1, 100 x 100 and 100 x 10 at n0, log10 mean 3.5
    assert 10 ** anchor([(100, 1.0), (1000, 1.0)], 1.0, 100.0) == pytest.approx(10 ** 3.5)
    assert anchor([], 1.0, 1.0) is None


def test_train_with_anchor_data_writes_one_row_per_program_at_n0(tmp_path, monkeypatch):
    from rlm_lsp.export.cli import export
    from rlm_lsp.runtime.predictor import Predictor
    from training.learning import train

    curves, corpus = _write(tmp_path, problems=40)
    seen = []
    real = train.encode_examples

    def spy(tok, examples, metrics, args, **kw):
        seen.extend(examples)
        return real(tok, examples, metrics, args, **kw)

    monkeypatch.setattr(train, "encode_examples", spy)
    common = ["--anchor-data", str(curves), "--corpus", str(corpus), "--size", "tiny", "--vocab-size", "400",
              "--batch-size", "8", "--eval-every", "2", "--no-progress", "--eval-max", "16", "--max-steps", "2"]
    with pytest.raises(SystemExit, match="needs a template without {n}"):
        train.train(common + ["--template", "curves", "--out", str(tmp_path / "no")])
    with pytest.raises(SystemExit, match="give one of --curve-data, --anchor-data"):
        train.train(common + ["--curve-data", str(curves), "--out", str(tmp_path / "no")])
    best = train.train(common + ["--template", "shaped", "--driver-prob", "0", "--out", str(tmp_path / "run")])
    meta = json.loads((best / "rlm_meta.json").read_text())
    assert [m["name"] for m in meta["metrics"]] == ["memory", "latency", "memory_growth", "latency_growth"]
    assert meta["reference_n"] == 10_000 and "{n}" not in meta["input_template"]
    assert len(seen) == 40 * 2 and {e.tier for e in seen} == {"anchor"}  # one row per program
    # exported, its numbers are for n0 and grow from there
    export(best, tmp_path / "model", int8=False)
    p = Predictor.from_dir(tmp_path / "model", samples=2).predict([QUADRATIC])[0]
    assert set(p) == {"memory", "latency"} and p["memory"].n == 10_000.0 and p["memory"].growth is not None
