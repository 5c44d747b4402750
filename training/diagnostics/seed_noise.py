"""Spearman and p10-p90 coverage of a model directory over sampling seeds and temperatures.

    python -m training.diagnostics.seed_noise TEMPS SEEDS [shared]
    python -m training.diagnostics.seed_noise 1.0,1.25 4 shared

Reads training/work/val_rows.jsonl (written by `python -m training.evaluate ... --write-jsonl`, see
the model card's Reproduce) and the shipped default model. A third argument turns shared draws on.
"""
import json, sys, dataclasses
import numpy as np
from rlm_lsp import ModelConfig, Predictor
from training.evaluate import spearman, coverage
rows = [json.loads(l) for l in open("training/work/val_rows.jsonl")]
codes = [r["code"] for r in rows]
base = ModelConfig.load("rlm_lsp/models/default")
for t in [float(x) for x in sys.argv[1].split(",")]:
    cfg = dataclasses.replace(base, temperature=t)
    res = {m: [] for m in ("memory", "latency")}
    for seed in range(int(sys.argv[2])):
        preds = Predictor(cfg, samples=16, seed=seed, shared_draws=len(sys.argv) > 3).predict(codes)
        for m in res:
            idx = [i for i, r in enumerate(rows) if r.get(m)]
            true = [rows[i][m] for i in idx]
            res[m].append((spearman(true, [preds[i][m].value for i in idx]),
                           coverage(true, [preds[i][m].low for i in idx], [preds[i][m].high for i in idx])))
    print(t, {m: "rho %.3f±%.3f cov %.3f" % (np.mean([a for a, _ in v]), np.std([a for a, _ in v]), np.mean([b for _, b in v])) for m, v in res.items()}, flush=True)
