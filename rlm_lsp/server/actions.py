"""`textDocument/codeAction`: quick fixes on rlm's own warnings.

- On a regression warning: insert `# rlm: allow-regression <reason>` in the comment lines above
  the function (where the gate and the server both read it, `rules.pragma_parts`), with a
  placeholder reason for the user to overwrite; a pragma already there without a reason (which
  both ignore) gets the placeholder appended instead of a second pragma.
- On a regression or budget warning: stop predicting this file. A client that runs the command
  `rlm.excludeFile` (the VS Code extension says so in `experimental.rlm.commands`) adds it to the
  workspace folder's `rlm.exclude`, since only the client can write its settings; any other client
  gets a `# rlm: skip-file` line at the top of the file, which every client honours.

Pure: the handler (handlers.py) passes the cached results and the current lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types

from rlm_lsp.policy import rules
from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.diagnostics import SOURCE

PLACEHOLDER = "TODO: say why this growth is acceptable"
EXCLUDE_COMMAND = "rlm.excludeFile"
SKIP_FILE = "# rlm: skip-file"
_CODES = ("regression", "budget")
_HEADER = re.compile(r"^(#!|[ \t\f]*#.*?coding[:=])")  # shebang and encoding cookie stay first


def code_actions(
    uri: str,
    version: int | None,
    diagnostics: Sequence[types.Diagnostic],
    functions: Sequence[FunctionResult],
    lines: Sequence[str],
    client_col: Callable[[int, int], int],
    commands: Sequence[str] = (),
    versioned_edits: bool = False,
) -> list[types.CodeAction]:
    """Quick fixes for those of `diagnostics` that are rlm's; `lines` is the text they apply to
    (with line endings), `commands` the client-side commands the client says it runs."""
    out: list[types.CodeAction] = []
    excluded = False
    for d in diagnostics:
        if d.source != SOURCE or d.code not in _CODES:
            continue
        if d.code == "regression":
            r = _function(d, functions, lines)
            edit = allow_edit(r, lines, client_col) if r is not None else None
            if r is not None and edit is not None:
                out.append(types.CodeAction(
                    title=f"rlm: allow this regression of {r.snippet.qualname} (# rlm: allow-regression)",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[d],
                    is_preferred=True,
                    edit=_workspace_edit(uri, version, [edit], versioned_edits),
                ))
        if not excluded:  # one per file, whatever the number of warnings
            excluded = True
            out.append(_exclude_action(uri, version, d, lines, commands, versioned_edits))
    return out


def allow_edit(r: FunctionResult, lines: Sequence[str], client_col: Callable[[int, int], int]) -> types.TextEdit | None:
    """The edit that gives `r` an allow-regression pragma with the placeholder reason; None when
    it has a pragma with a reason already."""
    s = r.snippet
    text = "".join(lines)
    found = rules.comments(text) if "rlm:" in text else {}
    parts = rules.pragma_parts(s, found, [line.rstrip("\r\n") for line in lines])
    if parts is not None and parts[0]:
        return None
    if parts is not None:  # a bare pragma (ignored): give it the reason where it stands
        for line in _pragma_lines(s, lines):
            if _bare(found, line):
                return _append(line, lines, client_col)
    start = lines[s.start_line] if s.start_line < len(lines) else ""
    indent = start[: len(start) - len(start.lstrip(" \t"))]
    eol = _eol(start)
    return types.TextEdit(
        range=types.Range(types.Position(s.start_line, 0), types.Position(s.start_line, 0)),
        new_text=f"{indent}# rlm: allow-regression {PLACEHOLDER}{eol}",
    )


def skip_file_edit(lines: Sequence[str]) -> types.TextEdit:
    """`# rlm: skip-file` as the first line, after a shebang and an encoding cookie."""
    line = 0
    while line < min(2, len(lines)) and _HEADER.match(lines[line]):
        line += 1
    eol = _eol(lines[0]) if lines else "\n"
    if line == len(lines) and lines and not _eol(lines[-1]):  # the file ends on its header line
        return types.TextEdit(
            range=types.Range(types.Position(line - 1, len(lines[-1])), types.Position(line - 1, len(lines[-1]))),
            new_text=f"\n{SKIP_FILE}",
        )
    return types.TextEdit(
        range=types.Range(types.Position(line, 0), types.Position(line, 0)), new_text=f"{SKIP_FILE}{eol or chr(10)}"
    )


# --- helpers ---------------------------------------------------------------------------------


def _function(d: types.Diagnostic, functions: Sequence[FunctionResult], lines: Sequence[str]) -> FunctionResult | None:
    """The function the warning is about (its `data.function`, else the function named on its
    line), when its lines are still those of the current text."""
    name = str(d.data.get("function", "")) if isinstance(d.data, dict) else ""
    for r in functions:
        same = r.snippet.qualname == name if name else r.snippet.name_line == d.range.start.line
        if same and still_valid(r, lines):
            return r
    return None


def _pragma_lines(s, lines: Sequence[str]) -> list[int]:
    """Where a pragma counts (as `rules.pragma_parts` reads it): the header lines, then the block
    of comment lines directly above."""
    out = list(range(s.start_line, s.header_end_line + 1))
    above = s.start_line - 1
    while above >= 0 and lines[above].strip().startswith("#"):
        out.append(above)
        above -= 1
    return out


def _bare(found: dict[int, str], line: int) -> bool:
    match = rules.PRAGMA.search(found.get(line, ""))
    return match is not None and not match["reason"]


def _append(line: int, lines: Sequence[str], client_col: Callable[[int, int], int]) -> types.TextEdit:
    body = lines[line].rstrip("\r\n")
    end = len(body.rstrip())
    at = types.Position(line, client_col(line, end))
    return types.TextEdit(range=types.Range(at, types.Position(line, client_col(line, len(body)))),
                          new_text=f" {PLACEHOLDER}")


def _eol(line: str) -> str:
    return "\r\n" if line.endswith("\r\n") else "\n" if line.endswith(("\n", "\r")) else ""


def _exclude_action(uri: str, version: int | None, d: types.Diagnostic, lines: Sequence[str],
                    commands: Sequence[str], versioned: bool) -> types.CodeAction:
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    if EXCLUDE_COMMAND in commands:
        title = f"rlm: exclude {name} (add it to rlm.exclude)"
        return types.CodeAction(title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[d],
                                command=types.Command(title=title, command=EXCLUDE_COMMAND, arguments=[uri]))
    return types.CodeAction(
        title=f"rlm: skip {name} (# rlm: skip-file)",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[d],
        edit=_workspace_edit(uri, version, [skip_file_edit(lines)], versioned),
    )


def _workspace_edit(uri: str, version: int | None, edits: list[types.TextEdit], versioned: bool) -> types.WorkspaceEdit:
    # With the version, a client refuses the edit once the text moved on instead of misplacing it.
    if versioned and version is not None:
        doc = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
        return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(text_document=doc, edits=list(edits))])
    return types.WorkspaceEdit(changes={uri: list(edits)})


def client_commands(capabilities: Any) -> tuple[str, ...]:
    """The client-side commands a client says it runs: `experimental.rlm.commands`."""
    experimental = getattr(capabilities, "experimental", None)
    rlm = experimental.get("rlm") if isinstance(experimental, dict) else None
    commands = rlm.get("commands") if isinstance(rlm, dict) else None
    return tuple(c for c in commands if isinstance(c, str)) if isinstance(commands, list) else ()
