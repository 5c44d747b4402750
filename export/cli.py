"""rlm-export CHECKPOINT_DIR OUT_DIR: export, quantize, validate, write rlm_config.json.

Steps, each reported:
1. optimum exports encoder, decoder and decoder-with-past to ONNX (fp32, checked at atol 1e-4);
2. the decoders' output projection is cut to the number tokens (all decoding can pick);
   parity: constrained greedy decode in ONNX fp32 equals PyTorch's, token for token, on sample inputs;
3. the shipped graphs (default --layout fast, issue 28): int8 MatMulInteger with per-row activation
   scales (VNNI; in the encoder one scale per input, fused, the runtime encoding one input a call)
   and 7-bit weights (no int16 saturation on AVX2), the decoders' number head in fp32,
   int8 encoder embedding, decoder embeddings cut to the tokens they are fed, cross-attention K/V
   kept once per input instead of once per sample, saved after onnxruntime's basic optimisations
   (rlm_lsp.export.fast_graphs).
   --layout optimum keeps the older graphs (weight-only MatMulNBits, K/V per sample).
   --no-int8 ships fp32 (same layout). Reported: on how many sample inputs the greedy decode
   equals fp32's, and the KL / value-shift budget of sampled outputs against fp32 (`fidelity`);
4. with --eval-jsonl: Spearman of fp32 and int8 against measured values, and the change;
5. with --growth-temperature: a growth samples at its own temperature; with --metrics: only the leading metrics named are shipped (a trailing growth that failed its
   bar is cut; the others' numbers do not change, `config.keep_leading_metrics`).
The report is printed and saved as OUT_DIR/export_report.json.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from rlm_lsp.export.config import head_token_ids, keep_leading_metrics, set_growth_temperature, write_model_config
from rlm_lsp.export.onnx_export import (
    ExportError,
    build_fast,
    check_checkpoint,
    export_fp32,
    narrow_head,
    quantize_int8,
)
from rlm_lsp.runtime.model_dir import POINT_ESTIMATES, check_temperature, sha256_file
from rlm_lsp.runtime.seq2seq import SHARED_CROSS_KV

LAYOUTS = ("fast", "optimum")
CARD = "MODEL_CARD.md"  # a shipped model directory's own card (not part of the model's hashed files)
SAMPLE_CODES = [
    "def f(n):\n    return sum(range(n))\n",
    "def build(n):\n    return [[0] * n for _ in range(n)]\n",
    "def count(s):\n    seen = {}\n    for ch in s:\n        seen[ch] = seen.get(ch, 0) + 1\n    return seen\n",
    "def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n",
    "import sys\n\ndata = sys.stdin.read().split()\nprint(sorted(map(int, data)))\n",
    "class Solution:\n    def twoSum(self, nums, target):\n        d = {}\n        for i, x in enumerate(nums):\n"
    "            if target - x in d:\n                return [d[target - x], i]\n            d[x] = i\n",
    "def grid(n, m):\n    dp = [[0] * (m + 1) for _ in range(n + 1)]\n    for i in range(1, n + 1):\n"
    "        for j in range(1, m + 1):\n            dp[i][j] = dp[i - 1][j] + dp[i][j - 1] + 1\n    return dp[n][m]\n",
    "def words(text):\n    return sorted(set(text.lower().split()), key=len)\n",
]


def main(argv: Sequence[str] | None = None, samples=None) -> int:
    """`samples`: the parity inputs (default SAMPLE_CODES); wrappers for models whose template has
    extra fields pass (code, context) pairs (see rlm_lsp.export.parity.sample_inputs)."""
    parser = argparse.ArgumentParser(prog="rlm-export", description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", type=Path, help="checkpoint directory written by training.learning.train")
    parser.add_argument("out", type=Path, help="model directory to write")
    parser.add_argument("--no-int8", dest="int8", action="store_false", help="ship fp32 instead of int8")
    parser.add_argument("--fp32-out", type=Path, help="also keep the fp32 model directory here (optimum's layout)")
    parser.add_argument("--layout", choices=LAYOUTS, default="fast",
                        help="fast (default): int8 MatMulInteger, shared cross-attention K/V, trimmed "
                             "embeddings; optimum: the older MatMulNBits graphs")
    parser.add_argument("--eval-jsonl", type=Path, help="rows {code, language, <metric>: value} (.gz ok)")
    parser.add_argument("--eval-limit", type=int, default=400)
    parser.add_argument("--model-version", help="defaults to <checkpoint name>-<weights sha256[:8]>")
    parser.add_argument("--point-estimate", choices=POINT_ESTIMATES, default="log_mean_rb",
                        help="the number the runtime shows: the samples' geometric mean with each exponent at "
                             "its expectation (log_mean_rb, default), their plain geometric mean (log_mean), "
                             "or their median")
    parser.add_argument("--temperature", type=float, default=1.0,
                        help="sampling temperature the runtime uses (calibrates the p10-p90 interval)")
    parser.add_argument("--growth-temperature", type=float,
                        help="a growth's own sampling temperature (calibrates its p10-p90 apart from the values')")
    parser.add_argument("--metrics", type=lambda s: [m for m in s.split(",") if m],
                        help="ship only these leading metrics of the checkpoint's, in order (e.g. memory,latency)")
    args = parser.parse_args(argv)
    missing = _missing_training_extra()
    if missing:
        print(f"rlm-export: needs {missing}, from the training extra: pip install 'rlm-lsp[train]'", file=sys.stderr)
        return 2
    try:
        report = export(args.checkpoint, args.out, int8=args.int8, fp32_out=args.fp32_out, layout=args.layout,
                        eval_jsonl=args.eval_jsonl, eval_limit=args.eval_limit, model_version=args.model_version,
                        temperature=args.temperature, samples=samples, point_estimate=args.point_estimate,
                        metrics=args.metrics, growth_temperature=args.growth_temperature)
    except ExportError as exc:
        print(f"rlm-export: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(report, indent=2))
    parity = report["parity"]
    if parity["token_exact"] != parity["inputs"]:
        print(f"rlm-export: parity FAILED on {parity['inputs'] - parity['token_exact']} inputs", file=sys.stderr)
        return 1
    fidelity = report.get("fidelity")
    if fidelity and not fidelity["within_budget"]:
        print(f"rlm-export: warning: outside the fidelity budget against fp32 (KL {fidelity['kl_mean']:.4f}, "
              f"budget {fidelity['kl_budget']}; value shift {fidelity['log10_shift']}); --no-int8 ships fp32",
              file=sys.stderr)
    return 0


def meta_start_id(checkpoint: Path) -> int:
    """The decoder start token id of a checkpoint (the one id besides the number tokens a decoder is fed)."""
    return int(json.loads((checkpoint / "config.json").read_text())["decoder_start_token_id"])


def _missing_training_extra() -> str | None:
    """The first package of the `train` extra that export needs and cannot import, or None."""
    import importlib.util

    for name in ("torch", "transformers", "optimum", "onnx"):
        if importlib.util.find_spec(name) is None:
            return name
    return None


def export(checkpoint: Path, out: Path, int8: bool = True, fp32_out: Path | None = None,
           eval_jsonl: Path | None = None, eval_limit: int = 400, model_version: str | None = None,
           temperature: float = 1.0, samples=None, point_estimate: str = "log_mean_rb", layout: str = "fast",
           metrics: list[str] | None = None, growth_temperature: float | None = None) -> dict:
    from rlm_lsp.export.parity import check_parity, fidelity, onnx_agreement

    if layout not in LAYOUTS:
        raise ExportError(f"--layout {layout!r}, expected one of {', '.join(LAYOUTS)}")
    try:
        check_temperature(temperature, "--temperature")
        if growth_temperature is not None:
            check_temperature(growth_temperature, "--growth-temperature")
    except ValueError as exc:
        raise ExportError(str(exc)) from None
    meta = check_checkpoint(checkpoint)
    names = [m["name"] for m in meta["metrics"]] if metrics else []
    if metrics and metrics != names[:len(metrics)]:
        raise ExportError(f"--metrics {','.join(metrics)}: must be a leading part of the checkpoint's "
                          f"{','.join(names)}, in that order")
    stages = _stages(5 + bool(eval_jsonl))
    weights = next(p for p in (checkpoint / "model.safetensors", checkpoint / "pytorch_model.bin") if p.is_file())
    version = model_version or meta.get("model_version") or f"{checkpoint.name}-{sha256_file(weights)[:8]}"
    with tempfile.TemporaryDirectory() as tmp:
        fp32 = Path(fp32_out) if fp32_out else Path(tmp) / "fp32"
        stages.set_description("optimum export (fp32)")
        export_fp32(checkpoint, fp32)
        stages.update()
        runtime = {"logits_token_ids": head_token_ids(checkpoint), "sampling_temperature": temperature,
                   "point_estimate": point_estimate}
        narrow_head(fp32, runtime["logits_token_ids"])
        write_model_config(fp32, checkpoint, meta, version + "-fp32", {"precision": "fp32", **runtime})
        report: dict = {"checkpoint": str(checkpoint), "model_version": version}
        samples = samples or SAMPLE_CODES
        stages.set_description("parity against PyTorch")
        report["parity"] = check_parity(checkpoint, fp32, samples)
        stages.update()
        stages.set_description(f"{layout} graphs ({'int8' if int8 else 'fp32'})")
        staging = Path(tmp) / "final"
        precision = "int8" if int8 else "fp32"
        if layout == "fast":
            decoder_ids = sorted({*runtime["logits_token_ids"], int(meta_start_id(checkpoint))})
            build_fast(fp32, staging, int8, decoder_ids)
            runtime["graph_layout"] = SHARED_CROSS_KV
        elif int8:
            quantize_int8(fp32, staging)
        else:
            shutil.copytree(fp32, staging)
        write_model_config(staging, checkpoint, meta, version, {"precision": precision, **runtime})
        stages.update()
        stages.set_description("agreement and fidelity against fp32")
        report["layout"] = layout
        if int8 or layout == "fast":
            report["int8_greedy_equals_fp32" if int8 else "greedy_equals_fp32"] = onnx_agreement(fp32, staging, samples)
            report["fidelity"] = fidelity(fp32, staging, samples)
        stages.update()
        if eval_jsonl:
            stages.set_description("Spearman on --eval-jsonl")
            report["int8_vs_fp32"] = _compare(fp32, staging, eval_jsonl, eval_limit)
            stages.update()
        stages.set_description("write")
        if growth_temperature is not None:
            try:
                set_growth_temperature(staging, growth_temperature)
            except ValueError as exc:
                raise ExportError(f"--growth-temperature: {exc}") from None
            report["growth_temperature"] = growth_temperature
        if metrics:
            report["metrics_cut"] = keep_leading_metrics(staging, metrics).get("cut_metrics", [])
        report["size_bytes"] = sum(p.stat().st_size for p in staging.iterdir())
        (staging / "export_report.json").write_text(json.dumps(report, indent=2) + "\n")
        card = out / CARD
        if card.is_file():  # the model's card is written by hand: a re-export keeps it
            shutil.copy2(card, staging / CARD)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(staging, out)
        stages.update()
    stages.close()
    return report


def _stages(total: int):
    """A tqdm bar over the export's stages (with the elapsed time and an ETA) on a terminal; silent
    when stderr is not one (CI, logs)."""
    from tqdm import tqdm  # the train extra, which export needs

    return tqdm(total=total, unit="stage", file=sys.stderr, disable=not sys.stderr.isatty(),
                bar_format="{desc}: {n}/{total} stages [{elapsed}<{remaining}]")


def _compare(fp32: Path, final: Path, rows_path: Path, limit: int) -> dict:
    """Spearman against measured values for fp32 and the shipped precision, per metric."""
    from rlm_lsp.runtime.prediction import metric_prediction
    from rlm_lsp.runtime.predictor import Predictor

    opener = gzip.open if rows_path.suffix == ".gz" else open
    with opener(rows_path, "rt", encoding="utf-8") as fh:
        rows = [json.loads(line) for line, _ in zip(fh, range(limit))]
    out = {}
    preds = {}
    for name, path in (("fp32", fp32), ("shipped", final)):
        predictor = Predictor.from_dir(path, device="cpu")
        preds[name] = predictor.predict([r["code"] for r in rows])
        metrics = predictor.config.metric_names
    for metric in metrics:
        idx = [i for i, r in enumerate(rows) if r.get(metric) is not None]
        truth = [rows[i][metric] for i in idx]
        scores = {name: spearman([metric_prediction(preds[name][i], metric).value for i in idx], truth) for name in preds}
        out[metric] = {**scores, "change": scores["shipped"] - scores["fp32"], "n": len(idx)}
    return out


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    from scipy.stats import spearmanr  # the train extra, which the exporter needs anyway

    if len(a) < 2 or len(set(a)) < 2 or len(set(b)) < 2:
        return float("nan")
    return float(spearmanr(a, b).statistic)
