"""Check that graph text from a real ONNX export equals graph text from the arch string, on many archs.

    python -m training.nas.check_text --n 100 [--cells 5] [--channels 16]

Exports NB201 networks (TorchScript exporter) for random archs of the HELP table, plus archs biased towards
skip/pool/none edges (where aliasing, dead code and common subexpressions matter), and compares.
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from rlm_lsp.networks.graph_text import onnx_text
from training.nas.nb201_graph import NB201_OPS, nb201_text


def random_arch(rng: random.Random, biased: bool) -> str:
    pick = (lambda: rng.choice(["skip_connect", "avg_pool_3x3", "none"]) if rng.random() < 0.6
            else rng.choice(NB201_OPS)) if biased else (lambda: rng.choice(NB201_OPS))
    o = [pick() for _ in range(6)]
    return f"|{o[0]}~0|+|{o[1]}~0|{o[2]}~1|+|{o[3]}~0|{o[4]}~1|{o[5]}~2|"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.nas.check_text")
    p.add_argument("--n", type=int, default=100)
    p.add_argument("--cells", type=int, default=5)
    p.add_argument("--channels", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    import torch

    from training.nas.nb201_torch import export_onnx

    torch.set_num_threads(1)
    rng = random.Random(args.seed)
    archs = [random_arch(rng, biased=k % 2 == 1) for k in range(args.n)]
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, arch in enumerate(archs):
            path = export_onnx(arch, Path(tmp) / "net.onnx", c=args.channels, n=args.cells)
            if onnx_text(path) != nb201_text(arch, c=args.channels, n=args.cells):
                bad.append(arch)
                print(f"MISMATCH {arch}", flush=True)
    print(f"{len(archs) - len(bad)}/{len(archs)} archs: ONNX text == arch text "
          f"(C={args.channels}, N={args.cells})")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
