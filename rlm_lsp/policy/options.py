"""Bounds of the run options that cost memory or threads: one place for the CLI, the gate and the server.

Unbounded, `--samples 100000` grew to 8.7 GB and `--threads 10000` started 1,700 threads
before anything was predicted. Above the caps there is nothing to gain: 256 samples already
pin a p10-p90 band far below the model's own error, and onnxruntime gains nothing from more
threads than a large machine has cores.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

MAX_SAMPLES = 256
MAX_THREADS = 64
MAX_SEED = 2**63 - 1  # numpy's SeedSequence takes any non-negative int; this keeps it one machine word


def whole_number(low: int, high: int, cap: str = "") -> Callable[[str], int]:
    """An argparse `type`: a whole number from `low` to `high`, else a one-line error that says the range."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            upper = f" and at most {high}{cap}" if high < MAX_SEED else ""
            raise argparse.ArgumentTypeError(f"expected a whole number of at least {low}{upper}, got {text!r}")
        return value

    return parse


samples = whole_number(1, MAX_SAMPLES, " (the cap: more samples cost memory and time for no gain)")
threads = whole_number(1, MAX_THREADS, " (the cap)")
seed = whole_number(0, MAX_SEED)
