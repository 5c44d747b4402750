"""Warnings where a function's prediction exceeds its budget or grew past the
regression ratio against the committed (HEAD) version of the same function.

Published by the worker with the document version the results belong to, so a
client never places them on a newer text.
"""

from __future__ import annotations

from typing import Callable, Sequence

from lsprotocol import types

from rlm_lsp.server.analysis import FunctionResult
from rlm_lsp.server.hover import name_range
from rlm_lsp.server.settings import Settings
from rlm_lsp.units import format_ratio, format_value

SOURCE = "rlm"


def messages(r: FunctionResult, settings: Settings) -> list[tuple[str, str]]:
    """(code, message) for each breach of `r`; pure, for tests and the gate-like CLI."""
    out = []
    name = r.snippet.qualname
    for metric, p in r.predictions.items():
        if not settings.metric_enabled(metric):
            continue
        now = format_value(p.unit, p.value)
        budget = settings.budget(metric, p.unit)
        if budget is not None and budget > 0 and p.value > budget:
            out.append(
                (
                    "budget",
                    f"{name}: predicted {metric} {now} exceeds the budget "
                    f"{format_value(p.unit, budget)} ({format_ratio(p.value / budget)} the budget)",
                )
            )
        limit = settings.regression_ratio
        base = (r.head or {}).get(metric) if r.head_state == "changed" else None
        if limit and base is not None and base.value > 0 and p.value / base.value > limit:
            out.append(
                (
                    "regression",
                    f"{name}: predicted {metric} grew {format_ratio(p.value / base.value)} against HEAD: "
                    f"{now} now, {format_value(base.unit, base.value)} at HEAD "
                    f"(limit {format_ratio(limit)})",
                )
            )
    return out


def diagnostics(
    results: Sequence[FunctionResult], settings: Settings, client_col: Callable[[int, int], int]
) -> list[types.Diagnostic]:
    if not settings.feature_enabled("diagnostics"):
        return []
    out = []
    for r in results:
        for code, message in messages(r, settings):
            out.append(
                types.Diagnostic(
                    range=name_range(r, client_col),
                    message=message,
                    severity=types.DiagnosticSeverity.Warning,
                    source=SOURCE,
                    code=code,
                )
            )
    return out
