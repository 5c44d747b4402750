"""How does the shipped kernel model rank real timings from a GPU it never saw?

    python -m experiments.triton_real_gpu                       # training/data/kernel_times_h200.jsonl
    python -m experiments.triton_real_gpu --times FILE --gpu H100 --gpu A100

The rows are `time_kernels.py` output: the built-in kernels of `training/triton/bench_kernels.py`
timed on a real GPU. Each kernel function is predicted the way the editor predicts it: its own
source, the shape line of the tensors the job built (`rlm_lsp.triton.kernels.shape_text`, matmul fp16,
the rest fp32), and a GPU name the model knows, since the timing GPU may not be one of them.
Prints measured vs predicted per row, then Spearman for the model and for work size alone.
"""

from __future__ import annotations

import argparse
import json
import math

from scipy.stats import spearmanr

from rlm_lsp.python import snippets
from rlm_lsp.triton import kernels

KERNEL_FUNCTION = {"vector_add": "add_kernel", "softmax": "softmax_kernel", "matmul": "matmul_kernel"}
DTYPE = {"matmul": "fp16"}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--times", default="training/data/kernel_times_h200.jsonl")
    p.add_argument("--source", default="training/triton/bench_kernels.py")
    p.add_argument("--gpu", action="append", help="GPU name given to the model (default: H100, A100)")
    p.add_argument("--model", help="kernel model directory (default: the shipped one)")
    args = p.parse_args(argv)
    model = kernels.KernelModel.load(args.model)
    with open(args.source, encoding="utf-8") as fh:
        functions = {s.name: s for s in snippets.extract(fh.read())}
    with open(args.times, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    measured = [r["ms"] for r in rows]
    work = [max(math.prod(s) for s in r["shapes"]) for r in rows]
    out = {"rows": len(rows), "timed_on": sorted({r["gpu"] for r in rows}),
           "work_alone": spearmanr(work, measured).correlation}
    for gpu in args.gpu or ["H100", "A100"]:
        preds = []
        for r in rows:
            shape = kernels.shape_text(shapes=r["shapes"], dtype=DTYPE.get(r["kernel"], "fp32"))
            preds.append(model.predict_kernels([functions[KERNEL_FUNCTION[r["kernel"]]]], gpu, shape)[0].value)
            print(f"{gpu:8s} {r['kernel']:10s} {shape:46s} measured {r['ms'] * 1e3:8.1f} µs   "
                  f"predicted {preds[-1] * 1e3:8.1f} µs")
        out[gpu] = {"spearman": spearmanr(preds, measured).correlation,
                    "median_abs_log10_error": sorted(abs(math.log10(a / b)) for a, b in zip(preds, measured))[len(rows) // 2]}
    print(json.dumps(out, indent=1))
    return out


if __name__ == "__main__":
    main()
