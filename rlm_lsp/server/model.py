"""Loading the model for the server (worker thread): the predictor the settings ask for, plus
the Triton kernel model when one is shipped, described in words for the status bar.

A failed load is not fatal: the server keeps running without predictions and says once how
to fix it (`ModelLoadError.message`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from rlm_lsp.server.analysis import Analyzer
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.words import model_words

logger = logging.getLogger("rlm_lsp.server")


@dataclass(frozen=True)
class Loaded:
    analyzer: Analyzer
    words: str  # "the shipped model on CPU"
    version: str  # the model id, for the log only


class ModelLoadError(Exception):
    def __init__(self, settings: Settings, cause: Exception) -> None:
        where = f"rlm.modelPath ({settings.model_path})" if settings.model_path else "the shipped model"
        self.message = (
            f"rlm: cannot load {where}: {cause}. Predictions are off until rlm.modelPath points to a "
            "valid model directory (empty: the model shipped with rlm-lsp)."
        )
        super().__init__(self.message)


def load(settings: Settings) -> Loaded:
    """Raises ModelLoadError (ModelError, onnxruntime errors: all mean "no model")."""
    started = time.perf_counter()
    try:
        from rlm_lsp import Predictor

        kw = {"device": settings.device, "threads": settings.threads}
        predictor = Predictor.from_dir(settings.model_path, **kw) if settings.model_path else Predictor.default(**kw)
        predictor = with_kernel_model(predictor, settings)
        analyzer = Analyzer(predictor)
    except Exception as exc:  # noqa: BLE001
        raise ModelLoadError(settings, exc) from exc
    version = str(getattr(predictor.config, "model_version", "?"))
    words = model_words(version, settings.model_path, getattr(predictor, "device", settings.device))
    logger.info("model %s (%s) loaded in %.2fs", version, words, time.perf_counter() - started)
    return Loaded(analyzer, words, version)


def with_kernel_model(predictor: Any, settings: Settings) -> Any:
    """The predictor plus the Triton kernel-latency model when one is shipped (rlm_lsp.triton.kernels).

    Without it, kernels get no hint: the base model has no `kernel_*` metric. A kernel model
    that fails to load costs the kernel hints only, never the function hints.
    """
    try:
        from rlm_lsp.triton.kernels import with_kernels
    except ImportError:
        return predictor
    try:
        return with_kernels(predictor, gpu=settings.gpu or None)
    except Exception as exc:  # noqa: BLE001 - degrade to functions only
        logger.warning("kernel latency model not loaded: %s", exc)
        return predictor
