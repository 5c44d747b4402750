"""python -m training.learning.recover MODEL_DIR CHECKPOINT_DIR: a training checkpoint from a shipped model.

A model directory (encoder_model.onnx, decoder_model.onnx, rlm_config.json, tokenizer.json) holds
every weight of the T5 it was exported from; each is read back as the values onnxruntime multiplies
by, so the recovered model computes what the shipped one does. Three layouts are read:
- optimum's fp32 graphs: a weight matmul's second input is W^T ([in, out]);
- optimum's graphs in int8 (`MatMulNBits`, 8 bits, blocks along the input axis, default zero
  point 128): W[out, k] = (q[out, k // block, k % block] - 128) * scale[out, k // block];
- the fast layout (`rlm-export`'s default, `export/fast_graphs.py`), fp32 or int8:
  - `int8_matmuls`: the MatMul node N became MatMulInteger (in the encoder, after
    `per_input_scales`, MatMulIntegerToFloat) with initializers `rlm_q/N/w` (int8, [in, out], 7-bit
    codes) and `rlm_q/N/w_scale` (fp32, [out]): W[out, k] = w[k, out] * w_scale[out];
  - `quantize_embedding`: the encoder's token embedding is `rlm_emb/q` (int8, [vocab, d_model])
    times `rlm_emb/scale` (fp32, [vocab, 1]), one scale per row: the shared embedding;
  - `trim_embeddings`: each decoder keeps only the rows of the ids it is fed (the start token and
    the number tokens) in fp32, remapped in the graph by `rlm_trim/lookup`; those rows are the
    originals the encoder's int8 rows were rounded from (checked), so they replace them in the
    shared embedding (T5's encoder and decoder share it);
  - `share_cross_kv` rewrites decoder_with_past only, which is not read (decoder_model has every
    decoder weight, the cross-attention K/V projections included).
- the output projection was cut to the number tokens (`logits_token_ids`); its other rows are
  written as zeros, which no constrained decode can pick anyway.
A parameter no graph holds is a ValueError naming it.

The checkpoint (config.json, model.safetensors, tokenizer files, rlm_meta.json) is what
`training.learning.train --init-from` and `rlm-export` read, so an old model can be fine-tuned or
re-exported in a newer layout. Used for the default model, whose torch checkpoint was lost
(experiments/log/06-2026-11-30-sessions-11-15.md, session 15). A checkpoint recovered from the fast
int8 layout re-exports in
that layout to the same initializers, bit for bit (tests/test_recover.py): the largest |value| of a
recovered column (embedding row) is its scale times its largest code, so quantizing again finds the
same scales and codes.
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
# The fast layout's initializers (export/fast_graphs.py): a MatMulInteger weight `rlm_q/<MatMul node
# name>/w` and its column scales (`.../w_scale`); the encoder's int8 embedding; a decoder's id remap.
_INT8_WEIGHT = re.compile(r"^rlm_q/(.+)/w$")
EMBEDDING_CODES, EMBEDDING_SCALE, TRIM_LOOKUP = "rlm_emb/q", "rlm_emb/scale", "rlm_trim/lookup"
# The ops that read those weights, and the input slot of their weight zero point: MatMulInteger
# (`int8_matmuls`), and MatMulIntegerToFloat (`per_input_scales`, the encoder since session 26).
INT8_MATMULS = {"MatMulInteger": 3, "MatMulIntegerToFloat": 5}
FOLDED_PREFIX = "rlm_folded:"  # fast_graphs.FOLDED_PREFIX: the position-bias weights behind a table


def dequantize_nbits(q: np.ndarray, scales: np.ndarray, bits: int, zero_points: np.ndarray | None) -> np.ndarray:
    """[N, blocks, block] uint8 codes and [N * blocks] scales -> the [N, K] weight (8 bits only)."""
    if bits != 8:
        raise ValueError(f"MatMulNBits with {bits} bits: only 8-bit blocks are recovered")
    n, blocks, size = q.shape
    zero = 128.0 if zero_points is None else zero_points.reshape(n, blocks, 1).astype(np.float32)
    return ((q.astype(np.float32) - zero) * scales.reshape(n, blocks, 1)).reshape(n, blocks * size)


def dequantize_columns(q: np.ndarray, scale: np.ndarray, zero_point: np.ndarray | None = None) -> np.ndarray:
    """A MatMulInteger weight: [K, N] int8 codes, [N] fp32 column scales -> the [N, K] weight W.

    What the fast graph computes, (x_q . (w - zero)) * s_row * s_col, is x . W^T with these values."""
    codes = q.astype(np.float32) - (0.0 if zero_point is None else zero_point.astype(np.float32))
    return (codes * scale.astype(np.float32).reshape(1, -1)).T


def graph_weights(path: Path, prefix: str, start_id: int | None = None) -> dict[str, np.ndarray]:
    """Parameter name -> array for one graph (`prefix`: "encoder." for the encoder file).

    Keys starting with "@" are not parameters: a decoder whose embedding was trimmed (fast layout)
    gives its fp32 rows as `@embed_rows` ([rows, d_model]) and their token ids as `@embed_ids`
    (`start_id`, the decoder start token, names row 0's where the remap leaves it open: see
    `trimmed_ids`); an int8 encoder embedding gives its row scales as `@embed_scale`;
    `@int8_matmuls` counts the weights read from MatMulInteger."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    out: dict[str, np.ndarray] = {}
    for prop in model.metadata_props:  # weights a rewrite folded into a table (fast_graphs.FOLDED_PREFIX)
        if prop.key.startswith(FOLDED_PREFIX):
            folded = json.loads(prop.value)
            value = np.array(folded["values"], dtype=np.float32).reshape(folded["shape"])
            out[_param(prefix, prop.key[len(FOLDED_PREFIX):])] = value
    trimmed = _trimmed_table(model.graph, inits)
    for name, value in inits.items():
        if name.endswith(".weight") and name != trimmed:
            out[_param(prefix, name)] = value.astype(np.float32)
    if trimmed is not None:
        out["@embed_rows"] = inits[trimmed].astype(np.float32)
        out["@embed_ids"] = trimmed_ids(inits[TRIM_LOOKUP], len(inits[trimmed]), start_id)
    if EMBEDDING_CODES in inits:
        codes, scale = inits[EMBEDDING_CODES], inits[EMBEDDING_SCALE]
        out["shared.weight"] = codes.astype(np.float32) * scale.astype(np.float32).reshape(-1, 1)
        out["@embed_scale"] = scale.astype(np.float32).reshape(-1)
    for node in model.graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            inits[node.output[0]] = inits[node.input[0]]
    for node in model.graph.node:
        norm = _NORM.match(node.name)
        if norm and node.op_type == "Mul":
            scale = next((inits[i] for i in node.input if i in inits and inits[i].ndim == 1), None)
            if scale is not None:
                out[("decoder." if norm.group(1) else prefix) + norm.group(2).replace("/", ".") + ".weight"] = scale
        if node.op_type in INT8_MATMULS and len(node.input) > 1 and _INT8_WEIGHT.match(node.input[1]):
            match = _NODE.match(_INT8_WEIGHT.match(node.input[1]).group(1))
        elif node.op_type in ("MatMul", "MatMulNBits"):
            match = _NODE.match(node.name)
        else:
            continue
        if not match:
            continue
        param = match.group(2).replace("/", ".") + ".weight"
        if param != "lm_head.weight":
            param = ("decoder." if match.group(1) else prefix) + param
        if node.op_type == "MatMul":
            out[param] = inits[node.input[1]].T.astype(np.float32)
        elif node.op_type in INT8_MATMULS:
            scale = inits.get(node.input[1] + "_scale")
            if scale is None:
                raise ValueError(f"{param}: {path.name} has its int8 codes ({node.input[1]}) but no "
                                 f"column scales ({node.input[1]}_scale)")
            slot = INT8_MATMULS[node.op_type]
            zero = inits.get(node.input[slot]) if len(node.input) > slot and node.input[slot] else None
            out[param] = dequantize_columns(inits[node.input[1]], scale, zero)
            out["@int8_matmuls"] = out.get("@int8_matmuls", 0) + 1
        else:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
            zero = inits.get(node.input[3]) if len(node.input) > 3 and node.input[3] else None
            weight = dequantize_nbits(inits[node.input[1]], inits[node.input[2]], attrs["bits"], zero)
            out[param] = weight[:, : attrs["K"]]
    return out


def _trimmed_table(graph, inits) -> str | None:
    """The initializer a trimmed decoder embedding gathers from (rows picked by `rlm_trim/lookup`)."""
    if TRIM_LOOKUP not in inits:
        return None
    remapped = {n.output[0] for n in graph.node if n.op_type == "Gather" and n.input[0] == TRIM_LOOKUP}
    tables = [n.input[0] for n in graph.node if n.op_type == "Gather" and n.input[1] in remapped and n.input[0] in inits]
    if len(tables) != 1:
        raise ValueError(f"{TRIM_LOOKUP} feeds {len(tables)} embedding tables, expected 1")
    return tables[0]


def trimmed_ids(lookup: np.ndarray, rows: int, start_id: int | None) -> np.ndarray:
    """The token id of each row of a trimmed table: lookup[keep[j]] = j for the sorted kept ids,
    every other id maps to 0 too. Row 0 is the smallest kept id: an id below keep[1] mapping to 0,
    `start_id` where there are several (the decoder start token is always kept)."""
    ids = np.zeros(rows, dtype=np.int64)
    for j in range(1, rows):
        found = np.flatnonzero(lookup == j)
        if len(found) != 1:
            raise ValueError(f"{TRIM_LOOKUP}: {len(found)} token ids map to embedding row {j}, expected 1")
        ids[j] = found[0]
    first = np.flatnonzero(lookup == 0)
    if rows > 1:
        first = first[first < ids[1]]
    if start_id is not None and start_id in first:
        ids[0] = start_id
    elif len(first) == 1:
        ids[0] = first[0]
    else:
        raise ValueError(f"{TRIM_LOOKUP}: the token id of the decoder embedding's row 0 is one of "
                         f"{len(first)} ids and no decoder_start_token_id among them names it")
    if rows > 1 and not (np.diff(ids) > 0).all():
        raise ValueError(f"{TRIM_LOOKUP}: the kept token ids are not in increasing order")
    return ids


def _param(prefix: str, name: str) -> str:
    if name in ("shared.weight", "embed_tokens.weight"):
        return "shared.weight"
    return name if name.startswith("decoder.") else prefix + name


def _shared_embedding(encoder: dict, decoder: dict) -> tuple[np.ndarray | None, int]:
    """The shared embedding: the encoder's (fp32 or int8 rows) with a trimmed decoder's fp32 rows
    put back; returns it and how many rows came from the decoder. Each decoder row must be the row
    the encoder's was made from (equal, or within half the row's int8 step)."""
    if "@embed_rows" not in decoder:
        return decoder.get("shared.weight", encoder.get("shared.weight")), 0
    table = encoder.get("shared.weight")
    if table is None:
        raise ValueError("no weight in the graphs for: shared.weight (the decoder's embedding is trimmed to "
                         f"{len(decoder['@embed_rows'])} rows and the encoder has none)")
    table = table.copy()
    ids, rows = decoder["@embed_ids"], decoder["@embed_rows"]
    if rows.shape[1] != table.shape[1] or ids.max() >= len(table):
        raise ValueError(f"the decoder's embedding rows {rows.shape} do not fit the encoder's {table.shape}")
    scale = encoder.get("@embed_scale")
    tolerance = 0.0 if scale is None else scale[ids, None] * 0.5 * (1 + 1e-5)
    wrong = np.flatnonzero((np.abs(table[ids] - rows) > tolerance).any(axis=1))
    if len(wrong):
        raise ValueError(f"the decoder's embedding row of token {int(ids[wrong[0]])} is not the row the encoder's "
                         f"was made from ({len(wrong)} of {len(ids)} rows disagree)")
    table[ids] = rows
    return table, len(ids)


def _required(weights: dict, name: str) -> np.ndarray:
    if name not in weights:
        raise ValueError(f"no weight in the graphs for: {name}")
    return weights[name]


def recover(model_dir: Path, out: Path) -> dict:
    """Writes the checkpoint; returns a summary (parameters, head rows, layout, weight matrices read
    from int8, where the embedding rows came from)."""
    import torch
    from tokenizers import Tokenizer

    from training.learning.rlm_model import build_model, save_checkpoint

    config = json.loads((model_dir / "rlm_config.json").read_text())
    encoder = graph_weights(model_dir / "encoder_model.onnx", "encoder.")
    decoder = graph_weights(model_dir / "decoder_model.onnx", "decoder.", config.get("decoder_start_token_id"))
    int8_matmuls = int(encoder.pop("@int8_matmuls", 0) + decoder.pop("@int8_matmuls", 0))
    shared, fp32_rows = _shared_embedding(encoder, decoder)
    weights = {k: v for k, v in {**encoder, **decoder}.items() if k != "shared.weight" and not k.startswith("@")}
    if shared is not None:
        weights["shared.weight"] = shared
    arch = config["architecture"]
    d_model = arch["d_model"]
    d_ff = _required(weights, "encoder.block.0.layer.1.DenseReluDense.wi_0.weight").shape[0]
    d_kv = _required(weights, "encoder.block.0.layer.0.SelfAttention.q.weight").shape[0] // arch["num_heads"]
    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    model = build_model(tok, (d_model, d_ff, arch["num_layers"], arch["num_decoder_layers"], arch["num_heads"], d_kv))
    state = model.state_dict()
    head_ids = config.get("logits_token_ids")
    head = _required(weights, "lm_head.weight")
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
                              "graph_layout": config.get("graph_layout"), "files": config.get("files", {})}
    save_checkpoint(model, tok, out, meta)
    rows = len(weights["shared.weight"])
    int8_rows = rows - fp32_rows if "@embed_scale" in encoder else 0
    return {"parameters": len(new_state), "head_rows": len(head_ids or []), "precision": config.get("precision"),
            "graph_layout": config.get("graph_layout") or "optimum", "d_ff": d_ff, "d_kv": d_kv,
            "int8_matmuls": int8_matmuls,
            "embedding_rows": {"int8_from_encoder": int8_rows, "fp32": rows - int8_rows, "of_them_from_decoder": fp32_rows}}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.learning.recover", description=__doc__.splitlines()[0])
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
