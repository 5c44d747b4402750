"""Growth: how a function's cost grows with the size n of its input, and its value at a stated n.

    code -> canonical code -> counts + loop nests (the code reader's growth features)
         -> K bagged tree ensembles per metric (`growth_trees.npz`) -> K exponent draws
         -> growth (their median), p10..p90, and the draws, paired by bag like the value's samples

    value at n = value at the model's reference n × (n / reference n) ** exponent, draw by draw

The RLM's own number is the cost at the model's reference n (`GrowthSpec.reference_n`: the
median size of the inputs its training rows ran on); the trees say how it moves from there. They
ship in the model directory beside the ONNX graphs, fitted on the measured cost curves by
`python -m training.learning.growth_trees` (the model card says on which rows and how well they rank).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.feature_trees import FeatureTrees
from rlm_lsp.runtime.prediction import Prediction
from rlm_lsp.runtime.sizes import MAX_N

FILE_NAME = "growth_trees.npz"


@dataclass(frozen=True)
class GrowthSpec:
    """The config's `growth_trees` entry."""
    file: str
    preprocess: str
    metrics: tuple[str, ...]
    bags: int
    reference_n: int
    # Trees that also read the encoder: its mean state projected on `encoder` principal axes
    # (`encoder/mean`, `encoder/axes` in the trees' file) and the model's own log10 estimates of
    # `estimates` (metric names), after the code's features. 0 / (): the code's features alone.
    encoder: int = 0
    estimates: tuple[str, ...] = ()

    @classmethod
    def parse(cls, raw: Mapping) -> GrowthSpec:
        try:
            spec = cls(str(raw["file"]), str(raw["preprocess"]), tuple(str(m) for m in raw["metrics"]),
                       int(raw["bags"]), int(raw["reference_n"]), int(raw.get("encoder", 0)),
                       tuple(str(m) for m in raw.get("estimates", ())))
            features = tuple(raw["features"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"growth_trees entry of rlm_config.json is malformed: {exc}") from None
        if features != feature_names():
            raise ModelError("growth_trees were fitted on other features than this runtime computes; "
                             "refit them (python -m training.learning.growth_trees)")
        if spec.bags < 1 or spec.reference_n < 1 or not spec.metrics or spec.encoder < 0:
            raise ModelError("growth_trees: bags, reference_n and metrics must be positive and non-empty")
        return spec


def feature_names() -> tuple[str, ...]:
    """The names of the growth trees' row, as the registered code reader computes it."""
    return readers.reader().growth_feature_names


def features(code: str, preprocess_name: str, outside: str = "") -> list[float]:
    """What the growth trees read: the code reader's growth features (the Python family's: the
    counts and loop nests of the canonical code, `rlm_lsp.python.reader.growth_features`), the
    code read with its file's names (`readers.OUTSIDE`) as the model reads it."""
    fn = readers.reader().growth_features
    if fn is None:
        raise ModelError("this runtime's code reader computes no growth features")
    return fn(code, preprocess_name, outside)


def bag_name(metric: str, k: int) -> str:
    return f"{metric}@{k}"


class GrowthTrees:
    """K tree ensembles per metric (bootstrap bags), read on first use; one exponent draw per bag."""

    def __init__(self, model_dir: Path, spec: GrowthSpec):
        self.spec = spec
        self.path = model_dir / spec.file
        names = tuple(bag_name(m, k) for m in spec.metrics for k in range(spec.bags))
        self.trees = FeatureTrees(self.path, names, spec.preprocess)
        self.draws = functools.lru_cache(maxsize=4096)(self._draws)
        self._axes: tuple[np.ndarray, np.ndarray] | None = None

    def encoder_axes(self) -> tuple[np.ndarray, np.ndarray]:
        """(mean (D,), axes (K, D)) of the encoder's state, read on first use."""
        if self._axes is None:
            try:
                with np.load(self.path, allow_pickle=False) as data:
                    self._axes = (data["encoder/mean"], data["encoder/axes"])
            except (OSError, KeyError, ValueError) as exc:
                raise ModelError(f"growth trees {self.path} lack the encoder's axes: {exc}") from None
        return self._axes

    def row(self, code: str, pooled: np.ndarray | None = None, estimates: tuple[float, ...] = (),
            outside: str = "") -> np.ndarray:
        """What the trees read for `code`: its features, then (trees that read the encoder) the
        projected mean state and the model's log10 estimates."""
        x = list(features(code, self.spec.preprocess, outside))
        if self.spec.encoder:
            if pooled is None:
                raise ModelError("these growth trees read the encoder's state, and none was given")
            mean, axes = self.encoder_axes()
            x += list((np.asarray(pooled, dtype=np.float64) - mean) @ axes.T) + [math.log10(max(v, 1e-12))
                                                                                 for v in estimates]
        return np.array([x])

    def _draws(self, code: str, pooled: tuple[float, ...] = (), estimates: tuple[float, ...] = (),
               outside: str = "") -> dict[str, tuple[float, ...]]:
        row = self.row(code, np.array(pooled) if pooled else None, estimates, outside)
        return {m: tuple(float(self.trees.predict(row, bag_name(m, k))[0]) for k in range(self.spec.bags))
                for m in self.spec.metrics}

    def fold(self, predictions: dict[str, Prediction], code: str,
             pooled: np.ndarray | None = None, outside: str = "", entry: str = "",
             helpers: str = "") -> dict[str, Prediction]:
        """Each covered metric's Prediction with its growth (median draw, p10, p90, the draws) and the
        size its value is for (the reference n). `outside`: the code's file names (`readers.OUTSIDE`)."""
        out = dict(predictions)
        extra: tuple = ((), ())
        if self.spec.encoder and pooled is not None:
            extra = (tuple(float(v) for v in pooled),
                     tuple(predictions[m].value for m in self.spec.estimates if m in predictions))
        for metric, draws in self.draws(code, *extra, outside).items():
            p = out.get(metric)
            if p is None:
                continue
            g = np.array(draws)
            low, high = np.percentile(g, [10, 90])
            out[metric] = dataclasses.replace(p, growth=float(np.median(g)), growth_low=float(low),
                                              growth_high=float(high), growth_samples=draws,
                                              n=float(self.spec.reference_n))
        return out


def at(p: Prediction, n: float) -> Prediction:
    """`p` moved along its curve to size `n`: value, interval and samples scaled by (n / p.n) ** growth,
    each sample by its own growth draw. Unchanged where `p` has no growth or `n` is its own size."""
    if p.growth is None or p.n is None or n == p.n:
        return p
    if not (isinstance(n, (int, float)) and math.isfinite(n) and 1 <= n <= MAX_N):
        raise ValueError(f"n must be a number from 1 to {MAX_N:.0e}, not {n!r}")
    r = math.log(n / p.n)
    gs = p.growth_samples or (p.growth,)
    # value draw i with growth draw i (cycled where the model has fewer bags than samples)
    samples = tuple(s * math.exp(gs[i % len(gs)] * r) for i, s in enumerate(p.samples))
    scale = math.exp(p.growth * r)
    low, high = (float(v) for v in np.percentile(samples, [10, 90])) if samples else (p.low * scale, p.high * scale)
    return dataclasses.replace(p, value=p.value * scale, low=min(low, p.value * scale), high=max(high, p.value * scale),
                               samples=samples, smooth_samples=(), n=float(n))


def curve(p: Prediction, sizes=(10 ** 2, 10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6)) -> list[tuple[int, float]]:
    """(n, value at n) for the hover's table; [] without growth."""
    if p.growth is None or p.n is None:
        return []
    return [(n, at(p, n).value) for n in sizes]


def of_config(config):
    """A model's growth: its cost analyzer (`growth_analyzer`, `rlm_lsp.runtime.cost_growth`) or its
    growth trees, read on first use; None where it names neither."""
    from rlm_lsp.runtime import cost_growth  # it moves values with `at` (below): imported here, not above
    analyzer = cost_growth.of_config(config)
    if analyzer is not None:
        return analyzer
    raw = config.raw.get("growth_trees")
    return None if raw is None else GrowthTrees(config.path, GrowthSpec.parse(raw))
