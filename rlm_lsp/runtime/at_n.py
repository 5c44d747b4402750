"""A model asked at a stated input size n (issue 48): every surface (editor, CLI, gate) asks here.

    a model that reads n (its template's `{n}`):  the model itself, with the size in its input text
                                                  (`template.n_field`): its own numbers at that n
    any other model:                              its prediction at its reference n, which the caller
                                                  moves along the predicted growth (`growth.at`)

`context_at` is the only switch between the two, and `ask` the one call every surface makes with
it (a context only where there is one: a model without template fields gets the call it always
got); `curve` asks one code at several sizes in one
batch (the hover's table). The Predictor renders the n (`Predictor.render`) and caches by the
rendered text, so a code at two sizes is two cache entries and a code asked again at a size is
never run twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rlm_lsp.runtime.model import FUNCTION, Router
from rlm_lsp.runtime.prediction import Prediction


def function_model(model: Any) -> Any:
    """The function-family model behind `model` (a Router's own; None where it has none)."""
    return model.model(FUNCTION) if isinstance(model, Router) else model


def reads_n(model: Any) -> bool:
    """Whether the function model behind `model` reads n (`ModelConfig.reads_n`)."""
    return bool(getattr(getattr(function_model(model), "config", None), "reads_n", False))


def context_at(model: Any, n: float | None, context: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    """The context that asks `model` at size `n`: `context` with `"n": n` for a model that reads n;
    `context` as it is for any other model, or where `n` is None (the model's reference n)."""
    if n is None or not reads_n(model):
        return None if context is None else dict(context)
    return {**(context or {}), "n": n}


def ask(model: Any, codes: Sequence[str], language: str = "python", n: float | None = None,
        context: Mapping[str, Any] | None = None, **kw: Any) -> list:
    """`model.predict(codes, language=...)` at size `n` (`context_at`), with `context`'s other fields."""
    asked = context_at(model, n, context)
    return model.predict(codes, language=language, **kw) if asked is None else \
        model.predict(codes, language=language, context=asked, **kw)


def ask_each(model: Any, codes: Sequence[str], contexts: Sequence[Mapping[str, Any] | None], language: str = "python",
             n: float | None = None, **kw: Any) -> list:
    """`ask` for codes that each come with their own context (a Python function's file names,
    `Snippet.context()`), in one call: the model batches them (`Router.predict`)."""
    asked = [context_at(model, n, c) for c in contexts]
    if all(a is None for a in asked):
        return model.predict(codes, language=language, **kw)
    return model.predict(codes, language=language, context=asked, **kw)


def n_of(predictions: Mapping[str, Prediction]) -> float | None:
    """The n a function's predictions are for (`Prediction.n`; None where they do not say)."""
    return next((p.n for p in predictions.values() if p.n is not None), None)


def curve(model: Any, code: str, sizes: Sequence[float], language: str = "python",
          context: Mapping[str, Any] | None = None) -> dict[str, list[tuple[float, float]]]:
    """metric -> [(n, the model's value at n)] for each of `sizes`, asked in one batch; {} for a
    model that does not read n (its curve is its growth's: `growth.curve`)."""
    if not reads_n(model) or not sizes:
        return {}
    contexts = [context_at(model, n, context) for n in sizes]
    return _by_metric(sizes, function_model(model).predict([code] * len(sizes), language, context=contexts))


def cached_curve(model: Any, code: str, sizes: Sequence[float], language: str = "python",
                 context: Mapping[str, Any] | None = None) -> dict[str, list[tuple[float, float]]] | None:
    """`curve` when every size is cached already (no model run), else None."""
    if not reads_n(model) or not sizes:
        return None
    base = function_model(model)
    found = [base.cached(code, language, context_at(model, n, context)) for n in sizes]
    return None if any(f is None for f in found) else _by_metric(sizes, found)


def _by_metric(sizes: Sequence[float], results: Sequence[Mapping[str, Prediction]]) -> dict[str, list[tuple[float, float]]]:
    return {m: [(n, r[m].value) for n, r in zip(sizes, results, strict=True)] for m in results[0]}
