"""Model v4's data (training.judging.shaped_examples) on a fake corpus, and a tiny v4 training run (shapes, growth)."""

from __future__ import annotations

import gzip
import json

import pytest

from training.judging import shaped_examples as v4_data
from training.judging.evaluate import growth_class, growth_class_accuracy, score
from training.learning import dataset


def _gz(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def _prog(source, path, code, **kw):
    return {"source": source, "path": path, "commit": "0" * 40, "code": code, **kw}


def _row(source, key, pid, status="ok", input_bytes=0, memory=100, **kw):
    return {"source": source, "key": key, "problem_id": pid, "input_id": str(input_bytes), "status": status,
            "input_bytes": input_bytes, "memory_bytes": memory, "latency_ms": None, "memory_only": True,
            "validation": None, **kw}


@pytest.fixture
def fake(tmp_path):
    corpora, data = tmp_path / "corpora", tmp_path / "data"
    _gz(corpora / "kattis_packages" / "programs.jsonl.gz", [
        _prog("k", "sums/a.py", "import sys\nprint(sum(map(int, sys.stdin.read().split())))\n"),
        _prog("k", "sums/slow.py", "import sys\nxs = sys.stdin.read().split()\nprint(len(xs))\n"),
        _prog("k", "sums/py2.py", "print 1\n", py2=True)])
    _gz(corpora / "project_euler" / "programs.jsonl.gz", [_prog("e", "p1.py", "print(sum(range(1000)))\n")])
    _gz(corpora / "rosetta" / "programs.jsonl.gz", [
        _prog("r", "A/Python/a.py", "print(1)\n", language="python"),
        _prog("r", "A/C/a.c", "int main(){}", language="c")])
    kat = [_row("kattis", "k:sums/a.py", "x/sums", input_bytes=b, memory=10 * b, validation=True)
           for b in (10, 100, 1000)]
    kat += [_row("kattis", "k:sums/slow.py", "x/sums", input_bytes=10, memory=5, validation=True),
            _row("kattis", "k:sums/slow.py", "x/sums", status="timeout", input_bytes=1000, memory=None,
                 validation=True),
            _row("kattis", "k:sums/a.py#materialize", "x/sums", input_bytes=1000, parent="k:sums/a.py")]
    _gz(data / "kattis_v2.jsonl.gz", kat)
    _gz(data / "euler_v2.jsonl.gz", [_row("euler", "e:p1.py", "1", memory=64)])
    _gz(data / "rosetta_v2.jsonl.gz", [_row("rosetta", "r:A/Python/a.py", "A", status="error", memory=None)])
    _gz(data / "kattis_v2.growth.jsonl.gz", [
        {"key": "k:sums/a.py", "n_sizes": 3, "min_bytes": 10, "max_bytes": 1000, "growth_memory": 1.0,
         "growth_latency": None},
        {"key": "k:sums/slow.py", "n_sizes": 3, "min_bytes": 10, "max_bytes": 40, "growth_memory": 2.0,
         "growth_latency": None}])   # a span of 4x: too narrow for a growth
    _gz(data / "leetcode_v2.growth.jsonl.gz", [
        {"key": "lc:f.py", "n_sizes": 3, "min_bytes": 6, "max_bytes": 100, "growth_memory": 0.5,
         "growth_latency": 1.9}])
    _gz(data / "leetcode_v1.jsonl.gz", [
        {"key": "lc:f.py", "problem_id": 7, "tier": "large", "status": "ok", "memory_bytes": 900,
         "latency_ms": 2.0, "language": "python"}])
    corpus = {"lc:f.py": {"source": "lc", "path": "f.py", "code": "def f(n):\n    return [0] * n\n",
                          "language": "python", "problem_id": 7}}
    return v4_data.load_v4_examples(leetcode_corpus=corpus, data=data, corpora=corpora)


def test_examples_carry_their_shape_value_and_growth(fake):
    by = {e.key: e for e in fake}
    # slow.py timed out on the problem's largest input (no value) and its sizes span 4x (no growth);
    # the Rosetta row is an error: neither is an example
    assert set(by) == {"lc:f.py", "k:sums/a.py", "e:p1.py"}
    f = by["lc:f.py"]
    assert f.extra["shape"] == "function" and f.values == {
        "memory": 900, "latency": 2.0, "memory_growth": 0.5, "latency_growth": 1.9}
    a = by["k:sums/a.py"]
    # valued at the problem's largest input; memory-only rows have no latency
    assert a.extra["shape"] == "stdin" and a.values["memory"] == 10000 and a.values["latency"] is None
    assert a.values["memory_growth"] == 1.0 and a.problem_id == "kattis:x/sums" and a.extra["validation"] is True
    e = by["e:p1.py"]
    assert e.extra["shape"] == "script" and e.values["memory"] == 64 and e.values["memory_growth"] is None
    assert e.extra["validation"] == dataset.is_validation("euler:1")
    assert not any("#" in e.key for e in fake)   # variants are not training programs here


def test_split_honours_an_examples_own_validation_flag(fake):
    train, val = dataset.split_by_problem(fake)
    assert "k:sums/a.py" in {e.key for e in val}
    assert {e.key for e in train} | {e.key for e in val} == {e.key for e in fake}


def test_summary_counts_per_shape(fake):
    s = v4_data.summary(fake)
    assert s["function"]["memory_growth"] == 1 and s["stdin"]["memory"] == 1 and s["script"]["examples"] == 1


def test_growth_classes_and_scores():
    assert [growth_class(x) for x in (0.1, 0.5, 1.0, 1.5, 2.2)] == ["flat", None, "linear", None, "superlinear"]
    assert growth_class_accuracy([0.0, 1.0, 2.0, 0.5], [0.1, 1.6, 2.5, 3.0]) == pytest.approx(2 / 3)
    ex = [dataset.Example(f"k{i}", str(i), "", {"memory_growth": t}) for i, t in enumerate((0.0, 1.0, 2.0))]
    rep = score(ex, {"memory_growth": {"value": [0.2, 0.9, 2.4]}}, ["memory_growth"])["memory_growth"]
    assert rep["spearman"] == pytest.approx(1.0) and rep["class_accuracy"] == 1.0
    assert rep["median_abs_error"] == pytest.approx(0.2) and "median_abs_log10_error" not in rep


def test_tiny_v4_training_run_names_shapes_and_growth(tmp_path, monkeypatch):
    from training.learning import train

    examples = []
    for i, e in enumerate(dataset.synthetic_examples(40, problems=10)):
        e.values.update(memory_growth=(i % 4) * 0.6 - 0.2 if i % 3 else None, latency_growth=None)
        e.extra["shape"] = ("function", "stdin", "script")[i % 3]
        examples.append(e)
    monkeypatch.setattr(v4_data, "load_v4_examples", lambda **kw: examples)
    common = ["--synthetic", "0", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8",
              "--eval-every", "2", "--no-progress", "--eval-max", "16", "--epochs", "1", "--max-steps", "2",
              "--v4-data", "--driver-prob", "0", "--out", str(tmp_path / "v4")]
    with pytest.raises(SystemExit, match="shaped"):
        train.train(common)
    best = train.train(common + ["--template", "shaped"])
    meta = json.loads((best / "rlm_meta.json").read_text())
    assert [m["name"] for m in meta["metrics"]] == ["memory", "latency", "memory_growth", "latency_growth"]
    # growth is written shifted (growth + 2, exponent <E0>): every number's first digit is 1-9
    assert [(m.get("offset", 0.0), m.get("exponent")) for m in meta["metrics"]] == [(0.0, None), (0.0, None),
                                                                                  (2.0, 0), (2.0, 0)]
    assert "<shape> {shape}" in meta["input_template"]
    log = [json.loads(x) for x in (tmp_path / "v4" / "train_log.jsonl").read_text().splitlines()]
    scores = log[-1]["scores"]
    assert "class_accuracy" in scores["memory_growth"] and scores["latency_growth"]["n"] == 0
    assert log[-1]["spearman_mean"] == log[-1]["spearman_mean"]   # not nan: metrics with no rows are left out
    # evaluated by shape, through the checkpoint and through the exported runtime (growth folded there)
    from rlm_lsp.export.cli import export
    from training.judging.evaluate import evaluate_dir

    val = examples[:12]
    rep = evaluate_dir(str(best), val, samples=2)
    assert set(rep["by_shape"]) == {"function", "stdin", "script"}
    assert "class_accuracy" in rep["sampled"]["memory_growth"]
    model_dir = tmp_path / "v4model"
    export(best, model_dir, int8=True)
    rep = evaluate_dir(str(model_dir), val, samples=2)
    assert rep["runtime"]["memory_growth"]["n"] == sum(e.values["memory_growth"] is not None for e in val)
    assert set(rep["by_shape"]) == {"function", "stdin", "script"}


def test_variants_of_training_programs_scale_the_parents_memory_by_the_measured_ratio(tmp_path):
    from training.measuring.mutations import mutate

    code = "def f(a):\n    return sum(x * x for x in a)\n"
    parent = dataset.Example("lc:f.py", "7", code, {"memory": 1000.0, "latency": 2.0, "memory_growth": 0.5},
                             extra={"shape": "function"})
    other = dataset.Example("lc:g.py", "8", code, {"memory": 50.0, "latency": 1.0}, extra={"shape": "function"})

    def pair(key, kind, mp, mv, same=True, input_id="a"):
        return {"parent": key, "key": f"{key}#{kind}", "mutation": kind, "source": "leetcode", "input_id": input_id,
                "same_output": same, "status_parent": "ok", "status_variant": "ok", "memory_parent": mp,
                "memory_variant": mv}

    _gz(tmp_path / "variants_v2.pairs.jsonl.gz", [
        pair("lc:f.py", "materialize", 100, 300, input_id="a"),
        pair("lc:f.py", "materialize", 100, 500, input_id="b"),
        pair("lc:f.py", "materialize", 100, 400, input_id="c"),
        pair("lc:f.py", "swap", 100, 100, same=False),          # a different output: not a variant
        pair("lc:h.py", "materialize", 100, 900),               # its parent is not a training program
        pair("lc:g.py", "nxn_table", 100, 200)])                # the engine makes no nxn_table of g
    _gz(tmp_path / "variants_v2.growth.jsonl.gz", [
        {"key": "lc:f.py#materialize", "parent": "lc:f.py", "n_sizes": 3, "min_bytes": 10, "max_bytes": 1000,
         "growth_memory": 1.0, "growth_latency": None}])
    out = v4_data.variant_examples([parent, other], data=tmp_path)
    assert [v.key for v in out] == ["lc:f.py#materialize"]
    v = out[0]
    assert v.code == mutate(code, "materialize", seed=0).code != code
    assert v.values == {"memory": 4000.0, "latency": None, "memory_growth": 1.0, "latency_growth": None}
    assert v.problem_id == "7" and v.tier == "variant" and v.extra["parent"] == "lc:f.py"
    assert v.extra["shape"] == "function"


def test_a_programs_latency_is_its_in_process_time_not_its_process_wall_time():
    timed = {"memory_only": False, "latency_ms": 95.0, "exec_ms": 3.5}
    assert v4_data._latency(timed) == 3.5
    assert v4_data._latency({**timed, "memory_only": True}) is None


def test_a_repl_transcript_is_measured_as_the_script_of_its_inputs():
    from training.measuring.sources import repl_script

    transcript = ">>> def f(n):\n...     return [0] * n\n...\n>>> f(3)\n[0, 0, 0]\n>>> x = f(10)\n"
    script = repl_script({"code": transcript})
    assert script == "def f(n):\n    return [0] * n\nf(3)\nx = f(10)\n"
    assert repl_script({"code": "x = 1\nprint(x)\n"}) is None  # a file: measured as it is
    assert repl_script({"code": "# >>> in a comment\nx = 1\n"}) is None  # parses as a file
    assert repl_script({"code": ">>> print 'hi'\nhi\n", "py2": True}) == "print('hi')\n"
    assert repl_script({"code": ">>> )(\n"}) is None  # inputs that do not parse either


def test_a_transcript_gets_a_task_and_a_code_under_its_own_key(tmp_path):
    from training.measuring import sources

    transcript = ">>> xs = [i * i for i in range(5)]\n>>> sum(xs)\n30\n"
    _gz(tmp_path / "rosetta" / "programs.jsonl.gz", [
        _prog("r", "T/Python/t.py", transcript, language="python", task="T"),
        _prog("r", "U/Python/u.py", "print(1)\n", language="python", task="U")])
    tasks = {t["row"]["key"]: t for t in sources.rosetta_tasks(tmp_path)}
    assert set(tasks) == {"r:T/Python/t.py", "r:T/Python/t.py#repl", "r:U/Python/u.py"}
    derived = tasks["r:T/Python/t.py#repl"]
    assert derived["code"] == "xs = [i * i for i in range(5)]\nsum(xs)\n" and derived["skip"] is None
    assert derived["row"]["script_of_transcript"] == "r:T/Python/t.py" and derived["row"]["problem_id"] == "T"
    assert tasks["r:T/Python/t.py"]["code"] == transcript  # the transcript's own task is unchanged
    codes = v4_data.program_codes("rosetta", tmp_path)
    assert codes["r:T/Python/t.py#repl"] == derived["code"] and "r:U/Python/u.py#repl" not in codes
