"""Which functions a change touches, and whether their predictions regress.

Two versions of a set of files go in; out come `FunctionChange`s (a function's old and new
version, or only a new one) and then `Finding`s (a metric over its ratio or budget).

Functions are compared by their *canonical* form (`rlm_lsp.rules.canonical`): comments,
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

The verdict is `rlm_lsp.rules.judge`, the editor's rule too: over the ratio, and confident of it.

Pragma: a comment `# rlm: allow-regression <reason>` lets a function's regression through
and the reason is printed. It counts on any line of the function's header (decorators,
`def` line, up to the `:` that ends the signature) or in the block of comment lines
directly above it. A pragma without a reason is ignored, with a note.
"""

from __future__ import annotations

import ast
import difflib
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from rlm_lsp import rules
from rlm_lsp.lines import split_lines
from rlm_lsp.project_config import GateConfig
from rlm_lsp.rules import PRAGMA, growth  # noqa: F401 - part of this module's interface
from rlm_lsp.snippets import Snippet, extract

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
    rule: str  # "ratio" | "budget" | "growth" (old and new: growth exponents; limit: the step)
    old: float | None
    new: float
    ratio: float | None  # new / old
    limit: float  # the ratio, the budget (in `unit`) or the growth step that was exceeded
    allowed: str | None = None  # pragma reason: reported, does not fail
    confidence: float | None = None  # share of paired draws over the ratio (rule "ratio")
    trees: float | None = None  # the model's feature trees' new / old, where they were asked (rule "ratio")
    scaled: float | None = None  # the model's own limit for `limit`, where it differs (rule "ratio")

    @property
    def failed(self) -> bool:
        return self.allowed is None


# -- parsing one version of a file ------------------------------------------------------------


def parse_functions(path: str, source: str) -> list[Function]:
    """The functions of a source that parses; raises SyntaxError/ValueError otherwise."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is the user's business
        ast.parse(source)
        snippets = extract(source, "python")
    comments = rules.comments(source)
    lines = split_lines(source)
    names = rules.file_names(source)
    out = []
    for snippet in snippets:
        norm, anon, shape = normalize(snippet.code, names)
        out.append(Function(path, snippet, norm, anon, shape, rules.pragma(snippet, comments, lines)))
    return out


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
    """The fields of `rlm_lsp.predictor.Prediction` that the verdict reads."""

    value: float
    unit: str


Predictions = Mapping[str, Mapping[str, PredictionLike]]


def judge(
    changes: Sequence[FunctionChange],
    predictions: Predictions,
    config: GateConfig,
    metrics: Sequence[str],
) -> list[Finding]:
    """Findings for every (function, metric) over its ratio or budget, in a stable order.
    `predictions`: code -> metric -> prediction, for every old and new code in `changes`."""
    findings: list[Finding] = []
    for change in changes:
        new_pred = predictions[change.new.snippet.code]
        old_pred = predictions[change.old.snippet.code] if change.old is not None else None
        for metric in metrics:
            if metric not in new_pred:
                continue
            new = new_pred[metric]
            base = dict(
                path=change.path,
                line=change.new.line,
                qualname=change.new.qualname,
                change=change.kind,
                metric=metric,
                unit=new.unit,
                allowed=change.new.pragma or None,
            )
            if old_pred is not None and metric in old_pred:
                limit = config.ratio(metric)
                judged = rules.judge_metric(old_pred[metric], new, limit, config.level(metric, old_pred[metric], new))
                verdict, step = judged.value, judged.growth
                if verdict.regressed:
                    findings.append(Finding(**base, rule="ratio", old=old_pred[metric].value, new=new.value,
                                            ratio=verdict.ratio, limit=limit, confidence=verdict.confidence,
                                            trees=verdict.trees, scaled=verdict.limit))
                if step is not None and step.regressed:  # a growth step regresses whatever the constants
                    findings.append(Finding(**{**base, "unit": "exponent"}, rule="growth", old=step.old,
                                            new=step.new, ratio=None, limit=rules.GROWTH_STEP,
                                            confidence=step.confidence))
            budget = config.budgets.get(metric)
            if budget is not None and new.value > budget.value:
                old_value = old_pred[metric].value if old_pred is not None and metric in old_pred else None
                ratio = growth(old_value, new.value) if old_value is not None else None
                findings.append(
                    Finding(**base, rule="budget", old=old_value, new=new.value, ratio=ratio, limit=budget.value)
                )
    return findings


def codes_to_predict(changes: Sequence[FunctionChange]) -> list[str]:
    """Distinct codes, in first-seen order, so one batch covers old and new versions."""
    seen: dict[str, None] = {}
    for change in changes:
        if change.old is not None:
            seen.setdefault(change.old.snippet.code)
        seen.setdefault(change.new.snippet.code)
    return list(seen)
