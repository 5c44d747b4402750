"""Checkpoint -> shipped model directory: optimum ONNX export, int8 quantization, parity checks.

    rlm-export CHECKPOINT_DIR OUT_DIR          (also: python -m rlm_lsp.export)

Needs the training extra (torch, transformers, optimum-onnx); the runtime never imports this.
"""
