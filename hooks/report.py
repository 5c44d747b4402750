"""The gate's verdict as text lines, a JSON document or a Markdown comment.

Text is what pre-commit shows: one actionable line per problem
(`path:line: func(): predicted peak memory 12 MB → 96 MB (8.0×) exceeds 2.0×`), one per
note (skipped files, unreadable versions), then a one-line summary. JSON and Markdown carry
the same facts plus every checked function, for a CI job to store or post on a pull request.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from rlm_lsp.gate.compare import Finding, Matching
from rlm_lsp.prediction import growth_class
from rlm_lsp.project_config import GateConfig
from rlm_lsp.units import format_value

REPORT_VERSION = 1
METRIC_LABELS = {"memory": "peak memory", "latency": "latency", "kernel_latency": "kernel latency"}


@dataclass(frozen=True)
class Note:
    path: str
    message: str


@dataclass
class GateResult:
    config: GateConfig
    base: str  # what was compared: "HEAD", a ref, ...
    head: str  # "index", "working tree", a ref
    findings: list[Finding] = field(default_factory=list)
    matching: Matching | None = None
    notes: list[Note] = field(default_factory=list)
    files: int = 0  # files whose functions were compared
    predictions: dict[str, dict[str, Any]] = field(default_factory=dict)  # code -> metric -> Prediction
    metrics: list[str] = field(default_factory=list)  # the metrics judged
    model: str | None = None  # model version, when one was loaded
    error: str | None = None  # why the gate could not judge (model, git, config)
    fail_open: bool = False  # the error is a model failure that --fail-open lets through

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]

    @property
    def allowed(self) -> list[Finding]:
        return [f for f in self.findings if not f.failed]

    @property
    def unjudged(self) -> int:
        """Files skipped with a note: binary, undecodable, a syntax error, too large, unreadable."""
        return sum(1 for n in self.notes if n.message.startswith("skipped"))

    @property
    def passed(self) -> bool:
        if self.config.fail_unjudged and self.unjudged:
            return False
        return not self.failures and (self.error is None or self.fail_open)


def metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric.replace("_", " "))


def format_ratio(ratio: float | None) -> str:
    if ratio is None:
        return "?"
    if math.isinf(ratio):
        return "∞×"
    if ratio >= 10_000:
        return ">10000×"
    return f"{ratio:.1f}×" if ratio < 100 else f"{ratio:.0f}×"


def function_label(finding: Finding) -> str:
    suffix = " (new)" if finding.change == "added" else ""
    return f"{finding.qualname}(){suffix}"


def finding_line(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}: {function_label(finding)}: predicted {metric_label(finding.metric)}"
    new = format_value(finding.unit, finding.new)
    if finding.rule == "growth":
        old, grown = finding.old or 0.0, finding.new
        text = (f"{where} growth {growth_class(old)} → {growth_class(grown)} (exponent {old:.1f} → {grown:.1f}), "
                f"a step of {grown - old:.1f} (limit {finding.limit:g})")
    elif finding.rule == "ratio":
        old = format_value(finding.unit, finding.old or 0.0)
        text = f"{where} {old} → {new} ({format_ratio(finding.ratio)}) exceeds {format_ratio(finding.limit)}"
        if finding.scaled is not None and (finding.ratio or 0.0) < finding.limit:  # only where it explains the flag
            text += f" ({format_ratio(finding.scaled)} on the model's scale)"
        if finding.trees is not None:
            text += f"; the code's features agree ({format_ratio(finding.trees)})"
    else:
        text = f"{where} {new} exceeds budget {format_value(finding.unit, finding.limit)}"
    if finding.allowed is not None:
        text += f"; allowed by pragma: {finding.allowed}"
    return text


def summary(result: GateResult) -> str:
    m = result.matching
    if result.error is not None:
        if result.fail_open:
            return f"rlm-gate: WARNING: not checked, passing because of --fail-open: {result.error}"
        return f"rlm-gate: FAILED: {result.error}"
    changed = len(m.changed) if m else 0
    extras = []
    if m and m.unchanged:
        extras.append(f"{m.unchanged} unchanged after normalizing")
    if m and m.renamed:
        extras.append(f"{len(m.renamed)} renamed only")
    allowed = len({(f.path, f.line) for f in result.allowed})
    if allowed:
        extras.append(f"{allowed} allowed by pragma")
    skipped = result.unjudged
    if skipped and not result.config.fail_unjudged:
        extras.append(f"{skipped} file{'s' * (skipped != 1)} skipped")
    tail = f" ({'; '.join(extras)})" if extras else ""
    scope = f"{changed} changed function{'s' * (changed != 1)} in {result.files} file{'s' * (result.files != 1)}"
    failures = result.failures
    if skipped and result.config.fail_unjudged:
        head = f"{skipped} file{'s' * (skipped != 1)} not judged (fail-unjudged)"
        if failures:
            head += f", {len(failures)} predicted regression{'s' * (len(failures) != 1)}"
        return f"rlm-gate: FAILED: {head}: {scope}{tail}"
    if failures:
        funcs = len({(f.path, f.line) for f in failures})
        return (
            f"rlm-gate: FAILED: {len(failures)} predicted regression{'s' * (len(failures) != 1)} "
            f"in {funcs} of {scope}{tail}"
        )
    return f"rlm-gate: passed: {scope}, no predicted regression{tail}"


def text(result: GateResult, verbose: bool = False) -> str:
    lines = [finding_line(f) for f in result.findings]
    lines += [f"{n.path}: {n.message}" for n in result.notes]
    if verbose and result.matching is not None:
        for change in result.matching.changed:
            lines.append(f"{change.path}:{change.new.line}: {change.new.qualname}(): checked ({change.kind})")
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def to_dict(result: GateResult) -> dict[str, Any]:
    functions = []
    if result.matching is not None:
        for change in result.matching.changed:
            new_pred = result.predictions.get(change.new.snippet.code, {})
            old_pred = result.predictions.get(change.old.snippet.code, {}) if change.old else {}
            functions.append(
                {
                    "path": change.path,
                    "line": change.new.line,
                    "qualname": change.new.qualname,
                    "change": change.kind,
                    "old_path": change.old.path if change.old else None,
                    "old_qualname": change.old.qualname if change.old else None,
                    "pragma": change.new.pragma or None,
                    "predictions": {
                        metric: {
                            "unit": new_pred[metric].unit,
                            "old": _pred(old_pred.get(metric)),
                            "new": _pred(new_pred[metric]),
                        }
                        for metric in result.metrics
                        if metric in new_pred
                    },
                }
            )
        renamed = [
            {"path": new.path, "line": new.line, "qualname": new.qualname, "old_path": old.path,
             "old_qualname": old.qualname}
            for old, new in result.matching.renamed
        ]  # fmt: skip
    else:
        renamed = []
    config = result.config
    return {
        "version": REPORT_VERSION,
        "tool": "rlm-gate",
        "passed": result.passed,
        "summary": summary(result),
        "base": result.base,
        "head": result.head,
        "model_version": result.model,
        "error": result.error,
        "settings": {
            "metrics": result.metrics or list(config.metrics),
            "ratios": {m: config.ratio(m) for m in (result.metrics or config.metrics)},
            "budgets": {m: b.value for m, b in sorted(config.budgets.items())},
        },
        "findings": [
            {
                "path": f.path,
                "line": f.line,
                "qualname": f.qualname,
                "change": f.change,
                "metric": f.metric,
                "unit": f.unit,
                "rule": f.rule,
                "old": f.old,
                "new": f.new,
                "ratio": None if f.ratio is None or math.isinf(f.ratio) else f.ratio,
                "limit": f.limit,
                "trees": f.trees,
                "model_limit": f.scaled,
                "status": "fail" if f.failed else "allowed",
                "reason": f.allowed,
                "message": finding_line(f),
            }
            for f in result.findings
        ],
        "functions": functions,
        "renamed": renamed,
        "unchanged": result.matching.unchanged if result.matching else 0,
        "notes": [{"path": n.path, "message": n.message} for n in result.notes],
    }


def to_json(result: GateResult) -> str:
    return json.dumps(to_dict(result), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def to_markdown(result: GateResult) -> str:
    icon = "✅" if result.passed else "❌"
    out = [f"### {icon} rlm-gate: predicted performance of changed functions", "", summary(result), ""]
    if result.findings:
        out += ["| | function | metric | before | after | change | limit |", "|---|---|---|---|---|---|---|"]
        for f in result.findings:
            status = "❌" if f.failed else f"allowed: {_cell(f.allowed or '')}"
            if f.rule == "growth":
                before, after = growth_class(f.old or 0.0), growth_class(f.new)
                change, limit = f"+{f.new - (f.old or 0.0):.1f} in the exponent", f"step {f.limit:g}"
            else:
                before = format_value(f.unit, f.old) if f.old is not None else "–"
                after, change = format_value(f.unit, f.new), format_ratio(f.ratio) if f.ratio else "–"
                limit = format_ratio(f.limit) if f.rule == "ratio" else f"budget {format_value(f.unit, f.limit)}"
            out.append(
                f"| {status} | `{f.path}:{f.line}` `{_cell(function_label(f))}` | {metric_label(f.metric)} | "
                f"{before} | {after} | {change} | {limit} |"
            )
        out.append("")
    if result.matching and result.matching.changed:
        out += ["<details><summary>All checked functions</summary>", ""]
        header = " | ".join(metric_label(m) for m in result.metrics)
        out += [f"| function | change | {header} |", "|---|---|" + "---|" * len(result.metrics)]
        for change in result.matching.changed:
            new_pred = result.predictions.get(change.new.snippet.code, {})
            old_pred = result.predictions.get(change.old.snippet.code, {}) if change.old else {}
            cells = []
            for metric in result.metrics:
                if metric not in new_pred:
                    cells.append("–")
                    continue
                new = format_value(new_pred[metric].unit, new_pred[metric].value)
                old = old_pred.get(metric)
                cells.append(f"{format_value(old.unit, old.value)} → {new}" if old else new)
            out.append(
                f"| `{change.path}:{change.new.line}` `{change.new.qualname}()` | {change.kind} | {' | '.join(cells)} |"
            )
        out += ["", "</details>", ""]
    if result.notes:
        out += ["Notes:", ""] + [f"- `{n.path}`: {n.message}" for n in result.notes] + [""]
    if result.model:
        out.append(f"<sub>model {result.model}; predictions, not measurements</sub>")
    return "\n".join(out).rstrip() + "\n"


def _pred(p: Any) -> dict[str, float] | None:
    if p is None:
        return None
    return {"value": p.value, "low": getattr(p, "low", p.value), "high": getattr(p, "high", p.value)}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
