"""How much does the kernel model's held-out ranking owe to the code? Predict with and without it.

    python -m experiments.triton_no_code rlm_lsp/models/triton /tmp/other_model

For each model directory, the held-out (test) rows are predicted through the runtime twice:
with their kernel code, and with the code replaced by an empty `@triton.jit` def (so the model
reads only GPU, work size, mode and shape). Rows are rebuilt as the model's were
(`training.triton.evaluate.trained_rows`). Prints overall, Liger-row and mean within
(family, GPU) Spearman for both, next to the work size alone.
"""
import sys
from pathlib import Path

import numpy as np

from rlm_lsp.runtime.predictor import Predictor
from training.triton import data, evaluate

EMPTY_KERNEL = "@triton.jit\ndef kernel():\n    pass"


def main(paths: list[str]) -> int:
    for path in paths:
        built = evaluate.trained_rows(Path(path))
        rows = [r for r in data.load_rows(**built) if r["split"] == "test"]
        model = Predictor.from_dir(Path(path), device="cpu", samples=16)
        preds = {"rlm": evaluate.rlm_predictions(model, rows),
                 "rlm_no_code": evaluate.rlm_predictions(model, [{**r, "text": EMPTY_KERNEL} for r in rows]),
                 "work_alone": np.array([r["work_log2"] for r in rows])}
        slices = evaluate.table(rows, preds)["slices"]
        print(f"{path} ({built['liger_work']}):")
        for name in ("overall", "source=liger", "mean within (family, gpu)"):
            print(f"  {name:28s}", "  ".join(f"{k} {v:.3f}" for k, v in slices[name].items() if k != "n"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
