"""Measured curves for people: a table per function, a sparkline per metric, a PNG where matplotlib is.

    examples/growth.py:4  running_sum(xs: list of ints)  measured in 3.1 s
          n    time     memory
          8  380 ns       56 B
        ...
      time    ~n   (exponent 1.00)  ▁▁▁▁▁▂▃▆█
      memory  ~1   (exponent 0.00)  ▁▁▁▁▁▁▁▁▁
      ladder stopped: max n (1048576)

The sparkline scales each metric from its smallest to its largest figure, on a log scale, one
character a size: a straight rise is a power of n, its steepness the exponent beside it.
"""

from __future__ import annotations

import math
from pathlib import Path

from rlm_lsp.measure.run import Curve
from rlm_lsp.runtime.units import format_value

BARS = "▁▂▃▄▅▆▇█"


def format_curve(curve: Curve) -> str:
    head = f"{curve.file}:{curve.plan.line}  {curve.plan.function}"
    if curve.plan.inputs:
        head += f"({curve.plan.inputs})"
    if curve.status != "measured":
        lines = [f"{head}  unmeasured: {curve.reason}"]
        lines += _table(curve) if curve.rungs else []
        return "\n".join(lines)
    lines = [f"{head}  measured in {curve.wall_s:.1f} s" + ("  (fresh copy per call)" if curve.plan.mutates else "")]
    lines += _table(curve)
    for metric, values in (("time", [r.time_s for r in curve.rungs]),
                           ("memory", [float(r.memory_bytes) for r in curve.rungs])):
        g = curve.growth[metric]
        word = f"~{g.growth_class}" if g.growth_class else "?"
        exponent = f"exponent {g.exponent if abs(g.exponent) >= 0.005 else 0.0:.2f}" if g.exponent is not None \
            else "no exponent"
        lines.append(f"  {metric:<7} {word:<9} ({exponent})  {sparkline(values)}")
    lines.append(f"  ladder stopped: {curve.stopped}")
    return "\n".join(lines)


def _table(curve: Curve) -> list[str]:
    rows = [("n", "time", "memory")] + [(str(r.n), format_value("ms", r.time_s * 1e3),
                                         format_value("bytes", r.memory_bytes)) for r in curve.rungs]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
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


def plot(curves: list[Curve], out: Path) -> str | None:
    """Draw the measured curves, log-log, time and memory side by side, into `out`; None when
    done, else why not (matplotlib not installed)."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return "matplotlib is not installed (pip install matplotlib): no plot drawn"
    measured = [c for c in curves if c.rungs]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, metric, unit in ((axes[0], "time", "CPU time per call (s)"), (axes[1], "memory", "peak memory (bytes)")):
        for c in measured:
            ys = [r.time_s if metric == "time" else r.memory_bytes for r in c.rungs]
            g = c.growth.get(metric)
            label = c.plan.function + (f"  ~{g.growth_class}" if g and g.growth_class else "")
            ax.loglog([r.n for r in c.rungs], [max(y, 1e-9) for y in ys], marker="o", label=label)
        ax.set_xlabel("n")
        ax.set_ylabel(unit)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle("rlm measure: measured curves")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return None
