"""A seed ensemble of Triton models: each member's 16 samples pooled, median of the pool.

    python -m experiments.triton_ensemble --split val MODEL_DIR MODEL_DIR...

Prints, on the chosen split's rows (the members must share their rows: same `liger_work` and
`val_frac`), each member alone (median of its own samples) and the ensemble (median of all
members' samples pooled: the mixture of their distributions), with the baselines, in
`evaluate.table`'s slices. Writes the report to --out.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from training.triton import data
from training.triton.evaluate import baselines, table, trained_rows


def samples(model_dir: Path, rows: list[dict], n: int = 16) -> np.ndarray:
    """(rows, n) sampled latencies in ms of one model, through the runtime (`Predictor.sample_values`)."""
    from rlm_lsp.runtime.predictor import Predictor
    from rlm_lsp.triton.kernels import LANGUAGE, KernelModel, target_scale

    kernel_model = KernelModel(Predictor.from_dir(model_dir, device="cpu", samples=n))
    groups = defaultdict(list)
    for i, r in enumerate(rows):
        groups[(r["gpu"], r["shape"])].append(i)
    out = np.zeros((len(rows), n))
    for (gpu, shape), idx in groups.items():
        ctx = {"gpu": gpu, "shape": shape}
        values = kernel_model.predictor.sample_values([rows[i]["text"] for i in idx], LANGUAGE, kernel_model.inputs(ctx))
        out[idx] = values[:, :, 0] * target_scale(kernel_model.training_data, shape)  # the number -> ms
    return out


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m experiments.triton_ensemble")
    p.add_argument("models", nargs="+", type=Path)
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--out", type=Path, default=Path("training/work/triton_ensemble.json"))
    args = p.parse_args(argv)
    built = [trained_rows(m) for m in args.models]
    if any(b != built[0] for b in built):
        p.error(f"members were trained on different rows: {built}")
    if args.split == "val" and not built[0]["val_frac"]:
        p.error("members were trained without validation families")
    rows = data.load_rows(liger_work=built[0]["liger_work"], val_frac=built[0]["val_frac"])
    scored = [r for r in rows if r["split"] == args.split]
    preds = baselines(rows, args.split)
    preds["work_alone"] = np.array([r["work_log2"] for r in scored])
    pooled = []
    for m in args.models:
        s = samples(m, scored)
        preds[f"rlm:{m.name}"] = np.median(s, axis=1)
        pooled.append(s)
    preds["ensemble"] = np.median(np.concatenate(pooled, axis=1), axis=1)
    report = {"split": args.split, "rows": len(scored), "members": [str(m) for m in args.models],
              **table(scored, preds)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    for name in ("overall", "source=liger", "source=tritonbench", "mean within (family, gpu)"):
        print(name, json.dumps(report["slices"].get(name)))
    return report


if __name__ == "__main__":
    main()
