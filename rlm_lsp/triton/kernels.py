"""Triton kernel latency: the kernel family's model (`rlm_lsp/models/triton/`).

    source file -> snippets.extract -> the @triton.jit kernels (Snippet.kind == "triton_kernel")
                -> kernel_input.kernel_text (comments and docstrings dropped) + GPU and work-size line
                -> Predictor(models/triton).predict(language="triton", context={gpu, shape ...})
                -> Prediction(metric "kernel_latency", ms, gpu, shape, shape_assumed)

`KernelModel` is a `rlm_lsp.runtime.model.Model`: it is bound to one target (a GPU and a work size, the
model's defaults unless given), so a hover can say "on A100, assuming n=1048576". In the editor
the size is rarely known: without a shape hint the model's default shape (from its training data,
rlm_config.json `training_data.default_shape`) is used and the Prediction says `shape_assumed`.
`with_kernels` puts it beside the Python model behind one `rlm_lsp.runtime.model.Router`.

The input renderer lives in `rlm_lsp.triton.kernel_input` (shared with training/triton/); its names are
importable from here too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path

from rlm_lsp.runtime.errors import InputError, ModelError
from rlm_lsp.runtime.model import FUNCTION, KERNEL, Router, once_per_context
from rlm_lsp.runtime.prediction import Prediction
from rlm_lsp.triton.kernel_input import (  # noqa: F401 - the renderer's names, importable from here
    FALLBACK_GPU,
    FALLBACK_SHAPE,
    LANGUAGE,
    METRIC,
    MODE_TOKENS,
    PER_WORK,
    ROOFLINE,
    TARGETS,
    TEMPLATE,
    TEMPLATE_V1,
    TEMPLATE_V2,
    TEMPLATE_V4,
    WORK_MAX,
    WORK_MIN,
    WORK_TOKENS,
    _valid_curve,
    gpu_text,
    kernel_text,
    model_context,
    model_fields,
    parse_shape_hint,
    roofline_ms,
    shape_text,
    strip_comments,
    target_scale,
    work_bucket,
    work_scale,
    work_token,
)

MODEL_DIR = Path(__file__).parents[1] / "models" / "triton"


class KernelModel:
    """The kernel latency model on one target. `KernelModel.load()` reads rlm_lsp/models/triton.

    `predict(codes)` takes kernel sources (a kernel, or a file of them) and returns
    `{"kernel_latency": Prediction}` per code, in ms, for `target` (`gpu`, `shape`); a context
    with "gpu" and "shape" keys predicts for that target instead."""

    def __init__(self, predictor, gpu: str | None = None, shape_hint=None):
        self.predictor = predictor
        data = predictor.config.training_data or {}
        self.default_gpu = str(data.get("default_gpu") or FALLBACK_GPU)
        self.default_shape = str(data.get("default_shape") or shape_text(dims={"n": 1 << 20}))
        self.training_data = data
        self.known_gpus = tuple(data.get("gpus") or ())  # most rows first
        where, target = getattr(predictor.config, "path", "kernel model"), data.get("target", "ms")
        if target not in TARGETS:
            raise ModelError(f"{where}: the model's target {target!r} is not one this runtime knows "
                             f"({', '.join(TARGETS)}); update rlm-lsp")
        if target == ROOFLINE and not _valid_curve(data.get("roofline")):
            raise ModelError(f"{where}: target {ROOFLINE} needs training_data.roofline with c0_ms and c1_ms >= 0")
        ctx, assumed = self.context(gpu, shape_hint)
        self.gpu, self.shape, self.shape_assumed = ctx["gpu"], ctx["shape"], assumed
        self.target = {"gpu": self.gpu, "shape": self.shape, "shape_assumed": assumed,
                       "gpu_note": self.gpu_note(self.gpu)}
        kspec = predictor.config.metric(METRIC)
        note = (f"{kspec.definition}. Predicted for GPU {self.gpu} (setting rlm.gpu), "
                f"{'assuming' if assumed else 'for'} work size {self.shape}"
                + (f". Note: {self.target['gpu_note']}" if self.target["gpu_note"] else ""))
        # The metric's definition names the target: the hover shows metric definitions.
        self.config = dataclasses.replace(predictor.config, metrics=(dataclasses.replace(kspec, definition=note),))

    @classmethod
    def load(cls, model_dir: str | Path | None = None, gpu: str | None = None, shape_hint=None,
             **kwargs) -> KernelModel:
        from rlm_lsp.runtime.predictor import Predictor

        path = Path(model_dir) if model_dir else MODEL_DIR
        if not (path / "rlm_config.json").is_file():
            raise ModelError(f"no kernel latency model at {path}")
        kwargs.setdefault("device", "cpu")
        predictor = Predictor.from_dir(path, **kwargs)
        if LANGUAGE not in predictor.config.languages:
            raise ModelError(f"{path} is not a kernel model (languages {list(predictor.config.languages)})")
        return cls(predictor, gpu, shape_hint)

    @staticmethod
    def available(model_dir: str | Path | None = None) -> bool:
        return ((Path(model_dir) if model_dir else MODEL_DIR) / "rlm_config.json").is_file()

    def with_target(self, gpu: str | None = None, shape_hint=None) -> KernelModel:
        """The same model (same sessions, same cache) on another GPU or work size."""
        return KernelModel(self.predictor, gpu, shape_hint)

    def context(self, gpu: str | None = None, shape_hint=None) -> tuple[dict[str, str], bool]:
        """({gpu, shape}: the GPU name and the human shape line, as shown in a hover; assumed)."""
        assumed = shape_hint is None or shape_hint == ""
        shape = self.default_shape if assumed else parse_shape_hint(shape_hint)
        return {"gpu": gpu_text(gpu) if gpu else self.default_gpu, "shape": shape}, assumed

    def gpu_note(self, gpu: str) -> str:
        """'' for a GPU of the training data, else a note that says the model does not know it."""
        if not self.known_gpus or gpu in self.known_gpus:
            return ""
        return f"{gpu} is not among the GPUs the model was trained on ({', '.join(self.known_gpus)})"

    def inputs(self, ctx: Mapping[str, str]) -> dict[str, str]:
        """`context()`'s {gpu, shape} -> the template fields this model reads (`model_context`)."""
        return model_context(self.predictor.config.input_template, ctx["gpu"], ctx["shape"])

    # -- the Model protocol ----------------------------------------------------------------

    def _target(self, context: Mapping[str, str] | None) -> tuple[dict[str, str], bool]:
        if context and "gpu" in context and "shape" in context:
            return {"gpu": context["gpu"], "shape": context["shape"]}, False
        return {"gpu": self.gpu, "shape": self.shape}, self.shape_assumed

    def predict(self, codes: Sequence[str], language: str = LANGUAGE, metrics: Sequence[str] | None = None,
                context: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None) -> list[dict[str, Prediction]]:
        if context is not None and not isinstance(context, Mapping):  # one per code
            return once_per_context(self, codes, language, metrics, context)
        if metrics is not None and METRIC not in metrics:
            return [{} for _ in codes]
        ctx, assumed = self._target(context)
        return [{METRIC: p} for p in self.predict_texts([kernel_text(c) for c in codes], ctx, assumed)]

    def cached(self, code: str, language: str = LANGUAGE,
               context: Mapping[str, str] | None = None) -> dict[str, Prediction] | None:
        ctx, assumed = self._target(context)
        hit = self.predictor.cached(kernel_text(code), LANGUAGE, self.inputs(ctx))
        return None if hit is None else {METRIC: self._finish(hit[METRIC], ctx, assumed)}

    def check(self, code: str, language: str = LANGUAGE) -> None:
        if not isinstance(code, str) or not code.strip():
            raise InputError("empty code")

    def read_limit(self, code: str, language: str = LANGUAGE,
                   context: Mapping[str, str] | None = None) -> tuple[int, int] | None:
        ctx, _ = self._target(context)
        return self.predictor.read_limit(kernel_text(code), LANGUAGE, self.inputs(ctx))

    # -- kernel texts, snippets, sources -------------------------------------------------------

    def predict_texts(self, texts: Sequence[str], ctx: Mapping[str, str], assumed: bool = False) -> list[Prediction]:
        """Kernel texts (`kernel_text`) on one {gpu, shape} -> one Prediction in ms per text: the
        model's number times `target_scale` (1 for a model that predicts ms)."""
        results = self.predictor.predict(list(texts), language=LANGUAGE, context=self.inputs(ctx))
        return [self._finish(r[METRIC], ctx, assumed) for r in results]

    def _finish(self, p: Prediction, ctx: Mapping[str, str], assumed: bool) -> Prediction:
        """In ms (`target_scale`), with the target it is for."""
        f = target_scale(self.training_data, ctx["shape"])
        if f != 1.0:
            p = dataclasses.replace(p, value=p.value * f, low=p.low * f, high=p.high * f,
                                    samples=tuple(s * f for s in p.samples))
        return dataclasses.replace(p, gpu=ctx["gpu"], shape=ctx["shape"], shape_assumed=assumed,
                                   known_target=not self.gpu_note(ctx["gpu"]))

    def predict_codes(self, codes: Sequence[str], gpu: str | None = None, shape_hint=None) -> list[Prediction]:
        """Raw kernel sources (a kernel, or a file of them) -> one Prediction per code."""
        ctx, assumed = self.context(gpu, shape_hint)
        return self.predict_texts([kernel_text(c) for c in codes], ctx, assumed)

    def predict_kernels(self, snippets: Sequence, gpu: str | None = None, shape_hint=None) -> list[Prediction]:
        """Snippets (rlm_lsp.python.snippets.Snippet) -> a Prediction per `triton_kernel` snippet, in order.
        Other snippets are skipped. `gpu`: any name ('NVIDIA H100 80GB HBM3', 'h100'), default the
        model's `default_gpu`; `shape_hint`: see `parse_shape_hint`, default the model's default shape."""
        kernels = [s for s in snippets if getattr(s, "kind", "") == "triton_kernel"]
        return self.predict_codes([k.code for k in kernels], gpu, shape_hint) if kernels else []


def predict_kernels(snippets: Sequence, gpu: str | None = None, shape_hint=None,
                    model_dir: str | Path | None = None) -> list[Prediction]:
    """Convenience: the shipped kernel model, loaded once per model directory, on these snippets."""
    return _cached_model(str(model_dir) if model_dir else "").predict_kernels(snippets, gpu, shape_hint)


_MODELS: dict[str, KernelModel] = {}


def _cached_model(key: str) -> KernelModel:
    if key not in _MODELS:
        _MODELS[key] = KernelModel.load(key or None)
    return _MODELS[key]


def with_kernels(base, gpu: str | None = None, shape_hint=None, model_dir: str | Path | None = None):
    """`base` (a Predictor, or None) and the shipped kernel model behind one `Router`; `base`
    unchanged when there is no kernel model or when `base` already predicts kernel_latency (a joint
    model). The kernel model is loaded with the base predictor's samples and seed."""
    if base is not None and METRIC in base.config.metric_names:
        return base
    if not KernelModel.available(model_dir):
        if base is None:
            raise ModelError(f"no kernel latency model at {Path(model_dir) if model_dir else MODEL_DIR}")
        return base
    kw = {} if base is None else {"samples": base.samples, "seed": base.seed}
    return Router({FUNCTION: base, KERNEL: KernelModel.load(model_dir, gpu, shape_hint, **kw)})
