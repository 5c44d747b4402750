"""Which summary of the same 16 samples ranks best: the median (shipped), the geometric mean, ...

    python -m experiments.sample_summaries python           # 774 validation programs
    python -m experiments.sample_summaries nas [--archs 625]  # validation archs, 26 devices
    python -m experiments.sample_summaries nas --split test --devices gold_6240 ...

One sampling pass per model through the runtime (`Predictor.sample_values`, the draws `predict`
uses); every summary is computed from those same draws, so the differences are the summaries'
alone. Model card: "Point value: median or geometric mean of the samples".
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np


def summaries(samples: np.ndarray) -> dict[str, np.ndarray]:
    """(items, N) positive samples -> {name: (items,) point values}."""
    logs = np.log10(np.maximum(samples, 1e-30))
    cut = max(1, samples.shape[1] // 8)
    trimmed = np.sort(logs, axis=1)[:, cut:-cut]
    return {
        "median": np.median(samples, axis=1),
        "geomean": 10 ** logs.mean(axis=1),
        "mean": samples.mean(axis=1),
        "trimmed_geomean": 10 ** trimmed.mean(axis=1),
    }


def python_report(model: Path, samples: int) -> dict:
    from rlm_lsp.runtime.predictor import Predictor
    from training.judging.evaluate import score
    from training.learning import dataset

    examples = dataset.load_examples([dataset.DEFAULT_DATA], dataset.DEFAULT_CORPUS, tiers=["large"])
    val = dataset.split_by_problem(examples, 0.1)[1]
    pred = Predictor.from_dir(model, device="cpu", samples=samples)
    drawn = pred.sample_values([e.code for e in val])  # (programs, N, metrics)
    names = [m.name for m in pred.config.metrics]
    per_metric = {m: summaries(drawn[:, :, j]) for j, m in enumerate(names)}  # metric -> summary -> values
    out = {}
    for summary in per_metric[names[0]]:
        preds = {m: {"value": list(per_metric[m][summary])} for m in names}
        out[summary] = {m: {k: row[k] for k in ("spearman", "pairwise")} for m, row in score(val, preds, names).items()}
    return {"model": str(model), "programs": len(val), "samples": samples, "summaries": out}


def nas_report(model: Path, samples: int, split: str, archs: int, devices: list[str] | None) -> dict:
    from rlm_lsp.networks import nas
    from rlm_lsp.runtime.predictor import Predictor
    from training.nas import data
    from training.nas.baseline import spearman

    lat_archs, lat = data.load_latency()
    texts = data.graph_texts(lat_archs)
    subset = data.scored_archs(split, archs)
    pred = Predictor.from_dir(model, device="cpu", samples=samples)
    info = nas.load_devices(model)
    devices = devices or nas.trained_devices(info)
    per_device = {}
    for d in devices:
        context = nas.device_context(d, info)  # as `rlm predict` names it
        drawn = pred.sample_values([texts[i] for i in subset], nas.LANGUAGE, context)[:, :, 0]
        truth = [lat[d][i] for i in subset]
        per_device[d] = {name: round(spearman(list(v), truth), 4) for name, v in summaries(drawn).items()}
        print(d, per_device[d], flush=True)
    mean = {name: round(float(np.mean([row[name] for row in per_device.values()])), 4)
            for name in next(iter(per_device.values()))}
    return {"model": str(model), "split": split, "archs": len(subset), "samples": samples,
            "mean": mean, "per_device": per_device}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.sample_summaries")
    p.add_argument("kind", choices=["python", "nas"])
    p.add_argument("--model", type=Path)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--split", default="val", choices=["val", "test"], help="nas: validation or test archs")
    p.add_argument("--archs", type=int, default=625)
    p.add_argument("--devices", nargs="+", help="nas: default every trained device")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    t0 = time.time()
    if args.kind == "python":
        report = python_report(args.model or Path("rlm_lsp/models/default"), args.samples)
    else:
        report = nas_report(args.model or Path("rlm_lsp/models/nas"), args.samples, args.split, args.archs,
                            args.devices)
    report["seconds"] = round(time.time() - t0)
    text = json.dumps(report, indent=1)
    print(text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
