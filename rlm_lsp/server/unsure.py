"""When a hint says `?`: only where the model is unsure relative to its usual spread.

A model's p10–p90 intervals are all wide (the shipped model's span 100–3000×), so a fixed bar
marks most hints and the `?` means nothing. The bar is the model's own: per metric, the p80 of
its interval widths on the validation rows (problems it never trained on), recorded once per
model in rlm_config.json as `usual_spread` by `python -m training.judging.usual_spread MODEL --write`:

    "usual_spread": {"quantile": 80, "widths": {"memory": 2.8, "latency": 3.4,    # log10(p90 / p10)
                                                "memory_growth": 0.9, ...}}        # growth p90 − p10

A value is marked when log10(p90 / p10) at the model's reference n is over its metric's width,
so on code like the validation problems about one hint in five carries a `?`: the widest fifth. The
value's interval is judged where the record was measured (at the reference n); how far the
growth may be off has its own mark, on the growth class. A model without the record keeps the
fixed bars (`UNSURE_SPREAD`, `prediction.UNSURE_GROWTH`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rlm_lsp.runtime.prediction import GROWTH_SUFFIX, UNSURE_GROWTH

UNSURE_SPREAD = 1000.0  # p90/p10 over this: `~1 kB?`, for a model without `usual_spread`


@dataclass(frozen=True)
class UsualSpread:
    widths: Mapping[str, float] = field(default_factory=dict)  # metric -> log10 width; <metric>_growth -> width

    def value_bar(self, metric: str) -> float:
        """The p90/p10 over which a value of `metric` is marked."""
        w = self.widths.get(metric)
        return UNSURE_SPREAD if w is None else 10.0 ** w

    def growth_bar(self, metric: str) -> float:
        """The p90 − p10 of a growth exponent over which its class is marked."""
        return self.widths.get(metric + GROWTH_SUFFIX, UNSURE_GROWTH)

    def value_unsure(self, metric: str, p: Any) -> bool:
        spread = p.high / p.low if p.low > 0 else math.inf
        return spread > self.value_bar(metric)

    def growth_unsure(self, metric: str, p: Any) -> bool:
        low, high = getattr(p, "growth_low", None), getattr(p, "growth_high", None)
        return low is not None and high is not None and high - low > self.growth_bar(metric)


FIXED = UsualSpread()


def of_config(config: Any) -> UsualSpread:
    """The model's recorded usual spread (`config.raw["usual_spread"]`), else the fixed bars. A
    malformed record is ignored (the fixed bars stand): a hint is never worth a failed load."""
    raw = getattr(config, "raw", None) or {}
    record = raw.get("usual_spread") if isinstance(raw, Mapping) else None
    widths = record.get("widths") if isinstance(record, Mapping) else None
    if not isinstance(widths, Mapping):
        return FIXED
    clean = {str(k): float(v) for k, v in widths.items()
             if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0}
    return UsualSpread(clean)
