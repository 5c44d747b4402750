"""A compact, deterministic text form of a neural-network graph: what the network model reads.

An `.onnx` file (or, in training, a NAS-Bench-201 arch built as the same raw graph by
`training/nas/nb201_graph.py`) goes through one pipeline, one stage a module:

    rlm_lsp.networks.onnx_reader.read_onnx      .onnx protobuf -> RawGraph (no `onnx` package needed)
    here: drop dead nodes, then merge common subexpressions (what the TorchScript exporter does)
    rlm_lsp.networks.graph_shapes.infer_shapes  shape inference (a small subset of ONNX ops; value_info fills the rest)
    here: normalise: drop shape/constant computation, Identity/Dropout; fold a BatchNormalization that
          follows a Conv/Gemm/MatMul; fuse a Relu whose only consumers are Convs into them (`rconv`)
    here: render: one line per node, in file order (ONNX requires topological order), inputs as
          relative offsets; runs of identical consecutive line blocks are written once: `x5{` ... `}`

The first line counts each op word (`count add*63 conv1*2 ...`, see `census`). Then one line per node,
no spaces in a line, fields joined by `:` -- op word (with attributes), the output
shape without the batch dimension only where it differs from the first input's, then the inputs as
offsets back (-1 = the line before; `.k` = output k):

    input:3x32x32
    conv3:16x32x32:-1       3x3 conv, 16 output channels
    rconv3/s2:32x16x16:-1   relu then 3x3 conv with stride 2
    avgpool3:-2             same shape as its input, so no shape
    add:-1:-3
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from rlm_lsp.networks.graph_shapes import infer_shapes
from rlm_lsp.networks.onnx_reader import MAX_NODES, MAX_ONNX_BYTES, Node, RawGraph, read_onnx
from rlm_lsp.runtime.errors import GraphError

__all__ = ["GRAPH_TEXT_VERSION", "MAX_NODES", "MAX_ONNX_BYTES", "GNode", "GraphError", "Node", "RawGraph", "census",
           "compress", "graph_text", "infer_shapes", "normalise", "onnx_text", "read_onnx", "render"]

MAX_REPEAT_PERIOD = 64
# What a model was trained to read; a NAS model records it (devices.json) and the runtime refuses a
# mismatch. v2: NAS-Bench-201 cells keep every edge (v1 pruned ops whose result only reached zeros).
# v3: a first line with the count of each op word.
GRAPH_TEXT_VERSION = 3


@dataclass
class GNode:
    op: str  # rendered op word, e.g. "rconv3/s2"
    refs: list[tuple[int, int]]  # (index of producing GNode, output number)
    shape: tuple | None


META_OPS = {"Constant", "Shape", "Size", "ConstantOfShape"}
ALIAS_OPS = {"Identity", "Dropout"}
FOLD_INTO = {"Conv", "ConvTranspose", "Gemm", "MatMul"}
OP_WORDS = {"Conv": "conv", "ConvTranspose": "convt", "AveragePool": "avgpool", "MaxPool": "maxpool",
            "GlobalAveragePool": "gap", "GlobalMaxPool": "gmp", "BatchNormalization": "bn", "Gemm": "fc",
            "MatMul": "matmul", "Relu": "relu", "Add": "add", "Mul": "mul", "Flatten": "flatten",
            "Reshape": "reshape", "Concat": "concat", "Sigmoid": "sigmoid", "HardSwish": "hswish",
            "HardSigmoid": "hsigmoid", "Clip": "clip", "Softmax": "softmax", "Transpose": "transpose"}


def _op_word(node: Node, preact: bool) -> str:
    word = OP_WORDS.get(node.op, node.op.lower())
    a = node.attrs
    if node.op in ("Conv", "ConvTranspose", "AveragePool", "MaxPool"):
        k = a.get("kernel_shape") or []
        if k:
            word += str(k[0]) if len(set(k)) == 1 else "x".join(map(str, k))
        s = a.get("strides") or []
        if s and any(v != 1 for v in s):
            word += "/s" + (str(s[0]) if len(set(s)) == 1 else "x".join(map(str, s)))
        d = a.get("dilations") or []
        if d and any(v != 1 for v in d):
            word += "/d" + str(max(d))
        if a.get("group", 1) != 1:
            word += "/g" + str(a["group"])
    if preact:
        word = "r" + word
    return word


def _shape_word(shape: tuple | None) -> str:
    if shape is None:
        return "?"
    dims = shape[1:] if len(shape) >= 2 else shape
    return "x".join("?" if d is None else str(d) for d in dims) or "scalar"


def _dce(g: RawGraph) -> RawGraph:
    """Drops nodes none of whose outputs is needed for a graph output (before CSE, as the exporter does)."""
    needed = set(g.outputs)
    keep = []
    for node in reversed(g.nodes):
        if any(o in needed for o in node.outputs):
            keep.append(node)
            needed.update(node.inputs)
    return RawGraph(keep[::-1], g.inputs, g.outputs, g.initializers, g.int_values, g.value_info)


def _cse(g: RawGraph) -> RawGraph:
    """Common subexpressions: a node with the same op, attributes and inputs as an earlier one is dropped
    (exporters differ in whether they do this; the TorchScript exporter does)."""
    rename: dict[str, str] = {}
    seen: dict[tuple, list[str]] = {}
    nodes = []
    for node in g.nodes:
        inputs = [rename.get(t, t) for t in node.inputs]
        key = (node.op, repr(sorted(node.attrs.items())), tuple(inputs), len(node.outputs))
        if key in seen and node.op not in ("RandomNormal", "RandomUniform", "RandomNormalLike",
                                           "RandomUniformLike", "Multinomial", "Bernoulli"):
            rename.update(zip(node.outputs, seen[key]))
            continue
        seen[key] = node.outputs
        nodes.append(Node(node.op, inputs, node.outputs, node.attrs))
    outputs = [rename.get(t, t) for t in g.outputs]
    return RawGraph(nodes, g.inputs, outputs, g.initializers, g.int_values, g.value_info)


def normalise(g: RawGraph) -> list[GNode]:
    g = _cse(_dce(g))
    shapes = infer_shapes(g)
    producer = {}  # tensor -> (node index, output number)
    for i, node in enumerate(g.nodes):
        for k, name in enumerate(node.outputs):
            producer[name] = (i, k)
    # 1. data tensors: graph inputs and outputs of nodes with a data input (Shape & co. give metadata)
    data = set(g.inputs)
    for node in g.nodes:
        if node.op not in META_OPS and any(i in data for i in node.inputs):
            data.update(node.outputs)
    # 2. live nodes: reach a graph output through data tensors
    live_tensors = {o for o in g.outputs if o in data}
    live = [False] * len(g.nodes)
    for i in range(len(g.nodes) - 1, -1, -1):
        node = g.nodes[i]
        if any(o in live_tensors for o in node.outputs) and any(t in data for t in node.inputs):
            live[i] = True
            live_tensors.update(t for t in node.inputs if t in data)
    consumers: dict[str, list[int]] = {}
    for i, node in enumerate(g.nodes):
        if live[i]:
            for t in node.inputs:
                if t in data:
                    consumers.setdefault(t, []).append(i)
    alias: dict[str, str | None] = {}  # None: an alias of a node without inputs

    def resolve(t):
        while t in alias:
            t = alias[t]
        return t

    preact: set[int] = set()
    skip: set[int] = set()
    for i, node in enumerate(g.nodes):
        if not live[i]:
            continue
        src = resolve(node.inputs[0]) if node.inputs else None
        if node.op in ALIAS_OPS:
            alias[node.outputs[0]] = src
            skip.add(i)
        elif node.op == "BatchNormalization" and src in producer and g.nodes[producer[src][0]].op in FOLD_INTO \
                and len(consumers.get(node.inputs[0], [])) == 1:
            alias[node.outputs[0]] = src
            skip.add(i)
        elif node.op == "Relu":
            users = consumers.get(node.outputs[0], [])
            if users and node.outputs[0] not in g.outputs and all(
                    g.nodes[u].op == "Conv" and g.nodes[u].inputs[0] == node.outputs[0] for u in users):
                alias[node.outputs[0]] = src
                skip.add(i)
                preact.update(users)
    out: list[GNode] = []
    index: dict[str, tuple[int, int]] = {}
    for name in g.inputs:
        if name in live_tensors:
            index[name] = (len(out), 0)
            out.append(GNode("input", [], shapes.get(name)))
    for i, node in enumerate(g.nodes):
        if not live[i] or i in skip:
            continue
        refs = [index[resolve(t)] for t in node.inputs if t in data and resolve(t) in index]
        for k, name in enumerate(node.outputs):
            index[name] = (len(out), k)
        out.append(GNode(_op_word(node, i in preact), refs, shapes.get(node.outputs[0])))
    return out


def render(nodes: list[GNode]) -> str:
    lines = []
    for pos, node in enumerate(nodes):
        words = [node.op]
        first = nodes[node.refs[0][0]].shape if node.refs and node.refs[0][1] == 0 else "unknown"
        if not node.refs or node.shape != first:
            words.append(_shape_word(node.shape))
        for j, k in node.refs:
            words.append(f"-{pos - j}" + (f".{k}" if k else ""))
        lines.append(":".join(words))
    return "\n".join(compress(lines))


def compress(lines: list[str], max_period: int = MAX_REPEAT_PERIOD) -> list[str]:
    """Greedy left-to-right: at each line, the block repeated back-to-back that saves the most lines."""
    out, i, n = [], 0, len(lines)
    while i < n:
        best_p, best_k, best_saved = 1, 1, 0
        for p in range(1, min(max_period, (n - i) // 2) + 1):
            block = lines[i : i + p]
            k = 1
            while i + (k + 1) * p <= n and lines[i + k * p : i + (k + 1) * p] == block:
                k += 1
            saved = p * (k - 1) - 2
            if k >= 2 and saved > best_saved:
                best_p, best_k, best_saved = p, k, saved
        if best_k >= 2:
            out.append(f"x{best_k}{{")
            out.extend(lines[i : i + best_p])
            out.append("}")
            i += best_p * best_k
        else:
            out.append(lines[i])
            i += 1
    return out


def census(nodes: list[GNode]) -> str:
    """The first line: how many of each op word the graph runs, e.g. `count add*63 mul*15 rconv3*47`.

    The lines below say the same (a `x5{` block runs 5 times), but a small model reads a count far more
    easily than it counts: on NAS-Bench-201, op counts alone explain device latency with Spearman 0.98."""
    counts = Counter(node.op for node in nodes if node.op != "input")
    return " ".join(["count"] + [f"{op}*{n}" for op, n in sorted(counts.items())])


def graph_text(g: RawGraph) -> str:
    nodes = normalise(g)
    return census(nodes) + "\n" + render(nodes)


def onnx_text(path_or_bytes: str | Path | bytes) -> str:
    """The text form of an `.onnx` file. Raises GraphError."""
    return graph_text(read_onnx(path_or_bytes))
