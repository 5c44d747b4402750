"""`rlm gate --measure`: the gate measures what it suspects, and the measured growth class decides.

    judged changes, findings -> which to measure: each changed Python function with a finding of
        rule ratio, growth or structure that fails or is inconclusive ("flagged"); with "all", then
        every other changed function with a committed version
    -> per function, within min(10 s, what is left of the run's budget, 60 s by default):
       one input plan, read from the new version (`rlm_lsp.measure.inputs`), given to both versions,
       which climb one ladder (`run.measure_together`: same inputs, same sizes) in the sandbox
    -> `report.Measured`: per metric (time, memory) the two classes and exponents, and whether the
       class rose (`run.class_rose`)
    -> `decide`: a measured function's predicted findings of ratio, growth and structure are
       replaced: a metric whose class rose is a finding of rule "measured" (it blocks, flagged or
       not, unless a pragma allows it), a growth or structure finding whose class did not rise is
       "overruled" (it passes, and says so); a ratio finding (a constant factor, which a class cannot
       see) is decided by the measured ratio at the largest size both ran (under the limit, or both
       figures under the noise floor: overruled; at or over it: it stands, measured); a function that
       could not be measured keeps its prediction, and a note says why
    -> the measured curves, appended to `.rlm/measured.jsonl` (`rlm_lsp.measure.store`)

Without bubblewrap nothing runs: one note says so and the prediction decides for every function.
Budgets (a finding of rule "budget") stay the prediction's: a measured class says how the cost
grows, not what it is at the reference n.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rlm_lsp.gate import compare
from rlm_lsp.gate.compare import Finding, FunctionChange
from rlm_lsp.gate.report import GateResult, Measured, Note, finding_line, metric_label
from rlm_lsp.measure import inputs, run, sandbox, store
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.runtime.errors import FileProblem
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.units import format_value

PER_FUNCTION_S = run.Setup().budget_s  # `rlm measure`'s default, both versions together
MIN_START_S = 1.0  # less than this left of the run's budget: the next function is not started
MEASURED_OF = store.MEASURED_OF  # the gate's metric -> the measured one
JUDGED_RULES = ("ratio", "growth", "structure")  # what a measured class replaces (budgets stay predicted)
TOOL = "rlm gate --measure"


def apply(result: GateResult, texts: Mapping[str, str], old_texts: Mapping[str, str], root: Path,
          config: GateConfig, clock: Callable[[], float] = time.perf_counter) -> None:
    """Measure `result`'s changed functions as `config.measure` says, and let the measurements decide
    (`decide`). `texts`: new path -> the new version's text; `old_texts`: old path -> the committed one."""
    result.measure = config.measure
    if result.error is not None or result.matching is None or not result.matching.changed:
        return
    flagged = {(f.path, f.line) for f in result.findings if _flags(f)}
    chosen = [c for c in result.matching.changed if (c.path, c.new.line) in flagged]
    if config.measure == "all":
        chosen += [c for c in result.matching.changed if (c.path, c.new.line) not in flagged]
    why = sandbox.unavailable() if chosen else None  # nothing to measure: no sandbox started to ask
    if why:
        result.notes.append(Note("(measure)", f"--measure: {why}; nothing was run (code never runs outside the "
                                 "sandbox): every function is decided by its prediction"))
    if why or not chosen:
        result.findings = [dataclasses.replace(f, decided="predicted") for f in result.findings]
        return
    start = clock()
    project = Path(config.source).parent if config.source else root
    rows: list[dict] = []
    for change in chosen:
        left = config.measure_budget - (clock() - start)
        measured = _measure(change, texts, old_texts, root, project, config, left, (change.path, change.new.line)
                            in flagged, rows)
        result.measured.append(measured)
        if measured.status != "measured":
            result.notes.append(Note(change.path, f"line {change.new.line}: {change.new.qualname}(): not measured "
                                     f"({measured.reason}); decided by: predicted"))
    result.measure_s = clock() - start
    changes = {(c.path, c.new.line): c for c in result.matching.changed}
    result.findings = decide(result.findings, result.measured, changes, result.predictions, result.metrics)
    try:
        store.keep(root, rows)
    except FileProblem as exc:
        result.notes.append(Note("(measure)", f"measured curves not kept: {exc}"))


def decide(findings: Sequence[Finding], measured: Sequence[Measured], changes: Mapping[tuple[str, int], FunctionChange],
           predictions: Mapping[str, Mapping[str, object]], metrics: Sequence[str]) -> list[Finding]:
    """The findings once the measurements have their say (the module's docstring: what replaces what)."""
    by_function = {(m.path, m.line): m for m in measured}
    out: list[Finding] = []
    for f in findings:
        m = by_function.get((f.path, f.line))
        if m is None or m.status != "measured" or f.rule not in JUDGED_RULES or f.metric not in MEASURED_OF:
            out.append(dataclasses.replace(f, decided="predicted", unmeasured=m.reason if m and m.reason else None))
        elif f.rule == "ratio" and MEASURED_OF[f.metric] not in m.rose:
            # a constant factor (8x the memory at the same class), which a class cannot see: the measured
            # ratio at the largest common size decides; without one (a committed figure of 0) the prediction
            what = MEASURED_OF[f.metric]
            x = m.ratios.get(what)
            if x is None:
                out.append(dataclasses.replace(f, decided="predicted"))
            else:
                words = f"{m.words(what)}, {x[0]:.2g}× at n={x[1]}"
                below = x[0] < f.limit and f.outcome in ("regressed", "inconclusive")
                out.append(dataclasses.replace(f, outcome="overruled" if below else f.outcome, decided="measured",
                                               measured=words, classes=m.classes[what]))
        elif f.outcome in ("regressed", "inconclusive") and MEASURED_OF[f.metric] not in m.rose:
            what = MEASURED_OF[f.metric]
            out.append(dataclasses.replace(f, outcome="overruled", decided="measured", measured=m.words(what),
                                           classes=m.classes[what]))
        elif f.outcome == "improved":
            out.append(dataclasses.replace(f, decided="predicted"))
        # else: the class rose, and the finding of rule "measured" below carries this prediction's words
    for m in measured:
        change = changes.get((m.path, m.line))
        if m.status != "measured" or change is None:
            continue
        for metric in metrics:
            what = MEASURED_OF.get(metric, "")
            if what not in m.rose:
                continue
            flagged = [f for f in findings if (f.path, f.line) == (m.path, m.line) and f.metric == metric
                       and f.rule in JUDGED_RULES and _flags(f)]
            out.append(_rose(change, m, metric, what, flagged, predictions))
    out.sort(key=lambda f: (f.path, f.line, f.metric, f.rule))
    return out


def _flags(f: Finding) -> bool:
    return f.rule in JUDGED_RULES and f.outcome in ("regressed", "inconclusive")


def _rose(change: FunctionChange, m: Measured, metric: str, what: str, flagged: list[Finding],
          predictions: Mapping[str, Mapping[str, object]]) -> Finding:
    """The finding of rule "measured" for a class that rose, the prediction's words beside it."""
    fn = change.new
    allow: dict[str, object] = {}
    if fn.pragma:  # a pragma's limits bound values, not a growth step (as for a predicted step: compare.judge)
        allow = {"allowed": fn.pragma} if fn.limits is None else {"over_cap": True}
    old, new = m.exponents[what]
    new_pred = predictions.get(fn.snippet.code, {}).get(metric)
    return Finding(path=change.path, line=fn.line, qualname=fn.qualname, change=change.kind, metric=metric,
                   unit="exponent", rule="measured", old=old, new=new or 0.0, ratio=None, limit=run.MIN_RISE,
                   source="measured", decided="measured", measured=m.words(what), classes=m.classes[what],
                   predicted=_predicted_words(change, metric, flagged, predictions), **allow,
                   **compare.carrier(fn, metric, new_pred))


def _predicted_words(change: FunctionChange, metric: str, flagged: list[Finding],
                     predictions: Mapping[str, Mapping[str, object]]) -> str:
    """What the prediction said of `metric`: its flag's own line, or its figures where it did not flag."""
    if flagged:
        return "; ".join(finding_line(f).removeprefix(f"{f.path}:{f.line}: {f.qualname}(): ") for f in flagged)
    old = predictions.get(change.old.snippet.code, {}).get(metric) if change.old else None
    new = predictions.get(change.new.snippet.code, {}).get(metric)
    if old is None or new is None:
        return "not predicted"
    a, b = getattr(old, "growth", None), getattr(new, "growth", None)
    if a is not None and b is not None:
        return f"predicted {growth_class(a)} → {growth_class(b)}, not flagged"
    unit = getattr(new, "unit", "")
    return (f"predicted {metric_label(metric)} {format_value(unit, getattr(old, 'value', 0.0))} → "
            f"{format_value(unit, getattr(new, 'value', 0.0))}, no growth predicted, not flagged")


def _measure(change: FunctionChange, texts: Mapping[str, str], old_texts: Mapping[str, str], root: Path,
             project: Path, config: GateConfig, left: float, flagged: bool, rows: list[dict]) -> Measured:
    """Both versions of one function on one ladder; a Measured, "unmeasured" with the reason where it cannot."""
    fn, old = change.new, change.old
    base = dict(path=change.path, line=fn.line, qualname=fn.qualname, flagged=flagged)
    why = _cannot(change, texts, old_texts, left, config.measure_budget)
    if why:
        return Measured(**base, status="unmeasured", reason=why)
    assert old is not None
    new_text, old_text = texts[change.path], old_texts[old.path]
    plans = inputs.plans(new_text, config.inputs, only=fn.qualname)
    plan = next((p for p in plans if p.function == fn.qualname), None)
    if plan is None:
        return Measured(**base, status="unmeasured", reason="not a top-level function or a method of a top-level "
                        "class: measuring calls those only")
    if plan.reason:
        return Measured(**base, status="unmeasured", reason=plan.reason)
    committed = next((p for p in inputs.plans(old_text, config.inputs, only=old.qualname)
                      if p.function == old.qualname), None)
    if committed is None:
        return Measured(**base, status="unmeasured", reason="its committed version is not a top-level function "
                        "or a method of a top-level class")
    if not committed.reason and len(committed.recipe) != len(plan.recipe) and not plan.generator:
        return Measured(**base, status="unmeasured", reason=f"its parameters changed ({committed.inputs} → "
                        f"{plan.inputs}): one input cannot serve both versions")
    old_plan = dataclasses.replace(plan, function=old.qualname, line=old.line, mutates=plan.mutates or committed.mutates,
                                   remake=plan.remake or committed.remake)
    plan = dataclasses.replace(plan, mutates=old_plan.mutates, remake=old_plan.remake)
    path = root / change.path
    if not path.parent.is_dir():  # a ref not checked out here: no folder of its own to import beside
        path = root / Path(change.path).name
    setup = run.Setup(budget_s=min(PER_FUNCTION_S, left), project=project)
    before, after = run.measure_together([run.Target(path, old_text, old_plan), run.Target(path, new_text, plan)],
                                         setup)
    for curve, text, where in ((before, old_text, old.path), (after, new_text, change.path)):
        kept = store.row(curve, text, where, TOOL)
        if kept is not None:
            rows.append(kept)
    wall = max(before.wall_s, after.wall_s)
    for version, curve in (("committed version", before), ("new version", after)):
        if curve.status != "measured":
            return Measured(**base, status="unmeasured", reason=f"{version}: {curve.reason}", inputs=plan.inputs,
                            sizes=tuple(r.n for r in curve.rungs), wall_s=wall)
    classes = {m: (before.growth[m].growth_class, after.growth[m].growth_class) for m in ("time", "memory")}
    exponents = {m: (before.growth[m].exponent, after.growth[m].exponent) for m in ("time", "memory")}
    rose = tuple(m for m in ("time", "memory") if run.class_rose(before.growth[m], after.growth[m]))
    return Measured(**base, status="measured", inputs=plan.inputs, sizes=tuple(r.n for r in after.rungs),
                    classes=classes, exponents=exponents, rose=rose, wall_s=wall, ratios=_ratios(before, after))


def _ratios(before, after) -> dict[str, tuple[float, int]]:
    """metric -> (new / committed, n) at the largest size both versions ran; 1.0 where both figures are
    under the noise floor (the interpreter's, not the code's); none where the committed figure is 0."""
    old = {r.n: r for r in before.rungs}
    both = [r for r in after.rungs if r.n in old]
    out = {}
    if both:
        new = both[-1]
        for metric, get in (("time", lambda r: r.time_s), ("memory", lambda r: float(r.memory_bytes))):
            a, b = get(old[new.n]), get(new)
            if a > 0 and max(a, b) >= run.FLOORS[metric]:
                out[metric] = (b / a, new.n)
            elif max(a, b) < run.FLOORS[metric]:  # both the interpreter's: no difference to measure
                out[metric] = (1.0, new.n)
    return out


def _cannot(change: FunctionChange, texts: Mapping[str, str], old_texts: Mapping[str, str], left: float,
            budget: float) -> str | None:
    """Why this function is not measured before a plan is even read; None when it may be."""
    if change.old is None:
        return "a new function: no committed version to measure it against"
    if change.new.language != "python" or change.old.language != "python":
        return f"{change.new.language} code: measuring runs Python only"
    if change.new.snippet.kind == "triton_kernel":
        return "a Triton kernel: measuring runs plain Python calls only"
    if change.path not in texts or change.old.path not in old_texts:
        return "a version of its file could not be read as text"
    if left < MIN_START_S:
        return f"the measuring budget ({budget:g} s) was spent on the functions before it"
    return None
