"""One function's measured curve: a ladder of sizes within a time budget, each size in a fresh sandbox.
(Or several functions' curves on one ladder, `measure_together`: the gate's committed and new versions,
the same inputs at the same sizes as far as both go.)

    Plan -> n = 16, 64, 256, ... (x4 while a call takes under 2 ms, then x2; up to `max_n`)
         -> per n: `sandbox.run` (child.py: memory = tracemalloc peak of the first call,
            time = min over 5 CPU-time samples) -> a Rung
         -> stop when the next size is predicted, from the last two, to overrun what is left of the
            budget, or a size fails (its reason is kept), or max_n is reached
         -> Curve: the rungs, and per metric the fitted exponent and class (`rlm_lsp.runtime.curve_fit`,
            over the points above the noise floors: 2048 B of memory, 20 µs of time)

A size's run is also cut by the wall clock at what is left of the budget, so an endless loop
costs one budget and no more.  A curve needs three sizes that ran; with fewer it is unmeasured.
`class_rose` is the gate's rule on two curves: the class went up, and the exponent by MIN_RISE.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from rlm_lsp.measure import sandbox
from rlm_lsp.measure.inputs import Plan
from rlm_lsp.runtime.curve_fit import CLASSES, fit

FLOORS = {"time": 20e-6, "memory": 2048.0}  # s, bytes: below them a figure is the interpreter's, not the code's
START_N = 16
FAST_STEP, STEP = 4, 2  # x4 while a call takes under FAST_S (a size then costs about the sandbox's start), then x2
FAST_S = 2e-3
MAX_N = 1 << 20
MIN_RUNGS = 3
MIN_WALL_S = 2.0  # the first size gets at least this long, whatever is left (an interpreter takes ~0.1 s)
MIN_RISE = 0.2  # a class rise counts when the exponent rose at least this much too (`class_rose`)


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


@dataclass(frozen=True)
class Target:
    """One function to measure: in the file `path` (its folder is importable), with the text `source`."""
    path: Path
    source: str
    plan: Plan


def measure(path: Path, source: str, plan: Plan, setup: Setup) -> Curve:
    """The curve of `plan`'s function in the file `path` (its text `source`)."""
    return measure_together([Target(path, source, plan)], setup)[0]


def measure_together(targets: list[Target], setup: Setup) -> list[Curve]:
    """The curves of several functions on one ladder (the gate: a function's committed and new
    versions): at each n every target still climbing runs, in order, on the same input, so they
    have the same sizes as far as they all go. Where the next size, summed over them, would overrun
    what is left of the budget, the slowest stops and the others go on (a linear version beside a
    quadratic one still reaches sizes where its class shows); a target that fails stops, and all
    stop when it fails before it has a curve (nothing could be compared with it)."""
    for t in targets:
        if t.plan.reason:
            return [Curve(str(u.path), u.plan, "unmeasured", t.plan.reason) for u in targets]
    start = time.perf_counter()
    bases = [_spec(t, setup) for t in targets]
    rungs: list[list[Rung]] = [[] for _ in targets]
    stopped = [""] * len(targets)
    active = list(range(len(targets)))
    n = START_N
    while active:
        for i in list(active):
            binds, base = bases[i]
            left = setup.budget_s - (time.perf_counter() - start)
            wall = max(left, MIN_WALL_S) if not rungs[i] else left
            if rungs[i] and len(targets) > 1:  # one that runs far past its prediction must not eat the others' share
                wall = min(wall, 2 * predicted_wall(rungs[i], n) + MIN_WALL_S / 2)
            if wall <= 0:
                stopped[i] = "budget"
                active.remove(i)
                continue
            out = sandbox.run(dict(base, n=n), binds, replace(setup.limits, wall_s=wall))
            if out.status != "ok":
                stopped[i] = f"n={n}: {_said(out)}"
                active.remove(i)
                if len(rungs[i]) < MIN_RUNGS:  # no curve to compare with: the others stop too
                    for j in active:
                        stopped[j] = f"n={n}: the run beside it failed ({_said(out)})"
                    active = []
                    break
                continue
            times = out.result["times_s"]
            rungs[i].append(Rung(n, float(out.result["time_s"]), int(out.result["memory_bytes"]),
                                 max(times) / max(min(times), 1e-12), out.wall_s))
        if not active:
            break
        nxt = n * (FAST_STEP if all(rungs[i][-1].time_s < FAST_S for i in active) else STEP)
        if nxt > setup.max_n:
            for i in active:
                stopped[i] = f"max n ({setup.max_n})"
            break
        left = setup.budget_s - (time.perf_counter() - start)
        while active:
            need = {i: predicted_wall(rungs[i], nxt) for i in active}
            if sum(need.values()) <= left:
                break
            slowest = max(active, key=lambda i: need[i])
            stopped[slowest] = f"budget (n={nxt} would take about {sum(need.values()):.1f} s, {max(left, 0):.1f} s left)"
            active.remove(slowest)
        n = nxt
    spent = time.perf_counter() - start
    return [_curve(t, rs, why, spent) for t, rs, why in zip(targets, rungs, stopped)]


def _spec(t: Target, setup: Setup) -> tuple[list, dict]:
    """(read-only binds, the child's spec but n) of one target."""
    binds = [(str(t.path.resolve().parent), "/src")]
    paths = ["/src"]
    if t.plan.generator and setup.project is not None:
        binds.append((str(setup.project.resolve()), "/project"))
        paths.insert(0, "/project")
    name = t.path.name
    return binds, {"code": t.source, "file": f"/src/{name}", "module": t.path.stem if t.path.stem.isidentifier()
                   else "measured", "function": t.plan.function, "recipe": list(t.plan.recipe),
                   "generator": t.plan.generator, "mutates": t.plan.mutates, "remake": t.plan.remake, "paths": paths,
                   "supply": list(t.plan.supply),
                   "output_bytes": setup.limits.output_bytes}


def _curve(t: Target, rungs: list[Rung], stopped: str, spent: float) -> Curve:
    if len(rungs) < MIN_RUNGS:
        why = stopped if not rungs else f"only {len(rungs)} size{'s' if len(rungs) > 1 else ''} ran ({stopped})"
        if t.plan.inputs and not t.plan.generator and stopped.startswith("n="):  # what it failed on, in words
            why += f" on inputs built as {t.plan.inputs}; give a generator in [tool.rlm.inputs]"
        return Curve(str(t.path), t.plan, "unmeasured", why, tuple(rungs), stopped, wall_s=spent)
    sizes = [r.n for r in rungs]
    growth = {"time": _growth(sizes, [r.time_s for r in rungs], FLOORS["time"]),
              "memory": _growth(sizes, [float(r.memory_bytes) for r in rungs], FLOORS["memory"])}
    return Curve(str(t.path), t.plan, "measured", "", tuple(rungs), stopped, growth, spent)


def class_rose(old: Growth, new: Growth) -> bool:
    """The measured class went up (`~n` to `~n²`, `~1` to `~n`, ...) and the exponent with it by at
    least MIN_RISE: on a busy machine a linear curve is sometimes fitted `n log n`, by a hair."""
    if old.growth_class not in CLASSES or new.growth_class not in CLASSES or old.exponent is None \
            or new.exponent is None:
        return False
    return CLASSES.index(new.growth_class) > CLASSES.index(old.growth_class) and \
        new.exponent - old.exponent >= MIN_RISE


def predicted_wall(rungs: list[Rung], n: int) -> float:
    """The wall time of size `n`: the larger of two readings of the last two sizes. The line through
    their wall times in log-log (no faster than the last: a run's fixed cost, the sandbox and the
    interpreter, stays); and the work above the fixed cost (the smallest wall seen) growing as one
    call's CPU time grows (while the start dominates, the walls alone would call a quadratic flat)."""
    if len(rungs) < 2:
        return rungs[-1].wall_s * n / rungs[-1].n if rungs else 0.0
    a, b = rungs[-2], rungs[-1]
    steps = math.log(b.n / a.n)
    slope = max(0.0, math.log(max(b.wall_s, 1e-6) / max(a.wall_s, 1e-6)) / steps)
    grow = max(0.0, math.log(max(b.time_s, 1e-9) / max(a.time_s, 1e-9)) / steps)
    fixed = min(r.wall_s for r in rungs)
    return max(b.wall_s * (n / b.n) ** slope, fixed + (b.wall_s - fixed) * (n / b.n) ** grow)


# The exponent each polynomial class has on a log-log fit over a ladder like ours (log n over 16..2**20: 0.15)
NOMINAL = {"1": 0.0, "log n": 0.15, "n": 1.0, "n log n": 1.15, "n²": 2.0, "n³": 3.0}


def _growth(sizes: list[int], costs: list[float], floor: float) -> Growth:
    f = fit(sizes, [c if c > 0 else floor for c in costs], floor)  # 0 B (nothing allocated): at the floor, flat
    cls, b = f.growth_class, f.exponent
    if b is not None and cls in NOMINAL and abs(NOMINAL[cls] - b) > 0.75:
        # a near-flat curve whose last size jumped (noise) can fit n³ best on relative errors: a class
        # must agree with the slope, so the nearest one by its exponent is taken
        cls = min(NOMINAL, key=lambda c: abs(NOMINAL[c] - b))
    return Growth(f.exponent, cls, f.r2)


def _said(out: sandbox.Outcome) -> str:
    return {"timeout": "timeout", "memout": "memory limit", "output": "output flood"}.get(out.status, "error") + \
        (f": {out.reason}" if out.reason else "")
