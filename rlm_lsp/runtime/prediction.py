"""`Prediction`: what every model family returns, one per metric of one input.

A Python function, a Triton kernel and an `.onnx` network all come back as this one frozen type
(`rlm_lsp.runtime.model.Model.predict`), so the CLI, the gate and the server read the same fields. The
fields after `samples` say what the number is for and how much of the input the model read; they
keep their defaults where they do not apply (a Python function has no GPU).

**Growth.** A model may predict, next to a metric, how it grows with the input: a metric named
`<base>_growth` (unit `exponent`), the slope of log(base metric) against log(input size). The
Predictor folds it into the base metric's Prediction (`growth`, its p10 and p90, its samples),
so no consumer sees it as a metric of its own; `growth_class` names it in the words people know
(`~n`, `~n²`), one table for the hint, the hover, the CLI and the gate's messages.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rlm_lsp.runtime.feature_trees import FeatureCheck


@dataclass(frozen=True)
class Prediction:
    metric: str
    value: float  # the model's point estimate (`point_estimate`: median or geometric mean of the samples)
    low: float  # p10
    high: float  # p90
    unit: str
    # The sampled values behind it, in draw order: with shared draws, sample i of two codes used the
    # same random numbers, so their ratios pair up (`rlm_lsp.policy.rules.judge`).
    samples: tuple[float, ...] = field(default=(), repr=False, compare=False)
    # The same samples with each one's exponent replaced by its expected value under the decoder
    # (`rlm_lsp.runtime.predictor.point_estimate` "log_mean_rb"); () where the model did not give them.
    smooth_samples: tuple[float, ...] = field(default=(), repr=False, compare=False)
    # The input was longer than the model reads: it read the head and the tail of it
    # (`rlm_lsp.runtime.predictor.head_and_tail`), so what lies between is not in the number.
    truncated: bool = False
    tokens: int = 0  # length of the whole rendered input in tokens (0: not counted)
    # Kernels: the GPU and the work-size line the number is for, and whether the size was assumed.
    gpu: str = ""
    shape: str = ""
    shape_assumed: bool = False
    # Networks: the target device the latency is for.
    device: str = ""
    # False when the GPU or the target device is not one the model was trained on.
    known_target: bool = True
    # How the metric grows with the input: the predicted exponent of n (1.0: linear), the mean of
    # its samples, and their p10 and p90; None when the model does not predict growth.
    growth: float | None = None
    growth_low: float | None = None
    growth_high: float | None = None
    growth_samples: tuple[float, ...] = field(default=(), repr=False, compare=False)  # paired, as `samples`
    # The input size n the value is for (`rlm_lsp.runtime.growth.at` moves it along the curve); None where
    # the model predicts no growth and the value is "per call, for a typical large input".
    n: float | None = None
    # What the cost analyzer read (`rlm_lsp.runtime.cost_growth`): the leading cost over the sized inputs
    # (`n·m`), what each letter stands for, the lines (1-based, in the code as given) that carry it, and
    # what it could not read; empty where the growth is not the analyzer's.
    cost: str = ""
    cost_legend: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    cost_lines: tuple[int, ...] = field(default=(), compare=False)
    cost_unknown: tuple[str, ...] = field(default=(), repr=False, compare=False)
    # The feature trees' second opinion for the regression rule (`rlm_lsp.runtime.feature_trees`), read only
    # when the rule asks; None where the model ships no trees for this metric.
    features: FeatureCheck | None = field(default=None, repr=False, compare=False)
    # A point estimate of trees (C++, Java, Go: `rlm_lsp.runtime.language_trees`), its p10-p90 their misses
    # on training problems: the gate holds a change of it to that width (`rlm_lsp.policy.rules.judge`).
    from_trees: bool = False


# What a function's numbers are for, in the words every surface uses (hover, CLI table): the
# measured training rows ran each function once on a large input.
PER_CALL = "per call, for a typical large input"
GROWTH_SUFFIX = "_growth"
GROWTH_UNIT = "exponent"
# (upper bound, name) of the growth classes, the names BigO(Bench) uses (`training.measuring.curve_fit.CLASSES`),
# read from the exponent of n over the sizes a curve was measured at: an exponent below 0.2 is flat
# (`1`), one from 1.15 to 1.5 is `n log n` (over 64x to 256x of n, n log n measures 1.1 to 1.3), and
# one of 3.5 or more is named `2ⁿ` (faster than any polynomial our ladders can tell).
GROWTH_CLASSES = ((0.2, "1"), (0.7, "log n"), (1.15, "n"), (1.5, "n log n"), (2.5, "n²"), (3.5, "n³"),
                  (float("inf"), "2ⁿ"))


# p90 - p10 of a growth exponent above this (two classes and more, e.g. ~√n to ~n²): the label says
# `~n?`, as a hint says `~1 kB?` for a value it is very unsure of.
UNSURE_GROWTH = 1.5


def is_growth(metric: str) -> bool:
    """A `<base>_growth` metric: an exponent, folded into its base metric's Prediction."""
    return metric.endswith(GROWTH_SUFFIX)


def metric_prediction(predictions: dict, metric: str) -> Prediction:
    """The Prediction of `metric` as the model names it: a `<base>_growth` metric, which the
    Predictor folds into its base (`fold_growth`, below), comes back as one of its own."""
    if metric in predictions or not is_growth(metric):
        return predictions[metric]
    base = predictions[metric[: -len(GROWTH_SUFFIX)]]
    return Prediction(metric, base.growth, base.growth_low, base.growth_high, GROWTH_UNIT, base.growth_samples)


def growth_label(growth: float, low: float | None = None, high: float | None = None) -> str:
    """`~n`, or `~n?` when its p10–p90 (`low`, `high`) is wider than `UNSURE_GROWTH`."""
    unsure = low is not None and high is not None and high - low > UNSURE_GROWTH
    return growth_class(growth) + ("?" if unsure else "")


def growth_name(exponent: float) -> str:
    """The class of an exponent: `1` (< 0.2), `log n`, `n` (0.7-1.15), `n log n`, `n²` (1.5-2.5), `n³`, `2ⁿ`
    (the `growth_class` field of `--json`)."""
    if math.isnan(exponent):
        return "?"
    return next(name for bound, name in GROWTH_CLASSES if exponent < bound)


def growth_class(exponent: float) -> str:
    """The class in the words a hint uses: `~1`, `~log n`, `~n`, `~n log n`, `~n²`, `~n³`, `~2ⁿ`."""
    name = growth_name(exponent)
    return name if name == "?" else "~" + name


def fold_growth(predictions: dict[str, Prediction]) -> dict[str, Prediction]:
    """{memory, memory_growth, ...} -> {memory (with its growth), ...}: every `<base>_growth`
    whose base metric is there becomes the base Prediction's `growth`, `growth_low`/`growth_high`
    (p10/p90) and `growth_samples`, and is no metric of its own. One without a base stays."""
    out = dict(predictions)
    for name, g in predictions.items():
        base = name[: -len(GROWTH_SUFFIX)] if name.endswith(GROWTH_SUFFIX) else None
        if base and base in out:
            out[base] = dataclasses.replace(out[base], growth=g.value, growth_low=g.low, growth_high=g.high,
                                            growth_samples=g.samples)
            del out[name]
    return out


def scaled(p: Prediction, k: float) -> Prediction:
    """`p` times `k`: its value, interval and samples (a factor on the number, not on its growth)."""
    return dataclasses.replace(p, value=p.value * k, low=p.low * k, high=p.high * k,
                               samples=tuple(v * k for v in p.samples),
                               smooth_samples=tuple(v * k for v in p.smooth_samples))


def with_n(predictions: dict[str, Prediction], n: float | None) -> dict[str, Prediction]:
    """Each Prediction saying it is for size `n` (a model that reads n: the n it read; its growth,
    where it predicts one, moves it from there, `rlm_lsp.runtime.growth.at`); unchanged for None."""
    return predictions if n is None else {m: dataclasses.replace(p, n=n) for m, p in predictions.items()}
