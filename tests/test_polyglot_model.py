"""Issue 51, item 2: C++/Java/Go training rows, the per-language evaluation, the shared code counts and
the polyglot judge's rule."""
from __future__ import annotations

import gzip
import json

import numpy as np
import pytest

pytest.importorskip("tree_sitter", reason="tree-sitter is not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")

from training.judging import evaluate, polyglot_judge  # noqa: E402
from training.judging.code_counts import NAMES, counts  # noqa: E402
from training.learning import dataset, polyglot_data  # noqa: E402

CPP = """#include <vector>
class Solution {
public:
    // the answer
    int twice(vector<int>& a) {
        return helper(a) * 2;
    }
    int helper(vector<int>& a) { return a.size(); }
};
"""
GO = "package main\n\nfunc twice(a []int) int {\n\t// twice\n\treturn len(a) * 2\n}\n"


def _row(key, language, rung="1", status="ok", memory=4096.0, latency=1.5, correct=True, pid=7):
    return {"key": key, "language": language, "rung": rung, "status": status, "correct": correct,
            "memory_bytes": memory, "latency_ms": latency, "problem_id": pid, "source": f"leetcode-{language}"}


@pytest.fixture
def polyglot_files(tmp_path):
    corpus = tmp_path / "solutions.jsonl.gz"
    with gzip.open(corpus, "wt") as f:
        f.write(json.dumps({"source": "doocs", "path": "a/Solution.cpp", "language": "cpp", "code": CPP}) + "\n")
        f.write(json.dumps({"source": "doocs", "path": "b/solution.go", "language": "go", "code": GO}) + "\n")
        f.write(json.dumps({"source": "doocs", "path": "c/Solution.cpp", "language": "cpp",
                            "code": "// nothing but a comment\n"}) + "\n")
    rows = [
        _row("doocs:a/Solution.cpp", "cpp", rung="1/16", memory=1.0),  # another rung: not the target
        _row("doocs:a/Solution.cpp", "cpp", memory=8192.0, latency=2.0),
        _row("doocs:a/Solution.cpp", "cpp", memory=4096.0, latency=4.0),  # measured twice: the median
        _row("doocs:b/solution.go", "go", memory=0.0, latency=3.0),  # no memory above the empty program
        _row("doocs:b/solution.go", "go", status="timeout"),
        _row("doocs:c/Solution.cpp", "cpp"),  # no function to read
        _row("doocs:d/Solution.cpp", "cpp", correct=False),
    ]
    data = tmp_path / "leetcode_x.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(data), str(corpus)


def test_rung_one_rows_become_normalised_functions(polyglot_files):
    data, corpus = polyglot_files
    stats: dict = {}
    examples = polyglot_data.load_examples([data], corpus=corpus, stats=stats)
    by_key = {e.key: e for e in examples}
    assert sorted(by_key) == ["doocs:a/Solution.cpp", "doocs:b/solution.go"]
    cpp = by_key["doocs:a/Solution.cpp"]
    assert cpp.language == "cpp" and cpp.problem_id == "7" and cpp.tier == "large"
    assert cpp.values == {"memory": 6144.0, "latency": 3.0}
    # both methods, in order, without the comment, the class or the include
    assert cpp.code == ("int twice(vector<int>& a) {\nreturn helper(a) * 2;\n}\n"
                        "int helper(vector<int>& a) { return a.size(); }\n")
    go = by_key["doocs:b/solution.go"]
    assert go.values == {"memory": None, "latency": 3.0}
    assert "//" not in go.code and go.code.startswith("func twice(a []int) int {")
    assert stats == {"cpp": 1, "go": 1, "cpp_no_code": 1}


def test_staged_texts_read_as_the_corpus_without_it(polyglot_files, tmp_path):
    data, corpus = polyglot_files
    staged = tmp_path / "texts.jsonl.gz"
    assert polyglot_data.main([data, "--stage-texts", str(staged), "--corpus", corpus]) == 0
    # every usable program of the data, the one without a function (c) too, its text null
    rows = {r["key"]: r for r in dataset.read_jsonl([str(staged)])}
    assert sorted(rows) == ["doocs:a/Solution.cpp", "doocs:b/solution.go", "doocs:c/Solution.cpp"]
    assert rows["doocs:c/Solution.cpp"]["text"] is None and rows["doocs:b/solution.go"]["language"] == "go"
    from_corpus, from_staged = {}, {}
    want = polyglot_data.load_examples([data], corpus=corpus, stats=from_corpus)
    got = polyglot_data.load_examples([data], corpus=str(tmp_path / "absent.jsonl.gz"), stats=from_staged,
                                      texts=str(staged))
    assert [(e.key, e.code, e.values) for e in got] == [(e.key, e.code, e.values) for e in want]
    assert from_staged == from_corpus


def test_a_program_missing_from_the_staged_texts_stops_training(polyglot_files, tmp_path):
    import argparse

    from training.learning import train_data

    data, corpus = polyglot_files
    staged = tmp_path / "texts.jsonl.gz"
    polyglot_data.stage_texts([data], str(staged), corpus=corpus)
    with open(data, "a") as f:  # a program measured after staging
        f.write(json.dumps(_row("doocs:e/Solution.cpp", "cpp")) + "\n")
    with pytest.raises(ValueError, match="not in .*stage the texts again"):
        polyglot_data.load_examples([data], corpus=corpus, texts=str(staged))
    args = argparse.Namespace(synthetic=0, corpus=corpus, data=[], tiers="large", polyglot_data=[data],
                              polyglot_languages="cpp,go", polyglot_texts=str(staged))
    with pytest.raises(SystemExit, match="^polyglot data: 1 programs"):
        train_data._load_data(args)


def test_evaluate_reads_each_language_as_its_own(polyglot_files):
    from tokenizers import Tokenizer, models, pre_tokenizers

    from rlm_lsp.runtime.template import SIZED_TEMPLATE

    tok = Tokenizer(models.WordLevel({"<unk>": 0, "</s>": 1}, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    meta = {"input_template": SIZED_TEMPLATE, "max_input_tokens": 64, "preprocess": "none"}
    seen = []
    original = evaluate.render
    evaluate.render = lambda template, metrics, language, code, **kw: seen.append(language) or code
    try:
        evaluate.encode_inputs(tok, meta, ["a", "b", "c"], ["memory"], ["python", "cpp", "go"])
        evaluate.encode_inputs(tok, meta, ["a"], ["memory"], "java")
    finally:
        evaluate.render = original
    assert seen == ["python", "cpp", "go", "java"]


def test_scores_by_language(tmp_path):
    examples = [dataset.Example(key=f"k{i}", problem_id=str(i), code="x", values={"memory": float(i + 1)},
                                language="cpp" if i % 2 else "go") for i in range(8)]
    good = [float(i + 1) for i in range(8)]
    preds = {"runtime": {"memory": {"value": [v if e.language == "cpp" else -v for v, e in zip(good, examples)]}}}
    out = evaluate.score_by_language(examples, preds, ["memory"])["by_language"]
    assert out["cpp"]["runtime"]["memory"]["spearman"] == 1.0
    assert out["go"]["runtime"]["memory"]["spearman"] == -1.0
    path = tmp_path / "p.jsonl"
    evaluate.write_predictions(examples, preds, ["memory"], str(path))
    first = json.loads(path.read_text().splitlines()[0])
    assert first == {"key": "k0", "language": "go", "problem_id": "0", "memory": 1.0, "memory_pred": -1.0}


def test_code_counts_mean_the_same_in_every_language():
    cpp = "int f(int n) {\nvector<int> a(n);\nfor (int i = 0; i < n; ++i) {\nfor (int j = 0; j < i; ++j) {\n" \
          "a[i] += f(j);\n}\n}\nsort(a.begin(), a.end());\nreturn a[0];\n}\n"
    go = "func f(n int) int {\na := make([]int, n)\nfor i := 0; i < n; i++ {\nfor j := 0; j < i; j++ {\n" \
         "a[i] += f(j)\n}\n}\nsort.Ints(a)\nreturn a[0]\n}\n"
    java = "int f(int n) {\nint[] a = new int[n];\nfor (int i = 0; i < n; ++i) {\nfor (int j = 0; j < i; ++j) {\n" \
           "a[i] += f(j);\n}\n}\nArrays.sort(a);\nreturn a[0];\n}\n"
    for language, text in (("cpp", cpp), ("go", go), ("java", java)):
        row = dict(zip(NAMES, counts(text, language)))
        assert (row["loops"], row["loop_depth"], row["recursion"], row["sorts"], row["returns"]) == (2, 2, 1, 1, 1), \
            language
        assert row["subscripts"] == 2 and row["lines"] == 10, language
    flat = dict(zip(NAMES, counts("int g(int n) {\nreturn n;\n}\n", "cpp")))
    assert flat["loops"] == flat["loop_depth"] == flat["recursion"] == 0


def test_bootstrap_keeps_a_problems_rows_together():
    problems = np.array(["a", "a", "b", "b", "c", "c"])
    true = np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    boot = polyglot_judge.bootstrap(problems, true, {"same": true.copy(), "reversed": -true}, n=50)
    assert np.allclose(boot["same"], 1.0) and np.allclose(boot["reversed"], -1.0)


def _cell(candidate, minus_baseline, problems=60, minus_default=None, sd=0.01):
    cell = {"candidate": candidate, "minus_baseline": minus_baseline, "problems": problems}
    if minus_default is not None:
        cell.update(minus_default=minus_default, minus_default_sd=sd)
    return cell


def test_verdict_is_the_written_rule():
    report = {lang: {"memory": _cell(0.75, 0.06), "latency": _cell(0.65, 0.05)} for lang in ("cpp", "go", "java")}
    report["python"] = {"memory": _cell(0.68, 0.0, minus_default=-0.015), "latency": _cell(0.48, 0.0, minus_default=0.0)}
    assert polyglot_judge.verdict(report)["adopted"] is True
    report["go"]["latency"] = _cell(0.65, 0.04)  # not 0.05 above the baseline
    report["java"]["memory"] = _cell(0.75, 0.06, problems=12)
    report["python"]["memory"] = _cell(0.66, 0.0, minus_default=-0.025)  # worse than 2 SD of the difference
    v = polyglot_judge.verdict(report)
    assert v == {"cpp": True, "go": False, "java": "too few validation problems", "python": False, "adopted": False}
