"""Fitted cost curves: a function's cost at several input sizes -> its growth exponent and class.

Shared by `rlm measure` (rlm_lsp.measure, on curves it measures) and the training code
(training.measuring.curve_fit, on the training set's curves), so both name a curve's growth the
same way. ``fit(sizes, costs, floor)`` gives, per metric:

* ``exponent``: the least-squares slope of log cost on log n over the points at or above the
  metric's noise floor (the caller's: below it a measurement says more about the interpreter than
  the program).  Where fewer than three distinct sizes stand above the floor, the costs are raised
  to the floor and the slope is taken over all points: a curve that sits at the floor is flat
  (exponent 0), one that leaves it late gets the slope of its visible part, damped.
* ``r2``: how much of log cost that straight line explains (1.0 where log cost does not vary).
* ``growth_class``: one of ``CLASSES`` (``1``, ``log n``, ``n``, ``n log n``, ``n²``, ``n³``,
  ``2ⁿ``), the BigO(Bench) way: every class's model ``cost = a + b·f(n)`` (b ≥ 0) is fitted by
  least squares on relative errors (so every size counts and programs of any scale compare) and
  the simplest class whose residual is within ``TOLERANCE`` of the best one wins (a bias to the
  simpler class).  The ``big_O`` package (PyPI) fits the same classes, but on absolute errors with
  one absolute simplicity bias, so on a ladder whose sizes grow geometrically only its top point
  counts and ``n²`` and ``n³`` tie; this module is its fit on relative errors, with b ≥ 0.  A curve that stays at the
  floor, or whose exponent is below 0.1, is ``1`` without a fit.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CLASSES = ("1", "log n", "n", "n log n", "n²", "n³", "2ⁿ")
TOLERANCE = 0.01  # sum of squared relative errors: a simpler class within this of the best one wins
FLAT = 0.1  # an exponent below this is flat


@dataclass(frozen=True)
class Fit:
    exponent: float | None
    r2: float | None
    growth_class: str | None
    points: int  # points with a positive size and cost
    above_floor: int  # of them, at or above the floor

    def as_row(self, prefix: str) -> dict:
        return {prefix + "_exponent": self.exponent, prefix + "_r2": self.r2,
                prefix + "_class": self.growth_class, prefix + "_above_floor": self.above_floor}


def _slope(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float]:
    """(slope, R²) of ys on xs by least squares."""
    mx, my = xs.mean(), ys.mean()
    sxx = float(((xs - mx) ** 2).sum())
    b = float(((xs - mx) * (ys - my)).sum()) / sxx
    resid = ys - (my + b * (xs - mx))
    syy = float(((ys - my) ** 2).sum())
    r2 = 1.0 if syy <= 1e-12 else max(0.0, 1.0 - float((resid ** 2).sum()) / syy)
    return b, r2


def _basis(name: str, n: np.ndarray) -> np.ndarray | None:
    if name == "1":
        return None
    if name == "log n":
        return np.log(n)
    if name == "n":
        return n
    if name == "n log n":
        return n * np.log(n)
    if name == "n²":
        return n ** 2
    if name == "n³":
        return n ** 3
    return None  # 2ⁿ: fitted on the log scale (``_residual``)


def _residual(name: str, n: np.ndarray, y: np.ndarray) -> float:
    """Sum of squared residuals of ``y ≈ a + b·f(n)``, b ≥ 0 (y scaled to max 1)."""
    if name == "2ⁿ":
        # y = a·2^(b·n): linear in n on the log scale; only a curve that explodes within the sizes
        # seen can be told from a polynomial, so the fit is read back on the linear scale
        if n.max() > 64:  # 2^(b·n) over sizes this large is not a curve anybody measures
            return math.inf
        A = np.vstack([np.ones_like(n), n]).T
        coef, *_ = np.linalg.lstsq(A, np.log(y), rcond=None)
        if coef[1] <= 0:
            return math.inf
        return float((((np.exp(A @ coef) - y) / y) ** 2).sum())
    f = _basis(name, n)
    w = 1.0 / y  # relative errors: every size counts, not only the largest
    if f is None:
        c = float((y * w * w).sum() / (w * w).sum())
        return float((((c - y) * w) ** 2).sum())
    A = np.vstack([np.ones_like(n), f / f.max()]).T
    coef, *_ = np.linalg.lstsq(A * w[:, None], y * w, rcond=None)
    if coef[1] < 0:  # a falling curve is no growth of this class
        return _residual("1", n, y)
    return float((((A @ coef - y) * w) ** 2).sum())


def growth_class(sizes, costs, exponent: float | None = None) -> str | None:
    """The simplest class of ``CLASSES`` whose fit is within ``TOLERANCE`` of the best one."""
    pts = sorted((float(s), float(c)) for s, c in zip(sizes, costs) if s and c and s > 0 and c > 0)
    if len({s for s, _ in pts}) < 3:
        return None
    if exponent is not None and exponent < FLAT:
        return "1"
    n = np.array([s for s, _ in pts])
    y = np.array([c for _, c in pts])
    y = y / y.max()
    res = {name: _residual(name, n, y) for name in CLASSES}
    best = min(res.values())
    return next(name for name in CLASSES if res[name] <= best + TOLERANCE)


def class_rose(new: str | None, old: str | None) -> bool | None:
    """Whether growth class `new` is above `old` in ``CLASSES`` order; None when either is unknown."""
    if new not in CLASSES or old not in CLASSES:
        return None
    return CLASSES.index(new) > CLASSES.index(old)


def fit(sizes, costs, floor: float) -> Fit:
    """The growth of one program's cost (see the module's docstring)."""
    pts = [(float(s), float(c)) for s, c in zip(sizes, costs)
           if s is not None and c is not None and s > 0 and c > 0]
    above = [(s, c) for s, c in pts if c >= floor]
    if len({s for s, _ in pts}) < 3:
        return Fit(None, None, None, len(pts), len(above))
    if len({s for s, _ in above}) >= 3:
        use = above
    else:
        use = [(s, max(c, floor)) for s, c in pts]
    xs = np.log([s for s, _ in use])
    ys = np.log([c for _, c in use])
    b, r2 = _slope(xs, ys)
    b = round(b, 4)
    if len({s for s, _ in above}) < 3 and len(above) <= 1:
        cls = "1" if b < FLAT else growth_class([s for s, _ in use], [c for _, c in use], b)
    else:
        cls = growth_class([s for s, _ in use], [c for _, c in use], b)
    return Fit(b, round(r2, 4), cls, len(pts), len(above))
