"""Graph rewrites of optimum's T5 export that make it run near the CPU's int8 peak (issue 28).

Each rewrite takes and returns an `onnx.ModelProto` and is exact or row-local, but for
`per_input_scales`, whose scales are one per input and which the runtime runs one input a call:

- `int8_matmuls`: every MatMul with a 2-D fp32 weight becomes MatMulInteger (uint8 activations,
  int8 weights per output channel), which runs on VNNI (`vpdpbusd`), about 3x MatMulNBits here.
  Activations are quantized per row (one scale per token or per sample, symmetric, zero point
  128), so a row's result never depends on its batch neighbours. A (B, S, K) input is quantized
  once however many MatMuls read it (q/k/v, the two gated-FFN inputs).
- `per_input_scales`: the encoder's int8 matmuls with one activation scale per tensor, fused
  (`DynamicQuantizeLinear`, `MatMulIntegerToFloat`), the encoder run one input a call.
- `share_cross_kv`: decoder_with_past reads the cross-attention keys and values with one row per
  input instead of one per sample. Its N sample queries of an input become N query rows of one
  attention, so the encoder K/V are neither copied N times nor re-read N times. The scores are
  the same dot products as before.
- `self_bias_table`: a decoder's self-attention bias (relative positions and the causal mask)
  is sliced from a table made at export instead of rebuilt from shapes at every step; the same
  floats, about 100 fewer nodes a step.
- `encoder_bias_gather`: the encoder's relative-position bias gathered from a table by distance
  instead of T5's bucket arithmetic over the (S, S) grid; the same floats, 11% of the encoder at
  1,024 tokens. `encoder_bias_unsliced` then drops T5's slice of that bias to its last S query
  rows, all of them in an encoder: the same floats, 5% of the encoder at 1,024 tokens.
  `encoder_bias_toeplitz` then lays the bias out from one contiguous run of the table (Tile,
  Slice, Reshape) instead of a Gather of S² rows and a Transpose: the same floats, 7-8% of the
  encoder at 239 and 823 tokens.
- `trim_embeddings`: a decoder only ever sees the start token and the number tokens, so its
  embedding table keeps those rows; the input ids are remapped in the graph (a small lookup).
- `quantize_embedding`: the encoder's token embedding as int8 rows with one scale per row.

`LAYOUT_KEY` in a graph's metadata names the layout, so the runtime tells old directories
(`None`: optimum's layout, cross K/V per sample) from new ones (`SHARED_CROSS_KV`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlm_lsp.runtime.seq2seq import (
    ENCODER_BIAS_KEY,
    ENCODER_SCALES_KEY,
    LAYOUT_KEY,
    MANY,
    PAST_STEP_TOKENS_KEY,
    PER_INPUT,
    SELF_BIAS_KEY,
    SHARED_CROSS_KV,
)

WEIGHT_BITS = 7  # weights in -63..63: see int8_matmuls


def int8_matmuls(model, skip: Sequence[str] = (), weight_bits: int = WEIGHT_BITS):
    """MatMul(X, W) with W a 2-D fp32 initializer -> MatMulInteger on per-row quantized X.

    y = (round(x / s_row) . w_q) * s_row * s_col, with s_row = max|x_row| / 127 and
    s_col = max|w_col| / q, q = 2^(weight_bits - 1) - 1. `skip`: names of MatMul nodes to leave
    in fp32.

    Why 7-bit weights by default: onnxruntime's uint8 x int8 kernel on AVX2 without VNNI
    (`vpmaddubsw`) adds adjacent products in int16 and saturates there: with activation codes up
    to 255 and weights up to 127 a pair reaches 64,770 > 32,767, and a saturated sum was measured
    off by 8x on a random matrix. With |w_q| <= 63 a pair stays under 32,130, so every kernel
    (AVX2, AVX-512, VNNI) computes the same exact integers: the outputs do not depend on the CPU.

    Few nodes, because opening a session costs time per node (onnxruntime's graph passes and
    memory planner): X keeps its shape, (..., K) -> uint8 (..., K), since MatMulInteger takes
    any leading dimensions; six nodes per quantized input (the row scale (..., 1) by broadcast:
    Abs, ReduceMax, Max, Mul; then Div and QuantizeLinear with scale 1 and zero point 128) and
    four per matmul (MatMulInteger, Cast, the row scale, the column scale). QuantizeLinear rounds
    half to even and saturates to uint8; |x / s_row| <= 127, so the codes are 1..255.
    """
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    new_inits = []
    quantized: dict[str, tuple[str, str]] = {}  # activation name -> (uint8 name, row scale name)
    nodes = []
    consts_added = False

    def const(name, value):
        new_inits.append(numpy_helper.from_array(np.asarray(value), name))

    for node in graph.node:
        weight = inits.get(node.input[1]) if node.op_type == "MatMul" and len(node.input) == 2 else None
        if weight is None or node.name in skip or len(weight.dims) != 2 or weight.data_type != TensorProto.FLOAT:
            nodes.append(node)
            continue
        if not consts_added:
            const("rlm_q/axis_last", np.array([-1], dtype=np.int64))
            const("rlm_q/inv127", np.array(1.0 / 127.0, dtype=np.float32))
            const("rlm_q/tiny", np.array(1e-30, dtype=np.float32))
            const("rlm_q/one", np.array(1.0, dtype=np.float32))
            const("rlm_q/zero_point", np.array(128, dtype=np.uint8))
            consts_added = True
        x = node.input[0]
        w = numpy_helper.to_array(weight).astype(np.float32)  # (K, N)
        if x not in quantized:
            p = f"rlm_q/{len(quantized)}"
            nodes += [
                helper.make_node("Abs", [x], [f"{p}/abs"]),
                helper.make_node("ReduceMax", [f"{p}/abs", "rlm_q/axis_last"], [f"{p}/amax"], keepdims=1),
                helper.make_node("Max", [f"{p}/amax", "rlm_q/tiny"], [f"{p}/amax_safe"]),
                helper.make_node("Mul", [f"{p}/amax_safe", "rlm_q/inv127"], [f"{p}/scale"]),  # (..., 1)
                helper.make_node("Div", [x, f"{p}/scale"], [f"{p}/x_scaled"]),  # (..., K) in [-127, 127]
                helper.make_node("QuantizeLinear", [f"{p}/x_scaled", "rlm_q/one", "rlm_q/zero_point"], [f"{p}/u8"]),
            ]
            quantized[x] = (f"{p}/u8", f"{p}/scale")
        xq, row_scale = quantized[x]
        qmax = 2 ** (weight_bits - 1) - 1
        col_scale = np.maximum(np.abs(w).max(axis=0), 1e-30) / qmax  # (N,)
        wq = np.clip(np.round(w / col_scale), -qmax, qmax).astype(np.int8)
        base = f"rlm_q/{node.name or node.output[0]}"
        const(f"{base}/w", wq)
        const(f"{base}/w_scale", col_scale.astype(np.float32))
        nodes += [
            helper.make_node("MatMulInteger", [xq, f"{base}/w", "rlm_q/zero_point"], [f"{base}/i32"]),  # (..., N)
            helper.make_node("Cast", [f"{base}/i32"], [f"{base}/f32"], to=TensorProto.FLOAT),
            helper.make_node("Mul", [f"{base}/f32", row_scale], [f"{base}/row"]),
            helper.make_node("Mul", [f"{base}/row", f"{base}/w_scale"], list(node.output)),
        ]
    del graph.node[:]
    graph.node.extend(nodes)
    graph.initializer.extend(new_inits)
    _drop_unused_initializers(graph)
    return model


def per_input_scales(model):
    """An encoder from `int8_matmuls`: each quantized input with one scale per tensor instead of
    one per row, so each input's six nodes become one `DynamicQuantizeLinear` (uint8, asymmetric
    min/max, zero point per tensor) and each matmul's four one `com.microsoft.MatMulIntegerToFloat`
    (the same 7-bit int8 weights and column scales, the activation's scale and zero point in).

    About a tenth of the encoder's time at ~300 tokens (experiments/log/09-2026-12-02-sessions-23-26.md,
    session 26). A scale
    per tensor is one per input only when the encoder runs one input a call without padding: the
    graph's metadata (`ENCODER_SCALES_KEY`: `PER_INPUT`) tells the runtime to do that
    (`rlm_lsp.runtime.seq2seq.Seq2Seq.encode`), so an input's numbers never depend on its batch. Not exact:
    the exporter's fidelity check against fp32 judges it. The uint8 codes reach 255 and the weights
    stay within ±63, so the integer products stay exact on every CPU kernel (see `int8_matmuls`).
    """
    from onnx import helper

    graph = model.graph
    producer = {out: node for node in graph.node for out in node.output}
    readers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            readers.setdefault(name, []).append(node)
    quantizers = [n for n in graph.node if n.op_type == "QuantizeLinear" and n.output[0].startswith("rlm_q/")]
    if not quantizers:
        raise ValueError("no int8_matmuls quantization in this graph")

    def made_by(name: str, op: str):
        node = producer.get(name)
        if node is None or node.op_type != op:
            raise ValueError(f"{name}: not an int8_matmuls quantization (expected {op} there)")
        return node

    for quantize in quantizers:
        divide = made_by(quantize.input[0], "Div")
        scale = made_by(divide.input[1], "Mul")
        safe = made_by(scale.input[0], "Max")
        amax = made_by(safe.input[0], "ReduceMax")
        absolute = made_by(amax.input[0], "Abs")
        x, prefix = divide.input[0], quantize.output[0].rsplit("/", 1)[0]
        codes, x_scale, x_zero = f"{prefix}/u8_tensor", f"{prefix}/scale_tensor", f"{prefix}/zero_tensor"
        at = list(graph.node).index(absolute)
        for node in (absolute, amax, safe, scale, divide, quantize):
            graph.node.remove(node)
        graph.node.insert(at, helper.make_node("DynamicQuantizeLinear", [x], [codes, x_scale, x_zero]))
        for matmul in readers[quantize.output[0]]:
            cast = _only(readers[matmul.output[0]])
            row = _only(readers[cast.output[0]])
            column = _only(readers[row.output[0]])
            if (matmul.op_type, cast.op_type, row.op_type, column.op_type) != ("MatMulInteger", "Cast", "Mul", "Mul"):
                raise ValueError(f"{matmul.name or matmul.output[0]}: not an int8_matmuls chain")
            at = list(graph.node).index(matmul)
            for node in (matmul, cast, row, column):
                graph.node.remove(node)
            graph.node.insert(at, helper.make_node(
                "MatMulIntegerToFloat", [codes, matmul.input[1], x_scale, column.input[1], x_zero],
                list(column.output), name=matmul.name, domain="com.microsoft"))
    if not any(o.domain == "com.microsoft" for o in model.opset_import):
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    _drop_unused_initializers(graph)
    _set_meta(model, ENCODER_SCALES_KEY, PER_INPUT)
    return model


def share_cross_kv(model):
    """decoder_with_past: cross-attention K/V and encoder_attention_mask with B rows, queries B*N.

    In each EncDecAttention block of optimum's graph, Q (B*N, H, T, d) meets K^T (B, H, d, S).
    Q is laid out as (B, H, N*T, d), query rows (sample, position); scores (B, H, N*T, S) take the
    mask bias by broadcast, cut to its first query row (B, H, 1, S): cross-attention has no
    position bias, so the rows are all the same; softmax . V gives (B, H, N*T, d), laid back out as
    the (B*N, H, T, d) tensor the block's output projection reads. T is 1 in a plain step and
    more when forced tokens ride along (`decode.constrained_decode(merge_forced_start=True)`).
    """
    from onnx import helper, numpy_helper

    graph = model.graph
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    keys = [i.name for i in graph.input if i.name.startswith("past_key_values.") and i.name.endswith(".encoder.key")]
    if not keys:
        raise ValueError("decoder_with_past has no past_key_values.*.encoder.key inputs")
    new_inits = [numpy_helper.from_array(np.array([value], dtype=np.int64), f"rlm_kv/{name}")
                 for name, value in (("zero", 0), ("one", 1), ("query_axis", 2))]
    cut_bias: dict[str, str] = {}  # the scores' bias (B, H, T, S) -> its first query row
    for key in keys:
        value = key[: -len("key")] + "value"
        heads, head_dim = (_input_dim(graph, key, 1), _input_dim(graph, key, 3))
        transpose_k = next(n for n in consumers[key] if n.op_type == "Transpose")
        scores = _only(n for n in consumers[transpose_k.output[0]] if n.op_type == "MatMul")
        if scores.input[1] != transpose_k.output[0]:
            raise ValueError(f"the cross-attention scores of {key} are not Q . K^T")
        bias_add = _only(consumers[scores.output[0]])
        if bias_add.op_type != "Add" or bias_add.input[0] != scores.output[0]:
            raise ValueError(f"the cross-attention scores of {key} are not followed by their bias")
        context = _only(n for n in consumers[value] if n.op_type == "MatMul")
        after = _only(consumers[context.output[0]])
        if after.op_type != "Transpose" or list(after.attribute[0].ints) != [0, 2, 1, 3]:
            raise ValueError(f"unexpected node after the cross-attention context of {key}: {after.op_type}")
        p = f"rlm_kv/{key}"
        q = scores.input[0]
        new_inits.append(numpy_helper.from_array(np.array([-1, heads, head_dim], dtype=np.int64), f"{p}/split_tail"))
        nodes = [
            helper.make_node("Transpose", [q], [f"{p}/q_rows"], perm=[0, 2, 1, 3]),  # (B*N, T, H, d)
            helper.make_node("Shape", [key], [f"{p}/kshape"], start=0, end=1),  # (B,)
            helper.make_node("Concat", [f"{p}/kshape", f"{p}/split_tail"], [f"{p}/split"], axis=0),
            helper.make_node("Reshape", [f"{p}/q_rows", f"{p}/split"], [f"{p}/q_bn"]),  # (B, N*T, H, d)
            helper.make_node("Transpose", [f"{p}/q_bn"], [f"{p}/q_bhn"], perm=[0, 2, 1, 3]),  # (B, H, N*T, d)
        ]
        scores.input[0] = f"{p}/q_bhn"
        bias = bias_add.input[1]
        if bias not in cut_bias:
            cut_bias[bias] = f"rlm_kv/bias_row/{len(cut_bias)}"
            _insert_before(graph, bias_add, [helper.make_node(
                "Slice", [bias, "rlm_kv/zero", "rlm_kv/one", "rlm_kv/query_axis"], [cut_bias[bias]])])  # (B, H, 1, S)
        bias_add.input[1] = cut_bias[bias]
        context_out = context.output[0]
        context.output[0] = f"{p}/ctx_bhn"  # (B, H, N*T, d)
        after_nodes = [
            helper.make_node("Transpose", [f"{p}/ctx_bhn"], [f"{p}/ctx_bnh"], perm=[0, 2, 1, 3]),  # (B, N*T, H, d)
            helper.make_node("Shape", [f"{p}/q_rows"], [f"{p}/rows_shape"]),
            helper.make_node("Reshape", [f"{p}/ctx_bnh", f"{p}/rows_shape"], [f"{p}/ctx_rows"]),  # (B*N, T, H, d)
            helper.make_node("Transpose", [f"{p}/ctx_rows"], [context_out], perm=[0, 2, 1, 3]),  # (B*N, H, T, d)
        ]
        _insert_before(graph, scores, nodes)
        _insert_after(graph, context, after_nodes)
    graph.initializer.extend(new_inits)
    for inp in graph.input:  # B rows, not B*N: name the dimension apart from input_ids' batch
        if inp.name == "encoder_attention_mask" or inp.name.endswith((".encoder.key", ".encoder.value")):
            dim = inp.type.tensor_type.shape.dim[0]
            dim.Clear()
            dim.dim_param = "encoder_batch_size"
    set_layout(model, SHARED_CROSS_KV)
    _set_meta(model, PAST_STEP_TOKENS_KEY, MANY)
    return model


SELF_BIAS_POSITIONS = 64  # decode positions a bias table covers (6 per metric: 10 metrics)


def self_bias_table(model, positions: int = SELF_BIAS_POSITIONS):
    """A decoder's self-attention bias (T5's relative-position bias plus the causal mask) read
    from a precomputed (1, H, L, L) table instead of rebuilt at every step.

    The bias a step adds to its scores depends only on the past length P and the new tokens T:
    row q of the full causal bias of P + T positions, for q in P..P+T-1. optimum's graph rebuilds it
    from shapes each step (about 80 small nodes: Range, the log buckets, the mask's
    Expand/ScatterND); here it becomes one Slice of the table, which is that same subgraph
    evaluated once, at export, for P = 0 and T = L, so the values are the same floats. Checked
    here: the subgraph may read only the shapes of input_ids and the decoder's own past (never
    the encoder's mask), and the table reproduces it at a few (P, T). `SELF_BIAS_KEY` records L;
    the runtime refuses a model whose decode needs more positions."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    producers = {out: node for node in graph.node for out in node.output}
    softmax = next(n for n in graph.node if n.op_type == "Softmax" and "SelfAttention" in n.name)
    add = producers[softmax.input[0]]
    while add.op_type in ("Cast", "Identity"):  # optimum's raw graph casts the scores to float
        add = producers[add.input[0]]
    scores = ("MatMul", "FusedMatMul")
    if add.op_type != "Add" or sum(producers[i].op_type in scores for i in add.input if i in producers) != 1:
        raise ValueError("the first self-attention's scores are not MatMul + bias")
    bias = next(i for i in add.input if producers.get(i) is None or producers[i].op_type not in scores)
    inputs = _graph_inputs_above(graph, bias)
    past = "past_key_values.0.decoder.key"
    if not inputs <= {"input_ids", past}:
        raise ValueError(f"the self-attention bias reads {sorted(inputs)}, not only the step's shapes")
    has_past = any(i.name == past for i in graph.input)
    run = _probe(model, [bias], TensorProto.FLOAT)
    (table,) = run(_decoder_feeds(model, past_length=0, new_tokens=positions))  # (b, H, L, L)
    table = np.ascontiguousarray(table[:1])
    for p_len, t_len in ((0, 1), (0, 2), (3, 1), (5, 2), (11, 1)):  # the table stands for the subgraph
        if p_len and not has_past:
            continue
        (want,) = run(_decoder_feeds(model, past_length=p_len, new_tokens=t_len))
        got = table[:, :, p_len:p_len + t_len, : p_len + t_len]
        if not np.array_equal(np.broadcast_to(got, want.shape), want):
            raise ValueError(f"the bias table does not reproduce the graph at P={p_len}, T={t_len}")
    graph.node.remove(producers[bias])
    _keep_folded_weights(model, [i for i in graph.initializer if "relative_attention_bias" in i.name])
    graph.initializer.extend([
        numpy_helper.from_array(table.astype(np.float32), "rlm_bias/table"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "rlm_bias/zero"),
        numpy_helper.from_array(np.array([2, 3], dtype=np.int64), "rlm_bias/axes"),
    ])
    nodes = [helper.make_node("Shape", ["input_ids"], ["rlm_bias/new"], start=1, end=2)]  # (T,)
    if has_past:
        nodes += [helper.make_node("Shape", [past], ["rlm_bias/past"], start=2, end=3),  # (P,)
                  helper.make_node("Add", ["rlm_bias/past", "rlm_bias/new"], ["rlm_bias/end"])]
        first, end = "rlm_bias/past", "rlm_bias/end"
    else:
        first, end = "rlm_bias/zero", "rlm_bias/new"
    nodes += [
        helper.make_node("Concat", [first, "rlm_bias/zero"], ["rlm_bias/starts"], axis=0),
        helper.make_node("Concat", [end, end], ["rlm_bias/ends"], axis=0),
        helper.make_node("Slice", ["rlm_bias/table", "rlm_bias/starts", "rlm_bias/ends", "rlm_bias/axes"], [bias]),
    ]
    index = min(i for i, node in enumerate(graph.node) if bias in node.input)
    for offset, node in enumerate(nodes):
        graph.node.insert(index + offset, node)
    _drop_dead_nodes(graph)
    _drop_unused_initializers(graph)
    _set_meta(model, SELF_BIAS_KEY, str(positions))
    return model


ENCODER_BIAS_POSITIONS = 4096  # input tokens the encoder's relative-position lookup covers


def encoder_bias_gather(model, positions: int = ENCODER_BIAS_POSITIONS):
    """The encoder's relative-position bias gathered from a (2L - 1, H) table by k - q, instead of
    from T5's bucket arithmetic over the (S, S) grid (Sub, Abs, Cast, Log, Div, Min, Where...).

    T5's bucket of a key k for a query q depends only on k - q, and it saturates (every distance
    past `relative_attention_max_distance` shares the last bucket of its side). The bucket of each
    distance is read off the graph itself, evaluated once at export on 512 tokens; the rewrite
    checks that grid is a function of k - q, that both sides are flat from 256 on (so the
    distances past 511 take the end buckets), and the table holds the same floats as the weight
    it gathers from. `ENCODER_BIAS_KEY` records L; the runtime refuses to read more tokens."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    gather = _only(n for n in graph.node if n.op_type == "Gather" and n.input[0] in inits
                   and "relative_attention_bias" in n.input[0])
    buckets = gather.input[1]
    if not _graph_inputs_above(graph, buckets) <= {"input_ids", "attention_mask"}:
        raise ValueError("the encoder's position buckets read more than the input's shape")
    ones = np.ones((1, 512), dtype=np.int64)
    (grid,) = _probe(model, [buckets], TensorProto.INT64)({"input_ids": ones * 5, "attention_mask": ones})  # bucket of (q, k)
    n = grid.shape[0]
    near = np.concatenate([grid[::-1, 0], grid[0, 1:]])  # distance d = k - q from -(n-1) to n-1
    q, k = np.indices(grid.shape)
    if not np.array_equal(grid, near[k - q + n - 1]):
        raise ValueError("the encoder's position buckets are not a function of k - q")
    if len(set(near[: n // 2])) != 1 or len(set(near[-(n // 2):])) != 1:
        raise ValueError("the encoder's position buckets do not saturate within 256 positions")
    side = positions - n
    by_distance = np.concatenate([np.full(side, near[0]), near, np.full(side, near[-1])])  # d from -(L-1)
    weight = numpy_helper.to_array(inits[gather.input[0]])  # (buckets, H)
    _keep_folded_weights(model, [inits[gather.input[0]]])
    graph.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(weight[by_distance]), "rlm_pos/table"),  # (2L - 1, H)
        numpy_helper.from_array(np.arange(positions, dtype=np.int64), "rlm_pos/arange"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "rlm_pos/zero"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "rlm_pos/one"),
        numpy_helper.from_array(np.array(positions - 1, dtype=np.int64), "rlm_pos/offset"),
    ])
    nodes = [
        helper.make_node("Shape", ["input_ids"], ["rlm_pos/len"], start=1, end=2),  # (S,)
        helper.make_node("Slice", ["rlm_pos/arange", "rlm_pos/zero", "rlm_pos/len"], ["rlm_pos/q"]),  # 0..S-1
        helper.make_node("Add", ["rlm_pos/q", "rlm_pos/offset"], ["rlm_pos/k"]),  # k + L - 1
        helper.make_node("Unsqueeze", ["rlm_pos/k", "rlm_pos/zero"], ["rlm_pos/k_row"]),  # (1, S)
        helper.make_node("Unsqueeze", ["rlm_pos/q", "rlm_pos/one"], ["rlm_pos/q_col"]),  # (S, 1)
        helper.make_node("Sub", ["rlm_pos/k_row", "rlm_pos/q_col"], ["rlm_pos/index"]),  # (S, S): k - q + L - 1
    ]
    gather.input[0], gather.input[1] = "rlm_pos/table", "rlm_pos/index"  # (S, S, H), then its Transpose
    _insert_before(graph, gather, nodes)
    _drop_dead_nodes(graph)
    _drop_unused_initializers(graph)
    _set_meta(model, ENCODER_BIAS_KEY, str(positions))
    return model


ENCODER_UNSLICED_KEY = "rlm_encoder_bias_unsliced"  # metadata: encoder_bias_unsliced was applied


def encoder_bias_unsliced(model):
    """Drop T5's `position_bias[:, :, -S:, :]` from the encoder: the last S query rows of a bias
    with S query rows are all of it, but onnxruntime copies the (1, H, S, S) tensor to take them
    (5% of the encoder at 1,024 tokens). The same floats: the slice is checked to be the whole
    tensor at three lengths, and the encoder's outputs equal to the bit before and after.
"""
    from onnx import TensorProto

    original = type(model)()
    original.CopyFrom(model)
    graph = model.graph
    consumers: dict[str, list] = {}
    for node in graph.node:
        for name in node.input:
            consumers.setdefault(name, []).append(node)
    bias = _only(n for n in graph.node if n.op_type == "Gather" and "relative_attention_bias" in n.name)
    transpose = _only(consumers.get(bias.output[0], []))
    unsqueeze = _only(consumers.get(transpose.output[0], []))
    cut = _only(c for c in consumers.get(unsqueeze.output[0], []) if c.op_type == "Slice")
    run = _probe(original, [cut.input[0], cut.output[0]], TensorProto.FLOAT)
    for length in (1, 3, 40):
        ones = np.ones((1, length), dtype=np.int64)
        before, after = run({"input_ids": ones * 5, "attention_mask": ones})
        if before.shape != after.shape or not np.array_equal(before, after):
            raise ValueError("the slice of the encoder's position bias is not the whole tensor")
    for node in graph.node:
        node.input[:] = [cut.input[0] if name == cut.output[0] else name for name in node.input]
    graph.node.remove(cut)
    return _exact_encoder_rewrite(original, model, ENCODER_UNSLICED_KEY)


ENCODER_TOEPLITZ_KEY = "rlm_encoder_bias_toeplitz"  # metadata: encoder_bias_toeplitz was applied


def encoder_bias_toeplitz(model):
    """The encoder's (H, S, S) position bias laid out from one contiguous run of the distance table
    instead of `encoder_bias_gather`'s Gather of S² rows of H floats and its Transpose.

    The bias is Toeplitz: bias[h, q, k] = table[k - q + L - 1, h]. With u = the table's row h over
    the 2S distances from -(S - 1) to S, tiling u S times and reading it S rows of 2S - 1 wide shifts each row by one: row q, column c
    holds u[c - q]. Columns S - 1 to 2S - 2 are the bias. Tile, Slice and Reshape copy contiguous
    blocks, where Gather copied 16 bytes per index: 0.68 → 0.17 ms at 284 tokens, 10.0 → 6.0 ms at
    1,024 (one thread, the bias alone). The same floats: the rewritten encoder is checked equal to
    the bit (`_check_same_encoder`), and the table gets one more column at its end so that every
    length up to L reads inside it.

    Session 22 tried a Toeplitz layout (Slice, Concat, Expand, Reshape) and found about 1% at 1,024
    tokens and nothing at 283; that layout wrote the (H, S, S) tensor more than once."""
    from onnx import helper, numpy_helper

    original = type(model)()
    original.CopyFrom(model)
    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    gather = _only(n for n in graph.node if n.op_type == "Gather" and n.input[0] == "rlm_pos/table")
    transpose = _only(n for n in graph.node if n.op_type == "Transpose" and gather.output[0] in n.input)
    if [a.ints for a in transpose.attribute if a.name == "perm"] != [[2, 0, 1]]:
        raise ValueError("the encoder's position bias is not transposed to (H, S, S)")
    table = numpy_helper.to_array(inits["rlm_pos/table"])  # (2L - 1, H), distance -(L - 1) first
    positions = (table.shape[0] + 1) // 2
    by_head = np.concatenate([table.T, table.T[:, -1:]], axis=1)  # (H, 2L): distances -(L-1) .. L
    graph.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(by_head), "rlm_pos/by_head"),
        numpy_helper.from_array(np.array([positions], dtype=np.int64), "rlm_pos/L"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "rlm_pos/one_1d"),
        numpy_helper.from_array(np.array([0], dtype=np.int64), "rlm_pos/zero_1d"),
        numpy_helper.from_array(np.array([2], dtype=np.int64), "rlm_pos/two_1d"),
        numpy_helper.from_array(np.array([table.shape[1]], dtype=np.int64), "rlm_pos/heads"),
    ])
    p = "rlm_pos/toeplitz/"
    nodes = [
        helper.make_node("Shape", ["input_ids"], [p + "S"], start=1, end=2),  # [S]
        helper.make_node("Sub", ["rlm_pos/L", p + "S"], [p + "lo"]),  # distance -(S - 1) sits at L - S
        helper.make_node("Add", ["rlm_pos/L", p + "S"], [p + "hi"]),
        helper.make_node("Slice", ["rlm_pos/by_head", p + "lo", p + "hi", "rlm_pos/one_1d"], [p + "u"]),  # (H, 2S)
        helper.make_node("Concat", ["rlm_pos/one_1d", p + "S"], [p + "repeats"], axis=0),
        helper.make_node("Tile", [p + "u", p + "repeats"], [p + "tiled"]),  # (H, 2S * S)
        helper.make_node("Sub", [p + "S", "rlm_pos/one_1d"], [p + "first"]),  # S - 1
        helper.make_node("Add", [p + "first", p + "S"], [p + "width"]),  # 2S - 1
        helper.make_node("Mul", [p + "S", p + "width"], [p + "cells"]),
        helper.make_node("Slice", [p + "tiled", "rlm_pos/zero_1d", p + "cells", "rlm_pos/one_1d"], [p + "flat"]),
        helper.make_node("Concat", ["rlm_pos/heads", p + "S", p + "width"], [p + "shape"], axis=0),
        helper.make_node("Reshape", [p + "flat", p + "shape"], [p + "shifted"]),  # row q, column c: u[c - q]
        helper.make_node("Slice", [p + "shifted", p + "first", p + "width", "rlm_pos/two_1d"], [transpose.output[0]]),
    ]
    _insert_before(graph, gather, nodes)
    graph.node.remove(gather)
    graph.node.remove(transpose)
    return _exact_encoder_rewrite(original, model, ENCODER_TOEPLITZ_KEY)


def _exact_encoder_rewrite(original, model, key: str):
    """Tidy a rewritten encoder, check it against the original to the bit, and mark it done."""
    _drop_dead_nodes(model.graph)
    _drop_unused_initializers(model.graph)
    _check_same_encoder(original, model)
    _set_meta(model, key, "1")
    return model


def _check_same_encoder(original, rewritten) -> None:
    """The two encoders give the same hidden states to the bit, padded or not, short and long."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    sessions = [ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
                for m in (original, rewritten)]
    rng = np.random.default_rng(0)
    for batch, length in ((1, 1), (1, 2), (2, 9), (1, 300)):
        feeds = {"input_ids": rng.integers(5, 60, (batch, length)).astype(np.int64),
                 "attention_mask": np.ones((batch, length), dtype=np.int64)}
        feeds["attention_mask"][-1, length // 2 + 1:] = 0
        want, got = (s.run(["last_hidden_state"], feeds)[0] for s in sessions)
        if not np.array_equal(want, got):
            raise ValueError(f"the rewritten encoder differs at batch {batch}, length {length}")


FOLDED_PREFIX = "rlm_folded:"  # metadata: a weight a rewrite folded into a table, for training.learning.recover


def _keep_folded_weights(model, initializers) -> None:
    """A weight that a rewrite replaces by a table it was computed from stays readable: its values
    go to the graph's metadata (`FOLDED_PREFIX` + name: shape and values, exact as JSON floats), so
    `training.learning.recover` gives the checkpoint back whole. T5's position-bias tables are 32 x H."""
    import json

    from onnx import numpy_helper

    for init in initializers:
        value = numpy_helper.to_array(init).astype(np.float32)
        _set_meta(model, FOLDED_PREFIX + init.name,
                  json.dumps({"shape": list(value.shape), "values": [float(v) for v in value.ravel()]}))


def _graph_inputs_above(graph, name: str) -> set[str]:
    """The graph inputs `name` is computed from."""
    producers = {out: node for node in graph.node for out in node.output}
    graph_inputs = {i.name for i in graph.input}
    seen, todo, found = set(), [name], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in graph_inputs:
            found.add(current)
        elif current in producers:
            todo.extend(i for i in producers[current].input if i)
    return found


def _probe(model, names: Sequence[str], elem_type: int):
    """One session of `model` that also outputs its tensors `names` (of ONNX type `elem_type`);
    returns run(feeds) -> their values, in order."""
    import onnxruntime as ort
    from onnx import helper

    probe = type(model)()
    probe.CopyFrom(model)
    probe.graph.output.extend(helper.make_tensor_value_info(name, elem_type, None) for name in names)
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(probe.SerializeToString(), options, providers=["CPUExecutionProvider"])
    wanted = [i.name for i in session.get_inputs()]
    return lambda feeds: session.run(list(names), {k: feeds[k] for k in wanted})


def _decoder_feeds(model, past_length: int, new_tokens: int) -> dict:
    """Feeds of a decoder graph for one row, `past_length` cached positions and `new_tokens` new
    ones (one encoder position; the values do not matter to a bias)."""
    from onnx import helper

    feeds = {}
    for inp in model.graph.input:
        dims = [d.dim_value for d in inp.type.tensor_type.shape.dim]
        if inp.name == "input_ids":
            shape = [1, new_tokens]
        elif ".decoder." in inp.name:
            shape = [1, dims[1], past_length, dims[3]]
        elif ".encoder." in inp.name:
            shape = [1, dims[1], 1, dims[3]]
        else:  # encoder_attention_mask (1, S), encoder_hidden_states (1, S, D)
            shape = [1, 1] + dims[2:]
        dtype = helper.tensor_dtype_to_np_dtype(inp.type.tensor_type.elem_type)
        feeds[inp.name] = np.ones(shape, dtype=dtype) if inp.name == "encoder_attention_mask" else np.zeros(shape, dtype=dtype)
    return feeds


def _drop_dead_nodes(graph) -> None:
    """Remove the nodes no graph output depends on."""
    needed = {o.name for o in graph.output}
    keep = []
    for node in reversed(graph.node):
        if any(out in needed for out in node.output):
            keep.append(node)
            needed.update(i for i in node.input if i)
    del graph.node[:]
    graph.node.extend(reversed(keep))


def trim_embeddings(model, keep_ids: Sequence[int]):
    """A decoder's token embedding keeps only the rows of `keep_ids`; ids are remapped in-graph.

    An id outside `keep_ids` maps to row 0 (never fed: constrained decoding only feeds allowed ids
    and the start token)."""
    from onnx import helper, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    gather = _token_embedding(graph, inits)
    table = numpy_helper.to_array(inits[gather.input[0]])  # (V, D)
    keep = np.asarray(sorted(set(int(i) for i in keep_ids)), dtype=np.int64)
    lookup = np.zeros(table.shape[0], dtype=np.int64)
    lookup[keep] = np.arange(len(keep))
    inits[gather.input[0]].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(table[keep]), gather.input[0]))
    graph.initializer.append(numpy_helper.from_array(lookup, "rlm_trim/lookup"))
    remap = helper.make_node("Gather", ["rlm_trim/lookup", gather.input[1]], ["rlm_trim/rows"], axis=0)
    gather.input[1] = "rlm_trim/rows"
    _insert_before(graph, gather, [remap])
    return model


def quantize_embedding(model):
    """The (V, D) token-embedding Gather of an encoder as int8 rows times a per-row scale."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    inits = {i.name: i for i in graph.initializer}
    gather = _token_embedding(graph, inits)
    table = numpy_helper.to_array(inits[gather.input[0]]).astype(np.float32)
    scale = np.maximum(np.abs(table).max(axis=1, keepdims=True), 1e-30) / 127.0  # (V, 1)
    q = np.clip(np.round(table / scale), -127, 127).astype(np.int8)
    out = gather.output[0]
    graph.initializer.extend([numpy_helper.from_array(q, "rlm_emb/q"), numpy_helper.from_array(scale, "rlm_emb/scale")])
    nodes = [
        helper.make_node("Gather", ["rlm_emb/q", gather.input[1]], ["rlm_emb/rows_q"], axis=0),
        helper.make_node("Gather", ["rlm_emb/scale", gather.input[1]], ["rlm_emb/rows_scale"], axis=0),
        helper.make_node("Cast", ["rlm_emb/rows_q"], ["rlm_emb/rows_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["rlm_emb/rows_f", "rlm_emb/rows_scale"], [out]),
    ]
    _insert_before(graph, gather, nodes)
    graph.node.remove(gather)
    _drop_unused_initializers(graph)
    return model


def set_layout(model, layout: str) -> None:
    _set_meta(model, LAYOUT_KEY, layout)


def _set_meta(model, key: str, value: str) -> None:
    for prop in model.metadata_props:
        if prop.key == key:
            prop.value = value
            return
    entry = model.metadata_props.add()
    entry.key, entry.value = key, value


def _token_embedding(graph, inits):
    """The Gather from the largest 2-D table: the token embedding (the others are T5's small
    relative-position bias tables, and `encoder_bias_gather`'s, long but 4 wide: compared by size)."""
    gathers = [n for n in graph.node if n.op_type == "Gather" and n.input[0] in inits and len(inits[n.input[0]].dims) == 2]
    if not gathers:
        raise ValueError("no Gather from a 2-D weight: cannot find the token embedding")
    return max(gathers, key=lambda n: inits[n.input[0]].dims[0] * inits[n.input[0]].dims[1])


def _input_dim(graph, name: str, axis: int) -> int:
    dim = next(i for i in graph.input if i.name == name).type.tensor_type.shape.dim[axis]
    if not dim.dim_value:
        raise ValueError(f"{name} axis {axis} has no fixed size")
    return int(dim.dim_value)


def _only(items):
    items = list(items)
    if len(items) != 1:
        raise ValueError(f"expected one node, found {len(items)}")
    return items[0]


def _insert_before(graph, anchor, new_nodes) -> None:
    index = list(graph.node).index(anchor)
    for offset, node in enumerate(new_nodes):
        graph.node.insert(index + offset, node)


def _insert_after(graph, anchor, new_nodes) -> None:
    index = list(graph.node).index(anchor) + 1
    for offset, node in enumerate(new_nodes):
        graph.node.insert(index + offset, node)


def _drop_unused_initializers(graph) -> None:
    used = {name for node in graph.node for name in node.input} | {o.name for o in graph.output}
    keep = [i for i in graph.initializer if i.name in used]
    del graph.initializer[:]
    graph.initializer.extend(keep)


def pre_optimize(model):
    """The graph after onnxruntime's basic optimisations (constant folding, redundant-node
    elimination, common subexpressions), saved once at export so a session does not redo them at
    every start: about a third fewer nodes, and each node costs load time.

    Basic optimisations are semantics-preserving rewrites in standard ONNX ops, applied before
    onnxruntime assigns nodes to execution providers, so the graph stays valid for any provider
    and machine; the runtime still applies its extended and layout optimisations when it loads
    it. Returns a new ModelProto with the metadata of `model` (its layout) and only the opset
    imports its nodes use.
    """
    import tempfile
    from pathlib import Path

    import onnx
    import onnxruntime as ort

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "optimized.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(path)
        options.log_severity_level = 3
        ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        optimized = onnx.load(str(path))
    used = {node.domain or "" for node in optimized.graph.node} | {""}
    imports = [o for o in optimized.opset_import if (o.domain or "") in used]
    del optimized.opset_import[:]
    optimized.opset_import.extend(imports)
    del optimized.metadata_props[:]
    optimized.metadata_props.extend(model.metadata_props)
    optimized.producer_name, optimized.producer_version = model.producer_name, model.producer_version
    return optimized
