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


@functools.lru_cache(maxsize=None)
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
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, int(threads))
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return ort.InferenceSession(str(path), options, providers=providers)
