"""Predictions in words: which number is memory and which is time, how big, how sure.

Pure functions from `Prediction`s to text, shared by the hint, the lens, the hover and the
status line, so every place says the same thing. A prediction is per call of the function, for
a typical large input (the measured training rows ran each function on a large input).

How sure: the p10–p90 interval of the samples, as a ratio high/low. The shipped model's
intervals span about 100–3000×, so a figure is never precise; an interval wider than the model's
usual spread (`rlm_lsp.server.unsure`: the widest fifth of its intervals on validation rows) makes
the hint print one significant digit and a `?` instead of a precise-looking number.

How it grows: a model that predicts growth gives each metric the exponent of n it grows by
(`Prediction.growth`); the hint leads with its class, then the value at n (`mem ~n 1.1 kB`),
the hover says it in a sentence with the number. The classes are `rlm_lsp.runtime.prediction.growth_class`'s,
which the CLI table and the gate's messages use too. Nothing changes for a prediction without it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from rlm_lsp.runtime.prediction import PER_CALL, growth_class  # noqa: F401 - PER_CALL: the hint and hover read it here
from rlm_lsp.runtime.units import format_value
from rlm_lsp.server.unsure import FIXED, UsualSpread

# Short hint labels (as Import Cost labels its sizes); a metric not listed keeps its own name.
SHORT = {"memory": "mem", "latency": "time", "kernel_latency": "kernel time"}
LONG = {"memory": "peak memory", "latency": "run time", "kernel_latency": "kernel run time"}
# At or over these a value is flagged "large" (hint: a leading ⚠; hover: in words).
LARGE = {"bytes": 100e6, "ms": 1000.0}
LARGE_WORDS = {"bytes": "over 100 MB", "ms": "over 1 s"}
FLAG = "⚠ "
ROUGH_SPREAD = 100.0  # above this: "unsure" (most predictions of the shipped model)


def spread(p: Any) -> float:
    """p90 / p10 of a prediction (inf when p10 is not positive)."""
    return p.high / p.low if p.low > 0 else math.inf


def unsure(p: Any, metric: str = "", usual: UsualSpread = FIXED) -> bool:
    return usual.value_unsure(metric, p)


def large(p: Any) -> bool:
    limit = LARGE.get(p.unit)
    return limit is not None and p.value >= limit


def sureness(p: Any, metric: str = "", usual: UsualSpread = FIXED) -> str:
    """`very unsure: the real value may be anywhere from 1 kB to 337 kB (p10–p90, 337×)`; "very
    unsure" where the hint says `?` (wider than the model's usual spread)."""
    s = spread(p)
    span = "∞" if math.isinf(s) else f"{s:.0f}×"
    words = "very unsure" if usual.value_unsure(metric, p) else "unsure" if s > ROUGH_SPREAD else "fairly sure"
    return (f"{words}: likely between {format_value(p.unit, p.low)} and {format_value(p.unit, p.high)} "
            f"(p10–p90, a {span} range)")


def rough(unit: str, value: float) -> str:
    """One significant digit: `~300 kB?`, for a figure the model is very unsure of."""
    if value > 0:
        value = float(f"{value:.0e}")
    return f"~{format_value(unit, value)}?"


def short(metric: str, p: Any, usual: UsualSpread = FIXED, judged: Any = None) -> str:
    """`mem 1.1 kB`, `time ~20 µs?` (unsure relative to the model's usual spread), `⚠ mem 120 MB`
    (large); with growth it leads: `mem ~n 1.1 kB`, `time ~n²? 19 µs` (unsure how it grows).
    `judged`: the prediction the value's `?` is judged on (`p` at the model's reference n, where
    the usual spread was measured), when `p` was moved to another n."""
    vague = usual.value_unsure(metric, judged if judged is not None else p)
    number = rough(p.unit, p.value) if vague else format_value(p.unit, p.value)
    return f"{FLAG if large(p) else ''}{SHORT.get(metric, metric)}{growth_suffix(p, metric, usual)} {number}"


def growth_suffix(p: Any, metric: str = "", usual: UsualSpread = FIXED) -> str:
    """` ~n`, ` ~n²?` (unsure how it grows: `unsure.UsualSpread.growth_unsure`), '' without growth."""
    grows = getattr(p, "growth", None)
    if grows is None:
        return ""
    return f" {growth_class(grows)}{'?' if usual.growth_unsure(metric, p) else ''}"


def growth_line(p: Any, source: str = "") -> str | None:
    """`grows ~n² with the input (exponent 2.1; p10–p90 1.6–2.4)`, `~1: does not grow with the
    input (...)`; None without a growth prediction. `source`: what carries it, in place of "with
    the input" (`grows ~n² from the nested loop, lines 14–16 (...)`)."""
    grows = getattr(p, "growth", None)
    if grows is None:
        return None
    words = growth_class(grows)
    numbers = f"exponent {_exponent(grows)}"
    low, high = getattr(p, "growth_low", None), getattr(p, "growth_high", None)
    if low is not None and high is not None:
        numbers += f"; p10–p90 {_exponent(low)}–{_exponent(high)}"
    if words == "~1":
        return f"~1: does not grow with the input ({numbers})"
    return f"grows {words} {source or 'with the input'} ({numbers})"


def _exponent(x: float) -> str:
    return f"{x:.1f}".replace("-0.0", "0.0").replace("-", "−")


def hint_label(predictions: Mapping[str, Any], shown: Iterable[str], usual: UsualSpread = FIXED,
               judged: Mapping[str, Any] | None = None) -> str | None:
    """`mem 1.1 kB · time 19 µs`, `mem ~n 1.1 kB · time ~n² 19 µs`, or None when no shown metric
    has a prediction. `judged`: the predictions at the reference n (see `short`)."""
    wanted = set(shown)
    parts = [short(m, p, usual, (judged or {}).get(m)) for m, p in predictions.items() if m in wanted]
    return " · ".join(parts) if parts else None


def long_name(metric: str) -> str:
    return LONG.get(metric, metric.replace("_", " "))


def size_words(p: Any) -> str:
    return f" — large ({LARGE_WORDS[p.unit]})" if large(p) else ""


def model_words(version: str, model_path: str, device: str) -> str:
    """`the shipped model on CPU`, `model in my-model on GPU`: no model ids in the editor's UI."""
    where = {"cpu": "CPU", "cuda": "GPU"}.get(str(device).lower(), str(device))
    if model_path:
        name = model_path.rstrip("/\\").replace("\\", "/").rsplit("/", 1)[-1] or model_path
        return f"model in {name} on {where}"
    return f"the shipped model on {where}"
