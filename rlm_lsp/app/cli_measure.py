"""`rlm measure FILE[::FUNC] ...`: run functions at growing sizes in a sandbox and fit how they grow.

    rlm measure FILE...              every top-level function and method of each Python file
    rlm measure FILE::NAME           one function (`name` or `Class.method`)
    --budget S                       seconds a function may take, all sizes together (default 10)
    --json                           one object per function: sizes, figures, exponents, classes, status, reason
    --plot FILE.png                  the curves, log-log (needs matplotlib)
    --max-n N                        the largest size tried (default 2**20)
    --memory SIZE                    the sandbox's address-space limit (default 2 GiB)

Inputs come from each parameter's kind (`rlm_lsp.measure.inputs`) or from `[tool.rlm.inputs]` of
the nearest pyproject.toml; each size runs in a fresh sandbox (`rlm_lsp.measure.sandbox`), and
without bubblewrap nothing runs: exit 2 with the line that installs it.  Inside a git repository,
each measured curve is appended to `.rlm/measured.jsonl` at its root (`rlm_lsp.measure.store`),
where `rlm predict` finds it.  Exit 0 when every
function was measured, 1 when some could not be, 2 for a usage or setup error.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rlm_lsp.app import project_config
from rlm_lsp.measure import inputs, report, run, sandbox, store
from rlm_lsp.runtime import sizes, source_text
from rlm_lsp.runtime.errors import ConfigError, FileProblem

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
            if not args.json:
                print(report.format_curve(curve), flush=True)
            _keep(root, curve, source, Path(path))
    if args.json:
        print(json.dumps([c.as_json() for c in curves], indent=2, ensure_ascii=False))
    elif curves:
        print(report.LEGEND)
    if args.plot:
        problem = report.plot(curves, args.plot)
        print(f"rlm measure: {problem}" if problem else f"plot: {args.plot}", file=sys.stderr)
    return 0 if all(c.status == "measured" for c in curves) else 1


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
    p.add_argument("--plot", type=Path, metavar="FILE.png", help="draw the curves (needs matplotlib)")
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
