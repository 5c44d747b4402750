"""Growth from the cost analyzer: each metric's exponent of n, read from the code, folded into the
model's Prediction as growth trees' would be (`rlm_lsp.runtime.growth`).

    code (+ its entry) -> the code reader's cost analyzer (`rlm_lsp.cost`, Python: `cost_front`)
         -> Summary: time and memory as costs per sized parameter (`n·m`), their lines, how sure
         -> each metric's growth (the exponent when every sized input grows with n together),
            p10..p90 from the analyzer's measured misses (`spread` in the config: sure / unsure),
            `cost` (`n·m`), `cost_legend` ((letter, meaning), ...), `cost_lines`, `cost_unknown`

The RLM's number is the cost on a typical large input *for code like this one*: its training
programs ran on inputs sized to finish in time, so a quadratic program's "large" input was about
n = 100 and a linear one's 10⁴ (`own_n`: the median input size of the training curves' largest rung,
by the time class of the program, training problems only). The fold reads the RLM's number at the
`own_n` of the time class the analyzer predicts and moves it along the growth to the model's
`reference_n` (10⁴, `typical_n`'s median), so every function's value is for the same n; `growth.at`
moves it from there to any other. Configured in `rlm_config.json`:

    "growth_analyzer": {"reference_n": 10000, "own_n": [541, 10000, 100, 20],
                        "spread": {"sure": [-0.3, 0.3], "unsure": [-0.6, 0.6]}}

`own_n` holds one size per time class (exponent < 0.5, 0.5-1.5, 1.5-2.5, >= 2.5); without it the
RLM's number is taken to be at `reference_n` already.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.growth import at
from rlm_lsp.runtime.prediction import Prediction

METRICS = ("memory", "latency")


@dataclass(frozen=True)
class AnalyzerSpec:
    reference_n: int
    sure: tuple[float, float] = (-0.3, 0.3)
    unsure: tuple[float, float] = (-0.6, 0.6)
    encoder: int = 0  # the growth protocol's: the analyzer reads no encoder state
    own_n: tuple[float, ...] = ()  # the RLM's number's own n, per time class (the module's docstring)

    @classmethod
    def parse(cls, raw: Mapping) -> AnalyzerSpec:
        try:
            spread = raw.get("spread", {})
            spec = cls(int(raw["reference_n"]), tuple(map(float, spread.get("sure", cls.sure))),
                       tuple(map(float, spread.get("unsure", cls.unsure))), 0,
                       tuple(map(float, raw.get("own_n", ()))))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"growth_analyzer entry of rlm_config.json is malformed: {exc}") from None
        if spec.reference_n < 1 or len(spec.sure) != 2 or len(spec.unsure) != 2 or \
                len(spec.own_n) not in (0, 4) or any(not 1 <= n <= 1e12 for n in spec.own_n):
            raise ModelError("growth_analyzer: reference_n must be positive, each spread two numbers and "
                             "own_n four sizes (one per time class)")
        return spec


class CostGrowth:
    """The analyzer as a model's growth: `fold` is `GrowthTrees.fold`'s."""

    def __init__(self, spec: AnalyzerSpec):
        self.spec = spec
        self.summary = functools.lru_cache(maxsize=4096)(_summary)

    def fold(self, predictions: dict[str, Prediction], code: str, pooled=None, outside: str = "",
             entry: str = "") -> dict[str, Prediction]:
        s = self.summary(code, entry)
        if s is None:
            return predictions
        out = dict(predictions)
        legend = tuple(s.legend())
        own = self.own_n(s.growth("latency"))
        for metric in METRICS:
            p = out.get(metric)
            if p is None:
                continue
            g = s.growth(metric)
            lo, hi = self.spec.sure if s.sure else self.spec.unsure
            grown = dataclasses.replace(
                p, growth=g, growth_low=max(0.0, g + lo), growth_high=g + hi, growth_samples=(),
                n=own, cost=s.text(metric), cost_legend=legend,
                cost_lines=s.lines(metric), cost_unknown=s.unknown)
            out[metric] = at(grown, float(self.spec.reference_n))
        return out

    def own_n(self, time_growth: float) -> float:
        """The n the RLM's number is for, from the time class the analyzer predicts."""
        if not self.spec.own_n:
            return float(self.spec.reference_n)
        k = time_growth
        return self.spec.own_n[0 if k < 0.5 else 1 if k < 1.5 else 2 if k < 2.5 else 3]


def _summary(code: str, entry: str):
    read = readers.reader().cost
    return None if read is None else read(code, entry or None)


def of_config(config) -> CostGrowth | None:
    raw = config.raw.get("growth_analyzer")
    return None if raw is None else CostGrowth(AnalyzerSpec.parse(raw))
