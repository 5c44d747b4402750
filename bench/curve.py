"""The cost curve of one function: what a model with growth costs per prediction (issue 48).

    python bench/curve.py MODEL_DIR [MODEL_DIR ...] [--repeats 30] [--samples 16] [--as-p10s 2,4] [--no-write]

For each model directory, beside the shipped default (read in the same run, inputs interleaved):
a ~300-token function with `--samples` samples, the cache off, one onnxruntime thread, the calling
thread's CPU time:

- *the curve* (value and growth): `Predictor.predict` of the function, every metric the model writes
  (memory and latency, and their growth where the model writes it), the value at the model's
  reference n; issue 48's budget is on this figure;
- *the hover's table*: the values at n = 10², 10³, … 10⁶ it shows. A model that reads n asks itself
  at each size in one batch (`at_n.curve`); any other model moves its value along its predicted
  growth (`growth.curve`, no model run); with the curve, what a hover waits for on a function nobody
  asked about before;
- the directory's size on disk.

`--as-p10s D[,D...]` also times each model that writes its growth read as P10S with growths of D digits
(`rlm_lsp.runtime.numbers`): the same graphs in a copy whose rlm_config.json says so, so the cost is
the one a model trained in that format has (the copy's numbers mean nothing: it was not trained so).

Issue 48's budget for a model that ships: the whole curve (value and growth, both metrics) of a
300-token function at most 30 ms p50 at 16 samples on one thread; the model directory at most 15 MB.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.predict import _blocks_for, make_inputs  # noqa: E402
from bench.report import add_write_flag, machine, progress, publish  # noqa: E402
from rlm_lsp.server.curves import SIZES  # noqa: E402  (the hover's table)

TOKENS = 270  # the inputs have at least this many tokens: ~300 with each model's template
BUDGET_MS, BUDGET_MB = 30.0, 15.0


def family(predictor) -> str:
    """How the model gives a curve: it reads n, it writes its growth, or it has none."""
    from rlm_lsp.runtime import at_n

    if at_n.reads_n(predictor):
        return "reads n (asked at each size)"
    names = predictor.config.metric_names
    if any(m.endswith("_growth") for m in names):
        return "writes its growth (value moved along it)"
    return "growth trees" if predictor.growth is not None else "no growth"


def curve_and_table(predictor, code: str) -> tuple[float, float]:
    """(ms of the prediction, ms of the hover's curve) of one uncached function."""
    from rlm_lsp.runtime import at_n, growth

    t = time.thread_time()
    result = predictor.predict([code])[0]
    t1 = time.thread_time()
    if at_n.reads_n(predictor):
        at_n.curve(predictor, code, SIZES)
    else:
        for p in result.values():
            growth.curve(p, SIZES)
    t2 = time.thread_time()
    return (t1 - t) * 1000, (t2 - t1) * 1000


def as_p10s(model_dir: Path, digits: int, out: Path) -> Path:
    """A copy of `model_dir` read as P10S with growths of `digits` digits: timing only."""
    from rlm_lsp.runtime import numbers

    shutil.copytree(model_dir, out)
    config = json.loads((out / "rlm_config.json").read_text())
    config["number_format"] = numbers.P10S.config()
    config["metrics"] = [dict(m, digits=digits) if m["name"].endswith("_growth") else m for m in config["metrics"]]
    config["model_version"] += f"-as-p10s-{digits}-timing-only"
    (out / "rlm_config.json").write_text(json.dumps(config, indent=2))
    return out


def dir_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def measure(dirs: dict[str, Path], repeats: int, samples: int) -> dict[str, dict]:
    from rlm_lsp import Predictor

    predictors = {name: Predictor.from_dir(d, device="cpu", threads=1, samples=samples, cache_size=0)
                  for name, d in dirs.items()}
    first = next(iter(predictors.values()))
    codes = make_inputs(repeats + 1, _blocks_for(first, TOKENS))
    for p in predictors.values():
        curve_and_table(p, codes[-1])  # warm-up
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in predictors}
    for code in progress(codes[:repeats], desc="functions"):  # interleaved: every model on one input
        for name, p in predictors.items():
            times[name].append(curve_and_table(p, code))
    out = {}
    for name, p in predictors.items():
        pred, hover = zip(*times[name])
        whole = [a + b for a, b in times[name]]
        out[name] = {"family": family(p), "metrics": ", ".join(p.config.metric_names),
                     "tokens": len(p.token_ids(codes[0])[: p.config.max_input_tokens]),
                     "prediction": statistics.median(pred), "hover": statistics.median(hover),
                     "prediction_p95": float(np.percentile(pred, 95)), "whole": statistics.median(whole),
                     "mb": dir_mb(dirs[name])}
    return out


def markdown(res: dict[str, dict], argv: list[str], repeats: int, samples: int) -> str:
    base = res["shipped default"]["prediction"]
    lines = ["## The cost curve of one function (`bench/curve.py`)", "",
             f"Command: `python bench/curve.py {' '.join(argv)}`. Machine: {machine()}, 2 cores shared with "
             "other jobs; one onnxruntime thread; the calling thread's CPU time; the cache off; "
             f"{repeats} different functions of ~300 tokens, every model on each in turn; {samples} samples.",
             "",
             "A model's *curve* is one prediction: every metric it writes (value and growth of memory and "
             "latency), at its reference n; issue 48's budget for a curve model that ships is on it: "
             f"{BUDGET_MS:.0f} ms p50, a directory of {BUDGET_MB:.0f} MB at most. Beside it, the hover's table "
             "(the values at n = 10², 10³, … 10⁶): a model that reads n is asked at each size in one batch; a "
             "model that writes its growth moves its value along it (no model run).", "",
             "| model | how it gives a curve | metrics | tokens | curve p50 ms | p95 | vs the shipped default "
             "| hover's table p50 ms | curve and table p50 ms | directory MB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, r in res.items():
        lines.append(f"| {name} | {r['family']} | {r['metrics']} | {r['tokens']} | {r['prediction']:.1f} | "
                     f"{r['prediction_p95']:.1f} | {r['prediction'] / base:.2f}× | {r['hover']:.1f} | {r['whole']:.1f} | "
                     f"{r['mb']:.1f} |")
    within = [n for n, r in res.items() if r["prediction"] <= BUDGET_MS and r["mb"] <= BUDGET_MB]
    over = [f"{n} ({r['prediction']:.1f} ms, {r['mb']:.1f} MB)" for n, r in res.items() if n not in within]
    lines += ["", "Within the budget: " + (", ".join(within) or "none") + "; over it: " + (", ".join(over) or "none")
              + ". The shipped default writes no growth: its row is the cost of a prediction without a curve."]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path, help="model directories with growth (beside the shipped default)")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--as-p10s", type=lambda t: [int(d) for d in t.split(",")], default=[], metavar="D[,D...]",
                        help="also each model with growth metrics read as P10S with growths of D digits (timing only)")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    from rlm_lsp.runtime.predictor import DEFAULT_DIR

    dirs = {"shipped default": DEFAULT_DIR}
    for d in args.models:
        if not (d / "rlm_config.json").is_file():
            parser.error(f"{d}: not a model directory (no rlm_config.json)")
        name = d.parent.name if d.name in ("fast", "model") else d.name
        dirs[name] = d
        growth = any(m["name"].endswith("_growth") for m in json.loads((d / "rlm_config.json").read_text())["metrics"])
        for digits in args.as_p10s if growth else []:
            dirs[f"{name} as P10S, growth of {digits} digits (timing only)"] = as_p10s(
                d, digits, Path(tempfile.mkdtemp()) / "model")
    res = measure(dirs, args.repeats, args.samples)
    for name, r in res.items():
        print(f"{name}: curve {r['prediction']:.1f} ms p50 (with the hover's table {r['whole']:.1f}); "
              f"{r['mb']:.1f} MB", flush=True)
    publish("curve", markdown(res, argv, args.repeats, args.samples), write=not args.no_write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
