"""textDocument/codeLens: the p10–p90 interval above each function (off by default: a line
above every function is clutter; `rlm.features.codeLens` turns it on).

`rlm likely: mem 31 MB–77 MB · time 80 ms–190 ms (p10–p90)`: the hint shows the estimate,
the lens the range the model expects. Answered from the same cached results as the hints, so
both change with the same analysis.
"""

from __future__ import annotations

from collections.abc import Sequence

from lsprotocol import types

from rlm_lsp.runtime.units import format_value
from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.words import SHORT


def title(result: FunctionResult, settings: Settings) -> str | None:
    parts = [
        f"{SHORT.get(name, name)} {format_value(p.unit, p.low)}–{format_value(p.unit, p.high)}"
        for name, p in result.predictions.items()
        if settings.metric_enabled(name)
    ]
    return "rlm likely: " + " · ".join(parts) + " (p10–p90)" if parts else None


def code_lenses(results: Sequence[FunctionResult], lines: Sequence[str], settings: Settings) -> list[types.CodeLens]:
    out = []
    for r in results:
        text = title(r, settings)
        if text is None or not still_valid(r, lines):
            continue
        line = r.snippet.start_line
        out.append(
            types.CodeLens(
                range=types.Range(types.Position(line, 0), types.Position(line, 0)),
                # An empty command id: clients show the title as text, nothing to run.
                command=types.Command(title=text, command=""),
            )
        )
    return out
