"""`Prediction`: what every model family returns, one per metric of one input.

A Python function, a Triton kernel and an `.onnx` network all come back as this one frozen type
(`rlm_lsp.model.Model.predict`), so the CLI, the gate and the server read the same fields. The
fields after `samples` say what the number is for and how much of the input the model read; they
keep their defaults where they do not apply (a Python function has no GPU).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Prediction:
    metric: str
    value: float  # the model's point estimate (`point_estimate`: median or geometric mean of the samples)
    low: float  # p10
    high: float  # p90
    unit: str
    # The sampled values behind it, in draw order: with shared draws, sample i of two codes used the
    # same random numbers, so their ratios pair up (`rlm_lsp.rules.judge`).
    samples: tuple[float, ...] = field(default=(), repr=False, compare=False)
    # The input was longer than the model reads: it read the head and the tail of it
    # (`rlm_lsp.predictor.head_and_tail`), so what lies between is not in the number.
    truncated: bool = False
    tokens: int = 0  # length of the whole rendered input in tokens (0: not counted)
    # Kernels: the GPU and the work-size line the number is for, and whether the size was assumed.
    gpu: str = ""
    shape: str = ""
    shape_assumed: bool = False
    # Networks: the target device the latency is for.
    device: str = ""
    # False when the GPU or the target device is not one the model was trained on.
    known_target: bool = True
