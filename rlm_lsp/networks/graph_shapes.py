"""Shape inference for a RawGraph: the second stage of a network's text (batch included; None = unknown).

A small subset of ONNX ops is inferred here; the file's value_info fills the rest. Errors in an
odd node leave its output unknown, never fail the graph.
"""

from __future__ import annotations

import math

from rlm_lsp.networks.onnx_reader import Node, RawGraph


def _conv_out(size, k, s, d, pb, pe, ceil=False):
    if size is None:
        return None
    num = size + pb + pe - d * (k - 1) - 1
    return (math.ceil(num / s) if ceil else num // s) + 1


def _spatial(x, attrs, kernel, ceil=False):
    rank = len(kernel)
    strides = attrs.get("strides") or [1] * rank
    dil = attrs.get("dilations") or [1] * rank
    pads = attrs.get("pads") or [0] * (2 * rank)
    auto = attrs.get("auto_pad", "NOTSET")
    out = []
    for a in range(rank):
        size = x[2 + a]
        if auto in ("SAME_UPPER", "SAME_LOWER"):
            out.append(None if size is None else math.ceil(size / strides[a]))
        elif auto == "VALID":
            out.append(_conv_out(size, kernel[a], strides[a], dil[a], 0, 0, ceil))
        else:
            out.append(_conv_out(size, kernel[a], strides[a], dil[a], pads[a], pads[a + rank], ceil))
    return out


def _broadcast(shapes):
    if not shapes or any(s is None for s in shapes):
        return None
    rank = max(len(s) for s in shapes)
    out = []
    for a in range(rank):
        dims = [s[len(s) - rank + a] for s in shapes if len(s) - rank + a >= 0]
        known = [d for d in dims if d is not None and d != 1]
        out.append(known[0] if known else (1 if all(d == 1 for d in dims) else None))
    return tuple(out)


UNARY = {"Relu", "Sigmoid", "Tanh", "Clip", "BatchNormalization", "LeakyRelu", "HardSigmoid", "HardSwish",
         "Softmax", "LogSoftmax", "Dropout", "Identity", "Erf", "Sqrt", "Cast", "Neg", "Exp", "Log", "Abs",
         "LayerNormalization", "InstanceNormalization", "Gelu", "Elu", "Selu", "PRelu", "Mish", "Softplus",
         "QuantizeLinear", "DequantizeLinear", "Reciprocal", "Not", "Sin", "Cos", "Round", "Floor", "Ceil"}
BINARY = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where", "Equal", "Less", "Greater",
          "And", "Or"}


def infer_shapes(g: RawGraph) -> dict[str, tuple | None]:
    shapes: dict[str, tuple | None] = dict(g.initializers)
    shapes.update(g.inputs)
    for node in g.nodes:
        value = node.attrs.get("value")
        if node.op == "Constant" and isinstance(value, tuple) and len(value) == 3 and node.outputs:
            if value[2] is not None:  # small int64 constant: a Reshape target or ReduceMean axes
                g.int_values[node.outputs[0]] = value[2]
            shapes[node.outputs[0]] = value[1]
            continue
        try:
            out = _infer(node, [shapes.get(i) if i else None for i in node.inputs], g)
        except (IndexError, TypeError, ValueError, ZeroDivisionError, KeyError):
            out = None
        for k, name in enumerate(node.outputs):
            shape = out if k == 0 else None
            if shape is None:
                shape = g.value_info.get(name)
            shapes[name] = shape
    return shapes


def _infer(node: Node, ins: list, g: RawGraph):
    op, a = node.op, node.attrs
    x = ins[0] if ins else None
    if op in UNARY:
        return x
    if op in BINARY:
        return _broadcast(ins)
    if x is None:
        return None
    if op in ("Conv", "ConvInteger"):
        w = ins[1]
        kernel = a.get("kernel_shape") or list(w[2:])
        return (x[0], w[0], *_spatial(x, a, kernel))
    if op == "ConvTranspose":
        w = ins[1]
        kernel = a.get("kernel_shape") or list(w[2:])
        rank = len(kernel)
        s = a.get("strides") or [1] * rank
        d = a.get("dilations") or [1] * rank
        p = a.get("pads") or [0] * (2 * rank)
        op_ = a.get("output_padding") or [0] * rank
        sp = [None if x[2 + i] is None else (x[2 + i] - 1) * s[i] - p[i] - p[i + rank] + d[i] * (kernel[i] - 1)
              + 1 + op_[i] for i in range(rank)]
        return (x[0], w[1] * a.get("group", 1), *sp)
    if op in ("AveragePool", "MaxPool", "LpPool"):
        return (x[0], x[1], *_spatial(x, a, a["kernel_shape"], bool(a.get("ceil_mode", 0))))
    if op in ("GlobalAveragePool", "GlobalMaxPool"):
        return (x[0], x[1], *([1] * (len(x) - 2)))
    if op == "Flatten":
        axis = a.get("axis", 1) % len(x) if len(x) else 0
        head, tail = x[:axis], x[axis:]
        prod = lambda s: None if any(v is None for v in s) else math.prod(s)  # noqa: E731
        return (prod(head), prod(tail))
    if op == "Gemm":
        w = ins[1]
        m = x[1] if a.get("transA", 0) else x[0]
        n = w[0] if a.get("transB", 0) else w[1]
        return (m, n)
    if op == "MatMul":
        w = ins[1]
        if w is None:
            return None
        if len(w) == 1:
            return x[:-1]
        batch = _broadcast([x[:-2], w[:-2]]) or ()
        return (*batch, x[-2] if len(x) >= 2 else None, w[-1])
    if op == "Reshape":
        target = g.int_values.get(node.inputs[1]) if len(node.inputs) > 1 else None
        if target is None:
            return None
        out = [x[i] if v == 0 else v for i, v in enumerate(target)]
        if -1 in out:
            known = [v for v in out if v != -1]
            if None in known or None in x:
                out = [None if v == -1 else v for v in out]
            else:
                out[out.index(-1)] = math.prod(x) // max(1, math.prod(known))
        return tuple(out)
    if op == "Transpose":
        perm = a.get("perm") or list(reversed(range(len(x))))
        return tuple(x[p] for p in perm)
    if op == "Concat":
        axis = a["axis"] % len(x)
        if any(s is None for s in ins):
            return None
        total = [s[axis] for s in ins]
        return (*x[:axis], None if None in total else sum(total), *x[axis + 1 :])
    if op in ("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin"):
        axes = a.get("axes")
        if axes is None and len(node.inputs) > 1:
            axes = g.int_values.get(node.inputs[1])
        if axes is None:
            return None
        axes = {v % len(x) for v in axes}
        keep = a.get("keepdims", 1)
        return tuple(1 if i in axes else d for i, d in enumerate(x) if keep or i not in axes)
    return None
