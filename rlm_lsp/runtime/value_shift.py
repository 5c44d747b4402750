"""How far the network's value sits from real functions' measured calls, read from what the runtime
already knows of a Python function at the reference n (value-v1, session 43).

    the cost analyzer's Summary (its features, loop nest, sure)        -> trees, one per metric
      -> log10 of the factor the value (its interval and samples) is multiplied by

The network learned whole LeetCode programs run on their test input; a function of a real codebase,
called once on its own input, is measured differently (tracemalloc peak and CPU time of the call). The
trees were fitted on real functions of the spent growth sets (growth-dev, growth-fresh 1-6), their
target the mean over measured sizes of log10(measured / the shipped value moved along the shipped
growth). The factor does not depend on n: the curve keeps its growth. Configured in the growth analyzer's
entry of rlm_config.json:

    "value_trees": {"file": "value_trees.npz", "metrics": ["latency", "memory"], "features": [...]}
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.feature_trees import FeatureTrees
from rlm_lsp.runtime.prediction import Prediction, scaled

FILE_NAME = "value_trees.npz"
METRICS = ("latency", "memory")
MOST = 3.0  # a factor past 10**3 either way is not believed: clipped


LAYOUTS = ("analyzer", "growth", "values")  # what the trees read besides the analyzer's summary (below)


def feature_names(layout: str = "analyzer") -> tuple[str, ...]:
    """The trees' row as this runtime computes it: the analyzer's summary alone ("analyzer", value-v3);
    with each metric's shipped growth ("growth", value-v2); with the network's log10 values too ("values",
    value-v1). The last two made values jumpier under neutral edits (an unused assignment moves the
    blended growth a little, and the trees' steps turn that into a jump), so the shipped reads the first."""
    kinds = {"analyzer": (), "growth": ("growth",), "values": ("log10", "growth")}[layout]
    return tuple(readers.reader().cost_feature_names) + ("nest", "sure") + tuple(
        f"{k}_{m}" for k in kinds for m in METRICS)


def row(s, values: Mapping[str, float], growths: Mapping[str, float], layout: str = "analyzer") -> list[float]:
    """Summary `s` (and, by `layout`, each metric's growth and value at the reference n) -> the trees' row."""
    out = [float(v) for v in s.features()] + [float(s.nest), float(s.sure)]
    if layout == "values":
        out += [math.log10(max(values[m], 1e-12)) for m in METRICS]
    if layout in ("growth", "values"):
        out += [float(growths[m]) for m in METRICS]
    return out


class ValueShift:
    def __init__(self, path: Path, metrics: tuple[str, ...], layout: str = "analyzer"):
        self.trees = FeatureTrees(path, metrics, "")
        self.layout = layout

    def apply(self, s, predictions: dict[str, Prediction]) -> dict[str, Prediction]:
        """`predictions` (at the reference n, with growth) each multiplied by its metric's factor;
        unchanged where a metric the row needs is missing."""
        growths = {m: p.growth for m in METRICS if (p := predictions.get(m)) is not None and p.growth is not None}
        if len(growths) < len(METRICS):
            return predictions
        x = np.array([row(s, {m: predictions[m].value for m in METRICS}, growths, self.layout)])
        out = dict(predictions)
        for m in self.trees.metrics:
            k = 10 ** float(np.clip(self.trees.predict(x, m)[0], -MOST, MOST))
            out[m] = scaled(out[m], k)
        return out


def of_spec(raw: Mapping | None, model_dir: Path | None) -> ValueShift | None:
    """The growth analyzer's `value_trees` (None without); ValueError where it was fitted on other features."""
    if raw is None or model_dir is None:
        return None
    features = tuple(raw.get("features", ()))
    layout = next((k for k in LAYOUTS if features == feature_names(k)), None)
    if layout is None:
        raise ValueError("value_trees were fitted on other features than this runtime computes; refit them "
                         "(python experiments/value1/fit.py)")
    return ValueShift(model_dir / str(raw.get("file", FILE_NAME)), tuple(str(m) for m in raw.get("metrics", METRICS)),
                      layout)
