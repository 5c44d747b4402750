"""Score a model on the validation problems: Spearman, within-problem pairwise accuracy, coverage.

    python -m training.judging.evaluate training/runs/v1/best            # PyTorch checkpoint
    python -m training.judging.evaluate rlm_lsp/models/default            # exported ONNX dir (runtime Predictor)
    python -m training.judging.evaluate CKPT --samples 16 --json out.json --limit 400

Metrics, per metric, over validation examples with a measured value:
- `spearman`: rank correlation of prediction and measurement over all validation rows;
- `pairwise`: for two solutions of the same problem whose measured values differ by
  >= 2x, how often the prediction orders them the same way (a tie counts half);
- `coverage`: how often the measurement lies inside the predicted p10..p90 (sampled only).

A PyTorch checkpoint is scored twice, through the runtime's decoder (`training.learning.decoding`: the
same allowed tokens, shared stratified draws and point estimate): greedy, and the point estimate
of `--samples` samples (the geometric mean, as `rlm-export` ships by default). An ONNX directory
is scored through `rlm_lsp.Predictor.from_dir(dir).predict(codes)`.
"""

from __future__ import annotations

import os

# On a shared, oversubscribed CPU, OpenMP's spin-waiting makes 2 threads ~5x slower than 1;
# passive waiting keeps 2 threads at least as fast as 1. Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import numpy as np

from rlm_lsp.python import preprocess
from rlm_lsp.runtime import numbers, prediction
from rlm_lsp.runtime.prediction import is_growth
from rlm_lsp.runtime.template import render
from training.learning import dataset, decoding

# --- scores ------------------------------------------------------------------------------------


def spearman(true: Sequence[float], pred: Sequence[float]) -> float:
    from scipy.stats import spearmanr

    if len(true) < 3 or len(set(pred)) < 2 or len(set(true)) < 2:
        return 0.0
    rho = spearmanr(true, pred).statistic
    return 0.0 if rho != rho else float(rho)


def pairwise_accuracy(
    problem_ids: Sequence[str], true: Sequence[float], pred: Sequence[float], ratio: float = 2.0
) -> tuple[float, int]:
    by_problem: dict[str, list[int]] = {}
    for i, pid in enumerate(problem_ids):
        by_problem.setdefault(pid, []).append(i)
    right, pairs = 0.0, 0
    for idx in by_problem.values():
        for i, j in combinations(idx, 2):
            lo, hi = sorted((true[i], true[j]))
            if lo <= 0 or hi / lo < ratio:
                continue
            pairs += 1
            d_true = true[i] - true[j]
            d_pred = pred[i] - pred[j]
            if d_pred == 0:
                right += 0.5
            elif (d_true > 0) == (d_pred > 0):
                right += 1
    return (right / pairs if pairs else float("nan")), pairs


def coverage(true: Sequence[float], low: Sequence[float], high: Sequence[float]) -> float:
    if not len(true):
        return float("nan")
    return float(np.mean([lo <= t <= hi for t, lo, hi in zip(true, low, high)]))


def growth_class(exponent: float) -> str | None:
    """Issue 25's classes of a growth: flat < 0.25, linear 0.75–1.25, superlinear ≥ 1.75; None
    between them (those rows are not scored). Its own bounds: the hint's classes
    (`rlm_lsp.runtime.prediction.growth_class`) are BigO(Bench)'s seven since session 32."""
    if exponent != exponent:  # nan
        return None
    if exponent < 0.25:
        return "flat"
    if 0.75 <= exponent < 1.25:
        return "linear"
    return "superlinear" if exponent >= 1.75 else None


def growth_class_accuracy(true: Sequence[float], pred: Sequence[float]) -> float:
    """Share of rows with a measured class whose prediction falls in the same class (nan: none)."""
    pairs = [(growth_class(t), growth_class(p)) for t, p in zip(true, pred) if growth_class(t)]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else float("nan")


def score(
    examples: Sequence[dataset.Example],
    preds: dict[str, dict[str, list[float]]],
    metrics: Sequence[str] = dataset.METRIC_NAMES,
) -> dict[str, dict]:
    """preds: metric -> {"value": [...], optional "low", "high"} aligned with `examples`."""
    out = {}
    for metric in metrics:
        if metric not in preds:
            continue
        idx = [i for i, e in enumerate(examples) if e.values.get(metric) is not None]
        true = [examples[i].values[metric] for i in idx]
        value = [preds[metric]["value"][i] for i in idx]
        pids = [examples[i].problem_id for i in idx]
        acc, pairs = pairwise_accuracy(pids, true, value)
        row = {
            "n": len(idx),
            "spearman": round(spearman(true, value), 4),
            "pairwise": round(acc, 4) if acc == acc else None,
            "pairs": pairs,
        }
        if "low" in preds[metric]:
            low = [preds[metric]["low"][i] for i in idx]
            high = [preds[metric]["high"][i] for i in idx]
            row["coverage"] = round(coverage(true, low, high), 4)
        if true and is_growth(metric):  # exponents: absolute error, and the growth class
            row["median_abs_error"] = round(float(np.median([abs(v - t) for t, v in zip(true, value)])), 4)
            row["class_accuracy"] = round(growth_class_accuracy(true, value), 4)
        elif true:
            err = [abs(math.log10(max(v, 1e-12)) - math.log10(max(t, 1e-12))) for t, v in zip(true, value)]
            row["median_abs_log10_error"] = round(float(np.median(err)), 4)
        out[metric] = row
    return out


# --- PyTorch checkpoints, decoded by the runtime's decoder ----------------------------------------


def encode_inputs(tok, meta: dict, codes: Sequence[str], metrics: Sequence[str], language="python",
                  as_runtime: bool = False, shapes: Sequence[str] | None = None):
    """Rendered, normalised token ids (EOS last), cut to `max_input_tokens`: at the end, exactly as
    training sees them, or with `as_runtime` by head and tail, as `rlm_lsp.Predictor` reads a
    too-long input (`predictor.head_and_tail`, the elision marker between). `language`: one for
    every code, or a sequence of one per code."""
    from rlm_lsp.runtime.predictor import ELISION, head_and_tail

    template = meta["input_template"]
    max_len = int(meta["max_input_tokens"])
    shapes = list(shapes) if shapes is not None else [None] * len(codes)
    languages = [language] * len(codes) if isinstance(language, str) else list(language)
    texts = [
        render(template, metrics, lang, preprocess.apply(meta.get("preprocess", "none"), c),
               **({"shape": sh} if sh else {}))
        for c, sh, lang in zip(codes, shapes, languages)
    ]
    if as_runtime:
        marker = tok.encode(ELISION, add_special_tokens=False).ids
        return [head_and_tail(e.ids, max_len, marker) for e in tok.encode_batch(texts)]
    return [truncate(e.ids, max_len, tok) for e in tok.encode_batch(texts)]


def truncate(ids: list[int], max_len: int, tok) -> list[int]:
    if len(ids) <= max_len:
        return list(ids)
    eos = tok.token_to_id("</s>")
    return list(ids[: max_len - 1]) + [eos]


def decode_values(
    model,
    tok,
    input_ids: Sequence[Sequence[int]],
    n_metrics: int,
    samples: int = 0,
    temperature: float = 1.0,
    seed: int = 0,
    batch_size: int = 32,
    device=None,
    number_format: numbers.NumberFormat = numbers.P10,
    grammars: Sequence[numbers.Grammar] | None = None,
    smooth: bool = False,
):
    """The runtime's constrained decode of a checkpoint (`training.learning.decoding.sample_values`):
    (N, max(samples, 1), n_metrics) floats; samples <= 1 is greedy. Every metric is non-negative
    and not fixed point unless `grammars` says otherwise. `smooth`: also the smoothed values
    (`decoding.sample_values`)."""
    return decoding.sample_values(model, tok, input_ids, grammars or [numbers.Grammar()] * n_metrics, samples,
                                  number_format, temperature, seed, batch_size, device, smooth=smooth)


def predict_checkpoint(
    model, tok, meta: dict, codes: Sequence[str], metrics: Sequence[str], samples: int = 16,
    batch_size: int = 32, seed: int = 0, shapes: Sequence[str] | None = None,
    languages: Sequence[str] | None = None,
) -> dict[str, dict[str, dict[str, list[float]]]]:
    """{"greedy": metric -> {"value"}, "sampled": metric -> {"value", "low", "high"}}, decoded as the
    checkpoint's default export will be: inputs cut by head and tail, shared draws, the export's
    point estimate and temperature."""
    ids = encode_inputs(tok, meta, codes, metrics, languages or "python", as_runtime=True, shapes=shapes)
    fmt = numbers.format_of(meta)
    grammars = decoding.grammars_of(meta)
    kind = meta.get("point_estimate", decoding.DEFAULT_POINT_ESTIMATE)
    temperature = float(meta.get("sampling_temperature", decoding.DEFAULT_TEMPERATURE))
    result = {}
    greedy = decode_values(model, tok, ids, len(metrics), samples=0, batch_size=batch_size, number_format=fmt,
                           grammars=grammars)
    result["greedy"] = {m: {"value": greedy[:, 0, k].tolist()} for k, m in enumerate(metrics)}
    if samples > 1:
        s, sm = decode_values(model, tok, ids, len(metrics), samples=samples, temperature=temperature, seed=seed,
                              batch_size=max(1, batch_size // 4), number_format=fmt, grammars=grammars, smooth=True)
        point = decoding.point_values(s, kind, [is_growth(m) for m in metrics], sm)
        result["sampled"] = {
            m: {
                "value": point[:, k].tolist(),
                "low": np.percentile(s[:, :, k], 10, axis=1).tolist(),
                "high": np.percentile(s[:, :, k], 90, axis=1).tolist(),
            }
            for k, m in enumerate(metrics)
        }
    return result


def _runtime_columns(rows, metric: str) -> dict[str, list]:
    """value / low / high / samples of one metric over the runtime's results (`metric_prediction`:
    a growth is read from its base metric, where the runtime folds it)."""
    ps = [prediction.metric_prediction(r, metric) for r in rows]
    return {"value": [p.value for p in ps], "low": [p.low for p in ps], "high": [p.high for p in ps],
            "samples": [p.samples for p in ps], "smooth": [p.smooth_samples for p in ps]}


def predict_onnx(model_dir: str, codes: Sequence[str], metrics: Sequence[str], samples: int = 16,
                 shapes: Sequence[str] | None = None, languages: Sequence[str] | None = None):
    from rlm_lsp import Predictor
    from rlm_lsp.runtime.model_dir import POINT_ESTIMATES
    from rlm_lsp.runtime.predictor import point_estimate

    predictor = Predictor.from_dir(model_dir, samples=samples)
    languages = list(languages) if languages is not None else ["python"] * len(codes)
    shaped = shapes is not None and "{shape}" in predictor.config.input_template
    groups: dict[tuple, list[int]] = {}  # each (shape, language) as the data measured it
    for i, lang in enumerate(languages):
        groups.setdefault((shapes[i] if shaped else None, lang), []).append(i)
    rows: list = [None] * len(codes)
    for (shape, lang), idx in sorted(groups.items(), key=lambda kv: (str(kv[0][0]), kv[0][1])):
        context = {"shape": shape} if shape else None
        for i, r in zip(idx, predictor.predict([codes[i] for i in idx], language=lang, context=context)):
            rows[i] = r
    cols = {m: _runtime_columns(rows, m) for m in metrics}
    out = {"runtime": {m: {k: c[k] for k in ("value", "low", "high")} for m, c in cols.items()}}
    if samples > 1:  # the same samples under each point estimate the runtime knows (issue 22.3)
        for kind in POINT_ESTIMATES:
            out[f"runtime_{kind}"] = {
                m: {**out["runtime"][m], "value": [point_estimate(np.array(x), kind, np.array(sm))
                                                   for x, sm in zip(cols[m]["samples"], cols[m]["smooth"])]}
                for m in metrics if not is_growth(m)
            }
    return out


def evaluate_dir(
    path: str, examples: Sequence[dataset.Example], samples: int = 16, batch_size: int = 32,
    predictions_out: str | None = None,
) -> dict:
    """Scores per decoding mode; with examples of several shapes (model v4's data) also per shape,
    under "by_shape"."""
    path_ = Path(path)
    codes = [e.code for e in examples]
    shapes = [e.extra.get("shape", "function") for e in examples]
    languages = [e.language for e in examples]
    if (path_ / "encoder_model.onnx").exists():
        cfg = json.loads((path_ / "rlm_config.json").read_text())
        metrics = [m["name"] for m in cfg["metrics"]]
        preds = predict_onnx(path, codes, metrics, samples, shapes, languages)
    else:
        from training.learning.rlm_model import load_checkpoint

        model, tok, meta = load_checkpoint(path)
        metrics = [m["name"] for m in meta["metrics"]]
        preds = predict_checkpoint(model, tok, meta, codes, metrics, samples, batch_size, shapes=shapes,
                                   languages=languages)
    report = {mode: score(examples, p, metrics) for mode, p in preds.items()}
    report.update(score_by_shape(examples, preds, metrics))
    report.update(score_by_language(examples, preds, metrics))
    if predictions_out:
        write_predictions(examples, preds, metrics, predictions_out)
    return report


def score_by_language(examples: Sequence[dataset.Example], preds: dict, metrics: Sequence[str]) -> dict:
    """{"by_language": language -> mode -> `score`} where `examples` hold several languages, else {}."""
    languages = [e.language for e in examples]
    if len(set(languages)) < 2:
        return {}
    out = {}
    for lang in sorted(set(languages)):
        idx = [i for i, x in enumerate(languages) if x == lang]
        sub = [examples[i] for i in idx]
        out[lang] = {mode: score(sub, {m: {k: [v[i] for i in idx] for k, v in cols.items()}
                                       for m, cols in p.items()}, metrics)
                     for mode, p in preds.items()}
    return {"by_language": out}


def write_predictions(examples: Sequence[dataset.Example], preds: dict, metrics: Sequence[str], path: str) -> None:
    """One row per example: key, language, problem_id, the measured value and the point estimate of
    each metric (mode "runtime" for a model directory, "sampled" else "greedy" for a checkpoint);
    what `training.judging.polyglot_judge` bootstraps. No code in it."""
    mode = next(m for m in ("runtime", "sampled", "greedy") if m in preds)
    with open(path, "w", encoding="utf-8") as f:
        for i, e in enumerate(examples):
            row = {"key": e.key, "language": e.language, "problem_id": e.problem_id}
            for m in metrics:
                row[m] = e.values.get(m)
                row[f"{m}_pred"] = preds[mode][m]["value"][i]
            f.write(json.dumps(row) + "\n")


def score_by_shape(examples: Sequence[dataset.Example], preds: dict, metrics: Sequence[str]) -> dict:
    """{"by_shape": shape -> mode -> `score`} where `examples` hold several shapes (model v4's
    data), else {}. `preds`: mode -> metric -> column -> values aligned with `examples`."""
    shapes = [e.extra.get("shape", "function") for e in examples]
    if len(set(shapes)) < 2:
        return {}
    out = {}
    for shape in sorted(set(shapes)):
        idx = [i for i, sh in enumerate(shapes) if sh == shape]
        sub = [examples[i] for i in idx]
        out[shape] = {mode: score(sub, {m: {k: [v[i] for i in idx] for k, v in cols.items()}
                                        for m, cols in p.items()}, metrics)
                      for mode, p in preds.items()}
    return {"by_shape": out}


def validation_examples(args) -> list[dataset.Example]:
    if args.synthetic:
        examples = dataset.synthetic_examples(args.synthetic)
    elif getattr(args, "v4_data", False):
        from training.judging import shaped_examples as v4_data

        examples = v4_data.load_v4_examples(leetcode_corpus=args.corpus)
    else:
        examples = dataset.load_examples(args.data, args.corpus, tiers=args.tiers.split(","))
    if getattr(args, "polyglot_data", None):
        from training.learning import polyglot_data

        examples = examples + polyglot_data.load_examples(args.polyglot_data, args.polyglot_languages.split(","),
                                                          args.corpus)
    _, val = dataset.split_by_problem(examples, args.val_fraction)
    if args.limit:
        val = val[: args.limit]
    if getattr(args, "stdin_variant", False):
        val = stdin_variants(val)
    return val


def stdin_variants(examples: Sequence[dataset.Example], seed: int = 0) -> list[dataset.Example]:
    """The same programs as scripts: entry function renamed, a stdin-reading driver appended.

    A proxy for the competition-style programs we are judged on (same measured values)."""
    import random
    from dataclasses import replace

    from training.learning import augment

    rng = random.Random(seed)
    return [
        replace(e, code=augment.rewrite(preprocess.apply("strip_v1", e.code), rng, 1.0, 1.0))
        for e in examples
    ]


def write_jsonl(examples: Sequence[dataset.Example], path: str) -> None:
    """Rows {code, language, problem_id, <metric>: value} (the exporter's --eval-jsonl)."""
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8") as f:
        for e in examples:
            row = {"key": e.key, "code": e.code, "language": e.language, "problem_id": e.problem_id}
            row.update({m: v for m, v in e.values.items() if v is not None})
            f.write(json.dumps(row) + "\n")


def add_data_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--data", nargs="+", default=[dataset.DEFAULT_DATA])
    p.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    p.add_argument("--tiers", default="large")
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--synthetic", type=int, default=0, help="use N synthetic rows instead")
    p.add_argument("--v4-data", action="store_true",
                   help="model v4's data (training.judging.shaped_examples): functions with growth and data v2's scripts")
    p.add_argument("--polyglot-data", nargs="*", default=[],
                   help="also C++/Java/Go ladder rows (training.learning.polyglot_data), scored per language too")
    p.add_argument("--polyglot-languages", default="cpp,java,go")


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.judging.evaluate", description=__doc__.split("\n")[0])
    p.add_argument("model", help="checkpoint dir (PyTorch) or exported ONNX model dir")
    add_data_args(p)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--limit", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--json", help="write the report here")
    p.add_argument("--predictions", help="write each validation row's measured and predicted values here (.jsonl)")
    p.add_argument("--stdin-variant", action="store_true",
                   help="score the validation programs rewritten as stdin scripts")
    p.add_argument("--write-jsonl", help="also write the validation rows (with code) here; "
                   "for export --eval-jsonl. Contains corpus code: keep it out of git")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(args.threads)
    val = validation_examples(args)
    if args.write_jsonl:
        write_jsonl(val, args.write_jsonl)
    t0 = time.time()
    report = evaluate_dir(args.model, val, args.samples, args.batch_size, args.predictions)
    report["_meta"] = {
        "model": args.model,
        "validation_examples": len(val),
        "validation_problems": len({e.problem_id for e in val}),
        "samples": args.samples,
        "seconds": round(time.time() - t0, 1),
    }
    text = json.dumps(report, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
