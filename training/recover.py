"""python -m training.recover MODEL_DIR CHECKPOINT_DIR: a training checkpoint from a shipped model.

A model directory of the optimum layout (encoder_model.onnx, decoder_model.onnx, rlm_config.json,
tokenizer.json) holds every weight of the T5 it was exported from:
- fp32 graphs: a weight matmul's second input is W^T ([in, out]);
- int8 graphs (`MatMulNBits`, 8 bits, blocks along the input axis, default zero point 128):
  W[out, k] = (q[out, k // block, k % block] - 128) * scale[out, k // block], the very values
  onnxruntime multiplies by, so the recovered model computes what the shipped one does.
- the output projection was cut to the number tokens (`logits_token_ids`); its other rows are
  written as zeros, which no constrained decode can pick anyway.

The checkpoint (config.json, model.safetensors, tokenizer files, rlm_meta.json) is what
`training.train --init-from` and `rlm-export` read, so an old model can be fine-tuned or
re-exported in a newer layout. Used for the default model, whose torch checkpoint was lost
(experiments/log.md, session 15).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# A weight matmul node's name -> the T5 parameter it multiplies by (optimum's node names).
_NODE = re.compile(r"^/(?:(decoder)/)?(block\.\d+/layer\.\d+/\w+/\w+|lm_head)/MatMul(?:_Q\d+)?$")
# A layer norm's scale: the Mul in its scope that takes an initializer (the exporter may share one
# initializer between equal norms, fed through Identity nodes, so the node's scope names the parameter).
_NORM = re.compile(r"^/(?:(decoder)/)?((?:block\.\d+/layer\.\d+/)?(?:final_)?layer_norm)/Mul(?:_\d+)?$")


def dequantize_nbits(q: np.ndarray, scales: np.ndarray, bits: int, zero_points: np.ndarray | None) -> np.ndarray:
    """[N, blocks, block] uint8 codes and [N * blocks] scales -> the [N, K] weight (8 bits only)."""
    if bits != 8:
        raise ValueError(f"MatMulNBits with {bits} bits: only 8-bit blocks are recovered")
    n, blocks, size = q.shape
    zero = 128.0 if zero_points is None else zero_points.reshape(n, blocks, 1).astype(np.float32)
    return ((q.astype(np.float32) - zero) * scales.reshape(n, blocks, 1)).reshape(n, blocks * size)


def graph_weights(path: Path, prefix: str) -> dict[str, np.ndarray]:
    """Parameter name -> array for one optimum graph (`prefix`: "encoder." for the encoder file)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out: dict[str, np.ndarray] = {}
    for name, value in inits.items():
        if name.endswith(".weight"):
            out[_param(prefix, name)] = value.astype(np.float32)
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            inits[node.output[0]] = inits[node.input[0]]
    for node in model.graph.node:
        norm = _NORM.match(node.name)
        if norm and node.op_type == "Mul":
            scale = next((inits[i] for i in node.input if i in inits and inits[i].ndim == 1), None)
            if scale is not None:
                out[("decoder." if norm.group(1) else prefix) + norm.group(2).replace("/", ".") + ".weight"] = scale
        match = _NODE.match(node.name)
        if not match or node.op_type not in ("MatMul", "MatMulNBits"):
            continue
        param = match.group(2).replace("/", ".") + ".weight"
        if param != "lm_head.weight":
            param = ("decoder." if match.group(1) else prefix) + param
        if node.op_type == "MatMul":
            out[param] = inits[node.input[1]].T.astype(np.float32)
        else:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            zero = inits.get(node.input[3]) if len(node.input) > 3 and node.input[3] else None
            weight = dequantize_nbits(inits[node.input[1]], inits[node.input[2]], attrs["bits"], zero)
            out[param] = weight[:, : attrs["K"]]
    return out


def _param(prefix: str, name: str) -> str:
    if name in ("shared.weight", "embed_tokens.weight"):
        return "shared.weight"
    return name if name.startswith("decoder.") else prefix + name


def recover(model_dir: Path, out: Path) -> dict:
    """Writes the checkpoint; returns a summary (parameters found, missing, head rows)."""
    import torch
    from tokenizers import Tokenizer

    from training.rlm_model import build_model, save_checkpoint

    config = json.loads((model_dir / "rlm_config.json").read_text())
    weights = {**graph_weights(model_dir / "encoder_model.onnx", "encoder."),
               **graph_weights(model_dir / "decoder_model.onnx", "decoder.")}
    arch = config["architecture"]
    d_model = arch["d_model"]
    d_ff = weights["encoder.block.0.layer.1.DenseReluDense.wi_0.weight"].shape[0]
    d_kv = weights["encoder.block.0.layer.0.SelfAttention.q.weight"].shape[0] // arch["num_heads"]
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    model = build_model(tok, (d_model, d_ff, arch["num_layers"], arch["num_decoder_layers"], arch["num_heads"], d_kv))
    state = model.state_dict()
    head_ids = config.get("logits_token_ids")
    head = weights.pop("lm_head.weight")
    full_head = np.zeros(tuple(state["lm_head.weight"].shape), dtype=np.float32)
    full_head[head_ids if head_ids else slice(None)] = head
    weights["lm_head.weight"] = full_head
    new_state = {}
    missing = []
    for name, tensor in state.items():
        source = weights.get(name)
        if source is None and name.endswith("embed_tokens.weight"):
            source = weights.get("shared.weight")
        if source is None:
            missing.append(name)
            continue
        if tuple(source.shape) != tuple(tensor.shape):
            raise ValueError(f"{name}: graph gives {source.shape}, the model wants {tuple(tensor.shape)}")
        new_state[name] = torch.from_numpy(np.array(source, dtype=np.float32))
    if missing:
        raise ValueError(f"no weight in the graphs for: {', '.join(missing[:6])}")
    model.load_state_dict(new_state)
    meta = {key: config[key] for key in ("metrics", "input_template", "max_input_tokens", "languages", "preprocess",
                                         "training_data") if key in config}
    meta["number_format"] = config["number_format"]
    meta["model_size"] = "recovered"
    meta["recovered_from"] = {"model_version": config["model_version"], "precision": config.get("precision"),
                              "files": config.get("files", {})}
    save_checkpoint(model, tok, out, meta)
    return {"parameters": len(new_state), "head_rows": len(head_ids or []), "precision": config.get("precision"),
            "d_ff": d_ff, "d_kv": d_kv}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.recover", description=__doc__.splitlines()[0])
    parser.add_argument("model_dir", type=Path, help="a model directory of the optimum layout")
    parser.add_argument("out", type=Path, help="checkpoint directory to write")
    args = parser.parse_args(argv)
    try:
        print(json.dumps(recover(args.model_dir, args.out), indent=2))
    except (OSError, ValueError, KeyError) as exc:
        print(f"recover: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
