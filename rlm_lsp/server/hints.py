"""textDocument/inlayHint: `≈ 48 MB · 120 ms` at the end of each def header.

Answers only from the results the worker has cached; it never runs the model. When
new results land the server sends workspace/inlayHint/refresh and the client asks again.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.settings import Settings
from rlm_lsp.units import format_value

PREFIX = "≈ "
SEPARATOR = " · "


def label(result: FunctionResult, settings: Settings) -> str | None:
    """`≈ 48 MB · 120 ms`, or None when no enabled metric has a prediction."""
    parts = [format_value(p.unit, p.value) for name, p in result.predictions.items() if settings.metric_enabled(name)]
    return PREFIX + SEPARATOR.join(parts) if parts else None


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
        out.append(
            types.InlayHint(
                position=types.Position(
                    line=s.header_end_line, character=client_col(s.header_end_line, s.header_end_col)
                ),
                label=text,
                padding_left=True,
                tooltip=f"rlm: predicted for {s.qualname} (hover the name for the p10–p90 interval)",
            )
        )
    return out
