"""Quick fixes on rlm's warnings (rlm_lsp/server/actions.py), the docs link on them, the
anchored exclude glob the VS Code quick fix writes, and the status once the visible hints are in."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pygls.workspace import Workspace
from test_server_unit import SOURCE, FakePredictor

from rlm_lsp.policy import rules
from rlm_lsp.server import actions, diagnostics
from rlm_lsp.server.analysis import Analyzer, skip_reason
from rlm_lsp.server.server import RlmServer
from rlm_lsp.server.settings import Settings

HEAD = SOURCE.replace("return [0] * n", "return n")  # Box.grow grew since HEAD
GROWN = Settings(regression_ratio=1.05)


def col(line: int, char: int) -> int:
    return char


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """The text after `edits` (ASCII: characters are UTF-16 units), applied last to first."""
    lines = text.splitlines(True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def at(p: types.Position) -> int:
        return offsets[p.line] + p.character if p.line < len(lines) else len(text)

    for e in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[: at(e.range.start)] + e.new_text + text[at(e.range.end):]
    return text


def fixes(text: str, head: str = HEAD, commands=(), settings: Settings = GROWN, uri: str = "file:///w/m.py"):
    results = Analyzer(FakePredictor()).analyze(uri, text, head)
    diags = diagnostics.diagnostics(results, settings, col)
    lines = text.splitlines(True)
    return diags, actions.code_actions(uri, 3, diags, results, lines, col, commands=commands)


def edits_of(action: types.CodeAction) -> list[types.TextEdit]:
    assert action.edit is not None, action
    if action.edit.document_changes:
        [change] = action.edit.document_changes
        return list(change.edits)
    [edits] = action.edit.changes.values()
    return list(edits)


def test_allow_regression_fix_inserts_the_pragma_the_gate_and_server_read():
    diags, acts = fixes(SOURCE)
    [d] = diags
    assert d.code == "regression" and "Box.grow" in d.message
    allow, skip = acts
    assert allow.kind == types.CodeActionKind.QuickFix and allow.is_preferred and allow.diagnostics == [d]
    assert "allow this regression of Box.grow" in allow.title
    fixed = apply(SOURCE, edits_of(allow))
    assert f"class Box:\n    # rlm: allow-regression {actions.PLACEHOLDER}\n    def grow(self, n):" in fixed
    # the server's own reading: the function is allowed and the warning is gone
    grow = Analyzer(FakePredictor()).analyze("file:///w/m.py", fixed, HEAD)[1]
    assert grow.allowed == actions.PLACEHOLDER and diagnostics.messages(grow, GROWN) == []
    # the gate's reading (hooks/compare.py calls the same rules.pragma_parts): reason, no limits
    assert rules.pragma_parts(grow.snippet, rules.comments(fixed), fixed.splitlines()) == (actions.PLACEHOLDER, None)
    assert fixes(fixed)[1] == []  # nothing left to fix


def test_allow_fix_goes_above_the_decorators_and_keeps_crlf():
    text = SOURCE.replace("    def grow(self, n):", "    @staticmethod\n    def grow(self, n):").replace("\n", "\r\n")
    head = HEAD.replace("    def grow(self, n):", "    @staticmethod\n    def grow(self, n):").replace("\n", "\r\n")
    _, [allow, _] = fixes(text, head)
    [edit] = edits_of(allow)
    assert edit.range.start == types.Position(8, 0)  # the decorator's line
    assert edit.new_text == f"    # rlm: allow-regression {actions.PLACEHOLDER}\r\n"


def test_a_bare_pragma_gets_the_reason_instead_of_a_second_pragma():
    for bare in ("    # rlm: allow-regression\n    def grow(self, n):",
                 "    def grow(self, n):  # rlm: allow-regression[memory<=4x]  "):
        text = SOURCE.replace("    def grow(self, n):", bare)
        [d], [allow, _] = fixes(text)  # a pragma without a reason is ignored: the warning stands
        fixed = apply(text, edits_of(allow))
        assert fixed.count("allow-regression") == 1, fixed
        grow = Analyzer(FakePredictor()).analyze("file:///w/m.py", fixed, HEAD)[1]
        assert grow.allowed == actions.PLACEHOLDER, fixed


def test_exclude_fix_is_the_clients_command_when_it_runs_one_else_a_skip_file_line():
    diags, [_, exclude] = fixes(SOURCE, commands=("rlm.excludeFile",))
    assert exclude.edit is None and exclude.command.command == "rlm.excludeFile"
    assert exclude.command.arguments == ["file:///w/m.py"] and "m.py" in exclude.title
    _, [_, skip] = fixes(SOURCE)
    fixed = apply(SOURCE, edits_of(skip))
    assert fixed.startswith("# rlm: skip-file\nimport triton") and skip_reason(fixed) is not None
    kept = "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n" + SOURCE
    _, [_, skip] = fixes(kept, "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n" + HEAD)
    assert apply(kept, edits_of(skip)).startswith("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# rlm: skip-file\n")
    assert actions.skip_file_edit(["#!/bin/python"]).new_text == "\n# rlm: skip-file"


def test_budget_warning_gets_only_the_exclude_fix_and_other_diagnostics_none():
    diags, acts = fixes(SOURCE, head=SOURCE, settings=Settings(budgets={"memory": "1 B"}))
    assert {d.code for d in diags} == {"budget"}
    assert [a.title for a in acts] == ["rlm: skip m.py (# rlm: skip-file)"]  # one per file, not per warning
    other = types.Diagnostic(range=diags[0].range, message="x", source="ruff", code="regression")
    assert actions.code_actions("file:///w/m.py", 1, [other], [], SOURCE.splitlines(True), col) == []


def test_a_fix_for_a_function_that_moved_since_the_warning_is_not_offered():
    results = Analyzer(FakePredictor()).analyze("u", SOURCE, HEAD)
    diags = diagnostics.diagnostics(results, GROWN, col)
    moved = ["\n", *SOURCE.splitlines(True)]  # a line typed above: the cached lines are stale
    acts = actions.code_actions("u", 4, diags, results, moved, col)
    assert [a.title for a in acts] == ["rlm: skip u (# rlm: skip-file)"]


def test_versioned_edit_when_the_client_supports_document_changes():
    results = Analyzer(FakePredictor()).analyze("u", SOURCE, HEAD)
    diags = diagnostics.diagnostics(results, GROWN, col)
    [allow, _] = actions.code_actions("u", 7, diags, results, SOURCE.splitlines(True), col, versioned_edits=True)
    [change] = allow.edit.document_changes
    assert change.text_document.version == 7 and change.text_document.uri == "u"


def test_warnings_link_to_the_gate_docs():
    [d] = fixes(SOURCE)[0]
    href = d.code_description.href
    assert href.endswith("docs/gate.md"), href
    if href.startswith("file:"):  # no public repository URL in the metadata: the checkout's file
        assert Path(href.removeprefix("file://")).read_text().startswith("# rlm-gate")


def test_client_commands_come_from_the_experimental_capability():
    caps = types.ClientCapabilities(experimental={"rlm": {"commands": ["rlm.excludeFile", 3]}})
    assert actions.client_commands(caps) == ("rlm.excludeFile",)
    assert actions.client_commands(types.ClientCapabilities()) == ()
    assert actions.client_commands(None) == ()


def test_an_anchored_exclude_glob_is_that_file_of_the_folder_only():
    s = Settings(exclude=("/demo.py",))
    assert s.excluded("/w/demo.py", "/w") == "/demo.py"
    assert s.excluded("/w/sub/demo.py", "/w") is None  # unanchored `demo.py` would match it
    assert Settings(exclude=("/w/sub/demo.py",)).excluded("/w/sub/demo.py", "/w") is not None  # absolute
    assert Settings(exclude=("*/x.py",)).excluded("/w/x.py", "/w") is None  # others unchanged


def test_status_is_ready_once_the_visible_functions_are_in():
    """Many new functions land in batches, the visible ones first: the status says ready as soon as
    those are shown, not after the last batch of the rest of the file."""
    server = RlmServer()
    server.protocol._workspace = Workspace(None)
    server.analyzer = Analyzer(FakePredictor())
    uri = "file:///big.py"
    text = "".join(f"def f{i}(n):\n    return [{i}] * n\n\n\n" for i in range(200))
    server.versions[uri] = 1
    server.visible[uri] = (0, 10)  # f0..f2 on screen
    events = []
    server.report.status = lambda state, message="": events.append(state)
    server._land = lambda u, res: events.append(sum(bool(r.predictions) for r in res.functions))
    server.analyze_job(uri, (1, text))
    # batches of 8, 8 + 64 and all 200 functions; ready after the first, which holds the visible ones
    # (the Reporter drops the repeated "ready"s)
    assert events[:4] == ["working", 8, "ready", 72] and events[-2:] == ["ready", 200], events
