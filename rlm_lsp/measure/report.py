"""Measured curves for people: a table per function, a sparkline per metric, a PNG where matplotlib is;
beside each, the shipped model's prediction (`Predicted`) where `rlm measure` could ask it.

    examples/measure_demo.py:4  running_sum(xs: list of ints)  measured in 6.5 s
              n     time  memory  predicted memory
             16   665 ns    48 B             621 B
            ...
        1048576  39.1 ms   120 B             842 B
      time    ~n        (exponent 1.04)  ▁▂▃▃▅▅▆▇▇██  predicted 433 µs per call, no growth (for a typical large input)
      memory  ~1        (exponent 0.00)  ▁▇▇▇▇▇█████  predicted ~1 (exponent 0.03)
      ladder stopped: max n (1048576)

The sparkline scales each metric from its smallest to its largest figure, on a log scale, one
character a size: a straight rise is a power of n, its steepness the exponent beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rlm_lsp.measure.run import Curve
from rlm_lsp.runtime.units import format_value

BARS = "▁▂▃▄▅▆▇█"
METRICS = (("time", "ms", 1e3), ("memory", "bytes", 1.0))  # measured metric, the unit shown, from s / bytes


@dataclass(frozen=True)
class Predicted:
    """The model's prediction beside one measured metric of a function, in the measured metric's unit
    (s, bytes): `values` at each measured n (`rlm predict --n N`); () where the model predicts no growth
    and no n for it, and `value` is then its one number, per call for a typical large input."""
    metric: str  # the model's name for it: latency, memory
    values: tuple[float, ...] = ()
    growth_class: str | None = None  # `n²`; None without growth
    exponent: float | None = None
    unsure: bool = False  # its p10-p90 spans more than `prediction.UNSURE_GROWTH`: `~n?`
    value: float | None = None

    @property
    def label(self) -> str | None:
        """The growth as a hint says it: `~n`, `~n²?`; None without growth."""
        return f"~{self.growth_class}" + ("?" if self.unsure else "") if self.growth_class else None

    def as_json(self) -> dict:
        return {"metric": self.metric, "values": list(self.values) or None, "class": self.growth_class,
                "exponent": self.exponent, "unsure": self.unsure, "value": self.value}


Predictions = Mapping[str, Predicted]  # measured metric ("time", "memory") -> the prediction beside it


def format_curve(curve: Curve, predicted: Predictions | None = None) -> str:
    predicted = predicted or {}
    head = f"{curve.file}:{curve.plan.line}  {curve.plan.function}"
    if curve.plan.inputs:
        head += f"({curve.plan.inputs})"
    if curve.status != "measured":
        lines = [f"{head}  unmeasured: {curve.reason}"]
        lines += _table(curve, predicted) if curve.rungs else []
        return "\n".join(lines)
    lines = [f"{head}  measured in {curve.wall_s:.1f} s" + ("  (fresh copy per call)" if curve.plan.mutates else "")]
    lines += _table(curve, predicted)
    for metric, values in (("time", [r.time_s for r in curve.rungs]),
                           ("memory", [float(r.memory_bytes) for r in curve.rungs])):
        g = curve.growth[metric]
        word = f"~{g.growth_class}" if g.growth_class else "?"
        exponent = f"exponent {g.exponent if abs(g.exponent) >= 0.005 else 0.0:.2f}" if g.exponent is not None \
            else "no exponent"
        line = f"  {metric:<7} {word:<9} ({exponent})  {sparkline(values)}"
        if metric in predicted:
            line += f"  {_said(metric, predicted[metric])}"
        lines.append(line)
    lines.append(f"  ladder stopped: {curve.stopped}")
    return "\n".join(lines)


def _said(metric: str, p: Predicted) -> str:
    """`predicted ~n (exponent 1.02)`, or the one value of a metric predicted without growth."""
    unit, scale = next((u, s) for m, u, s in METRICS if m == metric)
    if p.values:
        return "predicted " + (f"{p.label} (exponent {p.exponent:.2f})" if p.label and p.exponent is not None
                               else "with no growth class")
    if p.value is None:
        return "predicted: none"
    return f"predicted {format_value(unit, p.value * scale)} per call, no growth (for a typical large input)"


def _table(curve: Curve, predicted: Predictions) -> list[str]:
    shown = [(m, u, s) for m, u, s in METRICS if len(predicted[m].values if m in predicted else ()) == len(curve.rungs)]
    rows = [("n", "time", "memory", *(f"predicted {m}" for m, _, _ in shown))]
    for i, r in enumerate(curve.rungs):
        rows.append((str(r.n), format_value("ms", r.time_s * 1e3), format_value("bytes", r.memory_bytes),
                     *(format_value(u, predicted[m].values[i] * s) for m, u, s in shown)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.rjust(w) for c, w in zip(row, widths)) for row in rows]


def sparkline(values: list[float]) -> str:
    """One bar a value, on a log scale from the smallest to the largest."""
    logs = [math.log(max(v, 1e-12)) for v in values]
    low, high = min(logs, default=0.0), max(logs, default=0.0)
    if high - low < 1e-9:
        return BARS[0] * len(values)
    return "".join(BARS[round((x - low) / (high - low) * (len(BARS) - 1))] for x in logs)


LEGEND = ("time: CPU time of one call (the least of 5 samples); memory: tracemalloc peak of the first call; "
          "~class and exponent: fitted over the sizes above 20 µs and 2 kB")
PREDICTED_LEGEND = ("predicted: the shipped model's values at each n, as `rlm predict --n N` gives them (memory: "
                    "tracemalloc peak; time: its latency, wall-clock of one call); a metric it predicts no growth "
                    "for has one value per call, for a typical large input, and no curve")
NOT_DRAWN = "predicted {metric}: not drawn: the model\npredicts one value per call for a typical\nlarge input, no growth, so no curve"


def plot(curves: list[Curve], out: Path, predicted: Sequence[Predictions | None] | None = None) -> str | None:
    """Draw the measured curves, log-log, time and memory side by side, into `out`, each beside the
    prediction for it (`predicted[i]` for `curves[i]`) as a dashed line of its colour; a metric
    predicted without growth has no curve to draw, and the legend says so. None when done, else
    why not (matplotlib not installed)."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib): no plot drawn"
    paired = [(c, (predicted[i] if predicted is not None and i < len(predicted) else None) or {})
              for i, c in enumerate(curves)]
    measured = [(c, p) for c, p in paired if c.rungs]
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, metric, unit in ((axes[0], "time", "CPU time per call (s)"), (axes[1], "memory", "peak memory (bytes)")):
        undrawn = False
        for c, p in measured:
            ns = [r.n for r in c.rungs]
            ys = [r.time_s if metric == "time" else r.memory_bytes for r in c.rungs]
            g = c.growth.get(metric)
            label = f"{c.plan.function}  measured" + (f" ~{g.growth_class}" if g and g.growth_class else "")
            (line,) = ax.loglog(ns, [max(y, 1e-9) for y in ys], marker="o", label=label)
            guess = p.get(metric)
            if guess is not None and len(guess.values) == len(ns):
                ax.loglog(ns, [max(y, 1e-9) for y in guess.values], linestyle="--", color=line.get_color(),
                          label=f"{c.plan.function}  predicted" + (f" {guess.label}" if guess.label else ""))
            elif guess is not None:
                undrawn = True
        if undrawn:
            ax.plot([], [], " ", label=NOT_DRAWN.format(metric=metric))
        ax.set_xlabel("n (input size)")
        ax.set_ylabel(unit)
        ax.set_title(f"{metric}: measured (solid), predicted (dashed)", fontsize=10)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("rlm measure: measured curves beside the shipped model's prediction")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return None
