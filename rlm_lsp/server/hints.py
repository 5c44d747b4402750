"""textDocument/inlayHint: `≈ mem 48 MB · time 120 ms` after each def header (words.py), with
each metric's growth class after its value when the model predicts growth (`≈ mem 48 MB ~n · time 120 ms ~n²`).

On a one-line `def f(x): return ...` the hint goes to the end of the line, not between the
colon and the body.

Answers only from the results the worker has cached; it never runs the model. When
new results land the server sends workspace/inlayHint/refresh and the client asks again.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.words import PER_CALL, hint_label

PREFIX = "≈ "


def label(result: FunctionResult, settings: Settings) -> str | None:
    """`≈ mem 48 MB · time 120 ms`, or None when no enabled metric has a prediction."""
    text = hint_label(result.predictions, [m for m in result.predictions if settings.metric_enabled(m)])
    return PREFIX + text if text else None


def tooltip(result: FunctionResult) -> str:
    """What the hint is; with growth, what `~n` means."""
    text = f"rlm: predicted for {result.snippet.qualname}, {PER_CALL}"
    if any(getattr(p, "growth", None) is not None for p in result.predictions.values()):
        text += "; ~n, ~n² ...: how it grows with the input's size n"
    return text + "; hover the name for how sure the model is"


def position(result: FunctionResult, lines: Sequence[str]) -> tuple[int, int]:
    """(line, code-point column): just after the header's `:`, or the end of a one-line def."""
    s = result.snippet
    line = s.header_end_line
    text = lines[line].rstrip("\r\n") if 0 <= line < len(lines) else ""
    if s.end_line == line and text[s.header_end_col:].strip():
        return line, len(text.rstrip())
    return line, s.header_end_col


def inlay_hints(
    results: Sequence[FunctionResult],
    lines: Sequence[str],
    visible: types.Range,
    settings: Settings,
    client_col,
) -> list[types.InlayHint]:
    """Hints for the functions whose header lies in `visible`.

    `client_col(line, col)` turns a code-point column into the client's position encoding.
    """
    out = []
    for r in results:
        s = r.snippet
        if not visible.start.line <= s.header_end_line <= visible.end.line:
            continue
        text = label(r, settings)
        if text is None or not still_valid(r, lines):
            continue
        line, char = position(r, lines)
        out.append(
            types.InlayHint(
                position=types.Position(line=line, character=client_col(line, char)),
                label=text,
                padding_left=True,
                tooltip=tooltip(r),
            )
        )
    return out
