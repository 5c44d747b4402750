"""One protocol for the three model families, and the router from a code's kind to its model.

    family    model                          input renderer (shared with training)
    function  rlm_lsp.runtime.predictor.Predictor    preprocess.apply + template.render (Predictor.render)
    kernel    rlm_lsp.triton.kernels.KernelModel    kernel_input.kernel_text + kernel_input.model_context
    network   rlm_lsp.networks.nas.NetworkModel       graph_text.onnx_text + nas.device_context

Each answers `predict(codes, language, metrics, context) -> [{metric: Prediction}]` in input order
(`rlm_lsp.runtime.prediction.Prediction`, the one result type). `Router` puts a function model and a
kernel model behind that same call: the kind of each code is decided once, by `kind_of`
(`rlm_lsp.python.snippets.is_kernel`, the rule `Snippet.kind` uses), and the code goes to that kind's model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import InputError
from rlm_lsp.runtime.model_dir import ModelConfig
from rlm_lsp.runtime.prediction import Prediction

FUNCTION, KERNEL, NETWORK = "function", "kernel", "network"
KINDS = (FUNCTION, KERNEL, NETWORK)


@runtime_checkable
class Model(Protocol):
    """What the CLI, the gate and the server need of a model, whichever family it is."""

    config: ModelConfig  # .metrics (name, unit, definition), .model_version, .languages

    def predict(self, codes: Sequence[str], language: str = "python", metrics: Sequence[str] | None = None,
                context: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None,
                ) -> list[dict[str, Prediction]]:
        """One {metric: Prediction} per code, in input order; deterministic; cached by content.
        `context`: one mapping for every code, or a sequence of one per code."""
        ...

    def cached(self, code: str, language: str = "python",
               context: Mapping[str, str] | None = None) -> dict[str, Prediction] | None:
        """`predict`'s result for one code when it is cached, else None (no model run)."""
        ...

    def check(self, code: str, language: str = "python") -> None:
        """Raises InputError when this code cannot be scored at all."""
        ...

    def read_limit(self, code: str, language: str = "python",
                   context: Mapping[str, str] | None = None) -> tuple[int, int] | None:
        """(tokens read, tokens in the input) when only part of it is read; None when it fits."""
        ...


def once_per_context(model: Model, codes: Sequence[str], language: str, metrics: Sequence[str] | None,
                     contexts: Sequence[Mapping[str, str] | None]) -> list[dict[str, Prediction]]:
    """`model.predict` of codes with one context each, for a model that takes one mapping: one call
    per distinct context, the results in input order."""
    groups: dict[tuple, list[int]] = {}
    for i, c in enumerate(contexts):
        groups.setdefault(tuple(sorted((c or {}).items())), []).append(i)
    out: list = [None] * len(codes)
    for key, idx in groups.items():
        for i, result in zip(idx, model.predict([codes[i] for i in idx], language, metrics, dict(key) or None),
                             strict=True):
            out[i] = result
    return out


def kind_of(code: str) -> str:
    """The family whose model scores this code: KERNEL for a @triton.jit function, else FUNCTION."""
    return KERNEL if readers.reader().is_kernel(code) else FUNCTION


class Router:
    """Several family models behind one `Model`: each code goes to the model of its kind (`kind_of`).

    `config.metrics` is every model's metrics in family order (the function model's first), so a
    hover finds each metric's definition; `config.model_version` joins the versions with `+`. A
    code whose kind has no model here gets `{}`.
    """

    def __init__(self, models: Mapping[str, Model]):
        self.models = {kind: m for kind, m in ((k, models.get(k)) for k in KINDS) if m is not None}
        if not self.models:
            raise ValueError("a Router needs at least one model")
        first = next(iter(self.models.values())).config
        metrics, seen = [], set()
        for m in self.models.values():
            for spec in m.config.metrics:
                if spec.name not in seen:
                    seen.add(spec.name)
                    metrics.append(spec)
        languages = ("python",) + tuple(lang for m in self.models.values() for lang in m.config.languages)
        self.config = dataclasses.replace(
            first, metrics=tuple(metrics), languages=tuple(dict.fromkeys(languages)),
            model_version="+".join(str(m.config.model_version) for m in self.models.values()))

    def model(self, kind: str) -> Model | None:
        return self.models.get(kind)

    @property
    def device(self) -> str:
        """Where the models run ("cpu" or "cuda"): the first model's engine."""
        first = next(iter(self.models.values()))
        return str(getattr(first, "device", None) or getattr(getattr(first, "predictor", None), "device", "cpu"))

    @property
    def context(self) -> dict:
        """The kernel model's target ({gpu, shape, shape_assumed, gpu_note}); {} without one."""
        kernel = self.models.get(KERNEL)
        return dict(getattr(kernel, "target", {})) if kernel is not None else {}

    def _for(self, code: str) -> Model | None:
        return self.models.get(kind_of(code))

    def check(self, code: str, language: str = "python") -> None:
        model = self._for(code) if isinstance(code, str) else None
        if model is not None:
            model.check(code, language)
        elif not isinstance(code, str) or not code.strip():
            raise InputError("empty code")

    def predict(self, codes: Sequence[str], language: str = "python", metrics: Sequence[str] | None = None,
                context: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None) -> list[dict[str, Prediction]]:
        """`context`: one mapping for every code, or one per code (a function's file names: every
        function its own), which each family's model takes: the function model in one batch, the
        kernel and network models once per distinct context (`once_per_context`)."""
        codes = list(codes)
        each = None if context is None or isinstance(context, Mapping) else list(context)
        out: list[dict[str, Prediction]] = [{} for _ in codes]
        groups: dict[str, list[int]] = {}
        for i, code in enumerate(codes):
            groups.setdefault(kind_of(code), []).append(i)
        for kind, idx in groups.items():
            model = self.models.get(kind)
            if model is None:
                continue
            names = model.config.metric_names
            wanted = None if metrics is None else [m for m in metrics if m in names]
            if wanted == []:
                continue
            mine = context if each is None else [each[i] for i in idx]
            for i, result in zip(idx, model.predict([codes[i] for i in idx], language, wanted, mine), strict=True):
                out[i] = dict(result)
        return out

    def cached(self, code: str, language: str = "python",
               context: Mapping[str, str] | None = None) -> dict[str, Prediction] | None:
        model = self._for(code)
        return None if model is None else model.cached(code, language, context)

    def read_limit(self, code: str, language: str = "python",
                   context: Mapping[str, str] | None = None) -> tuple[int, int] | None:
        model = self._for(code)
        return None if model is None else model.read_limit(code, language, context)
