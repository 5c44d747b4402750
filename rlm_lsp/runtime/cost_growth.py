"""Growth from the cost analyzer: each metric's exponent of n, read from the code, folded into the
model's Prediction as growth trees' would be (`rlm_lsp.runtime.growth`).

    code (+ its entry) -> the code reader's cost analyzer (`rlm_lsp.cost`, Python: `cost_front`)
         -> Summary: time and memory as costs per sized parameter (`n·m`), their lines, how sure
         -> each metric's growth (the exponent when every sized input grows with n together),
            p10..p90 from the analyzer's measured misses (`spread` in the config: sure / unsure),
            `cost` (`n·m`), `cost_legend` ((letter, meaning), ...), `cost_lines`, `cost_unknown`

The RLM's number stays the value at the reference n (`typical_n`'s median, 10⁴ for the default);
`growth.at` moves it to any other n along this growth. Configured in `rlm_config.json`:

    "growth_analyzer": {"reference_n": 10000, "spread": {"sure": [-0.3, 0.3], "unsure": [-0.6, 0.6]}}
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.prediction import Prediction

METRICS = ("memory", "latency")


@dataclass(frozen=True)
class AnalyzerSpec:
    reference_n: int
    sure: tuple[float, float] = (-0.3, 0.3)
    unsure: tuple[float, float] = (-0.6, 0.6)
    encoder: int = 0  # the growth protocol's: the analyzer reads no encoder state

    @classmethod
    def parse(cls, raw: Mapping) -> AnalyzerSpec:
        try:
            spread = raw.get("spread", {})
            spec = cls(int(raw["reference_n"]), tuple(map(float, spread.get("sure", cls.sure))),
                       tuple(map(float, spread.get("unsure", cls.unsure))))
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"growth_analyzer entry of rlm_config.json is malformed: {exc}") from None
        if spec.reference_n < 1 or len(spec.sure) != 2 or len(spec.unsure) != 2:
            raise ModelError("growth_analyzer: reference_n must be positive and each spread two numbers")
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
        for metric in METRICS:
            p = out.get(metric)
            if p is None:
                continue
            g = s.growth(metric)
            lo, hi = self.spec.sure if s.sure else self.spec.unsure
            out[metric] = dataclasses.replace(
                p, growth=g, growth_low=max(0.0, g + lo), growth_high=g + hi, growth_samples=(),
                n=float(self.spec.reference_n), cost=s.text(metric), cost_legend=legend,
                cost_lines=s.lines(metric), cost_unknown=s.unknown)
        return out


def _summary(code: str, entry: str):
    read = readers.reader().cost
    return None if read is None else read(code, entry or None)


def of_config(config) -> CostGrowth | None:
    raw = config.raw.get("growth_analyzer")
    return None if raw is None else CostGrowth(AnalyzerSpec.parse(raw))
