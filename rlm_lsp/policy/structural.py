"""Rule S: a growth step read from the code's loop nests, for a model that predicts no growth.

    old code, new code, metric -> stepped?   (the loop-nest depth rose a level: `judge`)

The shipped model predicts values at one input size, not how they grow, and its values barely move
between a loop and a nest (issue 48: the gate flagged 7% of measured variants whose growth class
rose). Where the model has no growth for a metric (`rules.judge_growth` gives None), the gate can
read the step from the code instead: the deepest loop nest over the input
(`rlm_lsp.python.loop_nests`, time for latency, memory for memory) of each version.

- **S0**: flagged when the new version's depth is at least one level above the old one's (`~n` to
  `~n²`; a sort counts `loop_nests.SORT_LEVEL`, 1.2: `~n` to `~n² log n` with a sort in a loop).
- **S1**: S0, and the model's own estimate for the metric did not fall: new/old of its point
  estimates at least 1.0, and of its feature trees too where the model ships them. The model
  keeps a veto over a structure it reads as cheaper.
- **S2** (session 40): the cost analyzer's exponent for the metric (`rlm_lsp.cost`: loops with their
  trip counts, library calls, recursion) rose by at least `rules.GROWTH_STEP` (0.75), the step the
  gate holds a predicted growth to; no veto (the model's values barely move between a loop and a
  nest, which is what S is for).

- **S3** (session 42): S2 for latency, applied beside a predicted time growth too: the gate flags
  where either the predicted growth (time-v7's correction of the analyzer, which maps an unsure
  reading to the likelier class's centre) or the analyzer's own exponent stepped.

A model that predicts growth keeps its own growth step and S0-S2 never apply. The message says the
step is read from the code, not predicted (`parse(): time grows ~n → ~n² as read from the code
(nested loop, lines 14–16)`). Rule written before its figures, chosen and judged as logged in
experiments/log/12-2026-12-06-sessions-34-on.md ("S, a growth step read from the loop nests");
the gate's setting is `[tool.rlm] structural-growth` (`project_config`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rlm_lsp.policy.rules import GROWTH_STEP, growth
from rlm_lsp.python import loop_nests
from rlm_lsp.python.cost_front import read as read_cost

S0, S1, S2, S3 = "s0", "s1", "s2", "s3"
VARIANTS = (S0, S1, S2, S3)
# The variant chosen on training problems' curve pairs (the rule: the higher class-rose recall among
# those flagging at most 5% of near-equal pairs; else the lower near-equal): neither kept near-equal
# at 5% (S0 11.2%, S1 6.9%, class rose 61% / 45%), so S1.
CHOSEN = S1
# What the gate applies unless a project says otherwise: None (off), since S1 missed its validation
# bars (class rose flagged 29% < 40%; near-equal flagged +6 / +8 points > 3). docs/gate.md, rule S.
DEFAULT: str | None = None
STEP = 1.0  # one loop level: ~n -> ~n²
NEST_OF = {"latency": "time", "memory": "memory"}  # the gate's metric -> the loop nest that carries it
_ROUNDING = 1e-9
_SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True)
class StructureVerdict:
    old: float  # the old version's loop-nest depth for the metric
    new: float
    what: str  # the new version's nest: "nested loop", "sort in a loop", ...
    lines: tuple[int, int] | None  # ...and the lines of its code it spans (1-based)
    regressed: bool

    @property
    def words(self) -> str:
        """`~n → ~n²`."""
        return f"{depth_class(self.old)} → {depth_class(self.new)}"


def depth_class(depth: float) -> str:
    """A loop-nest depth in the words of a growth class: 0 `~1`, 1 `~n`, 1.2 `~n log n`, 2 `~n²`,
    2.2 `~n² log n`, 3 `~n³`."""
    levels = int(depth + _ROUNDING)
    parts = ["n" + ("" if levels == 1 else str(levels).translate(_SUPERSCRIPTS))] if levels else []
    if depth - levels > 0.1:  # loop_nests counts a sort as 1.2 levels: n log n
        parts.append("log n")
    return "~" + " ".join(parts) if parts else "~1"


def held(old, new) -> bool:
    """S1's condition: the model's estimate did not fall (new/old of the point estimates at least
    1.0, and of the feature trees where both Predictions carry them)."""
    if growth(old.value, new.value) < 1.0:
        return False
    a, b = getattr(old, "features", None), getattr(new, "features", None)
    return a is None or b is None or growth(a.value, b.value) >= 1.0


def judge(old_code: str, new_code: str, metric: str, old, new, variant: str | None) -> StructureVerdict | None:
    """Whether `new_code` stepped a loop level above `old_code` for `metric` (rule `variant`, S0 or
    S1; `old`/`new` the model's Predictions of the two); None where S does not apply: no variant,
    a metric without a loop nest, or a model that predicts growth for it (`rules.judge_growth` judges)."""
    if variant is None or metric not in NEST_OF:
        return None
    if variant == S3:
        return _analyzer_step(old_code, new_code, metric) if metric == "latency" else None
    if getattr(old, "growth", None) is not None and getattr(new, "growth", None) is not None:
        return None
    if variant not in VARIANTS:
        raise ValueError(f"structural growth rule {variant!r}: expected one of {', '.join(VARIANTS)}")
    if variant == S2:
        return _analyzer_step(old_code, new_code, metric)
    a = getattr(loop_nests.read(old_code), NEST_OF[metric])
    b = getattr(loop_nests.read(new_code), NEST_OF[metric])
    stepped = b.depth - a.depth >= STEP - _ROUNDING
    if stepped and variant == S1:
        stepped = held(old, new)
    return StructureVerdict(a.depth, b.depth, b.what, b.lines, stepped)


def _analyzer_step(old_code: str, new_code: str, metric: str) -> StructureVerdict | None:
    """S2: the cost analyzer's exponent of each version (None where it cannot read one)."""
    a, b = read_cost(old_code), read_cost(new_code)
    if a is None or b is None:
        return None
    lines = b.lines(metric)
    return StructureVerdict(a.growth(metric), b.growth(metric), f"read as {b.text(metric)}",
                            (min(lines), max(lines)) if lines else None,
                            b.growth(metric) - a.growth(metric) >= GROWTH_STEP - _ROUNDING)
