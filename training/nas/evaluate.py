"""Spearman of the shipped (int8 ONNX) NAS model on held-out NAS-Bench-201 archs, through the runtime.

    python -m training.nas.evaluate --model rlm_lsp/models/nas --archs 150 --devices pixel3 eyeriss gold_6226 1080ti_1

Runs `rlm_lsp.networks.nas.predict_graph_text` (the path `rlm predict x.onnx --device D` takes, minus the file
reading) with the runtime's sampling (median of `--samples`), on the first `--archs` of
`data.eval_subset` (more than 300: a sample of that many test archs, up to all 3,125).
`--split val` scores the validation archs instead (625; the first `--archs` of them), for choosing
between candidates without looking at the test archs.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from training.nas import data


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.nas.evaluate")
    p.add_argument("--model", type=Path, default=Path("rlm_lsp/models/nas"))
    p.add_argument("--archs", type=int, default=150)
    p.add_argument("--samples", type=int, default=16)
    p.add_argument("--devices", nargs="+", default=["pixel3", "eyeriss", "gold_6226", "1080ti_1", "silver_4114"])
    p.add_argument("--split", default="test", choices=["test", "val"],
                   help="held-out test archs (default), or the validation archs")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    from rlm_lsp.networks import nas
    from rlm_lsp.runtime.predictor import Predictor
    from training.nas.baseline import spearman

    archs, lat = data.load_latency()
    texts = data.graph_texts(archs)
    subset = data.scored_archs(args.split, args.archs)
    pred = Predictor.from_dir(args.model, device="cpu", samples=args.samples)
    out = {"split": args.split, "archs": len(subset), "samples": args.samples, "per_device": {}}
    t0 = time.time()
    for d in args.devices:
        values = [nas.predict_graph_text(texts[i], [d], predictor=pred)[0].value for i in subset]
        out["per_device"][d] = spearman(values, [lat[d][i] for i in subset])
        print(f"{d}: {out['per_device'][d]:.3f}", flush=True)
    out["seconds"] = round(time.time() - t0)
    print(json.dumps(out, indent=2))
    if args.out:
        args.out.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
