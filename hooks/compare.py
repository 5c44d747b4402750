"""Which functions a change touches, and whether their predictions regress.

Two versions of a set of files go in; out come `FunctionChange`s (a function's old and new
version, or only a new one) and then `Finding`s (a metric over its ratio or budget).

Functions are compared by their *canonical* form (`rlm_lsp.policy.rules.canonical`): comments,
docstrings, type hints, formatting and consistent renames of what the function defines are no
change and are not even predicted. Matching, in order:

1. same file (or the file's old path after a git rename), same qualified name;
2. a new function whose canonical form equals an unmatched old one anywhere in the change (a
   rename or a move between files; the function's own name is canonical too): passes without
   prediction;
3. a function of a file the change adds, with the qualified name of a function of a file it
   deletes (a rename with rewrite that git reports as delete + add): compared like a modification;
4. within the same file, the most similar unmatched old function, if at least `SIMILARITY`
   of their canonical lines agree (a rename with edits): compared like a modification;
5. anything left is new and judged against the budgets only. Removed functions are ignored.

The verdict is `rlm_lsp.policy.rules.judge`, the editor's rule too: over the ratio, and confident of it.

Outcomes, per metric of a changed function (`Finding.outcome`): **regressed** (over the ratio
and the model confident of it, or over a budget: blocks), **inconclusive** (the estimates grew
past the ratio but the paired draws or the feature trees do not back it: reported, blocks only
with `fail-inconclusive`), **improved** (fell by the ratio, as confidently: reported). Anything
else passes. New functions have no old version and meet the budgets only. A growth step regresses
too: the model's own (`rules.judge_growth`), or for a model without growth the step of a loop level
read from the code (`rlm_lsp.policy.structural`, `[tool.rlm] structural-growth`).

Pragma: a comment `# rlm: allow-regression <reason>` lets a function's regression through
and the reason is printed; `# rlm: allow-regression[memory<=4x] <reason>` lets each named
metric grow that much and no more (a metric it does not name is not allowed). It counts on
any line of the function's header (decorators, `def` line, up to the `:` that ends the
signature) or in the block of comment lines directly above it. A pragma without a reason, or
with limits that do not parse, is ignored, with a note.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rlm_lsp.policy import rules, structural
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.policy.rules import PRAGMA, growth  # noqa: F401 - part of this module's interface
from rlm_lsp.python import loop_nests
from rlm_lsp.python.snippets import Snippet, extract
from rlm_lsp.python.source import parse as parse_source
from rlm_lsp.runtime.lines import split_lines

SIMILARITY = 0.75  # difflib ratio on canonical lines, for a rename with edits


@dataclass(frozen=True)
class Function:
    """One function in one version of one file."""

    path: str
    snippet: Snippet
    norm: str  # normalized code: AST dump without docstrings
    anon: str  # the same with the function's own name blanked, for rename matching
    shape: tuple[str, ...]  # unparsed lines of `anon`, for similarity
    pragma: str | None = None  # the allow-regression reason, when the pragma is present
    limits: dict[str, float] | None = None  # metric -> the growth its pragma allows; None: any growth
    pragma_problem: str | None = None  # why a pragma that is there is ignored (no reason, bad limits)
    language: str = "python"  # "cpp", "java", "go": read by tree-sitter (rlm_lsp.gate.languages)

    @property
    def qualname(self) -> str:
        return self.snippet.qualname

    @property
    def line(self) -> int:
        """1-based line of the `def`, for messages."""
        return self.snippet.name_line + 1


@dataclass(frozen=True)
class FunctionChange:
    """A function whose code changed (old and new) or that is new (old is None)."""

    kind: str  # "modified" | "renamed" (renamed with edits) | "added"
    new: Function
    old: Function | None

    @property
    def path(self) -> str:
        return self.new.path


@dataclass(frozen=True)
class Matching:
    changed: list[FunctionChange]  # to predict and judge
    unchanged: int  # same normalized code (comment/docstring/format-only edits included)
    renamed: list[tuple[Function, Function]]  # (old, new), same body: pass without prediction
    removed: int


@dataclass(frozen=True)
class Finding:
    """One metric of one function over its ratio or its budget."""

    path: str
    line: int
    qualname: str
    change: str  # FunctionChange.kind
    metric: str
    unit: str
    rule: str  # "ratio" | "budget" | "growth" (old, new: exponents; limit: the step) | "structure" (loop levels)
    #            | "measured" (old, new: measured exponents; the class rose: rlm_lsp.gate.measured)
    old: float | None
    new: float
    ratio: float | None  # new / old
    limit: float  # the ratio, the budget (in `unit`) or the growth step that was exceeded
    allowed: str | None = None  # pragma reason: reported, does not fail
    confidence: float | None = None  # share of paired draws over the ratio (rule "ratio")
    trees: float | None = None  # the model's feature trees' new / old, where they were asked (rule "ratio")
    scaled: float | None = None  # the model's own limit for `limit`, where it differs (rule "ratio")
    outcome: str = "regressed"  # "regressed" | "inconclusive" | "improved" | "overruled" (measured: no class rose)
    source: str = ""  # the setting the limit comes from: "ratio", "memory-ratio", "budgets 'src/**'", ...
    level: float | None = None  # the share of paired draws the metric needed (rule "ratio")
    strict: bool = False  # an inconclusive finding fails (`fail-inconclusive`)
    cap: str | None = None  # the pragma's limit for this metric (`memory<=4x`), where it has one
    over_cap: bool = False  # the pragma has limits and this finding is past them (or not named there)
    carrier: str | None = None  # what carries a growth step (rule "growth"): "nested loop", from the loop nests
    lines: tuple[int, int] | None = None  # ...and the file lines (first, last) it spans, 1-based
    # With `--measure` (rlm_lsp.gate.measured): what decided, "measured" or "predicted"; the measured
    # growth in words (`~n → ~n²`) and the classes; the prediction in words beside a finding of rule
    # "measured"; why the function could not be measured, where it could not.
    decided: str | None = None
    measured: str | None = None
    classes: tuple[str, str] | None = None
    predicted: str | None = None
    unmeasured: str | None = None

    @property
    def failed(self) -> bool:
        if self.allowed is not None:
            return False
        return self.outcome == "regressed" or (self.outcome == "inconclusive" and self.strict)


# -- parsing one version of a file ------------------------------------------------------------


def parse_functions(path: str, source: str) -> list[Function]:
    """The functions of a source that parses; raises SyntaxError/ValueError otherwise. The version is
    parsed once (`rlm_lsp.python.source`): its functions, its file names and its pragmas read that tree."""
    parsed = parse_source(source)
    if parsed.error is not None:
        raise parsed.error
    snippets = extract(parsed, "python")
    comments = rules.comments(parsed)
    lines = parsed.lines
    names = rules.file_names(parsed)
    out = []
    for snippet in snippets:
        norm, anon, shape = normalize(snippet.code, names)
        reason, limits, problem = _pragma(snippet, comments, lines)
        out.append(Function(path, snippet, norm, anon, shape, reason, limits, problem))
    return out


def _pragma(snippet: Snippet, comments: Mapping[int, str], lines: Sequence[str]):
    """(reason, limits, problem) of the function's pragma; a pragma with bad limits is ignored."""
    parts = rules.pragma_parts(snippet, comments, lines)
    if parts is None:
        return None, None, None
    reason, text = parts
    if not reason:
        return "", None, "`# rlm: allow-regression` needs a reason; ignored"
    if text is None:
        return reason, None, None
    try:
        return reason, rules.pragma_limits(text), None
    except ValueError as exc:
        return None, None, f"`# rlm: allow-regression[{text}]`: {exc}; ignored"


def normalize(code: str, names: frozenset[str] = frozenset()) -> tuple[str, str, tuple[str, ...]]:
    """(canonical form, the same for rename matching, and its lines for similarity). The
    canonical form names the function itself `f0`, and with `names` (what its file defines) the
    helpers it calls `g0, ...`, so a renamed function and its callers match their old selves."""
    norm = rules.canonical(code, names)
    return norm, norm, tuple(line.strip() for line in split_lines(norm) if line.strip())


# -- matching old and new ---------------------------------------------------------------------


def match(
    old: Mapping[str, Sequence[Function]],
    new: Mapping[str, Sequence[Function]],
    old_path_of: Mapping[str, str],
) -> Matching:
    """Pair old and new functions. `old`/`new`: path -> functions of that version of the file
    (a deleted file only in `old`, an added one only in `new`); `old_path_of`: new path ->
    old path for renamed files."""
    changed: list[FunctionChange] = []
    renamed: list[tuple[Function, Function]] = []
    unchanged = 0
    used: set[int] = set()  # id() of old functions already paired
    pending: list[Function] = []

    for path in sorted(new):
        olds = _by_key(old.get(old_path_of.get(path, path), ()))
        for key, fn in _keyed(new[path]):
            prev = olds.get(key)
            if prev is None:
                pending.append(fn)
                continue
            used.add(id(prev))
            if prev.norm == fn.norm:
                unchanged += 1
            else:
                changed.append(FunctionChange("modified", fn, prev))

    leftover = [fn for path in sorted(old) for fn in old[path] if id(fn) not in used]
    by_body: dict[str, list[Function]] = {}
    for fn in leftover:
        by_body.setdefault(fn.anon, []).append(fn)
    still: list[Function] = []
    for fn in pending:
        same = [o for o in by_body.get(fn.anon, ()) if id(o) not in used]
        if same:
            # prefer the old function from the same file
            here = old_path_of.get(fn.path, fn.path)
            prev = next((o for o in same if o.path == here), same[0])
            used.add(id(prev))
            if prev.qualname == fn.qualname:
                unchanged += 1  # moved to another file, same code
            else:
                renamed.append((prev, fn))
        else:
            still.append(fn)

    deleted = set(old) - set(new) - set(old_path_of.values())
    rest: list[Function] = []
    for fn in still:
        if fn.path in old or fn.path in old_path_of:
            rest.append(fn)
            continue
        same_name = [o for o in leftover if id(o) not in used and o.path in deleted and o.qualname == fn.qualname]
        if not same_name:
            rest.append(fn)
            continue
        prev = max(same_name, key=lambda o: difflib.SequenceMatcher(None, o.shape, fn.shape, autojunk=False).ratio())
        used.add(id(prev))
        if prev.norm == fn.norm:
            unchanged += 1
        else:
            changed.append(FunctionChange("modified", fn, prev))

    for fn in rest:
        here = old_path_of.get(fn.path, fn.path)
        candidates = [o for o in leftover if id(o) not in used and o.path == here]
        best, best_score = None, SIMILARITY
        for cand in candidates:
            score = difflib.SequenceMatcher(None, cand.shape, fn.shape, autojunk=False).ratio()
            if score >= best_score and (best is None or score > best_score):
                best, best_score = cand, score
        if best is not None:
            used.add(id(best))
            changed.append(FunctionChange("renamed", fn, best))
        else:
            changed.append(FunctionChange("added", fn, None))

    changed.sort(key=lambda c: (c.path, c.new.line))
    removed = sum(1 for fn in leftover if id(fn) not in used)
    return Matching(changed, unchanged, renamed, removed)


def _keyed(functions: Sequence[Function]) -> list[tuple[tuple[str, int], Function]]:
    """(qualname, n-th occurrence) keys, so a property's getter and setter stay apart."""
    seen: dict[str, int] = {}
    out = []
    for fn in functions:
        n = seen.get(fn.qualname, 0)
        seen[fn.qualname] = n + 1
        out.append(((fn.qualname, n), fn))
    return out


def _by_key(functions: Sequence[Function]) -> dict[tuple[str, int], Function]:
    return dict(_keyed(functions))


# -- the verdict ------------------------------------------------------------------------------


class PredictionLike(Protocol):
    """The fields of `rlm_lsp.runtime.predictor.Prediction` that the verdict reads."""

    value: float
    unit: str


Predictions = Mapping[str, Mapping[str, PredictionLike]]


def judge(
    changes: Sequence[FunctionChange],
    predictions: Predictions,
    config: GateConfig,
    metrics: Sequence[str],
) -> list[Finding]:
    """Findings for every (function, metric) that regressed, is inconclusive or improved, or is
    over its budget, in a stable order. `predictions`: code -> metric -> prediction, for every old
    and new code in `changes`."""
    findings: list[Finding] = []
    for change in changes:
        new_pred = predictions[change.new.snippet.code]
        old_pred = predictions[change.old.snippet.code] if change.old is not None else None
        for metric in metrics:
            if metric not in new_pred:
                continue
            new = new_pred[metric]
            old = old_pred[metric] if old_pred is not None and metric in old_pred else None
            base = dict(path=change.path, line=change.new.line, qualname=change.new.qualname, change=change.kind,
                        metric=metric, unit=new.unit, strict=config.fail_inconclusive)
            grew = growth(old.value, new.value) if old is not None else None
            allow = _allowance(change.new, metric, grew)
            if old is not None:
                limit = config.ratio(metric)
                level = config.level(metric, old, new)
                judged = rules.judge_metric(old, new, limit, level)
                verdict, step = judged.value, judged.growth
                by_ratio = dict(rule="ratio", old=old.value, new=new.value, limit=limit, source=config.ratio_source(metric),
                             level=level, trees=verdict.trees, scaled=verdict.limit)
                if verdict.regressed or verdict.inconclusive:
                    outcome = "regressed" if verdict.regressed else "inconclusive"
                    findings.append(Finding(**base, **by_ratio, **allow, ratio=verdict.ratio,
                                            confidence=verdict.confidence, outcome=outcome))
                elif limit:
                    better = rules.improved(old, new, limit, level)
                    if better.regressed:  # the same rule, the versions swapped: fell by the ratio, confidently
                        findings.append(Finding(**base, **{**by_ratio, "trees": better.trees, "scaled": better.limit},
                                                ratio=verdict.ratio, confidence=better.confidence, outcome="improved"))
                # a pragma's limits bound the values' growth, not a step in the exponent or the loop nests
                steps = allow if change.new.limits is None else {"over_cap": True}
                if step is not None and step.regressed:  # a growth step regresses whatever the constants
                    findings.append(Finding(**{**base, "unit": "exponent"}, **steps, rule="growth", old=step.old,
                                            new=step.new, ratio=None, limit=rules.GROWTH_STEP,
                                            confidence=step.confidence, source="growth step",
                                            **carrier(change.new, metric, new)))
                read = structure(change, metric, old, new, config) if limit else None
                if read is not None and read.regressed:  # a model without growth: the step read from the code
                    findings.append(Finding(**{**base, "unit": "loop levels"}, **steps, rule="structure", old=read.old,
                                            new=read.new, ratio=None, limit=structural.STEP,
                                            source=f"structural-growth ({config.structural_growth})",
                                            **_read_at(change.new, read)))
            budget, source = config.budget_for(metric, change.path)
            if budget is not None and new.value > budget.value:
                findings.append(Finding(**base, **allow, rule="budget", old=old.value if old is not None else None,
                                        new=new.value, ratio=grew, limit=budget.value, source=source))
    return findings


def carrier(fn: Function, metric: str, prediction=None) -> dict[str, object]:
    """What in `fn`'s new text carries `metric`'s growth, as the Finding fields `carrier` and
    `lines` (file lines): the cost analyzer's reading where the growth is its own (`cost`, e.g.
    `read as n²`, and its lines), else the deepest loop nest over the input
    (`rlm_lsp.python.loop_nests`), read from the function's own text; {} where none is found."""
    cost, lines = getattr(prediction, "cost", ""), getattr(prediction, "cost_lines", ())
    if cost and lines:
        return {"carrier": f"read as {cost}", "lines": (fn.snippet.start_line + min(lines),
                                                       fn.snippet.start_line + max(lines))}
    kind = structural.NEST_OF.get(metric)
    if kind is None:
        return {}
    nest = getattr(loop_nests.read(fn.snippet.code), kind)
    if nest.lines is None or not nest.what:
        return {}
    first, last = (fn.snippet.start_line + line for line in nest.lines)  # code line 1 is the snippet's first
    return {"carrier": nest.what, "lines": (first, last)}


def _read_at(fn: Function, read: structural.StructureVerdict) -> dict[str, object]:
    """Rule S's carrier, as its verdict read it (the loop nest, or S2's `read as n²`), in file lines."""
    if not read.what or read.lines is None:
        return {}
    return {"carrier": read.what, "lines": tuple(fn.snippet.start_line + line for line in read.lines)}


def structure(change: FunctionChange, metric: str, old, new, config: GateConfig) -> structural.StructureVerdict | None:
    """Rule S on a changed Python function (`structural.judge`, the project's variant); None where
    it does not apply (off, another language, a model with growth)."""
    if change.old is None or change.new.language != "python" or change.old.language != "python":
        return None
    return structural.judge(change.old.snippet.code, change.new.snippet.code, metric, old, new, config.structural_growth)


def _allowance(fn: Function, metric: str, grew: float | None) -> dict[str, object]:
    """What `fn`'s pragma says about `metric` having grown `grew` (new / old; None for a new
    function): the Finding fields `allowed`, `cap`, `over_cap`."""
    if not fn.pragma:
        return {}
    if fn.limits is None:
        return {"allowed": fn.pragma}
    cap = fn.limits.get(metric)
    if cap is None:
        return {"over_cap": True}
    text = f"{metric}<={cap:g}x"
    if grew is not None and grew <= cap:
        return {"allowed": fn.pragma, "cap": text}
    return {"cap": text, "over_cap": True}


def codes_to_predict(changes: Sequence[FunctionChange]) -> list[str]:
    """Distinct codes, in first-seen order, so one batch covers old and new versions."""
    seen: dict[str, None] = {}
    for change in changes:
        if change.old is not None:
            seen.setdefault(change.old.snippet.code)
        seen.setdefault(change.new.snippet.code)
    return list(seen)
