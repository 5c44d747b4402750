"""The gate's verdict as text lines, a JSON document or a Markdown summary.

Text is what pre-commit shows: one actionable line per finding
(`path:line: func(): predicted peak memory 12 MB → 96 MB (8.0×) exceeds 2.0×`; inconclusive and
improved ones say so), one per note (skipped files, unreadable versions), then a one-line
summary. JSON carries the same facts plus every judged function and its outcome; Markdown
counts the outcomes and tables them, for a job summary or a pull-request comment. GitHub
workflow commands and SARIF are in `rlm_lsp.gate.formats`.

File names are shown escaped in text and Markdown (a newline or a right-to-left mark in a name
must not forge or reorder a line) and kept exact in JSON (`to_json`).
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from rlm_lsp.gate.compare import Finding, FunctionChange, Matching
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.policy.structural import depth_class
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.units import format_value

REPORT_VERSION = 2  # 2: findings' outcome and limit source, functions' outcome
EXIT_PASSED, EXIT_REGRESSION, EXIT_ERROR = 0, 1, 2
METRIC_LABELS = {"memory": "peak memory", "latency": "latency", "kernel_latency": "kernel latency"}
GROWTH_LABELS = {"memory": "memory", "latency": "time"}  # `parse(): predicted time grows ~n → ~n²`, as the hint says


@dataclass(frozen=True)
class Note:
    path: str
    message: str


@dataclass(frozen=True)
class Measured:
    """One changed function's committed and new versions, measured on one ladder (`rlm_lsp.gate.measured`)."""

    path: str
    line: int
    qualname: str
    flagged: bool  # the prediction flagged it (else measured for `--measure=all`)
    status: str  # "measured" | "unmeasured"
    reason: str = ""  # why unmeasured, in one line
    inputs: str = ""  # the inputs in words, `xs: list of ints`
    sizes: tuple[int, ...] = ()
    classes: dict[str, tuple[str | None, str | None]] = field(default_factory=dict)  # "time" -> (committed, new)
    exponents: dict[str, tuple[float | None, float | None]] = field(default_factory=dict)
    rose: tuple[str, ...] = ()  # the metrics ("time", "memory") whose class rose
    wall_s: float = 0.0
    # new / committed at the largest size both ran, where either is above its noise floor: (ratio, n)
    ratios: dict[str, tuple[float, int]] = field(default_factory=dict)

    def words(self, metric: str) -> str:
        """`~n → ~n²`."""
        old, new = self.classes.get(metric, (None, None))
        return f"~{old or '?'} → ~{new or '?'}"

    def summary(self) -> str:
        """`time ~n → ~n², memory ~1 → ~1`."""
        return ", ".join(f"{m} {self.words(m)}" for m in ("time", "memory") if m in self.classes)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "flagged": self.flagged, "reason": self.reason or None,
                               "inputs": self.inputs or None, "sizes": list(self.sizes), "wall_s": round(self.wall_s, 2)}
        for m, (old, new) in self.classes.items():
            a, b = self.exponents.get(m, (None, None))
            out[m] = {"old": {"class": old, "exponent": a}, "new": {"class": new, "exponent": b}, "rose": m in self.rose}
        return out


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
    # What the change's own [tool.rlm] loosened against the base's (`config_guard`), in words; it
    # fails the gate unless `trusted` (--trust-head-config), and is said either way.
    loosened: list[str] = field(default_factory=list)
    trusted: bool = False
    # `--measure` (rlm_lsp.gate.measured): the mode ("flagged", "all"; None: off), what was measured
    # or not (a `measured.Measured` per function tried), and the seconds it took
    measure: str | None = None
    measured: list[Measured] = field(default_factory=list)
    measure_s: float = 0.0

    @property
    def failures(self) -> list[Finding]:
        return [f for f in self.findings if f.failed]

    @property
    def allowed(self) -> list[Finding]:
        return [f for f in self.findings if f.allowed is not None and f.outcome not in ("improved", "overruled")]

    def outcome(self, name: str) -> list[Finding]:
        """Findings of one outcome ("inconclusive", "improved") that do not fail the gate."""
        return [f for f in self.findings if f.outcome == name and not f.failed and f.allowed is None]

    @property
    def unjudged(self) -> int:
        """Files skipped with a note: binary, undecodable, a syntax error, too large, unreadable."""
        return sum(1 for n in self.notes if n.message.startswith("skipped"))

    @property
    def passed(self) -> bool:
        if self.config.fail_unjudged and self.unjudged:
            return False
        if self.loosened and not self.trusted:
            return False
        return not self.failures and (self.error is None or self.fail_open)

    @property
    def exit_code(self) -> int:
        """0 passed, 1 a regression (or a file not judged under fail-unjudged), 2 the gate could
        not judge (settings, git, model) unless --fail-open let a model failure through."""
        if self.error is not None and not self.fail_open:
            return EXIT_ERROR
        return EXIT_PASSED if self.passed else EXIT_REGRESSION


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
    where = f"{finding.path}:{finding.line}: {function_label(finding)}: "
    label = f"predicted {metric_label(finding.metric)}"
    new = format_value(finding.unit, finding.new)
    if finding.rule == "measured":  # `--measure`: the growth class rose, as measured (rlm_lsp.gate.measured)
        why = f"{carried_by(finding)}; " if finding.carrier else ""
        text = (f"{where}measured {GROWTH_LABELS.get(finding.metric, metric_label(finding.metric))} grows "
                f"{finding.measured} ({why}exponent {finding.old or 0.0:.2f} → {finding.new:.2f}); "
                f"{finding.predicted or 'not predicted'}")
    elif finding.rule == "growth":
        old, grown = finding.old or 0.0, finding.new
        why = f"{carried_by(finding)}; " if finding.carrier else ""
        text = (f"{where}predicted {GROWTH_LABELS.get(finding.metric, metric_label(finding.metric))} grows "
                f"{growth_class(old)} → {growth_class(grown)} ({why}exponent {old:.1f} → {grown:.1f}, "
                f"a step of {grown - old:.1f}, limit {finding.limit:g})")
    elif finding.rule == "structure":  # rule S: read from the loop nests, not predicted
        why = f" ({carried_by(finding)})" if finding.carrier else ""
        text = (f"{where}{GROWTH_LABELS.get(finding.metric, metric_label(finding.metric))} grows "
                f"{depth_class(finding.old or 0.0)} → {depth_class(finding.new)} as read from the code{why}")
    elif finding.outcome == "improved":
        old = format_value(finding.unit, finding.old or 0.0)
        fell = format_ratio(1 / finding.ratio) if finding.ratio else "∞×"
        text = f"{where}improved: {label} {old} → {new} ({fell} less)"
    elif finding.rule == "ratio":
        old = format_value(finding.unit, finding.old or 0.0)
        verb = "past" if finding.outcome == "inconclusive" else "exceeds"
        prefix = "inconclusive: " if finding.outcome == "inconclusive" else ""
        text = f"{where}{prefix}{label} {old} → {new} ({format_ratio(finding.ratio)}) {verb} {format_ratio(finding.limit)}"
        if finding.source not in ("", "ratio"):
            text += f" ({finding.source})"
        if finding.scaled is not None and (finding.ratio or 0.0) < finding.limit:  # only where it explains the flag
            text += f" ({format_ratio(finding.scaled)} on the model's scale)"
        if finding.outcome == "inconclusive":
            text += ", but " + _unsure(finding)
            text += "; fails (fail-inconclusive)" if finding.strict else "; not blocking"
        elif finding.trees is not None:
            text += f"; the code's features agree ({format_ratio(finding.trees)})"
    else:
        text = f"{where}{label} {new} exceeds budget {format_value(finding.unit, finding.limit)}"
        if finding.source.startswith("budgets"):
            text += f" ({finding.source})"
    if finding.allowed is not None:
        text += f"; allowed by pragma{f' ({finding.cap})' if finding.cap else ''}: {finding.allowed}"
    elif finding.over_cap:
        text += (f"; over the pragma's limit {finding.cap}" if finding.cap
                 else f"; the pragma's limits do not allow {metric_label(finding.metric)}"
                 + (" growth steps" if finding.rule in ("growth", "structure", "measured") else ""))
    return text + decided_words(finding)


def decided_words(finding: Finding) -> str:
    """With `--measure`: `; measured time ~n → ~n, no class rose: passes; decided by: measured`, or
    `; decided by: predicted (not measured)`; "" without it."""
    if finding.decided is None:
        return ""
    if finding.outcome == "overruled":
        what = GROWTH_LABELS.get(finding.metric, metric_label(finding.metric))
        return f"; measured {what} {finding.measured}, no class rose: passes; decided by: measured"
    if finding.decided == "measured":
        return "; decided by: measured"
    return "; decided by: predicted" + (" (not measured)" if finding.unmeasured else "")


def carried_by(finding: Finding) -> str:
    """`nested loop, lines 14–16`: what carries a growth step, where (`compare.carrier`); "" without one."""
    if not finding.carrier:
        return ""
    if finding.lines is None:
        return finding.carrier
    first, last = finding.lines
    return f"{finding.carrier}, " + (f"line {first}" if first == last else f"lines {first}–{last}")


def _unsure(finding: Finding) -> str:
    """Why an inconclusive finding is not a regression: too few paired draws, or the trees."""
    if finding.confidence is not None and finding.level is not None and finding.confidence < finding.level:
        return f"only {finding.confidence:.0%} of the paired draws agree (needs {finding.level:.0%})"
    if finding.trees is not None:
        return f"the code's features do not agree ({format_ratio(finding.trees)})"
    return "the model is not confident of it"


def loosened_line(result: GateResult) -> str:
    """`pyproject.toml: the change loosens its own [tool.rlm]: …; judged with the base's settings …`."""
    where = result.config.source or "[tool.rlm]"
    if result.trusted:
        return f"{where}: the change loosens its own [tool.rlm]: {'; '.join(result.loosened)} (trusted: --trust-head-config)"
    return (f"{where}: the change loosens its own [tool.rlm]: {'; '.join(result.loosened)}; judged with the base's "
            "settings, and this fails the gate (pass --trust-head-config to accept the new settings)")


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
    new = sum(1 for c in m.changed if c.kind == "added") if m else 0
    if new:
        extras.append(f"{new} new, judged against budgets only")
    for name in ("inconclusive", "improved"):
        count = len({(f.path, f.line) for f in result.outcome(name)})
        if count:
            extras.append(f"{count} {name}")
    if result.measure is not None:
        extras += measure_words(result)
    skipped = result.unjudged
    if skipped and not result.config.fail_unjudged:
        extras.append(f"{skipped} file{'s' * (skipped != 1)} skipped")
    tail = f" ({'; '.join(extras)})" if extras else ""
    scope = f"{changed} changed function{'s' * (changed != 1)} in {result.files} file{'s' * (result.files != 1)}"
    failures = result.failures
    if skipped and result.config.fail_unjudged:
        head = f"{skipped} file{'s' * (skipped != 1)} not judged (fail-unjudged)"
        if failures:
            head += f", {_failed(failures)}"
        return f"rlm-gate: FAILED: {head}: {scope}{tail}"
    if result.loosened and not result.trusted and not failures:
        return f"rlm-gate: FAILED: the change loosens its own [tool.rlm]: {scope}{tail}"
    if failures:
        funcs = len({(f.path, f.line) for f in failures})
        return (
            f"rlm-gate: FAILED: {_failed(failures)} "
            f"in {funcs} of {scope}{tail}"
        )
    if result.measure is not None:
        return f"rlm-gate: passed: {scope}, no regression, predicted or measured{tail}"
    return f"rlm-gate: passed: {scope}, no predicted regression{tail}"


def measure_words(result: GateResult) -> list[str]:
    """`2 measured in 7.9 s`, `1 predicted regression not confirmed by measurement`, `1 not measured`."""
    done = sum(m.status == "measured" for m in result.measured)
    out = [f"{done} measured in {result.measure_s:.1f} s"] if done else []
    overruled = len({(f.path, f.line) for f in result.findings if f.outcome == "overruled"})
    if overruled:
        out.append(f"{overruled} predicted regression{'s' * (overruled != 1)} not confirmed by measurement")
    missed = len(result.measured) - done
    if missed:
        out.append(f"{missed} not measured")
    return out


def text(result: GateResult, verbose: bool = False) -> str:
    lines = [loosened_line(result)] if result.loosened else []
    lines += [finding_line(f) for f in result.findings]
    lines += [f"{n.path}: {n.message}" for n in result.notes]
    if verbose and result.matching is not None:
        measured = {(m.path, m.line): m for m in result.measured}
        for change, outcome in function_outcomes(result):
            only = "; budgets only" if change.kind == "added" else ""
            m = measured.get((change.path, change.new.line))
            said = f"; measured {m.summary()}; decided by: measured" if m and m.status == "measured" else \
                "; decided by: predicted" if result.measure is not None else ""
            lines.append(f"{change.path}:{change.new.line}: {change.new.qualname}(): checked ({change.kind}{only}): "
                         f"{outcome}{said}")
    lines.append(summary(result))
    return "\n".join(shown(line) for line in lines) + "\n"


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def shown(text: str) -> str:
    """`text` safe for one line of a terminal or a Markdown cell: control characters, format
    characters (right-to-left marks, bidi overrides), line separators and undecodable bytes
    (surrogate escapes of a non-UTF-8 file name, shown as the byte) escaped."""
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable() or ch == " ":
            out.append(ch)
        elif ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif 0xDC80 <= ord(ch) <= 0xDCFF:  # os.fsdecode's stand-in for the byte ord(ch) - 0xDC00
            out.append(f"\\x{ord(ch) - 0xDC00:02x}")
        elif unicodedata.category(ch) in ("Zs",):
            out.append(ch)
        else:
            out.append(f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")
    return "".join(out)


def function_outcomes(result: GateResult) -> list[tuple[FunctionChange, str]]:
    """Every judged function and its outcome: regressed (fails), allowed (by its pragma),
    inconclusive, improved, new (no old version, within the budgets) or passed."""
    by_function: dict[tuple[str, int], list[Finding]] = {}
    for f in result.findings:
        by_function.setdefault((f.path, f.line), []).append(f)
    out = []
    for change in result.matching.changed if result.matching is not None else ():
        found = by_function.get((change.path, change.new.line), [])
        if any(f.failed for f in found):
            outcome = "regressed"
        elif any(f.allowed is not None for f in found):
            outcome = "allowed"
        elif any(f.outcome == "inconclusive" for f in found):
            outcome = "inconclusive"
        elif any(f.outcome == "improved" for f in found):
            outcome = "improved"
        else:
            outcome = "new" if change.kind == "added" else "passed"
        out.append((change, outcome))
    return out


def to_dict(result: GateResult) -> dict[str, Any]:
    functions = []
    if result.matching is not None:
        for change, outcome in function_outcomes(result):
            new_pred = result.predictions.get(change.new.snippet.code, {})
            old_pred = result.predictions.get(change.old.snippet.code, {}) if change.old else {}
            functions.append(
                {
                    "path": change.path,
                    "line": change.new.line,
                    "qualname": change.new.qualname,
                    "language": change.new.language,
                    "change": change.kind,
                    "outcome": outcome,
                    "judged": "budgets only" if change.kind == "added" else "ratio and budgets",
                    "old_path": change.old.path if change.old else None,
                    "old_qualname": change.old.qualname if change.old else None,
                    "pragma": change.new.pragma or None,
                    **_measured_json(result, change),
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
        "exit_code": result.exit_code,
        "loosened": result.loosened,
        "counts": counts(result),
        "settings": {
            "metrics": result.metrics or list(config.metrics),
            "ratios": {m: config.ratio(m) for m in (result.metrics or config.metrics)},
            "budgets": {m: b.value for m, b in sorted(config.budgets.items())},
            "path_budgets": {glob: {m: b.value for m, b in budgets.items()} for glob, budgets in config.path_budgets},
            "fail_inconclusive": config.fail_inconclusive,
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
                "outcome": f.outcome,
                "status": "fail" if f.failed else "allowed" if f.allowed is not None else f.outcome,
                "limit_source": f.source or None,
                "pragma_limit": f.cap,
                "confidence": f.confidence,
                "level": f.level,
                "reason": f.allowed,
                "message": finding_line(f),
                **({"carried_by": f.carrier, "lines": list(f.lines) if f.lines else None} if f.carrier else {}),
                **({"decided_by": f.decided, "measured": f.measured, "measured_classes": list(f.classes)
                    if f.classes else None, "predicted": f.predicted, "not_measured": f.unmeasured}
                   if f.decided else {}),
            }
            for f in result.findings
        ],
        "functions": functions,
        "renamed": renamed,
        "unchanged": result.matching.unchanged if result.matching else 0,
        "notes": [{"path": n.path, "message": n.message} for n in result.notes],
        **({"measure": {"mode": result.measure, "budget_s": config.measure_budget, "spent_s": round(result.measure_s, 2)}}
           if result.measure is not None else {}),
    }


def _measured_json(result: GateResult, change: FunctionChange) -> dict[str, Any]:
    """With `--measure`, a function's "measured" (both versions' classes, or why not) and "decided_by"."""
    if result.measure is None:
        return {}
    m = next((m for m in result.measured if (m.path, m.line) == (change.path, change.new.line)), None)
    decided = "measured" if m is not None and m.status == "measured" else "predicted"
    return {"measured": m.as_json() if m is not None else None, "decided_by": decided}


def to_json(result: GateResult) -> str:
    """The JSON report. A file name that is not UTF-8 keeps its bytes: each undecodable byte is
    the lone surrogate `\\udcXX` that `os.fsdecode` gives (`os.fsencode` turns it back)."""
    body = json.dumps(to_dict(result), indent=2, ensure_ascii=False, sort_keys=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", body) + "\n"


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def counts(result: GateResult) -> dict[str, int]:
    """Functions per outcome: regressed, allowed, inconclusive, improved, unchanged (predicted
    within the limits, or the same code after normalizing), new (no old version, within budgets)."""
    out = dict.fromkeys(("regressed", "allowed", "inconclusive", "improved", "unchanged", "new"), 0)
    for _, outcome in function_outcomes(result):
        out["unchanged" if outcome == "passed" else outcome] += 1
    out["unchanged"] += result.matching.unchanged + len(result.matching.renamed) if result.matching else 0
    return out


def _pred(p: Any) -> dict[str, float] | None:
    if p is None:
        return None
    return {"value": p.value, "low": getattr(p, "low", p.value), "high": getattr(p, "high", p.value)}


def _failed(failures) -> str:
    """`2 predicted regressions`, `1 growth step read from the code` (rule S), or both joined by "and"."""
    read = sum(f.rule == "structure" for f in failures)
    measured = sum(f.rule == "measured" for f in failures)
    predicted = len(failures) - read - measured
    parts = [f"{predicted} predicted regression{'s' * (predicted != 1)}"] if predicted else []
    if read:
        parts.append(f"{read} growth step{'s' * (read != 1)} read from the code")
    if measured:
        parts.append(f"{measured} measured growth step{'s' * (measured != 1)}")
    return " and ".join(parts)
