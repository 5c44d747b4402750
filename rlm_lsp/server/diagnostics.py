"""Warnings where a function's prediction exceeds its budget or grew past the
regression ratio against the committed (HEAD) version of the same function.

Published with the document version the results belong to, so a client never places them on
a newer text. The server holds a new regression warning back until the edit settles
(`Settings.settle_ms`); `data.function` names the function it is about (the quick fixes of
actions.py read it), and `codeDescription` links to the gate's docs, whose rules it follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from lsprotocol import types

from rlm_lsp.policy import rules
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.units import format_ratio, format_value
from rlm_lsp.server.analysis import FunctionResult
from rlm_lsp.server.hover import name_range
from rlm_lsp.server.settings import Settings

SOURCE = "rlm"
GATE_DOCS = "docs/gate.md"
_REPOSITORY_LABELS = ("repository", "source", "source code", "code")


def messages(r: FunctionResult, settings: Settings) -> list[tuple[str, str]]:
    """(code, message) for each breach of `r`; pure, for tests and the gate-like CLI.

    Budgets: the editor's `rlm.budgets`, else the workspace's `[tool.rlm]` ones. Regressions: the
    gate's rule (`rlm_lsp.policy.rules.judge_metric`: over the ratio and confident of it) against HEAD, at the
    editor's `rlm.regressionRatio` when set, else `[tool.rlm]`'s ratio (2.0 by default); one
    message per function naming every metric that regressed; `# rlm: allow-regression` silences it.
    A growth step (the same call's `judge_growth`: ~n to ~n², when both versions have growth) is a
    regression whatever the ratio, named in the same message."""
    out = []
    name = r.snippet.qualname
    grew = []
    for metric, p in r.predictions.items():
        if not settings.metric_enabled(metric):
            continue
        now = format_value(p.unit, p.value)
        budget = _budget(r, settings, metric, p.unit)
        if budget is not None and budget > 0 and p.value > budget:
            out.append(
                (
                    "budget",
                    f"{name}: predicted {metric} {now} exceeds the budget "
                    f"{format_value(p.unit, budget)} ({format_ratio(p.value / budget)} the budget)",
                )
            )
        limit = _ratio(r, settings, metric)
        base = (r.head or {}).get(metric) if r.head_state == "changed" else None
        level = r.project.level(metric, base, p) if r.project is not None else rules.level_for(metric, None, base, p)
        if not limit or base is None or r.allowed:
            continue
        judged = rules.judge_metric(base, p, limit, level)
        if judged.value.regressed:
            v = judged.value
            # the model's own limit only where it explains the flag (it grew by less than the ratio)
            scale = "" if v.limit is None or v.ratio >= limit else f": {format_ratio(v.limit)} on the model's scale"
            trees = "" if v.trees is None else f", code features {format_ratio(v.trees)}"
            grew.append(f"{metric} {format_value(base.unit, base.value)} at HEAD → {now} now "
                        f"({format_ratio(rules.growth(base.value, p.value))}, limit {format_ratio(limit)}{scale}{trees})")
        step = judged.growth
        if step is not None and step.regressed:  # a growth step regresses whatever the constants
            grew.append(f"{metric} growth {growth_class(step.old)} at HEAD → {growth_class(step.new)} now "
                        f"(exponent {step.old:.1f} → {step.new:.1f})")
    if grew:
        out.append(("regression", f"{name}: predicted " + "; ".join(grew)))
    return out


def _ratio(r: FunctionResult, settings: Settings, metric: str) -> float:
    if settings.regression_ratio is not None:
        return settings.regression_ratio
    return r.project.ratio(metric) if r.project is not None else rules.DEFAULT_RATIO


def _budget(r: FunctionResult, settings: Settings, metric: str, unit: str) -> float | None:
    budget = settings.budget(metric, unit)
    if budget is None and r.project is not None and metric in r.project.budgets:
        budget = r.project.budgets[metric].value
    return budget


def diagnostics(
    results: Sequence[FunctionResult], settings: Settings, client_col: Callable[[int, int], int]
) -> list[types.Diagnostic]:
    if not settings.feature_enabled("diagnostics"):
        return []
    out = []
    docs = gate_docs_url()
    for r in results:
        for code, message in messages(r, settings):
            out.append(
                types.Diagnostic(
                    range=name_range(r, client_col),
                    message=message,
                    severity=types.DiagnosticSeverity.Warning,
                    source=SOURCE,
                    code=code,
                    code_description=types.CodeDescription(href=docs) if docs else None,
                    data={"function": r.snippet.qualname},
                )
            )
    return out


@lru_cache(maxsize=1)
def gate_docs_url() -> str | None:
    """Where `docs/gate.md` is: on the project's repository (its `Repository` URL in the package
    metadata, from pyproject.toml's [project.urls]), else the file in the checkout the server runs
    from; None when neither exists (an installed wheel of a project with no public host)."""
    try:
        urls = metadata.metadata("rlm-lsp").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        urls = []
    for entry in urls:
        label, _, url = entry.partition(",")
        url = url.strip().removesuffix(".git").rstrip("/")
        if label.strip().lower() in _REPOSITORY_LABELS and url.startswith(("https://", "http://")):
            return f"{url}/blob/HEAD/{GATE_DOCS}"
    local = Path(__file__).resolve().parents[2] / GATE_DOCS
    return local.as_uri() if local.is_file() else None
