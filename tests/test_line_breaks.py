"""Line numbers agree with Python's tokenizer everywhere (issue #52, item 1).

`str.splitlines()` breaks at a form feed, \\x1c-\\x1e, \\x85, U+2028 and U+2029 too; Python does
not. One such character above a function used to shift the lines cut for it against its `ast`
line numbers: the gate compared the wrong code (a 69x blow-up passed as "unchanged"), `rlm
predict` scored the wrong lines and the editor put the hint on the wrong line."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from lsprotocol import types
from pygls.workspace import Workspace
from test_gate_repo import FakePredictor, repo, run_gate, stage  # noqa: F401 - `repo` is a fixture
from test_server_unit import FakePredictor as ServerFake

from rlm_lsp.app import cli
from rlm_lsp.python import snippets
from rlm_lsp.runtime.lines import split_lines, split_lines_keepends
from rlm_lsp.server import hints
from rlm_lsp.server.analysis import Analyzer
from rlm_lsp.server.server import RlmServer
from rlm_lsp.server.settings import Settings

# Each puts one extra `splitlines()` break above `def f` (line 3 for Python, 0-based 2).
ABOVE = {
    "form feed line": "X = 1\n\x0c\n",
    "U+2028 in a string": 'X = 1\nS = "a\u2028b"\n',
    "\\x85 in a comment": "X = 1\n# a\x85b\n",
    "U+2029 and \\x1c in a string": 'X = 1\nS = "\u2029\x1c"\n',
}
BODY = "def f(n):\n    return n\n"
BLOWUP = "def f(n):\n    return materialize(n)\n"


@pytest.mark.parametrize(
    ("text", "lines"),
    [("", []), ("a", ["a"]), ("a\n", ["a"]), ("a\n\n", ["a", ""]), ("a\r\nb\rc\n", ["a", "b", "c"]),
     ("\x0c\n\u2028x\x85\x1c\x1d\x1e\u2029\n", ["\x0c", "\u2028x\x85\x1c\x1d\x1e\u2029"]), ("\r", [""]),
     ("\n\r\n", ["", ""])],
)
def test_split_lines_breaks_only_at_cr_and_lf(text, lines):
    assert split_lines(text) == lines
    assert "".join(split_lines_keepends(text)) == text
    assert [line.rstrip("\r\n") for line in split_lines_keepends(text)] == lines


@pytest.mark.parametrize("above", ABOVE.values(), ids=ABOVE.keys())
def test_extract_cuts_the_lines_python_numbers(above):
    [s] = snippets.extract(above + BODY)
    assert s.code == BODY and (s.start_line, s.name_line, s.end_line, s.header_end_line) == (2, 2, 3, 2)


def test_extract_of_source_that_does_not_parse_cuts_the_same_lines():
    [s] = snippets.extract("X = (\n\x0c\ndef f(n):\n    return n\n")
    assert s.code == BODY and s.name_line == 2


@pytest.mark.parametrize("above", ABOVE.values(), ids=ABOVE.keys())
def test_gate_fails_a_blowup_below_a_line_separator(repo, capsys, above):  # noqa: F811
    from test_gate_repo import sh

    stage(repo, "a.py", above + BODY)
    sh(repo, "commit", "-qm", "a")
    stage(repo, "a.py", above + BLOWUP)
    code, out = run_gate(capsys)
    assert code == 1, out
    assert "a.py:3: f" in out and "unchanged" not in out


def test_predict_scores_the_function_on_its_own_lines(tmp_path):
    path = tmp_path / "a.py"
    path.write_text(ABOVE["form feed line"] + BLOWUP, encoding="utf-8")
    asked: list[str] = []

    class Recorder:
        config = SimpleNamespace(metric_names=["memory"], input_template="", languages=("python",))

        def predict(self, codes, language="python", context=None):
            asked.extend(codes)
            return [{} for _ in codes]

    rows = cli.predict_file(Recorder(), path)
    assert asked == [BLOWUP] and [(r["function"], r["line"]) for r in rows] == [("f", 3)]


def test_server_hint_lands_on_the_def_line():
    text = 'X = 1\nS = "\u2028"\n\x0c\ndef f(n):\n    return n\n'
    server = RlmServer()
    server.protocol._workspace = Workspace(None)
    server.analyzer = Analyzer(ServerFake())
    server.versions["file:///x.py"] = 1
    server.analyze_job("file:///x.py", (1, text))
    res = server.results["file:///x.py"]
    everything = types.Range(types.Position(0, 0), types.Position(100, 0))
    [hint] = hints.inlay_hints(res.functions, res.lines, everything, Settings(), lambda line, c: c)
    assert (hint.position.line, hint.position.character) == (3, 9)  # just after `def f(n):`


def test_lone_carriage_returns_end_lines_for_pragmas_and_kernel_text():
    from rlm_lsp.policy import rules
    from rlm_lsp.triton import kernel_input

    assert rules.comments("a = 1\r# rlm: allow-regression ok\rdef f(): pass\r# c\r") == {
        1: "# rlm: allow-regression ok", 3: "# c"}
    kernel = '@triton.jit\ndef k(x_ptr):\n    """doc"""\n    x = 1  # note\n\n\ndef launch(x):\n    k[(1,)](x)\n'
    assert kernel_input.kernel_text(kernel.replace("\n", "\r")) == kernel_input.kernel_text(kernel)
    assert kernel_input.strip_comments(kernel.replace("\n", "\r")) == kernel_input.strip_comments(kernel)
