"""One function's measured curve: a ladder of sizes within a time budget, each size in a fresh sandbox.

    Plan -> n = 16, 64, 256, ... (x4 while a call takes under 2 ms, then x2; up to `max_n`)
         -> per n: `sandbox.run` (child.py: memory = tracemalloc peak of the first call,
            time = min over 5 CPU-time samples) -> a Rung
         -> stop when the next size is predicted, from the last two, to overrun what is left of the
            budget, or a size fails (its reason is kept), or max_n is reached
         -> Curve: the rungs, and per metric the fitted exponent and class (`rlm_lsp.runtime.curve_fit`,
            over the points above the noise floors: 2048 B of memory, 20 µs of time)

A size's run is also cut by the wall clock at what is left of the budget, so an endless loop
costs one budget and no more.  A curve needs three sizes that ran; with fewer it is unmeasured.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from rlm_lsp.measure import sandbox
from rlm_lsp.measure.inputs import Plan
from rlm_lsp.runtime.curve_fit import fit

FLOORS = {"time": 20e-6, "memory": 2048.0}  # s, bytes: below them a figure is the interpreter's, not the code's
START_N = 16
FAST_STEP, STEP = 4, 2  # x4 while a call takes under FAST_S (a size then costs about the sandbox's start), then x2
FAST_S = 2e-3
MAX_N = 1 << 20
MIN_RUNGS = 3
MIN_WALL_S = 2.0  # the first size gets at least this long, whatever is left (an interpreter takes ~0.1 s)


@dataclass(frozen=True)
class Rung:
    n: int
    time_s: float  # CPU time of one call, the minimum of 5 samples
    memory_bytes: int  # tracemalloc peak of the first call
    spread: float  # max / min of the 5 time samples
    wall_s: float  # the whole run of this size, sandbox included


@dataclass(frozen=True)
class Growth:
    exponent: float | None
    growth_class: str | None
    r2: float | None

    def as_json(self) -> dict:
        return {"exponent": self.exponent, "class": self.growth_class, "r2": self.r2}


@dataclass(frozen=True)
class Curve:
    file: str
    plan: Plan
    status: str  # measured | unmeasured
    reason: str = ""  # why unmeasured
    rungs: tuple[Rung, ...] = ()
    stopped: str = ""  # why the ladder went no higher
    growth: dict[str, Growth] = field(default_factory=dict)  # "time", "memory"
    wall_s: float = 0.0

    def as_json(self) -> dict:
        return {"file": self.file, "function": self.plan.function, "line": self.plan.line, "status": self.status,
                "reason": self.reason or None, "inputs": self.plan.inputs or None, "mutates": self.plan.mutates,
                "sizes": [r.n for r in self.rungs], "time_s": [r.time_s for r in self.rungs],
                "memory_bytes": [r.memory_bytes for r in self.rungs], "time_spread": [r.spread for r in self.rungs],
                "time": self.growth["time"].as_json() if "time" in self.growth else None,
                "memory": self.growth["memory"].as_json() if "memory" in self.growth else None,
                "stopped": self.stopped or None, "wall_s": round(self.wall_s, 2)}


@dataclass(frozen=True)
class Setup:
    """What every run of one command shares."""
    budget_s: float = 10.0
    max_n: int = MAX_N
    limits: sandbox.Limits = sandbox.Limits()
    project: Path | None = None  # the folder of the pyproject.toml whose generators are used


def measure(path: Path, source: str, plan: Plan, setup: Setup) -> Curve:
    """The curve of `plan`'s function in the file `path` (its text `source`)."""
    if plan.reason:
        return Curve(str(path), plan, "unmeasured", plan.reason)
    start = time.perf_counter()
    folder = str(path.resolve().parent)
    binds = [(folder, "/src")]
    paths = ["/src"]
    if plan.generator and setup.project is not None:
        binds.append((str(setup.project.resolve()), "/project"))
        paths.insert(0, "/project")
    base = {"code": source, "file": f"/src/{path.name}", "module": path.stem if path.stem.isidentifier() else "measured",
            "function": plan.function, "recipe": list(plan.recipe), "generator": plan.generator,
            "mutates": plan.mutates, "remake": plan.remake, "paths": paths,
            "output_bytes": setup.limits.output_bytes}
    rungs: list[Rung] = []
    stopped = ""
    n = START_N
    while True:
        left = setup.budget_s - (time.perf_counter() - start)
        wall = max(left, MIN_WALL_S) if not rungs else left
        if wall <= 0:
            stopped = "budget"
            break
        limits = replace(setup.limits, wall_s=wall)
        out = sandbox.run(dict(base, n=n), binds, limits)
        if out.status != "ok":
            stopped = f"n={n}: {_said(out)}"
            break
        times = out.result["times_s"]
        rungs.append(Rung(n, float(out.result["time_s"]), int(out.result["memory_bytes"]),
                          max(times) / max(min(times), 1e-12), out.wall_s))
        nxt = n * (FAST_STEP if rungs[-1].time_s < FAST_S else STEP)
        if nxt > setup.max_n:
            stopped = f"max n ({setup.max_n})"
            break
        left = setup.budget_s - (time.perf_counter() - start)
        if predicted_wall(rungs, nxt) > left:
            stopped = f"budget (n={nxt} would take about {predicted_wall(rungs, nxt):.1f} s, {max(left, 0):.1f} s left)"
            break
        n = nxt
    spent = time.perf_counter() - start
    if len(rungs) < MIN_RUNGS:
        why = stopped if not rungs else f"only {len(rungs)} size{'s' if len(rungs) > 1 else ''} ran ({stopped})"
        return Curve(str(path), plan, "unmeasured", why, tuple(rungs), stopped, wall_s=spent)
    sizes = [r.n for r in rungs]
    growth = {"time": _growth(sizes, [r.time_s for r in rungs], FLOORS["time"]),
              "memory": _growth(sizes, [float(r.memory_bytes) for r in rungs], FLOORS["memory"])}
    return Curve(str(path), plan, "measured", "", tuple(rungs), stopped, growth, spent)


def predicted_wall(rungs: list[Rung], n: int) -> float:
    """The wall time of size `n`, on the line through the last two sizes' wall times in log-log
    (no faster than the last: a run's fixed cost, the sandbox and the interpreter, stays)."""
    if len(rungs) < 2:
        return rungs[-1].wall_s * n / rungs[-1].n if rungs else 0.0
    a, b = rungs[-2], rungs[-1]
    slope = max(0.0, math.log(max(b.wall_s, 1e-6) / max(a.wall_s, 1e-6)) / math.log(b.n / a.n))
    return b.wall_s * (n / b.n) ** slope


def _growth(sizes: list[int], costs: list[float], floor: float) -> Growth:
    f = fit(sizes, [c if c > 0 else floor for c in costs], floor)  # 0 B (nothing allocated): at the floor, flat
    return Growth(f.exponent, f.growth_class, f.r2)


def _said(out: sandbox.Outcome) -> str:
    return {"timeout": "timeout", "memout": "memory limit", "output": "output flood"}.get(out.status, "error") + \
        (f": {out.reason}" if out.reason else "")
