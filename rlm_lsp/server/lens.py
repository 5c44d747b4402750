"""textDocument/codeLens: the p10–p90 interval above each function.

`rlm p10–p90: memory 31 MB–77 MB · latency 80 ms–190 ms` — the hint shows the
median, the lens shows how sure the model is. Answered from the cache, like hints.
"""

from __future__ import annotations

from typing import Sequence

from lsprotocol import types

from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.settings import Settings
from rlm_lsp.units import format_value


def title(result: FunctionResult, settings: Settings) -> str | None:
    parts = [
        f"{name} {format_value(p.unit, p.low)}–{format_value(p.unit, p.high)}"
        for name, p in result.predictions.items()
        if settings.metric_enabled(name)
    ]
    return "rlm p10–p90: " + " · ".join(parts) if parts else None


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
