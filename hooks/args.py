"""`rlm gate`'s command line: every flag, its default and its help (`rlm_lsp.gate.gate.main` parses with it)."""

from __future__ import annotations

import argparse
from typing import Any

from rlm_lsp.gate import networks
from rlm_lsp.gate.formats import FORMATS
from rlm_lsp.policy import options, rules
from rlm_lsp.policy.project_config import ConfigError, GateConfig
from rlm_lsp.runtime.model_dir import feature_tree_levels


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="rlm-gate",
        description="Fail when a change's functions are predicted to need much more memory or time. "
        "Compares the staged files with HEAD, or --base REF with --head REF / the working tree.",
    )
    p.add_argument("filenames", nargs="*", help="only these files (pre-commit passes the staged ones)")
    p.add_argument("--base", metavar="REF", help="compare against this ref instead of HEAD (e.g. a merge base)")
    p.add_argument("--head", metavar="REF", help="the new side (default: the working tree); "
                   "without --base, judged against its first parent (REF~1)")
    p.add_argument("--ratio", action="append", metavar="[METRIC=]X", help="fail at this growth (default 2.0)")
    levels = ", ".join(f"{metric} {level:g}" for metric, level in rules.CONFIDENCE_BY_METRIC.items())
    with_trees = ", ".join(f"{metric} {level:g}" for metric, level in feature_tree_levels().items())
    p.add_argument("--confidence", metavar="X", help="share of the paired samples that must grow by the ratio, "
                   f"for every metric (default: the shipped model, with its feature trees: {with_trees}; a model "
                   f"without them: {levels}; {rules.CONFIDENCE:g} for others; 0: the point estimates alone, and the model's feature trees where it ships them)")
    p.add_argument("--budget", action="append", metavar="METRIC=AMOUNT", help="e.g. memory=512MB, latency=200ms")
    p.add_argument(
        "--metrics", metavar="LIST", help="comma-separated metrics to judge (default memory,latency,kernel_latency)"
    )
    p.add_argument("--include", action="append", metavar="GLOB", help="only paths matching (repeatable)")
    p.add_argument("--exclude", action="append", metavar="GLOB", help="skip paths matching (repeatable)")
    p.add_argument("--model", metavar="DIR", help="model directory (default: [tool.rlm] model, else shipped)")
    p.add_argument("--config", metavar="PYPROJECT", help="read [tool.rlm] from this file")
    p.add_argument("--trust-head-config", action="store_true",
                   help="accept a [tool.rlm] the change itself loosens (default: judged with the base's "
                        "settings, and the loosening fails the gate)")
    p.add_argument("--format", "--report", dest="format", choices=FORMATS, default="text",
                   help="text (default); json: every judged function; github: workflow commands (annotations); "
                   "sarif: SARIF 2.1.0 for code scanning; markdown: the summary")
    p.add_argument("--report-file", metavar="PATH", help="write the report here; text still goes to stdout")
    p.add_argument("--summary", metavar="FILE", help="also write the Markdown summary here "
                   "(e.g. \"$GITHUB_STEP_SUMMARY\"; the file is replaced)")
    p.add_argument("--exit-zero", action="store_true", help="exit 0 even when a function regressed (report only); "
                   "2 (the gate could not judge) stays")
    p.add_argument("--fail-inconclusive", action="store_true",
                   help="an inconclusive growth (past the ratio, the model not confident) fails too")
    p.add_argument("--fail-open", action="store_true", help="pass with a warning when the model cannot load")
    p.add_argument("--fail-unjudged", action="store_true",
                   help="fail when a file cannot be judged (binary, undecodable, syntax error, over 1 MB)")
    p.add_argument("--threads", type=options.threads, default=1,
                   help=f"CPU threads for inference (default 1, at most {options.MAX_THREADS})")
    p.add_argument("--samples", type=options.samples, default=None,
                   help=f"decoder samples per prediction (at most {options.MAX_SAMPLES})")
    p.add_argument("--device", default="cpu", help="cpu (default, deterministic) or auto")
    p.add_argument(
        "--independent-draws",
        action="store_true",
        help="each code its own sampling draws (default: old and new share them, less sampling noise)",
    )
    p.add_argument("--gpu", help="GPU that @triton.jit kernel latency is predicted for (default: the model's)")
    p.add_argument("--onnx-device", action="append", metavar="DEVICE",
                   help="target device for changed .onnx networks (repeatable; default: "
                        + ", ".join(networks.DEFAULT_DEVICES) + "); judged on the latency ratio")
    p.add_argument("--measure", nargs="?", const="flagged", metavar="all", action=_Measure,
                   help="measure the committed and the new version of each function the prediction flags, in the "
                   "sandbox, and decide by the measured growth class (--measure=all: every changed function; "
                   "[tool.rlm] measure = true; docs/measuring.md)")
    p.add_argument("--measure-budget", metavar="S", help="seconds all measuring may take (default 60; a function "
                   "gets at most 10, its two versions together)")
    p.add_argument("--cwd", default=None, help=argparse.SUPPRESS)
    p.add_argument("-v", "--verbose", action="store_true", help="also list every checked function")
    return p


class _Measure(argparse.Action):
    """`--measure` alone or `--measure=all`; a file name after a bare `--measure` (pre-commit passes the
    staged files after the hook's args) is one of the files, not the mode."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if values not in (None, "flagged", "all"):
            namespace.measure_file = [*getattr(namespace, "measure_file", []), values]
            values = "flagged"
        setattr(namespace, self.dest, values)


def measure_files(args: argparse.Namespace) -> None:
    """Give back to the file names what a bare `--measure` took for its value (`_Measure`)."""
    args.filenames = [*getattr(args, "measure_file", []), *args.filenames]
    args.measure_file = []


def check_counts(args: argparse.Namespace) -> None:
    """--samples and --threads: a count of at least 1 (0 or -1 must not quietly become 1)."""
    for flag, value in (("--samples", args.samples), ("--threads", args.threads)):
        if value is not None and value < 1:
            raise ConfigError(f"{flag} {value}: expected a whole number of at least 1")


def check_budget_units(config: GateConfig, specs: dict[str, Any]) -> None:
    """Each budget in its metric's unit (a latency budget in bytes is a mistake, not a pass)."""
    tables = [("", config.budgets), *((f" for {glob!r}", budgets) for glob, budgets in config.path_budgets)]
    for where, budgets in tables:
        for metric, budget in budgets.items():
            if metric in specs and budget.unit and budget.unit != specs[metric].unit:
                raise ConfigError(f"{metric} budget{where} {budget.text!r} is not in {specs[metric].unit}")
