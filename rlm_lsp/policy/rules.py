"""The regression rule: one for the editor and the gate.

    old code, new code -> changed?      (canonical forms differ: `changed`)
    old, new Prediction -> regressed?   (new/old over the ratio, and the model confident of it)
    old, new growth     -> regressed?   (a step of `GROWTH_STEP` or more in the exponent, confident)
    old, new Prediction -> improved?    (the same rule with the versions swapped: `improved`)
    source lines        -> allowed?     (`# rlm: allow-regression[memory<=4x] <reason>`: `pragma_parts`)

**Change.** Two versions of a function are the same when their canonical forms are equal
(`preprocess.canon_v1`: comments, docstrings, type hints, formatting, no-op statements and
consistent renames of what the code defines do not count). The same code is never re-judged.

**Confidence.** A Prediction carries its samples; with shared draws (the default) sample i of
the old and of the new code used the same random numbers, so new_i / old_i is a paired draw of
the ratio. A metric regresses when the point estimates grew by `ratio` or more *and* at least
its confidence level of the paired draws did: one median crossing the line is not enough.
Without samples (greedy decoding, old models' rows) the point estimates decide alone. Estimates
that grew past the limit without that confidence (or against the trees, below) are
`Verdict.inconclusive`: the gate reports them and passes. Each
metric's level (`level_for`) is calibrated on validation pairs (`python -m training.judging.gate_quality
--calibrate --per-metric`): `CONFIDENCE_BY_METRIC` for the shipped default judged without feature
trees, the trees' own levels with them (below); `CONFIDENCE` is the uncalibrated level of a metric
without one (kernel latency), and a project's `confidence` sets one level for all (the trees, where
the model ships them, still have their say; at level 0 the point estimates and the trees decide).

**A second opinion.** A model may ship feature trees (`rlm_lsp.runtime.feature_trees`): boosted trees over
counts of the canonical code, fitted apart from the model. Where both Predictions carry them, the
model's estimates and draws are held to its own limit for the ratio (`ratio ** exponent`: its
estimates are drawn towards the middle), a flag also needs the trees to see the growth (new/old at
least the metric's `agree`, scaled to the ratio), and the metric is judged at the level chosen with
them (`level_for`). The numbers shown stay the
model's; the trees only keep a flag the code's counts do not support from firing.

**Growth.** From a model that predicts how a metric grows with the input (`Prediction.growth`,
the exponent of n), a growth step is a regression on its own, whatever the constants: the new
exponent is at least `GROWTH_STEP` above the old (~n to ~n^1.75: a nested loop where there was
one) and at least the metric's level of the paired growth draws (new_i - old_i, the same shared
draws as the values') made that step too. Only when both versions have growth (`judge_growth`);
`growth_regression` gives the message, `predicted growth ~n → ~n² (exponent 1.0 → 2.1)`.
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rlm_lsp.polyglot import functions as polyglot
from rlm_lsp.python import preprocess
from rlm_lsp.python.source import Source
from rlm_lsp.python.source import of as source_of
from rlm_lsp.runtime.prediction import growth_class

DEFAULT_RATIO = 2.0
CONFIDENCE = 0.7  # share of paired draws over the ratio (12 of 16), for a metric without its own level
# Each metric's level, calibrated for the shipped default on validation pairs (`training.judging.gate_quality
# --calibrate --per-metric`; near-equal pairs flagged at most 10%). For `python-v3c-small-20261204`
# (session 27): memory 0.65, latency 0.6; on all validation pairs recall 30% / 9%, near-equal pairs
# flagged 7% / 7%. v3 had 0.7 / 0.6.
CONFIDENCE_BY_METRIC = {"memory": 0.65, "latency": 0.6}
# A growth regression: the exponent of n up by this much (~n -> ~n^1.75). Not calibrated yet: no
# model predicts growth; the classes are 0.5 to 0.75 wide, so this is one class or more.
GROWTH_STEP = 0.75
_ROUNDING = 1e-9  # 1.75 - 1.0 is a full step even where float subtraction leaves 0.7499999...
# `# rlm: allow-regression <reason>`, or with limits: `# rlm: allow-regression[memory<=4x] <reason>`
PRAGMA = re.compile(r"#\s*rlm:\s*allow-regression(?:\[(?P<limits>[^\]]*)\])?(?![\w-])[:\s]*(?P<reason>.*?)\s*$")


# -- change -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def canonical(code: str, outside: frozenset[str] = frozenset(), language: str = "python") -> str:
    """The form two versions of a function are compared by: what the model reads, with the names
    its file defines (`outside`, from `file_names`) made canonical too, so renaming a helper is
    no change to its callers. C++, Java and Go: what the model reads of them (`polyglot.normalise`:
    comments and layout are no change; names are as written)."""
    if language != "python":
        return polyglot.normalise(code, language)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is the user's business
        return preprocess.canon_v1(code, outside)


def file_names(source: str | Source) -> frozenset[str]:
    """The names a file defines (functions, classes, module variables); empty if it does not parse.
    `source`: its text, or the version parsed once (`rlm_lsp.python.source`)."""
    return source_of(source).names


def changed(old_code: str, new_code: str, old_names: frozenset[str] = frozenset(),
            new_names: frozenset[str] = frozenset(), language: str = "python") -> bool:
    """Whether two versions of a function differ by more than canonical names; `*_names`: what
    each version's file defines (`file_names`)."""
    return old_code != new_code and canonical(old_code, old_names, language) != canonical(new_code, new_names, language)


# -- confidence -------------------------------------------------------------------------------


def growth(old: float, new: float) -> float:
    """new / old, with a non-positive old value giving inf (or 1.0 when both are)."""
    if old > 0:
        return new / old
    return math.inf if new > 0 else 1.0


def level_for(metric: str, configured: float | None = None, *predictions) -> float:
    """The confidence level a metric is judged at: the project's `confidence` where it sets one,
    else the level calibrated with the model's feature trees where every one of `predictions`
    (old and new) carries them, else the metric's calibrated level."""
    if configured is not None:
        return configured
    checks = [getattr(p, "features", None) for p in predictions]
    last = checks[-1] if checks else None
    if last is not None and all(c is not None for c in checks):
        return last.level
    return CONFIDENCE_BY_METRIC.get(metric, CONFIDENCE)


def confidence(old, new, ratio: float) -> float:
    """Share of paired draws (the Predictions' `samples`, as drawn: their smoothed form was tried and
    not kept, experiments/log/08-2026-12-02-sessions-20-22.md session 20) whose new/old is at
    least `ratio`; from the point
    estimates (1.0 or 0.0) when the predictions carry no paired samples."""
    a, b = getattr(old, "samples", ()), getattr(new, "samples", ())
    if not a or len(a) != len(b):
        return 1.0 if growth(old.value, new.value) >= ratio else 0.0
    return sum(growth(x, y) >= ratio for x, y in zip(a, b)) / len(a)


@dataclass(frozen=True)
class Verdict:
    ratio: float  # new / old of the point estimates
    confidence: float  # share of paired draws over the limit
    regressed: bool
    trees: float | None = None  # the feature trees' new / old, where the rule asked them
    limit: float | None = None  # the model's own limit for the ratio, where it differs (`FeatureCheck.model_limit`)
    past: bool = False  # the point estimates grew by the (model's) limit, confident or not

    @property
    def inconclusive(self) -> bool:
        """The estimates grew past the limit but the draws or the feature trees do not back it."""
        return self.past and not self.regressed


def judge(old, new, ratio: float, level: float = CONFIDENCE) -> Verdict:
    """Whether `new` regressed against `old` (two Predictions of one metric) by `ratio`."""
    grew = growth(old.value, new.value)
    a, b = getattr(old, "features", None), getattr(new, "features", None)
    limit = b.model_limit(ratio) if a is not None and b is not None else ratio
    if getattr(new, "from_trees", False) and new.low > 0:
        # trees' point estimates, no paired draws: a change within their own p10-p90 width is their noise
        # (an unused local moved 5-19% of C++/Go functions' values 2x or more; session 42)
        limit = max(limit, new.high / new.low)
    conf = confidence(old, new, limit)
    past = bool(ratio) and grew >= limit
    regressed = past and conf >= level
    scaled = limit if limit != ratio else None
    if not regressed or a is None or b is None:
        return Verdict(grew, conf, regressed, None, scaled, past)
    trees = growth(a.value, b.value)  # asked only here: reading the trees costs a canonical form
    return Verdict(grew, conf, trees >= b.limit(ratio) - _ROUNDING, trees, scaled, past)


def improved(old, new, ratio: float, level: float = CONFIDENCE) -> Verdict:
    """Whether `new` fell against `old` by `ratio`, as confidently as a regression must grow: the
    same rule with the versions swapped (its `ratio` is old / new, `regressed` means improved)."""
    return judge(new, old, ratio, level)


@dataclass(frozen=True)
class GrowthVerdict:
    old: float  # the old version's growth exponent (point estimate)
    new: float
    confidence: float  # share of paired growth draws that stepped up by `step`
    regressed: bool

    @property
    def words(self) -> str:
        """`growth ~n → ~n² (exponent 1.0 → 2.1)`."""
        return (f"growth {growth_class(self.old)} → {growth_class(self.new)} "
                f"(exponent {self.old:.1f} → {self.new:.1f})")


def growth_confidence(old, new, step: float = GROWTH_STEP) -> float:
    """Share of paired growth draws whose new_i - old_i is at least `step`; from the point
    estimates (1.0 or 0.0) when the predictions carry no paired growth samples."""
    a, b = getattr(old, "growth_samples", ()), getattr(new, "growth_samples", ())
    if not a or len(a) != len(b):
        return 1.0 if new.growth - old.growth >= step - _ROUNDING else 0.0
    return sum(y - x >= step - _ROUNDING for x, y in zip(a, b)) / len(a)


def judge_growth(old, new, step: float = GROWTH_STEP, level: float = CONFIDENCE) -> GrowthVerdict | None:
    """Whether `new` grows faster with the input than `old` (two Predictions of one metric) by
    `step` in the exponent, confidently; None when either version has no growth prediction."""
    a, b = getattr(old, "growth", None), getattr(new, "growth", None)
    if a is None or b is None:
        return None
    conf = growth_confidence(old, new, step)
    return GrowthVerdict(a, b, conf, bool(step) and b - a >= step - _ROUNDING and conf >= level)


@dataclass(frozen=True)
class Judgement:
    """The rule's answer for one metric of one function: its value by the ratio and, where both
    versions predict growth, its growth step."""

    value: Verdict
    growth: GrowthVerdict | None

    @property
    def regressed(self) -> bool:
        return self.value.regressed or bool(self.growth is not None and self.growth.regressed)


def judge_metric(old, new, ratio: float, level: float) -> Judgement:
    """`judge` and `judge_growth` at one level: what the gate, the editor's diagnostics and the
    benches ask of two Predictions of one metric. A ratio of 0 (the check switched off) judges the
    growth step off too."""
    return Judgement(judge(old, new, ratio, level), judge_growth(old, new, level=level) if ratio else None)


def growth_regression(old, new, level: float = CONFIDENCE, step: float = GROWTH_STEP) -> str | None:
    """`predicted growth ~n → ~n² (exponent 1.0 → 2.1)` when `judge_growth` says `new` regressed;
    None when it did not, or when either version has no growth. A message that names the metric
    uses `GrowthVerdict.words` (`predicted peak memory growth ~n → ~n² ...`)."""
    verdict = judge_growth(old, new, step, level)
    return f"predicted {verdict.words}" if verdict is not None and verdict.regressed else None


# -- pragma -----------------------------------------------------------------------------------


def comments(source: str | Source) -> dict[int, str]:
    """0-based line -> comment text, from the tokenizer (so '#' inside strings is not one); `source`:
    its text, or the version parsed once (`Source.comments`). Do not mutate: it is shared."""
    return source_of(source).comments


_LIMIT = re.compile(r"^\s*(?P<metric>[A-Za-z_][\w-]*)\s*<=\s*(?P<ratio>[0-9]*\.?[0-9]+)\s*[x×]\s*$")


def pragma_limits(text: str) -> dict[str, float]:
    """`memory<=4x, latency<=1.5x` -> {"memory": 4.0, "latency": 1.5}: how far each named metric
    may grow (new / old). ValueError, with the part that is wrong, for anything else."""
    limits: dict[str, float] = {}
    for part in text.split(","):
        match = _LIMIT.match(part)
        if not match:
            raise ValueError(f"limit {part.strip()!r} is not like memory<=4x")
        ratio = float(match["ratio"])
        if not 1.0 < ratio < math.inf:
            raise ValueError(f"limit {part.strip()!r} must allow a growth above 1x")
        metric = match["metric"].replace("-", "_")
        if metric in limits:
            raise ValueError(f"limit {part.strip()!r} names {metric} a second time")
        limits[metric] = ratio
    return limits


def pragma(snippet, found: Mapping[int, str], lines: Sequence[str]) -> str | None:
    """The reason of an allow-regression pragma on the function's header lines (decorators,
    `def`, up to the `:`) or in the comment lines directly above; "" when the pragma is there
    without a reason (ignored, with a note), None when there is none."""
    parts = pragma_parts(snippet, found, lines)
    return None if parts is None else parts[0]


def pragma_parts(snippet, found: Mapping[int, str], lines: Sequence[str]) -> tuple[str, str | None] | None:
    """(reason, limits) of the function's allow-regression pragma (`pragma`), `limits` the text in
    its brackets (`memory<=4x`) or None when it has none; None when there is no pragma."""
    candidates = list(range(snippet.start_line, snippet.header_end_line + 1))
    above = snippet.start_line - 1
    indent = _indent(lines[snippet.start_line]) if snippet.start_line < len(lines) else 0
    # comment lines directly above, at the function's own indentation or less: a comment indented
    # deeper is the last line of the previous function's body, not this function's (issue 61.5)
    while above >= 0 and lines[above].strip().startswith("#") and _indent(lines[above]) <= indent:
        candidates.append(above)
        above -= 1
    result = None
    for line in candidates:
        match = PRAGMA.search(found.get(line, ""))
        if match:
            if _visible(match["reason"]):
                return match["reason"], match["limits"]
            result = "", match["limits"]
    return result


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _visible(reason: str) -> bool:
    """A reason someone can read: zero-width and other format characters alone are none (issue 61.9)."""
    return any(not ch.isspace() and unicodedata.category(ch) not in ("Cf", "Cc", "Zs") for ch in reason)

