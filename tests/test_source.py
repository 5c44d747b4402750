"""One parse per version of a file (issue #60, item 6): the readers of a Python file (its functions,
their file names and helpers, the canonical names, the pragmas, the script shape, the parse error)
share one `rlm_lsp.python.source.Source`, made once by the server per document version, by `rlm
predict` per file and by the gate per version it compares. Counted, not timed."""

from __future__ import annotations

import ast
from types import SimpleNamespace

import pytest
from pygls.workspace import Workspace
from test_server_unit import FakePredictor

from hooks import compare, languages
from rlm_lsp.app import cli
from rlm_lsp.policy import rules
from rlm_lsp.python import snippets, source
from rlm_lsp.server.analysis import Analyzer
from rlm_lsp.server.server import RlmServer

HEAD = """def helper(xs):
    return sorted(xs)


def total(xs):
    return sum(helper(xs))
"""
# `total` changed; `helper2` is `helper` renamed (the canonical names say so); a pragma on `total`
TEXT = """def helper2(xs):
    return sorted(xs)


# rlm: allow-regression it is fine
def total(xs):
    out = 0
    for x in helper2(xs):
        out += x * x
    return out


class Box:
    def grow(self, n):
        return [0] * n
"""


@pytest.fixture
def parses(monkeypatch):
    """Text -> how many times `ast.parse` was asked to parse it whole."""
    counts: dict[str, int] = {}
    real = ast.parse

    def counting(text, *args, **kwargs):
        counts[text] = counts.get(text, 0) + 1
        return real(text, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    return counts


def test_server_parses_a_document_version_once(parses):
    server = RlmServer()
    server.protocol._workspace = Workspace(None)
    server.analyzer = Analyzer(FakePredictor())
    server.head = SimpleNamespace(text=lambda path: HEAD)
    server.versions["file:///x.py"] = 1
    server.analyze_job("file:///x.py", (1, TEXT))
    results = {r.snippet.qualname: r for r in server.results["file:///x.py"].functions}
    # every reader ran: functions with helpers, canonical names (a rename is "same"), the pragma
    assert results["helper2"].head_state == "same" and results["total"].head_state == "changed"
    assert results["total"].allowed == "it is fine" and "helper2" in results["total"].snippet.helpers
    assert parses[TEXT] == 1 and parses[HEAD] == 1
    server.versions["file:///x.py"] = 2
    server.analyze_job("file:///x.py", (2, TEXT))  # a new version; HEAD is remembered
    assert parses[TEXT] == 2 and parses[HEAD] == 1


def test_rlm_predict_parses_a_file_once(parses, tmp_path):
    path = tmp_path / "x.py"
    path.write_text(TEXT + "\nprint(total([1, 2]))\n")

    class Recorder:
        config = SimpleNamespace(metric_names=["memory"], input_template="", languages=("python",))

        def predict(self, codes, language="python", context=None):
            return [{} for _ in codes]

    notes: list[str] = []
    rows = cli.predict_file(Recorder(), path, notes)
    assert [r["function"] for r in rows] == ["helper2", "total", "Box.grow"]
    assert any("runs as a script" in n for n in notes)  # the shape read the tree too
    assert parses[path.read_text()] == 1


def test_gate_parses_a_version_once(parses):
    found, why = languages.functions_of("x.py", TEXT.encode(), 10_000_000)
    assert why is None and [f.snippet.qualname for f in found] == ["helper2", "total", "Box.grow"]
    assert found[1].pragma == "it is fine"
    assert parses[TEXT] == 1


def test_text_entry_points_read_as_the_parsed_source():
    parsed = source.parse(TEXT)
    assert snippets.extract(TEXT) == snippets.extract(parsed)
    assert rules.file_names(TEXT) == rules.file_names(parsed) == frozenset({"helper2", "total", "Box", "grow"})
    assert rules.comments(TEXT) == rules.comments(parsed) == {4: "# rlm: allow-regression it is fine"}
    assert cli.parse_error(TEXT) is None and cli.parse_error("def f(:\n") == "1: does not parse (invalid syntax)"
    with pytest.raises(SyntaxError):
        compare.parse_functions("x.py", "def f(:\n")


def test_a_lone_surrogate_keeps_its_lines_and_is_parsed_as_u_fffd():
    text = 'S = "\ud800"\n\n\ndef f(n):\n    return S\n'
    parsed = source.parse(text)
    assert parsed.tree is not None and parsed.lines[0] == 'S = "\ud800"' and parsed.clean_lines[0] == 'S = "\ufffd"'
    [s] = snippets.extract(parsed)
    assert (s.qualname, s.name_line, s.outside) == ("f", 3, "S=v")
