"""NAS-Bench-201 networks as raw graphs, for training the network model without exporting each one.

`nb201_graph(arch)` builds the same RawGraph that `training/nas/nb201_torch.py` exports to ONNX (same
node order), so `nb201_text(arch) == rlm_lsp.networks.graph_text.onnx_text(exported file)` (tests/test_nas.py).
Used only by training; the runtime reads `.onnx` files.
"""

from __future__ import annotations

from rlm_lsp.networks.graph_text import graph_text
from rlm_lsp.networks.onnx_reader import Node, RawGraph

NB201_OPS = ("none", "skip_connect", "nor_conv_1x1", "nor_conv_3x3", "avg_pool_3x3")


def parse_nb201_arch(arch: str) -> list[list[tuple[str, int]]]:
    """'|op~0|+|op~0|op~1|+|op~0|op~1|op~2|' -> [[(op, 0)], [(op, 0), (op, 1)], [(op, 0), (op, 1), (op, 2)]]"""
    nodes = []
    for j, part in enumerate(arch.strip().split("+"), start=1):
        edges = []
        for item in part.strip("|").split("|"):
            op, _, src = item.partition("~")
            if op not in NB201_OPS or not src.isdigit() or int(src) >= j:
                raise ValueError(f"bad NAS-Bench-201 arch {arch!r}")
            edges.append((op, int(src)))
        nodes.append(edges)
    if len(nodes) != 3:
        raise ValueError(f"bad NAS-Bench-201 arch {arch!r}: expected 3 nodes")
    return nodes


class _Builder:
    def __init__(self):
        self.nodes: list[Node] = []
        self.inits: dict[str, tuple] = {}
        self.n = 0

    def add(self, op, inputs, attrs=None, weights=()):
        names = []
        for dims in weights:
            self.n += 1
            name = f"w{self.n}"
            self.inits[name] = tuple(dims)
            names.append(name)
        self.n += 1
        out = f"t{self.n}"
        self.nodes.append(Node(op, list(inputs) + names, [out], dict(attrs or {})))
        return out

    def conv(self, x, c_in, c_out, k, s, p, relu=False):
        if relu:
            x = self.add("Relu", [x])
        return self.add("Conv", [x], {"kernel_shape": [k, k], "strides": [s, s], "pads": [p] * 4,
                                      "dilations": [1, 1], "group": 1}, [(c_out, c_in, k, k), (c_out,)])


def nb201_graph(arch: str, c: int = 16, n: int = 5, resolution: int = 32, num_classes: int = 10) -> RawGraph:
    """The raw graph `training/nas/nb201_torch.py` exports for this arch (same node order).

    As in NAS-Bench-201's own network, the one HELP timed: every edge runs, even one whose result only
    reaches `none` edges, and `none` is `x * 0`. Pruning those away (as this function did up to
    graph-text v1) hides the ops that decide the measured latency: on Intel CPU and NVIDIA GPU, op counts
    of the pruned text explain latency with Spearman 0.88, of the full cell 0.99."""
    cell = parse_nb201_arch(arch)
    b = _Builder()
    x = b.conv("image", 3, c, 3, 1, 1)
    chans = [c] * n + [2 * c] + [2 * c] * n + [4 * c] + [4 * c] * n
    reds = [False] * n + [True] + [False] * n + [True] + [False] * n
    prev = c
    for ch, red in zip(chans, reds):
        if red:
            y = b.conv(b.conv(x, prev, ch, 3, 2, 1, relu=True), ch, ch, 3, 1, 1, relu=True)
            down = b.add("AveragePool", [x], {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0] * 4})
            down = b.add("Conv", [down], {"kernel_shape": [1, 1], "strides": [1, 1], "pads": [0] * 4},
                         [(ch, prev, 1, 1)])
            x = b.add("Add", [down, y])
        else:
            states = [x]
            for edges in cell:
                total = None
                for op, i in edges:
                    if op == "none":
                        y = b.add("Mul", [states[i], "zero"])
                    elif op == "skip_connect":
                        y = states[i]
                    elif op == "avg_pool_3x3":
                        y = b.add("AveragePool", [states[i]], {"kernel_shape": [3, 3], "strides": [1, 1],
                                                               "pads": [1] * 4, "count_include_pad": 0})
                    else:
                        k = 3 if op == "nor_conv_3x3" else 1
                        y = b.conv(states[i], ch, ch, k, 1, k // 2, relu=True)
                    total = y if total is None else b.add("Add", [total, y])
                states.append(total)
            x = states[-1]
        prev = ch
    x = b.add("BatchNormalization", [x], {}, [(prev,)] * 4)
    x = b.add("Relu", [x])
    x = b.add("GlobalAveragePool", [x])
    x = b.add("Flatten", [x], {"axis": 1})
    x = b.add("Gemm", [x], {"transB": 1}, [(num_classes, prev), (num_classes,)])
    b.inits["zero"] = ()
    return RawGraph(b.nodes, {"image": (1, 3, resolution, resolution)}, [x], b.inits)


def nb201_text(arch: str, **kw) -> str:
    return graph_text(nb201_graph(arch, **kw))
