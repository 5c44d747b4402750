"""The quick fixes over stdio: the real server, a real LSP client (tests/lsp_client.py), the tiny model.

The tiny model is never confident of a regression, so the regression warning is the one a client
holds and sends back in the code action's context (as VS Code does); the budget warning is the
server's own.
"""

from __future__ import annotations

import time

import pytest
from lsp_client import LspClient, file_uri
from lsprotocol import converters, types
from test_server_actions import apply
from test_server_e2e import DEMO, repo  # noqa: F401 - the fixture

from rlm_lsp.server.actions import PLACEHOLDER

pytestmark = pytest.mark.timeout(120)
CONVERTER = converters.get_converter()


def capabilities(**extra) -> dict:
    return {
        "workspace": {"configuration": True, "inlayHint": {"refreshSupport": True},
                      "workspaceEdit": {"documentChanges": True}},
        "textDocument": {"inlayHint": {}, "publishDiagnostics": {"versionSupport": True},
                         "codeAction": {"codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}}},
        **extra,
    }


def code_actions(c: LspClient, uri: str, diagnostics: list[dict]) -> list[types.CodeAction]:
    rng = diagnostics[0]["range"]
    got = c.request("textDocument/codeAction",
                    {"textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": diagnostics}})
    return [CONVERTER.structure(a, types.CodeAction) for a in got]


def applied(text: str, action: types.CodeAction, version: int) -> str:
    [change] = action.edit.document_changes
    assert change.text_document.version == version  # a client refuses it once the text moved on
    return apply(text, list(change.edits))


def test_quick_fixes_edit_and_apply(tiny_model_dir, repo):  # noqa: F811
    settings = {"modelPath": str(tiny_model_dir), "debounceMs": 50, "settleMs": 0, "budgets": {"memory": "1 B"}}
    with LspClient(settings=settings, cwd=repo) as c:
        c.initialize(repo, capabilities=capabilities())
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        c.wait_hints(uri, 3)
        c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"])
        budget = [d for d in c.diagnostics(uri) if "Parser.parse" in d["message"]]
        assert budget[0]["codeDescription"]["href"].endswith("docs/gate.md"), budget
        regression = {**budget[0], "code": "regression", "message": "Parser.parse: predicted memory ... now"}

        # the pragma above the method, then the warning has no pragma fix left
        allow, _ = code_actions(c, uri, [regression])
        assert allow.kind == types.CodeActionKind.QuickFix and allow.is_preferred
        text = applied(DEMO, allow, 1)
        assert f"class Parser:\n    # rlm: allow-regression {PLACEHOLDER}\n    def parse(" in text
        c.change(uri, 2, text)
        c.wait_hints(uri, 3)
        moved = {**regression, "range": {"start": {"line": 9, "character": 8}, "end": {"line": 9, "character": 13}}}
        [skip] = code_actions(c, uri, [moved])
        assert skip.title == "rlm: skip demo.py (# rlm: skip-file)"

        # skip the file: the server takes its warnings and hints away
        mark = time.monotonic()
        c.change(uri, 3, applied(text, skip, 2))
        c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                   and m["params"]["uri"] == uri and not m["params"]["diagnostics"], since=mark)
        assert c.inlay_hints(uri) == []
        assert c.garbage == []


def test_a_client_that_runs_the_exclude_command_gets_it(tiny_model_dir, repo):  # noqa: F811
    settings = {"modelPath": str(tiny_model_dir), "debounceMs": 50, "budgets": {"memory": "1 B"}}
    with LspClient(settings=settings, cwd=repo) as c:
        c.initialize(repo, capabilities=capabilities(experimental={"rlm": {"commands": ["rlm.excludeFile"]}}))
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"])
        [exclude] = code_actions(c, uri, c.diagnostics(uri)[:1])
        assert exclude.edit is None and exclude.command.command == "rlm.excludeFile"
        assert list(exclude.command.arguments) == [uri]
