"""Which statements drive a predicted value: leave each one out, predict again, rank by the drop.

    code -> variants, one per statement left out (a family's `split`: `rlm_lsp.python.leave_out`)
         -> one Predictor batch: the code and every variant (the draws are fixed, so a difference is
            the model's, never sampling noise) -> per metric, log(value without it / value)
         -> the statements whose removal lowers the value most, first

A leave-one-out answer, not a decomposition: two statements that each double the memory both show
about −50%, and a loop's removal includes its body's. Results are cached by (language, code), so a
hover computes it once per function text; the Predictor's own cache holds the variants besides.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from rlm_lsp.runtime import at_n

TOP = 3  # statements kept per metric
CACHE_SIZE = 256  # functions


class Part(Protocol):
    """A statement, as a family's split names it."""

    @property
    def line(self) -> int: ...  # 1-based, in the code given

    @property
    def end_line(self) -> int: ...

    @property
    def text(self) -> str: ...


class Split(Protocol):
    @property
    def items(self) -> Sequence[tuple[Part, str]]: ...  # (statement, the code without it)

    @property
    def total(self) -> int: ...  # statements the code has; more than len(items) when the split was capped


class Predicts(Protocol):
    def predict(self, codes: Sequence[str], language: str = "python", metrics: Sequence[str] | None = None,
                context: Any = None) -> list[Mapping]: ...


@dataclass(frozen=True)
class Effect:
    part: Part
    log_ratio: float  # log(value without the statement / value with it): negative when it costs

    @property
    def drop(self) -> float:
        """The share of the value that goes without the statement: 0.85 for −85%."""
        return 1.0 - math.exp(self.log_ratio)


@dataclass(frozen=True)
class Attribution:
    effects: Mapping[str, tuple[Effect, ...]]  # metric -> the TOP statements lowering it most, largest drop first
    tried: int  # statements left out
    total: int  # statements the function has (tried < total: only the first `tried` were)


def attribute(predictor: Predicts, code: str, split: Split, language: str = "python", top: int = TOP,
              n: float | None = None, context: Mapping[str, str] | None = None) -> Attribution:
    """Rank the statements of `split` (the variants of `code`) by how much each one's removal lowers
    each metric's value. A metric whose value is not positive (no ratio) is left out. `n`: for a
    model that reads n, the n the value is shown at, every variant alike (`at_n.ask`). `context`:
    the code's own (its file's names, `readers.OUTSIDE`), every variant alike."""
    items = list(split.items)
    if not items:
        return Attribution({}, 0, split.total)
    base, *variants = at_n.ask(predictor, [code] + [c for _, c in items], language, n, context or None)
    effects = {}
    for metric, p in base.items():
        if not p.value > 0:
            continue
        ranked = sorted((Effect(part, math.log(v[metric].value / p.value))
                         for (part, _), v in zip(items, variants, strict=True) if v[metric].value > 0),
                        key=lambda e: (e.log_ratio, e.part.line))
        effects[metric] = tuple(e for e in ranked[:top] if e.log_ratio < 0)
    return Attribution(effects, len(items), split.total)


class Attributor:
    """`attribute` with a cache by (language, code, n, context): the hover asks again for every hover.
    `n`: the size a model that reads n was asked at (`at_n.ask`; None: its reference n, or a model
    that does not read n); `context`: the code's (`Snippet.context()`: its file's names)."""

    def __init__(self, predictor: Predicts, split: Callable[[str], Split], cache_size: int = CACHE_SIZE) -> None:
        self.predictor = predictor
        self.split = split
        self._cache: OrderedDict[tuple, Attribution] = OrderedDict()
        self._size = cache_size
        self._lock = threading.Lock()  # the server asks from its hover threads

    def cached(self, code: str, language: str = "python", n: float | None = None,
               context: Mapping[str, str] | None = None) -> Attribution | None:
        with self._lock:
            return self._cache.get(_key(code, language, n, context))

    def __call__(self, code: str, language: str = "python", n: float | None = None,
                 context: Mapping[str, str] | None = None) -> Attribution:
        key = _key(code, language, n, context)
        found = self.cached(code, language, n, context)
        if found is not None:
            return found
        result = attribute(self.predictor, code, self.split(code), language, n=n, context=context)
        with self._lock:
            self._cache[key] = result
            self._cache.move_to_end(key)
            while len(self._cache) > self._size:
                self._cache.popitem(last=False)
        return result


def _key(code: str, language: str, n: float | None, context: Mapping[str, str] | None) -> tuple:
    return (language, code, n, tuple(sorted((context or {}).items())))
