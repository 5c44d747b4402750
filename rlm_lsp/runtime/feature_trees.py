"""The feature trees: a second opinion the regression rule asks before it flags (`rlm_lsp.policy.rules`).

    canonical code -> `code_features.features` -> boosted trees -> log10 of memory / latency

A model directory may ship `feature_trees.npz` (written by `python -m training.judging.feature_trees`):
one gradient-boosted tree ensemble per metric, fitted on the model's own training split, and
`rlm_config.json` says, per metric, how much it must agree (`"agree"`). The shown numbers stay the
model's; the trees only veto a flag. With trees, the model's estimates and paired draws must reach
`ratio ** exponent` (its estimates are drawn towards the middle, so a real change looks smaller
on its scale), the trees must see new/old ≥ `agree ** (log ratio / log 2)` (`agree` at the
default ratio 2, scaled for any other), and the rule runs at the metric's `level`. All three were
chosen on validation pairs (experiments/log/10-2026-12-04-sessions-27-30.md, session 30). Trees are read
with numpy: no scikit-learn at run time.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.model_dir import ModelConfig

FILE_NAME = "feature_trees.npz"
_FIELDS = ("feature", "threshold", "left", "right", "value", "leaf", "roots", "baseline")


class FeatureTrees:
    """One tree ensemble per metric, over `code_features.FEATURE_NAMES`. Given the metrics (as the
    Predictor gives them), the file is read on first use, so a session whose rule never asks the
    trees pays nothing for them."""

    def __init__(self, path: str | Path, metrics: tuple[str, ...], preprocess_name: str):
        self.path = Path(path)
        self.metrics = tuple(metrics)
        self.preprocess = preprocess_name
        self._arrays: dict[str, dict[str, np.ndarray]] | None = None
        self._lock = threading.Lock()
        self.estimate = functools.lru_cache(maxsize=4096)(self._estimate)

    @classmethod
    def load(cls, path: str | Path, preprocess_name: str, metrics: tuple[str, ...] | None = None) -> FeatureTrees:
        """The trees at `path`; with `metrics` given the file is read on first use, else now."""
        trees = cls(path, tuple(metrics or ()), preprocess_name)
        if metrics is None:
            trees.metrics = tuple(trees.arrays())
        return trees

    def __getstate__(self) -> dict:  # a Prediction that carries the trees can be pickled or copied
        return {"path": self.path, "metrics": self.metrics, "preprocess": self.preprocess}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["path"], state["metrics"], state["preprocess"])  # type: ignore[misc]

    def arrays(self) -> dict[str, dict[str, np.ndarray]]:
        with self._lock:
            if self._arrays is None:
                self._arrays = _read(self.path, self.metrics)
            return self._arrays

    def predict(self, rows: np.ndarray, metric: str) -> np.ndarray:
        """(B, features) -> (B,) log10 estimates: every tree walked at once, level by level."""
        a = self.arrays()[metric]
        x = np.asarray(rows, dtype=np.float64)
        node = np.broadcast_to(a["roots"], (len(x), len(a["roots"]))).copy()  # (B, T)
        row = np.arange(len(x))[:, None]
        while True:
            inner = ~a["leaf"][node]
            if not inner.any():
                break
            left = x[row, a["feature"][node]] <= a["threshold"][node]
            step = np.where(left, a["left"][node], a["right"][node])
            node = np.where(inner, step, node)
        leaves = np.concatenate([np.full((len(x), 1), float(a["baseline"])), a["value"][node]], axis=1)
        return np.cumsum(leaves, axis=1)[:, -1]  # in tree order from the baseline, as scikit-learn adds them

    def _estimate(self, code: str, outside: str = "") -> tuple[float, ...]:
        """Raw code (and its file's names, `readers.OUTSIDE`) -> the estimate of each metric (in
        `metrics` order), in its unit."""
        row = np.array([readers.reader().features(code, self.preprocess, outside)])
        return tuple(float(10 ** self.predict(row, m)[0]) for m in self.metrics)

    def value(self, code: str, metric: str, outside: str = "") -> float:
        return self.estimate(code, outside)[self.metrics.index(metric)]


def _read(path: Path, metrics: tuple[str, ...]) -> dict[str, dict[str, np.ndarray]]:
    """metric -> its node arrays; every metric in the file, or exactly `metrics` when given."""
    try:
        with np.load(path, allow_pickle=False) as data:
            raw = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise ModelError(f"feature trees cannot be read: {path}: {exc}") from None
    wanted = metrics or tuple(sorted({name.split("/", 1)[0] for name in raw}))
    try:
        return {m: {f: raw[f"{m}/{f}"] for f in _FIELDS} for m in wanted}
    except KeyError as exc:
        raise ModelError(f"feature trees {path} lack {exc.args[0]}") from None


@dataclass(frozen=True)
class FeatureCheck:
    """What a Prediction carries for the rule: its code's tree estimate (read on first use, so a
    prediction nobody judges costs nothing), how far the trees must agree, and the rule's level."""

    trees: FeatureTrees
    code: str
    metric: str
    agree: float  # the trees' new/old at least this at the default ratio 2.0
    level: float  # the share of paired draws the rule asks of this metric with the trees
    # The model's own limit for a ratio R is R ** exponent: its estimates are drawn towards the
    # middle (ranking 0.68), so a real 2x change is often predicted smaller. 1.0: the ratio itself.
    exponent: float = 1.0
    outside: str = ""  # the names of the code's file, as the model read them (`readers.OUTSIDE`)

    def model_limit(self, ratio: float) -> float:
        """The new/old the model's estimates and paired draws must reach for the gate's `ratio`."""
        return ratio ** self.exponent if ratio > 1.0 else ratio

    @property
    def value(self) -> float:
        return self.trees.value(self.code, self.metric, self.outside)

    def limit(self, ratio: float) -> float:
        """The trees' new/old needed for a flag at the gate's `ratio` (`agree` at 2.0)."""
        if ratio <= 1.0:
            return ratio
        return self.agree ** (math.log(ratio) / math.log(2.0))


def of_config(config: ModelConfig) -> tuple[FeatureTrees | None, dict[str, tuple[float, float, float]]]:
    """A model's feature trees (read on first use) and, per metric they cover, (agree, level,
    exponent); (None, {}) without."""
    spec = config.feature_trees
    if spec is None:
        return None, {}
    return FeatureTrees.load(config.path / spec.file, spec.preprocess, tuple(spec.checks)), spec.checks
