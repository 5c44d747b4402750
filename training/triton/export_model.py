"""Export the kernel checkpoint to the int8 model directory rlm_lsp/models/triton.

    python -m training.triton.export_model training/work/triton_ckpt rlm_lsp/models/triton

Why not plain `python -m export`: its parity check renders the sample inputs without a template
context, and this model's template has {gpu} and {shape} fields, so `str.format` fails. This wrapper
runs the same steps (optimum fp32 export, decoder head cut to the number tokens, int8 dynamic
quantisation, rlm_config.json via export.config) with a parity check on kernel inputs rendered with a GPU and a shape.
(If export/parity.py learns to pass a context, `python -m export` will work as is.)
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path


SAMPLE_KERNELS = [
    ("@triton.jit\ndef add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
     "    pid = tl.program_id(0)\n    offs = pid * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n"
     "    x = tl.load(x_ptr + offs, mask=mask)\n    y = tl.load(y_ptr + offs, mask=mask)\n"
     "    tl.store(out_ptr + offs, x + y, mask=mask)\n", "A100", {"n": 1 << 20}),
    ("@triton.jit\ndef softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):\n"
     "    row = tl.program_id(0)\n    cols = tl.arange(0, BLOCK)\n"
     "    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float('inf'))\n"
     "    x = x - tl.max(x, axis=0)\n    num = tl.exp(x)\n    y = num / tl.sum(num, axis=0)\n"
     "    tl.store(out_ptr + row * stride + cols, y, mask=cols < n_cols)\n", "H100", {"M": 4096, "N": 4096}),
    ("@triton.jit\ndef matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, "
     "BK: tl.constexpr):\n    pid = tl.program_id(0)\n    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
     "    for k in range(0, K, BK):\n        a = tl.load(a_ptr)\n        b = tl.load(b_ptr)\n"
     "        acc += tl.dot(a, b)\n    tl.store(c_ptr, acc)\n", "RTX4090", {"M": 2048, "N": 2048, "K": 2048}),
]


def main(argv=None) -> int:
    from export.config import head_token_ids, write_model_config
    from export.onnx_export import check_checkpoint, export_fp32, narrow_head, quantize_int8
    from export.parity import onnx_greedy_tokens, torch_greedy_tokens
    from rlm_lsp.kernels import LANGUAGE, kernel_text, model_context, parse_shape_hint
    from rlm_lsp.predictor import Predictor
    from transformers import T5ForConditionalGeneration

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("checkpoint", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--model-version", default=None)
    args = p.parse_args(argv)
    meta = check_checkpoint(args.checkpoint)
    version = args.model_version or f"triton-kernel-{meta['training_data'].get('steps', 0)}steps"
    with tempfile.TemporaryDirectory() as tmp:
        fp32, final = Path(tmp) / "fp32", Path(tmp) / "final"
        export_fp32(args.checkpoint, fp32)
        head = {"logits_token_ids": head_token_ids(args.checkpoint)}  # decoder head: the 33 number tokens
        narrow_head(fp32, head["logits_token_ids"])
        write_model_config(fp32, args.checkpoint, meta, version + "-fp32", {"precision": "fp32", **head})
        quantize_int8(fp32, final)
        write_model_config(final, args.checkpoint, meta, version, {"precision": "int8", **head})
        model = T5ForConditionalGeneration.from_pretrained(args.checkpoint)
        report = {"model_version": version, "parity_fp32": 0, "int8_vs_fp32_tokens_equal": 0,
                  "inputs": len(SAMPLE_KERNELS)}
        p32 = Predictor.from_dir(fp32, device="cpu", samples=1)
        p8 = Predictor.from_dir(final, device="cpu", samples=1)
        for code, gpu, shape in SAMPLE_KERNELS:
            ctx = model_context(p32.config.input_template, gpu, parse_shape_hint(shape))
            ids = p32.token_ids(kernel_text(code), LANGUAGE, ctx)[: p32.config.max_input_tokens]
            a = torch_greedy_tokens(model, ids, p32.allowed_ids, p32.config.decoder_start_token_id)
            b = onnx_greedy_tokens(p32, ids)
            c = onnx_greedy_tokens(p8, ids)
            report["parity_fp32"] += int(a == b)
            report["int8_vs_fp32_tokens_equal"] += int(b == c)
        report["size_bytes"] = sum(f.stat().st_size for f in final.iterdir())
        (final / "export_report.json").write_text(json.dumps(report, indent=2) + "\n")
        if args.out.exists():
            shutil.rmtree(args.out)
        shutil.copytree(final, args.out)
    print(json.dumps(report, indent=2))
    return 0 if report["parity_fp32"] == report["inputs"] else 1


if __name__ == "__main__":
    sys.exit(main())
