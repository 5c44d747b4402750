"""Export the kernel checkpoint to the int8 model directory rlm_lsp/models/triton.

    python -m training.triton.export_model training/work/triton_ckpt rlm_lsp/models/triton [export options]

This is `python -m rlm_lsp.export` (optimum fp32 export, decoder head cut to the number tokens, parity,
int8, rlm_config.json) with kernel inputs as the parity samples: each one rendered with a GPU and
a shape through the checkpoint's own template (`rlm_lsp.triton.kernels.model_context`), so `{work}` and
`{mode}` are real tokens rather than a stand-in word.
"""

from __future__ import annotations

import sys
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
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2:
        print("usage: python -m training.triton.export_model CHECKPOINT OUT [export options]", file=sys.stderr)
        return 2
    import rlm_lsp.export.cli as export_cli
    from rlm_lsp.export.onnx_export import ExportError, check_checkpoint
    from rlm_lsp.triton.kernels import kernel_text, model_context, parse_shape_hint

    try:
        meta = check_checkpoint(Path(argv[0]))
    except ExportError as exc:
        print(f"training.triton.export_model: error: {exc}", file=sys.stderr)
        return 2
    template = meta["input_template"]
    samples = [(kernel_text(code), model_context(template, gpu, parse_shape_hint(shape)))
               for code, gpu, shape in SAMPLE_KERNELS]
    if "--model-version" not in argv:
        argv += ["--model-version", f"triton-kernel-{meta['training_data'].get('steps', 0)}steps"]
    return export_cli.main(argv, samples=samples)


if __name__ == "__main__":
    sys.exit(main())
