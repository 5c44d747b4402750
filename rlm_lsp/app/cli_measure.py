"""`rlm measure FILE[::FUNC] ...`: run functions at growing sizes in a sandbox and fit how they grow.

    rlm measure FILE...              every top-level function and method of each Python file
    rlm measure FILE::NAME           one function (`name` or `Class.method`)
    --budget S                       seconds a function may take, all sizes together (default 10)
    --json                           one object per function: sizes, figures, exponents, classes, status, reason,
                                     and the prediction beside them
    --plot FILE.png                  the curves, log-log, each beside the prediction (needs matplotlib)
    --max-n N                        the largest size tried (default 2**20)
    --memory SIZE                    the sandbox's address-space limit (default 2 GiB)

Inputs come from each parameter's kind (`rlm_lsp.measure.inputs`) or from `[tool.rlm.inputs]` of
the nearest pyproject.toml; each size runs in a fresh sandbox (`rlm_lsp.measure.sandbox`), and
without bubblewrap nothing runs: exit 2 with the line that installs it.  Inside a git repository,
each measured curve is appended to `.rlm/measured.jsonl` at its root (`rlm_lsp.measure.store`),
where `rlm predict` finds it.  Beside each curve, the shipped model's prediction for the function
at each measured n, as `rlm predict FILE --n N` gives it (`Predictions`); where the model cannot be
loaded, one line says so and the curves come alone.  Exit 0 when every
function was measured, 1 when some could not be, 2 for a usage or setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rlm_lsp.measure import inputs, report, run, sandbox, store
from rlm_lsp.policy import project_config
from rlm_lsp.runtime import sizes, source_text
from rlm_lsp.runtime.errors import ConfigError, FileProblem, ModelError
from rlm_lsp.runtime.prediction import growth_label, growth_name

MAX_FILE_BYTES = 1_000_000


def main(argv: Sequence[str] | None = None) -> int:
    try:
        return _measure(_parser().parse_args(list(sys.argv[1:] if argv is None else argv)))
    except BrokenPipeError:  # `rlm measure ... | head`: the reader left; stop quietly, as `rlm predict` does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 128 + 13


def _measure(args: argparse.Namespace) -> int:
    try:
        memory = project_config.parse_quantity(args.memory, "--memory")
        max_n = int(sizes.parse_n(args.max_n))
    except (ConfigError, ValueError) as exc:
        print(f"rlm measure: {exc}", file=sys.stderr)
        return 2
    if memory.unit not in ("bytes", "") or args.budget <= 0 or max_n < 8:
        print("rlm measure: --memory takes a size (2GiB), --budget a positive number of seconds, --max-n 8 or more",
              file=sys.stderr)
        return 2
    why = sandbox.unavailable()
    if why:
        print(f"rlm measure: {why}; it never runs code outside its sandbox (install: {sandbox.INSTALL})",
              file=sys.stderr)
        return 2
    limits = replace(sandbox.Limits(), memory_bytes=int(memory.value))
    curves: list[run.Curve] = []
    model = Predictions()
    guesses: list[report.Predictions | None] = []
    for target in args.targets:
        path, _, only = target.partition("::")
        try:
            found = _plans(Path(path), only or None)
        except (ConfigError, FileProblem, SyntaxError, ValueError) as exc:
            print(f"rlm measure: {path}: {exc}", file=sys.stderr)
            return 2
        source, plans, project = found
        if only and not plans:
            print(f"rlm measure: {path}: no function named {only!r}", file=sys.stderr)
            return 2
        setup = run.Setup(budget_s=args.budget, max_n=max_n, limits=limits, project=project)
        root = store.repository_root(Path(path))
        for plan in plans:
            curve = run.measure(Path(path), source, plan, setup)
            curves.append(curve)
            guesses.append(model.of(Path(path), curve))
            if not args.json:
                print(report.format_curve(curve, guesses[-1]), flush=True)
            _keep(root, curve, source, Path(path))
    if args.json:
        print(json.dumps([dict(c.as_json(), predicted={m: p.as_json() for m, p in g.items()} if g is not None else None)
                          for c, g in zip(curves, guesses)], indent=2, ensure_ascii=False))
    elif curves:
        print(report.LEGEND)
        if any(guesses):
            print(report.PREDICTED_LEGEND)
    if args.plot:
        problem = report.plot(curves, args.plot, guesses)
        print(f"rlm measure: {problem}" if problem else f"plot: {args.plot}", file=sys.stderr)
    return 0 if all(c.status == "measured" for c in curves) else 1


class Predictions:
    """The shipped model's prediction beside each measured curve: the function's row of `rlm predict
    FILE --n N` (`cli.predict_file`, the same code, helpers and file names read) at each measured n.
    The model is loaded on first use (`load`: the default Predictor, as `rlm predict` loads it);
    where it cannot be, or a prediction fails, one line on stderr says why and every curve after
    comes without one."""

    def __init__(self, load: Callable[[], Any] | None = None):
        self._load = load
        self._model: Any = None
        self.problem: str | None = None
        self._rows: dict[tuple[Path, float], list[dict]] = {}

    def of(self, path: Path, curve: run.Curve) -> report.Predictions | None:
        """measured metric -> the prediction beside it; None without a model or without sizes."""
        if self.problem is not None or not curve.rungs:
            return None
        try:
            from rlm_lsp.app import cli, cli_sizes  # cli loads the model's families: only once there are curves

            if self._model is None:
                from rlm_lsp.runtime.predictor import Predictor

                self._model = (self._load or Predictor.default)()
            rows = []
            for r in curve.rungs:
                key = (path, float(r.n))
                if key not in self._rows:
                    self._rows[key] = cli.predict_file(self._model, path, None, cli_sizes.Sizes(n=float(r.n)))
                found = [row for row in self._rows[key] if row["function"] == curve.plan.function
                         and row.get("kind") != "script"]
                if not found:
                    return None
                rows.append(next((row for row in found if row["line"] == curve.plan.line), found[0]))
        except (ModelError, ConfigError, FileProblem, ValueError, OSError, ImportError) as exc:
            self.problem = f"no prediction beside the measured curves: {type(exc).__name__}: {exc}"
            print(f"rlm measure: {self.problem}", file=sys.stderr)
            return None
        return predicted(rows)


SCALE = {"ms": 1e-3, "s": 1.0, "bytes": 1.0}  # the model's unit -> the measured one (s, bytes)


def predicted(rows: list[dict]) -> report.Predictions:
    """measured metric -> the prediction beside it, from one function's `rlm predict --json` rows at
    each measured n, in order. A metric predicted with no n (no growth: one value per call, for a
    typical large input) keeps that one value, and no curve."""
    out = {}
    for metric, measured in store.MEASURED_OF.items():
        ps: list[dict] = [row[metric] for row in rows if isinstance(row.get(metric), dict)]
        if not ps or len(ps) < len(rows) or ps[0].get("unit") not in SCALE:
            continue
        scale, first = SCALE[ps[0]["unit"]], ps[0]
        if first.get("n") is None:
            out[measured] = report.Predicted(metric, value=first["value"] * scale)
            continue
        g = first.get("growth")
        label = growth_label(g, first.get("growth_low"), first.get("growth_high")) if g is not None else ""
        out[measured] = report.Predicted(metric, tuple(p["value"] * scale for p in ps),
                                         growth_name(g) if g is not None else None, g, label.endswith("?"))
    return out


def _keep(root: Path | None, curve: run.Curve, source: str, path: Path) -> None:
    """Append a measured curve to the repository's `.rlm/measured.jsonl`; a line on stderr when it cannot."""
    if root is None:
        return
    row = store.row(curve, source, store.relative(path, root), "rlm measure")
    if row is None:
        return
    try:
        store.keep(root, [row])
    except FileProblem as exc:
        print(f"rlm measure: not kept: {exc}", file=sys.stderr)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rlm measure", description="Measure how functions' time and memory grow, "
                                "in a sandbox, on inputs built from their parameters.")
    p.add_argument("targets", nargs="+", metavar="FILE[::FUNC]", help="a Python file, or one function of it")
    p.add_argument("--budget", type=float, default=10.0, help="seconds per function, all sizes together (default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object per function")
    p.add_argument("--plot", type=Path, metavar="FILE.png", help="draw the curves, each beside the "
                   "shipped model's prediction (needs matplotlib)")
    p.add_argument("--max-n", default=str(run.MAX_N), help="the largest size tried (default 2**20)")
    p.add_argument("--memory", default="2GiB", help="address-space limit of each run (default 2GiB)")
    return p


def _plans(path: Path, only: str | None) -> tuple[str, list[inputs.Plan], Path | None]:
    """The file's text, a plan per function, and the folder whose pyproject.toml gave the generators."""
    data = source_text.read_bytes(path, MAX_FILE_BYTES)
    source = source_text.decode(data)
    pyproject = project_config.nearest_pyproject(path)
    generators = {}
    if pyproject is not None:
        config = project_config.from_table(project_config.read_table(pyproject), pyproject.parent, str(pyproject))
        generators = config.inputs
    return source, inputs.plans(source, generators, only), pyproject.parent if pyproject else None
