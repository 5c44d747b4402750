"""NAS-Bench-201 network in PyTorch (the TinyNetwork skeleton), and its ONNX export.

Cell: 4 nodes; node j = sum over i < j of op_ij(node i), op in
none / skip_connect / nor_conv_1x1 / nor_conv_3x3 / avg_pool_3x3.
Skeleton: stem conv3x3+BN, N cells at C, ResNet reduction block, N cells at 2C, reduction, N cells at 4C,
BN+ReLU, global average pool, linear. The standard skeleton is C=16, N=5, 32x32 inputs.

The forward order here is the order `training.nas.nb201_graph.nb201_graph` emits nodes in, so the ONNX export and
the arch string render to the same text. As in NAS-Bench-201's own `InferCell` (the network HELP timed),
every edge runs and `none` is `x * 0`: nothing is pruned, even an op whose result only reaches zeros.
"""

from __future__ import annotations

from pathlib import Path

import torch
from torch import nn

from training.nas.nb201_graph import parse_nb201_arch


class ReLUConvBN(nn.Module):
    def __init__(self, c_in, c_out, k, stride, pad):
        super().__init__()
        self.op = nn.Sequential(nn.ReLU(inplace=False), nn.Conv2d(c_in, c_out, k, stride, pad, bias=False),
                                nn.BatchNorm2d(c_out))

    def forward(self, x):
        return self.op(x)


def make_op(name: str, c: int) -> nn.Module | None:
    if name == "nor_conv_3x3":
        return ReLUConvBN(c, c, 3, 1, 1)
    if name == "nor_conv_1x1":
        return ReLUConvBN(c, c, 1, 1, 0)
    if name == "avg_pool_3x3":
        return nn.AvgPool2d(3, stride=1, padding=1, count_include_pad=False)
    if name == "skip_connect":
        return nn.Identity()
    if name == "none":
        return None
    raise ValueError(f"unknown NAS-Bench-201 op {name!r}")


class Cell(nn.Module):
    def __init__(self, arch: str, c: int):
        super().__init__()
        self.nodes = parse_nb201_arch(arch)  # [[(op, src), ...] for node 1..3]
        self.ops = nn.ModuleDict()
        for j, edges in enumerate(self.nodes, start=1):
            for op, i in edges:
                m = make_op(op, c)
                if m is not None:
                    self.ops[f"{i}_{j}"] = m

    def forward(self, x):
        states = [x]
        for j, edges in enumerate(self.nodes, start=1):
            total = None
            for op, i in edges:
                key = f"{i}_{j}"
                y = self.ops[key](states[i]) if key in self.ops else states[i] * 0.0  # none: zero
                total = y if total is None else total + y
            states.append(total)
        return states[-1]


class ResBlock(nn.Module):
    """NB201's ResNetBasicblock with stride 2."""

    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv_a = ReLUConvBN(c_in, c_out, 3, 2, 1)
        self.conv_b = ReLUConvBN(c_out, c_out, 3, 1, 1)
        self.down = nn.Sequential(nn.AvgPool2d(2, 2, 0), nn.Conv2d(c_in, c_out, 1, 1, 0, bias=False))

    def forward(self, x):
        y = self.conv_b(self.conv_a(x))
        return self.down(x) + y


class NB201Net(nn.Module):
    def __init__(self, arch: str, c: int = 16, n: int = 5, num_classes: int = 10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))
        layers = []
        chans = [c] * n + [2 * c] + [2 * c] * n + [4 * c] + [4 * c] * n
        reds = [False] * n + [True] + [False] * n + [True] + [False] * n
        prev = c
        for ch, red in zip(chans, reds):
            layers.append(ResBlock(prev, ch) if red else Cell(arch, ch))
            prev = ch
        self.cells = nn.ModuleList(layers)
        self.lastact = nn.Sequential(nn.BatchNorm2d(prev), nn.ReLU(inplace=False))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(prev, num_classes)

    def forward(self, x):
        x = self.stem(x)
        for cell in self.cells:
            x = cell(x)
        x = self.pool(self.lastact(x))
        return self.classifier(torch.flatten(x, 1))


def export_onnx(arch: str, path: str | Path, c: int = 16, n: int = 5, resolution: int = 32) -> Path:
    """Eval-mode TorchScript export (opset 17) with a fixed batch of 1."""
    torch.manual_seed(0)
    model = NB201Net(arch, c, n).eval()
    path = Path(path)
    with torch.no_grad():
        torch.onnx.export(model, (torch.randn(1, 3, resolution, resolution),), str(path), dynamo=False,
                          opset_version=17, input_names=["image"], output_names=["logits"],
                          do_constant_folding=True)
    return path
