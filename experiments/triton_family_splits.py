"""How much does a held-out-family Spearman move with the choice of families? Baselines over random splits.

    python -m experiments.triton_family_splits [--splits 20] [--liger-work tensors]

The kernel model is scored on 7 held-out families. This redraws the held-out families many times,
by the rule that chose the real ones (`training.triton.data.choose_families`, with the seeds
`triton-splits-0`, `triton-splits-1`, ...), refits the GBM baselines of `training.triton.evaluate`
on the rest, and prints the mean, spread and range of their overall Spearman, and of work size
alone. An RLM gap smaller than this
spread is not a result on one split.
"""
from __future__ import annotations

import argparse

import numpy as np

from training.triton import data, evaluate


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--splits", type=int, default=20)
    p.add_argument("--share", type=float, default=0.2, help="share of rows held out per split (as the test split)")
    p.add_argument("--liger-work", default="tensors", choices=data.LIGER_WORK)
    args = p.parse_args(argv)
    rows = data.load_rows(liger_work=args.liger_work)
    scores: dict[str, list[float]] = {"gbm_size": [], "gbm_size_code": [], "work_alone": []}
    for seed in range(args.splits):
        held = data.choose_families(rows, args.share, f"triton-splits-{seed}")
        split = [{**r, "split": "test" if r["family"] in held else "train"} for r in rows]
        preds = evaluate.baselines(split, "test")
        test = [r for r in split if r["split"] == "test"]
        preds["work_alone"] = np.array([r["work_log2"] for r in test])
        overall = evaluate.table(test, preds)["slices"]["overall"]
        for name in scores:
            scores[name].append(overall[name])
    out = {}
    for name, values in scores.items():
        out[name] = {"mean": round(float(np.mean(values)), 3), "sd": round(float(np.std(values)), 3),
                     "min": round(min(values), 3), "max": round(max(values), 3)}
        print(f"{name:14s} mean {out[name]['mean']:.3f}  sd {out[name]['sd']:.3f}  "
              f"range {out[name]['min']:.3f}..{out[name]['max']:.3f}")
    return out


if __name__ == "__main__":
    main()
