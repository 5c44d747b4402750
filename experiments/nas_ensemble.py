"""Two or more NAS models pooled: each member's 16 samples through the runtime, median of the pool.

    python -m experiments.nas_ensemble rlm_lsp/models/nas /tmp/nas_s1 [--split val --archs 625]

Prints, per trained device and as the mean over them, Spearman of each member alone (median of its
own samples, as `rlm predict` gives it) and of the pool (median of all members' samples: the
mixture of their distributions). Session 11 notes.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m experiments.nas_ensemble")
    p.add_argument("models", nargs="+", type=Path)
    p.add_argument("--split", default="val", choices=["val", "test"])
    p.add_argument("--archs", type=int, default=625)
    p.add_argument("--devices", nargs="+", help="default: every device the first model was trained on")
    p.add_argument("--out", type=Path, default=Path("training/work/nas_ensemble.json"))
    args = p.parse_args(argv)
    from rlm_lsp.networks import nas
    from rlm_lsp.runtime.predictor import Predictor
    from training.nas import data
    from training.nas.baseline import spearman

    archs, lat = data.load_latency()
    texts = data.graph_texts(archs)
    subset = data.scored_archs(args.split, args.archs)
    members = [Predictor.from_dir(m, device="cpu") for m in args.models]
    infos = [nas.load_devices(m) for m in args.models]
    devices = args.devices or nas.trained_devices(infos[0])
    names = [f"{i}:{m.name}" for i, m in enumerate(args.models)]
    per_device = {}
    for d in devices:
        drawn = []
        for pred, info in zip(members, infos):  # each member names the device as `rlm predict` does
            drawn.append(pred.sample_values([texts[i] for i in subset], nas.LANGUAGE,
                                            nas.device_context(d, info))[:, :, 0])
        truth = [lat[d][i] for i in subset]
        row = {n: round(spearman(list(np.median(x, axis=1)), truth), 4) for n, x in zip(names, drawn)}
        row["pooled"] = round(spearman(list(np.median(np.concatenate(drawn, axis=1), axis=1)), truth), 4)
        per_device[d] = row
        print(d, row, flush=True)
    mean = {k: round(float(np.mean([r[k] for r in per_device.values()])), 4) for k in next(iter(per_device.values()))}
    report = {"models": [str(m) for m in args.models], "split": args.split, "archs": len(subset),
              "mean": mean, "per_device": per_device}
    print(json.dumps({"mean": mean}, indent=1))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=1) + "\n")
    return report


if __name__ == "__main__":
    main()
