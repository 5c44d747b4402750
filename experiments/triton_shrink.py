"""How far to trust a roofline kernel model's residual: ms = prior(k) * r^alpha.

    python -m experiments.triton_shrink --split val MODEL_DIR            # alpha 0, 0.1, ..., 1
    python -m experiments.triton_shrink --split test MODEL_DIR --alpha 0.5

For a model trained with `--target roofline`, r is its number (latency over the fitted curve
prior(k) = c0 + c1 * 2^k ms). alpha = 1 is the model as trained, alpha = 0 the curve alone, which
ranks exactly as the work size does. Prints the overall, Liger, TritonBench and mean-within
Spearman for each alpha, next to the baselines on the same rows, and writes the report to --out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from training.triton import data
from training.triton.evaluate import baselines, rlm_predictions, table, trained_rows

SLICES = ("overall", "source=liger", "source=tritonbench", "mean within (family, gpu)")


def main(argv=None) -> dict:
    from rlm_lsp.runtime.model_dir import ModelConfig
    from rlm_lsp.triton.kernels import ROOFLINE, roofline_ms

    p = argparse.ArgumentParser(prog="python -m experiments.triton_shrink")
    p.add_argument("model", type=Path)
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--alpha", type=float, nargs="*", help="default: 0, 0.1, ..., 1")
    p.add_argument("--out", type=Path, default=Path("training/work/triton_shrink.json"))
    args = p.parse_args(argv)
    trained = ModelConfig.load(args.model).training_data or {}
    if trained.get("target") != ROOFLINE:
        p.error(f"{args.model} was not trained with --target roofline")
    built = trained_rows(args.model)
    if args.split == "val" and not built["val_frac"]:
        p.error(f"{args.model} was trained without validation families")
    rows = data.load_rows(liger_work=built["liger_work"], val_frac=built["val_frac"])
    scored = [r for r in rows if r["split"] == args.split]
    prior = np.array([roofline_ms(trained["roofline"], r["shape"]) for r in scored])
    residual = rlm_predictions(args.model, scored) / prior
    preds = baselines(rows, args.split)
    preds["work_alone"] = np.array([r["work_log2"] for r in scored])
    alphas = args.alpha if args.alpha else [round(0.1 * i, 1) for i in range(11)]
    for a in alphas:
        preds[f"rlm alpha={a}"] = prior * residual ** a
    report = {"split": args.split, "rows": len(scored), "model": str(args.model), **table(scored, preds)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for name in SLICES:
        print(name, json.dumps(report["slices"].get(name)))
    return report


if __name__ == "__main__":
    main()
