"""The gate's verdict for CI: a Markdown summary, GitHub workflow commands, SARIF 2.1.0.

- `to_markdown`: outcome counts, then a table of the functions to look at (one line when no
  function changed), for `$GITHUB_STEP_SUMMARY` or a pull-request comment (`--summary FILE`).
- `to_github`: one workflow command per finding (`::error file=…,line=…,title=…::…` for what
  fails, `::warning` for inconclusive findings and skipped files, `::notice` for improvements and
  what a pragma allowed), then the summary line; GitHub shows them on the pull request's diff.
- `to_sarif`: SARIF 2.1.0 for code scanning (`github/codeql-action/upload-sarif`), one result per
  finding, a pragma's allowance as an in-source suppression, notes and errors as notifications.
"""

from __future__ import annotations

import json
import os
from typing import Any
from urllib.parse import quote

import rlm_lsp
from rlm_lsp.gate import report
from rlm_lsp.gate.compare import Finding
from rlm_lsp.gate.report import GateResult
from rlm_lsp.policy.structural import depth_class
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.units import format_value

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVELS = {"regressed": "error", "inconclusive": "warning", "improved": "note", "allowed": "note", "overruled": "note"}


def state(finding: Finding) -> str:
    """regressed (fails), allowed (by its pragma), inconclusive or improved (do not fail)."""
    if finding.failed:
        return "regressed"
    return "allowed" if finding.allowed is not None else finding.outcome


_ICONS = {"regressed": "❌", "allowed": "☑️", "inconclusive": "⚠️", "improved": "🚀", "new": "🆕", "overruled": "🔬"}


def to_markdown(result: GateResult) -> str:
    """The Markdown summary: the outcome counts, then a table of what to look at; one line when
    no function changed."""
    icon = "✅" if result.passed else "❌"
    if result.error is not None:
        return f"### {icon} rlm-gate\n\n{_cell(report.summary(result))}\n"
    if not result.findings and not (result.matching and result.matching.changed) and not result.notes:
        return f"{icon} {_cell(report.summary(result))}\n"
    tally = report.counts(result)
    words = " · ".join(f"{n} {name}" for name, n in tally.items() if n or name != "allowed")
    out = [f"### {icon} rlm-gate: {words}", "", _cell(report.summary(result)), ""]
    rows = []
    for f in result.findings:
        kind = state(f)
        if f.rule == "measured":  # `--measure`: the growth class rose, as measured
            before, after = (f"~{c}" for c in f.classes or ("?", "?"))
            change, limit = f"+{f.new - (f.old or 0.0):.1f} in the exponent, measured", "a class rise"
            if f.carrier:
                change += f" ({report.carried_by(f)})"
        elif f.rule == "growth":
            before, after = growth_class(f.old or 0.0), growth_class(f.new)
            change, limit = f"+{f.new - (f.old or 0.0):.1f} in the exponent", f"step {f.limit:g}"
            if f.carrier:
                change += f" ({report.carried_by(f)})"
        elif f.rule == "structure":  # rule S: loop levels read from the code
            before, after = depth_class(f.old or 0.0), depth_class(f.new)
            change, limit = f"+{f.new - (f.old or 0.0):.1f} loop levels, read from the code", f"step {f.limit:g}"
            if f.carrier:
                change += f" ({report.carried_by(f)})"
        else:
            before = format_value(f.unit, f.old) if f.old is not None else "–"
            after, change = format_value(f.unit, f.new), report.format_ratio(f.ratio) if f.ratio else "–"
            limit = report.format_ratio(f.limit) if f.rule == "ratio" else f"budget {format_value(f.unit, f.limit)}"
        if f.source not in ("", "ratio") and f.rule not in ("growth", "structure", "measured"):
            limit += f" ({f.source})"
        if f.cap:
            limit += f"; pragma {f.cap}"
        state_cell = f"{_ICONS.get(kind, '')} {kind}" + (f": {f.allowed}" if f.allowed else "")
        decided = f" {_cell(_decided_cell(f))} |" if result.measure is not None else ""
        rows.append(f"| {_cell(state_cell)} | `{_cell(f.path)}:{f.line}` `{_cell(report.function_label(f))}` | "
                    f"{report.metric_label(f.metric)} | {before} | {after} | {change} | {_cell(limit)} |{decided}")
    for change, outcome in report.function_outcomes(result):
        if outcome == "new":
            rows.append(f"| 🆕 new | `{_cell(change.path)}:{change.new.line}` `{_cell(change.new.qualname)}()` | "
                        "– | – | – | – | budgets only |" + (" predicted |" if result.measure is not None else ""))
    if rows:
        head, rule = "| outcome | function | metric | before | after | change | limit |", "|---|---|---|---|---|---|---|"
        if result.measure is not None:
            head, rule = head + " decided by |", rule + "---|"
        out += [head, rule, *rows, ""]
    if result.measured:
        out += ["Measured (committed → new, same inputs and sizes):", "",
                "| function | time | memory | predicted | decided by |", "|---|---|---|---|---|"]
        for m in result.measured:
            flag = "flagged" if m.flagged else "not flagged"
            if m.status == "measured":
                rose = " (rose)"
                out.append(f"| `{_cell(m.path)}:{m.line}` `{_cell(m.qualname)}()` | {m.words('time')}"
                           f"{rose if 'time' in m.rose else ''} | {m.words('memory')}"
                           f"{rose if 'memory' in m.rose else ''} | {flag} | measured |")
            else:
                out.append(f"| `{_cell(m.path)}:{m.line}` `{_cell(m.qualname)}()` | not measured: "
                           f"{_cell(m.reason)} | – | {flag} | predicted |")
        out.append("")
    if result.notes:
        out += ["Notes:", ""] + [f"- `{_cell(n.path)}`: {_cell(n.message)}" for n in result.notes] + [""]
    if result.model:
        out.append(f"<sub>model {result.model}; " + ("predictions, and measurements where it says measured</sub>"
                   if result.measure is not None else "predictions, not measurements</sub>"))
    return "\n".join(out).rstrip() + "\n"


def _decided_cell(f: Finding) -> str:
    """The "decided by" cell: `measured`, `measured: ~n → ~n, passes`, or `predicted (not measured)`."""
    if f.outcome == "overruled":
        return f"measured: {f.measured}, passes"
    if f.decided == "measured":
        return f"measured; {f.predicted}" if f.predicted else "measured"
    return "predicted" + (" (not measured)" if f.unmeasured else "")


def _cell(text: str) -> str:
    return report.shown(text).replace("|", "\\|").replace("`", "'")


def to_github(result: GateResult) -> str:
    """GitHub Actions workflow commands, then the summary line."""
    lines = []
    commands = {"regressed": "error", "inconclusive": "warning", "improved": "notice", "allowed": "notice",
                "overruled": "notice"}
    for f in result.findings:
        kind = state(f)
        title = f"rlm-gate: {f.qualname}() {report.metric_label(f.metric)} {kind}"
        message = report.finding_line(f).removeprefix(f"{f.path}:{f.line}: ")
        lines.append(f"::{commands[kind]} file={_prop(f.path)},line={f.line},title={_prop(title)}::{_data(message)}")
    for n in result.notes:
        where = f"file={_prop(n.path)}," if not n.path.startswith("(") else ""
        lines.append(f"::warning {where}title=rlm-gate::{_data(n.message)}")
    if result.error is not None:
        command = "warning" if result.fail_open else "error"
        lines.append(f"::{command} title=rlm-gate::{_data(report.summary(result))}")
    lines.append(report.shown(report.summary(result)))
    return "\n".join(lines) + "\n"


def _data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF escaped as GitHub decodes them."""
    return report.shown(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _prop(text: str) -> str:
    """A workflow command's property value (`file=`, `title=`): also `:` and `,` escaped. A file
    name stays exact (GitHub matches it to the diff); only what would break the line is escaped,
    and every other control character (an ANSI escape in a hostile file name: issue 61.9) as %XX."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")
    return "".join(f"%{ord(ch):02X}" if ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 else ch for ch in text)


def to_sarif(result: GateResult) -> str:
    """One SARIF 2.1.0 log with one run."""
    rules: dict[str, dict[str, Any]] = {}
    results = []
    for f in result.findings:
        kind = state(f)
        rule_id = f"{f.metric}/{f.rule if f.rule in ('budget', 'growth', 'structure', 'measured') else f.outcome}"
        if rule_id not in rules:
            rules[rule_id] = {
                "id": rule_id,
                "shortDescription": {"text": _rule_text(f)},
                "defaultConfiguration": {"level": "error" if f.outcome == "regressed" else _LEVELS[f.outcome]},
            }
        item: dict[str, Any] = {
            "ruleId": rule_id,
            "ruleIndex": list(rules).index(rule_id),
            "level": _LEVELS[kind],
            "message": {"text": report.finding_line(f)},
            "locations": [_location(f.path, f.line)],
            "properties": {"outcome": kind, "qualname": f.qualname, "change": f.change, "unit": f.unit,
                           "old": f.old, "new": f.new, "ratio": _finite(f.ratio), "limit": f.limit,
                           "limitSource": f.source or None},
        }
        if f.decided:  # `--measure`: measured and predicted side by side, and which decided
            item["properties"].update({"decidedBy": f.decided, "measured": f.measured, "predicted": f.predicted,
                                       "notMeasured": f.unmeasured})
        if f.carrier:  # the lines that carry a growth step, as a second location a viewer can jump to
            item["properties"]["carriedBy"] = report.carried_by(f)
            if f.lines:
                item["relatedLocations"] = [{"id": 0, **_location(f.path, f.lines[0], f.lines[1]),
                                             "message": {"text": report.carried_by(f)}}]
        if f.allowed is not None:
            item["suppressions"] = [{"kind": "inSource", "justification": f.allowed}]
        results.append(item)
    notifications = [
        {"level": "warning", "message": {"text": n.message}, **({"locations": [_location(n.path, None)]}
                                                                if not n.path.startswith("(") else {})}
        for n in result.notes
    ]
    if result.error is not None:
        notifications.append({"level": "warning" if result.fail_open else "error",
                              "message": {"text": report.summary(result)}})
    run = {
        "tool": {"driver": {"name": "rlm-gate", "version": rlm_lsp.__version__, "rules": list(rules.values())}},
        "invocations": [{"executionSuccessful": result.error is None or result.fail_open,
                         "exitCode": result.exit_code, "toolExecutionNotifications": notifications}],
        "results": results,
        "properties": {"summary": report.summary(result), "modelVersion": result.model, "base": result.base,
                       "head": result.head},
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False) + "\n"


def _rule_text(f: Finding) -> str:
    label = report.metric_label(f.metric)
    if f.rule == "budget":
        return f"predicted {label} over its budget"
    if f.rule == "growth":
        return f"predicted {label} grows faster with the input"
    if f.rule == "structure":
        return f"{label} grows faster with the input, as read from the code's loop nests"
    if f.rule == "measured":
        return f"measured {label} grows faster with the input: its growth class rose"
    return {"regressed": f"predicted {label} grew past the ratio",
            "inconclusive": f"predicted {label} grew past the ratio, the model not confident of it",
            "improved": f"predicted {label} fell by the ratio",
            "overruled": f"predicted {label} grew past the ratio, not confirmed by measurement"}[f.outcome]


def _location(path: str, line: int | None, end_line: int | None = None) -> dict[str, Any]:
    """A repository-relative location; the URI percent-encodes the file name's exact bytes."""
    where: dict[str, Any] = {"artifactLocation": {"uri": quote(os.fsencode(path)), "uriBaseId": "%SRCROOT%"}}
    if line is not None:
        where["region"] = {"startLine": line, **({"endLine": end_line} if end_line and end_line != line else {})}
    return {"physicalLocation": where}


def _finite(x: float | None) -> float | None:
    return None if x is None or x != x or x in (float("inf"), float("-inf")) else x


def render(fmt: str, result: GateResult, verbose: bool = False) -> str:
    """The report in one of FORMATS (`rlm gate --format`)."""
    if fmt == "json":
        return report.to_json(result)
    if fmt == "markdown":
        return to_markdown(result)
    if fmt == "github":
        return to_github(result)
    if fmt == "sarif":
        return to_sarif(result)
    return report.text(result, verbose=verbose)


FORMATS = ("text", "json", "github", "sarif", "markdown")
