"""Held-out evaluation of the kernel latency model against GBM baselines.

    python -m training.triton.evaluate --model rlm_lsp/models/triton --out training/work/triton_eval.json

The split is by family (training.triton.data.FAMILY_RULES): test families are never seen in
training. Spearman is reported overall, per GPU, and per source (TritonBench's inferred-A100
rows and Liger's real-A100 rows are different benches, so "A100" is also shown split).

Baselines (sklearn HistGradientBoostingRegressor on log10 ms, trained on the same train split):
- `gbm_size`: size / FLOP-like features only: log2 work, log2 of the summed and largest tensor
  element counts, number of tensor args, number of dims, the perf script's byte and FLOP
  formulas (TritonBench only; NaN for Liger), GPU, dtype, mode;
- `gbm_size_code`: the same plus simple code counts (kernels, tl.dot, tl.load/store, loops,
  atomics, autotune configs, text length) - a stronger baseline that also reads the source.
- `work_alone`: the rounded log2 work size of the row and nothing else (no training).

Rows are built as the model's were (`trained_rows`: the Liger work rendering and the validation
families it was trained without), and the baselines see the same rows. `--split val` scores the
validation families instead of the test families, for choosing steps or options.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from training.triton import data

GPUS = ["A100", "H100", "H100-PCIe", "RTX3090", "RTX4090", "B200"]


def spearman(a, b) -> float:
    from scipy.stats import spearmanr

    if len(a) < 3:
        return float("nan")
    return float(spearmanr(a, b).statistic)


def _log2(x):
    return math.log2(x) if x and x > 0 else float("nan")


def size_features(r: dict) -> list[float]:
    shapes = r.get("shapes") or []
    tensors = [s for s in shapes if isinstance(s, list)]
    numels = [math.prod(max(d, 1) for d in s) for s in tensors if s]
    dims = r.get("dims") or {}
    return [
        r["work_log2"],
        _log2(sum(numels)) if numels else _log2(math.prod(max(v, 1) for v in dims.values()) if dims else 0),
        _log2(max(numels)) if numels else float("nan"),
        float(len(tensors) or len(dims)),
        float(max((len(s) for s in tensors), default=0)),
        _log2(r.get("bytes")),
        _log2(r.get("flops")),
        float(GPUS.index(r["gpu"]) if r["gpu"] in GPUS else -1),
        float(["fp32", "fp16", "bf16", "fp8", "int8"].index(r["dtype"]) if r.get("dtype") in
              ["fp32", "fp16", "bf16", "fp8", "int8"] else -1),
        float(["forward", "backward", "full"].index(r["mode"]) if r["mode"] in ["forward", "backward", "full"] else -1),
    ]


def code_features(r: dict) -> list[float]:
    t = r["text"]
    return [
        float(t.count("@triton.jit")), float(t.count("tl.dot")), float(t.count("tl.load")),
        float(t.count("tl.store")), float(len(re.findall(r"\bfor\b", t))), float(t.count("tl.atomic")),
        float(t.count("triton.Config")), float(len(t)), float(t.count("tl.exp") + t.count("tl.log")),
        float(t.count("tl.sum") + t.count("tl.max")),
    ]


def baselines(rows: list[dict], split: str = "test") -> dict[str, np.ndarray]:
    from sklearn.ensemble import HistGradientBoostingRegressor

    train = [r for r in rows if r["split"] == "train"]
    test = [r for r in rows if r["split"] == split]
    y = np.log10([r["ms"] for r in train])
    out = {}
    for name, feats in (("gbm_size", lambda r: size_features(r)),
                        ("gbm_size_code", lambda r: size_features(r) + code_features(r))):
        model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0,
                                              categorical_features=[7, 8, 9])
        model.fit(np.array([feats(r) for r in train]), y)
        out[name] = model.predict(np.array([feats(r) for r in test]))
    return out


def rlm_predictions(model, rows: list[dict], samples: int = 16) -> np.ndarray:
    """`model`: a model directory, or a loaded `Predictor` (then `samples` is its own)."""
    from rlm_lsp.runtime.predictor import Predictor
    from rlm_lsp.triton.kernels import KernelModel

    pred = model if isinstance(model, Predictor) else Predictor.from_dir(model, device="cpu", samples=samples)
    kernel_model = KernelModel(pred)  # the runtime's path: the number is turned into ms (target_scale)
    groups = defaultdict(list)
    for i, r in enumerate(rows):
        groups[(r["gpu"], r["shape"])].append(i)
    values = np.zeros(len(rows))
    for (gpu, shape), idx in groups.items():
        res = kernel_model.predict_texts([rows[i]["text"] for i in idx], {"gpu": gpu, "shape": shape})
        for i, p in zip(idx, res):
            values[i] = p.value
    return values


def table(rows: list[dict], preds: dict[str, np.ndarray]) -> dict:
    truth = np.array([r["ms"] for r in rows])
    slices = {"overall": list(range(len(rows)))}
    for gpu in GPUS:
        idx = [i for i, r in enumerate(rows) if r["gpu"] == gpu]
        if len(idx) >= 3:
            slices[gpu] = idx
    for src in ("tritonbench", "liger"):
        slices[f"source={src}"] = [i for i, r in enumerate(rows) if r["source"] == src]
    slices["A100 liger only"] = [i for i, r in enumerate(rows) if r["gpu"] == "A100" and r["source"] == "liger"]
    fams = sorted({r["family"] for r in rows})
    out = {}
    for name, idx in slices.items():
        if len(idx) < 3:
            continue
        out[name] = {"n": len(idx), **{m: round(spearman(p[idx], truth[idx]), 4) for m, p in preds.items()}}
    per_family = {}
    for fam in fams:
        idx = [i for i, r in enumerate(rows) if r["family"] == fam]
        if len(idx) >= 5:
            per_family[fam] = {"n": len(idx), **{m: round(spearman(p[idx], truth[idx]), 4) for m, p in preds.items()}}
    # mean of per-(family, gpu) Spearman: how well sizes are ranked inside one kernel on one GPU
    within = defaultdict(list)
    for key in {(r["family"], r["gpu"]) for r in rows}:
        idx = [i for i, r in enumerate(rows) if (r["family"], r["gpu"]) == key]
        if len(idx) >= 5 and len(set(truth[idx])) > 1:
            for m, p in preds.items():
                s = spearman(p[idx], truth[idx])
                if not math.isnan(s):
                    within[m].append(s)
    out["mean within (family, gpu)"] = {m: round(float(np.mean(v)), 4) for m, v in within.items()}
    return {"slices": out, "per_family": per_family}


def trained_rows(model_dir: Path) -> dict:
    """How the rows a model was trained on were built: {"liger_work", "val_frac"} from its
    `training_data` (older models: dims, no validation families)."""
    try:
        config = json.loads((model_dir / "rlm_config.json").read_text())
    except (OSError, ValueError):
        config = {}
    recorded = config.get("training_data", {})
    return {"liger_work": recorded.get("liger_work", "dims"), "val_frac": float(recorded.get("val_frac", 0.0))}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", type=Path, default=Path("rlm_lsp/models/triton"))
    p.add_argument("--out", type=Path, default=Path("training/work/triton_eval.json"))
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--no-rlm", action="store_true")
    p.add_argument("--liger-work", choices=data.LIGER_WORK,
                   help="how Liger rows count work (default: what the model was trained with, else dims)")
    p.add_argument("--split", default="test", choices=["test", "val"],
                   help="held-out families (test), or the validation families the model was trained without")
    args = p.parse_args(argv)
    built = trained_rows(args.model)
    liger_work = args.liger_work or built["liger_work"]
    if args.split == "val" and not built["val_frac"]:
        p.error(f"{args.model} was trained without validation families (training_data.val_frac)")
    rows = data.load_rows(liger_work=liger_work, val_frac=built["val_frac"])
    scored = [r for r in rows if r["split"] == args.split]
    preds = baselines(rows, args.split)
    preds["work_alone"] = np.array([r["work_log2"] for r in scored])
    if not args.no_rlm:
        preds["rlm"] = rlm_predictions(args.model, scored, args.samples)
    report = {"liger_work": liger_work, "split": args.split, "rows": len(scored),
              "families": sorted({r["family"] for r in scored}), **table(scored, preds)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report["slices"], indent=1))
    return report


if __name__ == "__main__":
    main()
