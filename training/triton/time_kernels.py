"""Time Triton kernels on whatever GPU is at hand, the paper's way, appending labels resumably.

    python -m training.triton.time_kernels --out training/work/kernel_times.jsonl            # real GPU
    python -m training.triton.time_kernels --out /tmp/t.jsonl --dry fake                      # CI: fake clock
    TRITON_INTERPRET=1 python -m training.triton.time_kernels --out /tmp/t.jsonl --dry interpret --sizes 256

Per job (kernel, size) on one GPU:
1. compile: one launch (Triton JIT-compiles on first call), then synchronize;
2. warm-up: `--warmup` launches;
3. adaptive window: time a few launches to estimate t, then n = max(20, ceil(window / t))
   launches per trial, so each trial covers at least `--window-s` (1 s) and 20 iterations;
4. `--trials` (5) trials; the label is the median of the per-launch means, in ms.
Each result is appended to --out as one JSON line and fsynced at once; a rerun skips keys already
there (key = kernel:size:gpu), so an interrupted run resumes where it stopped.

Dry modes (no GPU): `fake` times a synthetic launch on a fake clock (cost grows with size;
exercises compile / warm-up / adaptive window / trials / resume without waiting); `interpret`
runs the real kernels with Triton's CPU interpreter (TRITON_INTERPRET=1, triton installed) and a
short window. Jobs: the built-in kernels of bench_kernels.py, or `--jobs FILE` (JSON lines
{"kernel": name, "size": n}).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

DEFAULT_SIZES = {"vector_add": [1 << 16, 1 << 20, 1 << 24], "softmax": [1 << 16, 1 << 20, 1 << 24],
                 "matmul": [512, 1024, 2048, 4096]}


@dataclass
class Clock:
    """now() in seconds and sync(); the real one wraps perf_counter + cuda.synchronize."""
    now: Callable[[], float]
    sync: Callable[[], None]


def time_launch(launch: Callable[[], None], clock: Clock, window_s: float = 1.0, min_iters: int = 20,
                trials: int = 5, warmup: int = 3) -> dict:
    """Compile, warm up, adaptive window; returns {ms, trials_ms, iters, compile_s}."""
    t0 = clock.now()
    launch()  # JIT compile
    clock.sync()
    compile_s = clock.now() - t0
    for _ in range(warmup):
        launch()
    clock.sync()
    probe, t0 = 3, clock.now()
    for _ in range(probe):
        launch()
    clock.sync()
    per = max((clock.now() - t0) / probe, 1e-9)
    iters = max(min_iters, math.ceil(window_s / per))
    results = []
    for _ in range(trials):
        clock.sync()
        t0 = clock.now()
        for _ in range(iters):
            launch()
        clock.sync()
        results.append((clock.now() - t0) / iters * 1e3)
    return {"ms": statistics.median(results), "trials_ms": results, "iters": iters, "compile_s": compile_s}


class FakeClock:
    """A clock that only moves when a fake launch runs: cost = 5 us + size * 1 ns, +/- 2% jitter."""

    def __init__(self, seed: int = 0):
        import random

        self.t = 0.0
        self.rng = random.Random(seed)
        self.launches = 0

    def launch_for(self, size: int, compile_s: float = 0.5) -> Callable[[], None]:
        state = {"compiled": False}

        def launch():
            if not state["compiled"]:
                self.t += compile_s
                state["compiled"] = True
            self.t += (5e-6 + size * 1e-9) * (1 + self.rng.uniform(-0.02, 0.02))
            self.launches += 1
        return launch

    def clock(self) -> Clock:
        return Clock(now=lambda: self.t, sync=lambda: None)


def done_keys(path: Path) -> set[str]:
    keys = set()
    if path.is_file():
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                try:
                    keys.add(json.loads(line)["key"])
                except (json.JSONDecodeError, KeyError):
                    continue  # a line cut by a crash: that job is simply redone
    return keys


def append(path: Path, row: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(row) + "\n")
        fh.flush()
        os.fsync(fh.fileno())


def jobs_from(args) -> list[tuple[str, int]]:
    if args.jobs:
        out = []
        with open(args.jobs, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    j = json.loads(line)
                    out.append((j["kernel"], int(j["size"])))
        return out
    kernels = args.kernels or list(DEFAULT_SIZES)
    return [(k, s) for k in kernels for s in (args.sizes or DEFAULT_SIZES[k])]


def run(args) -> list[dict]:
    out = Path(args.out)
    done = done_keys(out)
    new = []
    if args.dry == "fake":
        fake = FakeClock(args.seed)
        gpu, device = "fake", "fake"
        clock = fake.clock()
        setup = lambda kernel, size: (fake.launch_for(size), {"n": size})  # noqa: E731
        versions = {}
    else:
        if args.dry == "interpret":
            os.environ.setdefault("TRITON_INTERPRET", "1")
        import torch

        from training.triton import bench_kernels

        if args.dry == "interpret":
            gpu, device = "cpu-interpreter", "cpu"
            clock = Clock(now=time.perf_counter, sync=lambda: None)
        else:
            if not torch.cuda.is_available():
                sys.exit("time_kernels: no CUDA GPU; use --dry fake or --dry interpret")
            gpu, device = torch.cuda.get_device_name(0), "cuda"
            clock = Clock(now=time.perf_counter, sync=torch.cuda.synchronize)
        setup = lambda kernel, size: bench_kernels.SETUPS[kernel](size, device)  # noqa: E731
        import triton

        versions = {"triton": triton.__version__, "torch": torch.__version__}
    for kernel, size in jobs_from(args):
        key = f"{kernel}:{size}:{gpu}"
        if key in done:
            continue
        launch, meta = setup(kernel, size)
        res = time_launch(launch, clock, window_s=args.window_s, min_iters=args.min_iters,
                          trials=args.trials, warmup=args.warmup)
        row = {"key": key, "kernel": kernel, "size": size, "gpu": gpu, "device": device, "mode": args.dry or "gpu",
               **meta, **res, "window_s": args.window_s, "host": platform.node(),
               "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), **versions}
        append(out, row)
        done.add(key)
        new.append(row)
        print(f"{key}: {res['ms']:.4g} ms ({res['iters']} iters x {args.trials})", flush=True)
    return new


def parse_args(argv: Iterable[str] | None = None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True, type=Path, help="JSON lines file, appended to")
    p.add_argument("--dry", choices=["fake", "interpret"], help="no GPU: fake clock or Triton CPU interpreter")
    p.add_argument("--kernels", nargs="*", choices=list(DEFAULT_SIZES))
    p.add_argument("--sizes", nargs="*", type=int)
    p.add_argument("--jobs", type=Path, help='JSON lines {"kernel": ..., "size": ...}')
    p.add_argument("--window-s", type=float, default=1.0)
    p.add_argument("--min-iters", type=int, default=20)
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None) -> int:
    run(parse_args(argv))
    return 0


if __name__ == "__main__":
    sys.exit(main())
