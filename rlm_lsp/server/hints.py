"""textDocument/inlayHint: `≈ mem 48 MB · time 120 ms` after each def header (words.py); when the
model predicts growth each metric leads with its class, then its value at the function's n
(curves.choose_n), said once at the end: `≈ mem ~n 48 MB · time ~n² 1.2 s @ n=10⁵`. A model
that reads n was asked at that n by the Analyzer: the value is its own there, never moved.

On a one-line `def f(x): return ...` the hint goes to the end of the line, not between the
colon and the body.

Answers only from the results the worker has cached; it never runs the model. When
new results land the server sends workspace/inlayHint/refresh and the client asks again.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from rlm_lsp.runtime.sizes import format_n
from rlm_lsp.server import curves
from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.unsure import FIXED, UsualSpread
from rlm_lsp.server.words import PER_CALL, hint_label

PREFIX = "≈ "


def label(result: FunctionResult, settings: Settings, lines: Sequence[str] = (),
          usual: UsualSpread = FIXED) -> str | None:
    """`≈ mem 48 MB · time 120 ms`, `≈ mem ~n 48 MB · time ~n² 1.2 s @ n=10⁵`, or None when no
    enabled metric has a prediction. `lines`: the document's, for a `# rlm: n=` comment."""
    shown = [m for m in result.predictions if settings.metric_enabled(m)]
    if not curves.sized(result.predictions):
        text = hint_label(result.predictions, shown, usual)
        return PREFIX + text if text else None
    at_n = curves.moved(result.predictions, curves.choose_n(result, lines, settings).n)
    text = hint_label(at_n, shown, usual, judged=result.predictions)
    n = curves.shown_n({m: at_n[m] for m in shown})
    return PREFIX + text + (f" @ n={format_n(n)}" if n else "") if text else None


def tooltip(result: FunctionResult, unsized: str = PER_CALL) -> str:
    """What the hint is (`unsized`: what a number without n is for, `sizes.per_call`); with growth,
    what `~n` and `@ n=` mean."""
    if not curves.sized(result.predictions) and not any(getattr(p, "growth", None) is not None
                                                         for p in result.predictions.values()):
        return f"rlm: predicted for {result.snippet.qualname}, {unsized}; hover the name for how sure the model is"
    return (f"rlm: predicted for {result.snippet.qualname}: ~n, ~n² ...: how it grows with the input's size n; "
            "then its value at that n (set by a `# rlm: n=10**6` comment above the function, the rlm.n "
            "setting or the model's own); `?`: wider than the model's usual spread; hover the name for the curve")


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
    usual: UsualSpread = FIXED,
    unsized: str = PER_CALL,
) -> list[types.InlayHint]:
    """Hints for the functions whose header lies in `visible` (`unsized`: the tooltip's `sizes.per_call`).

    `client_col(line, col)` turns a code-point column into the client's position encoding.
    """
    out = []
    for r in results:
        s = r.snippet
        if not visible.start.line <= s.header_end_line <= visible.end.line:
            continue
        if not still_valid(r, lines):
            continue
        text = label(r, settings, lines, usual)
        if text is None:
            continue
        line, char = position(r, lines)
        out.append(
            types.InlayHint(
                position=types.Position(line=line, character=client_col(line, char)),
                label=text,
                padding_left=True,
                tooltip=tooltip(r, unsized),
            )
        )
    return out
