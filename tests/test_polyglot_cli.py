"""`rlm predict` on C++, Java and Go files and --jsonl rows (issue 51, item 3): one row per function
or method through the same Predictor as Python, and one clear line when the model does not read
the language. The tiny model's numbers are random: rows, lines and languages are asserted, not values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tree_sitter_cpp", reason="tree-sitter grammars are not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")
pytest.importorskip("tree_sitter_java", reason="tree-sitter grammars are not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")
pytest.importorskip("tree_sitter_go", reason="tree-sitter grammars are not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")

FIXTURES = Path(__file__).parent / "fixtures" / "polyglot"
EXPECTED = {  # file -> [(function, line, kind)]
    "stack.cpp": [("Stack.push", 6, "method"), ("Stack.size", 9, "method"), ("sum_squares", 14, "function")],
    "Stack.java": [("Stack.push", 6, "method"), ("Stack.sumSquares", 10, "method")],
    "stack.go": [("Stack.Push", 6, "method"), ("SumSquares", 10, "function")],
}
LANGUAGE = {"stack.cpp": "cpp", "Stack.java": "java", "stack.go": "go"}


def rlm(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_predict_gives_one_row_per_function_with_its_language(polyglot_model_dir, name):
    out = rlm("predict", str(FIXTURES / name), "--json", "--model", str(polyglot_model_dir))
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["function"], r["line"], r["kind"]) for r in rows] == EXPECTED[name]
    for row in rows:
        assert row["language"] == LANGUAGE[name] and row["file"].endswith(name)
        assert row["memory"]["unit"] == "bytes" and row["memory"]["value"] > 0
        assert row["memory"]["low"] <= row["memory"]["value"] <= row["memory"]["high"]


def test_the_table_and_python_rows_together(polyglot_model_dir, tmp_path):
    (tmp_path / "a.py").write_text("def f(n):\n    return [0] * n\n")
    out = rlm("predict", str(tmp_path / "a.py"), str(FIXTURES / "stack.go"), "--model", str(polyglot_model_dir))
    assert out.returncode == 0, out.stderr
    assert "a.py:1" in out.stdout and "stack.go:6" in out.stdout and "Stack.Push" in out.stdout
    rows = json.loads(rlm("predict", str(tmp_path / "a.py"), "--json", "--model", str(polyglot_model_dir)).stdout)
    assert rows[0]["language"] == "python"


def test_a_language_the_model_does_not_read_is_one_line_and_exit_2(tiny_model_dir, tmp_path):
    (tmp_path / "a.py").write_text("def f(n):\n    return [0] * n\n")
    out = rlm("predict", str(FIXTURES / "stack.cpp"), str(tmp_path / "a.py"), "--model", str(tiny_model_dir))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    [line] = out.stderr.splitlines()
    assert line.startswith(f"rlm: {FIXTURES / 'stack.cpp'}: the model tiny-test-0 reads Python only, not C++")
    assert "--model" in line and '"languages" must include "cpp"' in line
    assert "a.py:1" in out.stdout  # the Python file is still scored
    assert "sum_squares" not in out.stdout  # and no number is made up for the C++ one


def test_jsonl_rows_in_other_languages(polyglot_model_dir, tiny_model_dir):
    cpp = (FIXTURES / "stack.cpp").read_text().split("long long", 1)[1]
    rows = [{"id": "c", "code": "long long" + cpp, "language": "cpp"},
            {"id": "j", "code": "int twice(int x) { return 2 * x; }", "language": "java"},
            {"id": "g", "code": "func twice(x int) int { return 2 * x }", "language": "go"},
            {"id": "p", "code": "def f(n):\n    return n\n"}]
    stdin = "\n".join(json.dumps(r) for r in rows) + "\n"
    out = rlm("predict", "--jsonl", "-", "--model", str(polyglot_model_dir), stdin=stdin)
    assert out.returncode == 0, out.stderr
    got = {g["id"]: g for g in map(json.loads, out.stdout.splitlines())}
    assert {k: g["language"] for k, g in got.items()} == {"c": "cpp", "j": "java", "g": "go", "p": "python"}
    assert all(g["memory"]["value"] > 0 and "error" not in g for g in got.values())
    # a model that reads Python only: an error row naming it, not a number
    out = rlm("predict", "--jsonl", "-", "--model", str(tiny_model_dir), stdin=stdin)
    got = {g["id"]: g for g in map(json.loads, out.stdout.splitlines())}
    assert "unknown language 'cpp'" in got["c"]["error"] and "tiny-test-0" in got["c"]["error"]
    assert "memory" not in got["c"] and "memory" in got["p"]


def test_the_model_reads_the_normalised_function(polyglot_model_dir):
    """The text the Predictor renders for C++ is `normalise(text, "cpp")` of the function, in the
    model's template, with no Python preprocessing: the input the multilingual model is trained on."""
    from rlm_lsp.polyglot.functions import normalise
    from rlm_lsp.runtime.predictor import Predictor

    pred = Predictor.from_dir(polyglot_model_dir)
    code = "int f(int n) {  // the size\n    return n * 2;   /* doubled */\n}"
    text = pred.render(code, "cpp")
    assert "<lang> cpp" in text and text.endswith(normalise(code, "cpp"))
    assert "//" not in text and "doubled" not in text
    # comments and layout are not a different input: one cache entry, one number
    [a, b] = pred.predict([code, "int f(int   n) {\n\n        return n * 2;\n}"], "cpp")
    assert a["memory"].value == b["memory"].value
