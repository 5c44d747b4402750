"""onnxruntime sessions: which device really works, how many threads, and no log noise.

onnxruntime-gpu lists CUDAExecutionProvider even where CUDA cannot load, so
`cuda_works()` builds a session and checks what it actually got.
"""

from __future__ import annotations

import ctypes
import functools
from pathlib import Path

import onnxruntime as ort

ort.set_default_logger_severity(3)  # errors only; warnings about providers are noise here


@functools.cache
def cuda_works(probe_model: str) -> bool:
    """True only if a CUDA session really loads on this machine."""
    if "CUDAExecutionProvider" not in ort.get_available_providers():
        return False
    try:
        ctypes.CDLL("libcuda.so.1")  # no driver, no CUDA: skip the noisy provider load
    except OSError:
        return False
    options = ort.SessionOptions()
    options.log_severity_level = 4
    try:
        session = ort.InferenceSession(probe_model, options, providers=["CUDAExecutionProvider"])
    except Exception:  # noqa: BLE001 - any failure means "no CUDA here"
        return False
    return "CUDAExecutionProvider" in session.get_providers()


def providers_for(device: str, probe_model: str | Path) -> list[str]:
    """`device` is "cpu", "cuda" or "auto". "cuda" without a working CUDA falls back to CPU."""
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"device must be cpu, cuda or auto, not {device!r}")
    if device != "cpu" and cuda_works(str(probe_model)):
        return ["CUDAExecutionProvider", "CPUExecutionProvider"]
    return ["CPUExecutionProvider"]


def open_session(path: str | Path, providers: list[str], threads: int = 1) -> ort.InferenceSession:
    """One session: `threads` intra-op threads, all graph optimisations.

    Static memory reuse is off: onnxruntime's planner for it is most of the session start of the
    fast layout's graphs (three sessions, thread CPU time, medians of 9 on a loaded machine: 304 ms
    with it, 122 without; the shipped v3 227 and 197, issue 28), and the arena still recycles
    freed buffers at run time. Prediction time is unchanged within noise and the outputs are the
    same bit for bit (tests/test_golden.py)."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, int(threads))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.enable_mem_reuse = False
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=providers)


def open_sessions(paths: list[Path], providers: list[str], threads: int = 1) -> list[ort.InferenceSession]:
    """`open_session` for each path, in order. On CPU they are built in parallel threads
    (onnxruntime releases the GIL while it builds a session), which cuts the wall time of a cold
    start where there is more than one core; with CUDA one after the other."""
    if providers != ["CPUExecutionProvider"] or len(paths) < 2:
        return [open_session(path, providers, threads) for path in paths]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=len(paths)) as pool:
        futures = [pool.submit(open_session, path, providers, threads) for path in paths]
        return [future.result() for future in futures]
