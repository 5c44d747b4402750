"""The language server on C++, Java and Go documents (issue 51, item 3), over stdio with a real
client: hints and hovers when the model reads the language; otherwise none, and one line saying why."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from lsp_client import LspClient, file_uri

pytest.importorskip("tree_sitter_cpp", reason="tree-sitter grammars are not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")
pytestmark = pytest.mark.timeout(120)

FIXTURES = Path(__file__).parent / "fixtures" / "polyglot"
CPP = (FIXTURES / "stack.cpp").read_text()


def start(model_dir, root: Path, **settings) -> LspClient:
    client = LspClient(settings={"modelPath": str(model_dir), "debounceMs": 50, **settings}, cwd=root)
    client.initialize(root)
    return client


def test_hints_and_hover_on_a_cpp_document(polyglot_model_dir, tmp_path):
    shutil.copy(FIXTURES / "stack.cpp", tmp_path / "stack.cpp")
    with start(polyglot_model_dir, tmp_path) as c:
        uri = file_uri(tmp_path / "stack.cpp")
        c.open(uri, CPP, language_id="cpp")
        hints = c.wait_hints(uri, 3)
        # just after the `{` of each body; a one-line method's at its end
        lines = CPP.splitlines()
        assert lines[5].endswith("push(int x) {") and lines[13].endswith("xs) {")
        expected = [(5, len(lines[5])), (8, len(lines[8])), (13, len(lines[13]))]
        assert [(h["position"]["line"], h["position"]["character"]) for h in hints] == expected
        assert all(h["label"].startswith("≈ mem ") for h in hints), hints
        hover = c.hover(uri, 13, 12)  # on "sum_squares"
        assert "**sum_squares**" in hover["contents"]["value"]
        assert hover["range"] == {"start": {"line": 13, "character": 10}, "end": {"line": 13, "character": 21}}


def test_java_and_go_documents_by_their_language_id(polyglot_model_dir, tmp_path):
    with start(polyglot_model_dir, tmp_path) as c:
        for name, language_id, count in (("Stack.java", "java", 2), ("stack.go", "go", 2)):
            uri = file_uri(tmp_path / name)
            c.open(uri, (FIXTURES / name).read_text(), language_id=language_id)
            assert len(c.wait_hints(uri, count)) == count


def test_a_model_that_reads_python_only_says_so_once_and_gives_no_hints(tiny_model_dir, tmp_path):
    with start(tiny_model_dir, tmp_path, showNotifications="always") as c:
        uri = file_uri(tmp_path / "stack.cpp")
        c.open(uri, CPP, language_id="cpp")
        for version in range(2, 6):  # keystrokes: no second message
            c.change(uri, version, CPP + "\n" * version)
            time.sleep(0.1)
        py = file_uri(tmp_path / "a.py")
        c.open(py, "def f(n):\n    return [0] * n\n")
        assert len(c.wait_hints(py, 1)) == 1  # the same server still serves Python
        assert c.inlay_hints(uri) == []
        said = [m["params"]["message"] for m in c.messages("window/showMessage")
                if "C++" in m["params"]["message"]]
        assert len(said) == 1, said
        assert said[0].startswith("rlm: no hints for C++ files: the model tiny-test-0 reads Python only")
        assert "rlm.modelPath" in said[0] and m_type(c, said[0]) == 3  # Info, not an error


def m_type(c: LspClient, message: str) -> int:
    return next(m["params"]["type"] for m in c.messages("window/showMessage") if m["params"]["message"] == message)
