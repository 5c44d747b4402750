"""Fitted cost curves (issue 47, item 3): a program's cost at several input sizes -> its growth.

The fit (``fit``, ``growth_class``, ``CLASSES``, ``class_rose``) is the product's,
``rlm_lsp.runtime.curve_fit`` (`rlm measure` reads its own curves with it), and is re-exported
here with the training set's noise floors (``FLOORS``: 10 µs of CPU time, 1 kB of traced memory).
This module adds what only training reads: the judged buckets (``bucket``), the asymptotic
exponent over the top three sizes (``asymptotic``) and the anchor value at n0 (``anchor``).

The model learns the exponent; the class is the word shown to people and the card's tally.
"""
from __future__ import annotations

import math

import numpy as np

# the fit itself lives with the product (`rlm measure` fits its own curves with it); re-exported here
from rlm_lsp.runtime.curve_fit import (  # noqa: F401 - training's callers import them from here
    CLASSES,
    FLAT,
    TOLERANCE,
    Fit,
    class_rose,
    fit,
    growth_class,
)

FLOORS = {"latency_ms": 0.01, "memory_bytes": 1024.0}  # the training set's floors (`rlm measure` has its own)


def bucket(exponent: float) -> int:
    """The four growth buckets the model is judged on: < 0.5, 0.5-1.5, 1.5-2.5, >= 2.5."""
    return 0 if exponent < 0.5 else 1 if exponent < 1.5 else 2 if exponent < 2.5 else 3


def asymptotic(points, floor: float) -> float | None:
    """The asymptotic exponent (issue 48): the least-squares slope of log cost on log n over the
    three largest sizes of `points` ((n, cost) pairs), where they span at least 4x and all three
    are at or above `floor`; None otherwise. The slope over all sizes is pulled down by the
    constant cost at the smallest rungs; this one is the growth at the sizes that matter."""
    pts = sorted((s, c) for s, c in points if s and s > 0 and c and c > 0)
    top = pts[-3:]
    if len(top) < 3 or top[-1][0] < 4 * top[0][0] or min(c for _, c in top) < floor:
        return None
    x = np.log([s for s, _ in top])
    y = np.log([c for _, c in top])
    return float(np.polyfit(x, y, 1)[0])


ANCHOR_N = 10_000  # n0: the size a program's anchor is its value at (issue 48)


def anchor(points, exponent: float, floor: float, n0: float = ANCHOR_N) -> float | None:
    """The log10 value at `n0` on the line of slope `exponent` through `points` ((n, cost) pairs)
    in log-log: the mean over the points of log10 cost - exponent (log10 n - log10 n0), each cost
    raised to `floor` first; so cost(n) ~ 10**anchor x (n / n0) ** exponent. None without points.
    Every point places the line, not only the top three the asymptotic slope reads: one rung's
    noise moves it less. The anchor rows (`training.learning.curve_rows.load_anchor_examples`)
    and session 33's targets (`experiments.curves_model.curve_targets`) both read it here."""
    pts = [(n, c) for n, c in points if n and n > 0 and c is not None]
    if not pts:
        return None
    x0 = math.log10(n0)
    return float(np.mean([math.log10(max(c, floor)) - exponent * (math.log10(n) - x0) for n, c in pts]))
