"""Values for the languages a model reads by trees, not by its network: C++, Java and Go (issue 63, item 2).

    function (C++/Java/Go) -> its normalised text (`readers.own_normaliser`)
        -> the polyglot code counts (`readers.own_counts`: `rlm_lsp.polyglot.counts`)
           [+ the cost analyzer's `Summary.features()` of its entry and whether it read one]
        -> per language and metric, boosted trees -> log10 of the value -> Prediction (p10..p90 from
           the trees' out-of-fold misses on training problems)

The shipped network learned Python only, and every fine-tune on the measured C++/Java/Go programs ranked
below trees on counts (experiments/log/11-*, session 33); these trees are the best predictor measured for
them (experiments/log/15-2026-12-07-session-40.md, "#63 item 2"). The Predictor asks them instead of the
network for a language they cover; its growth then comes from the cost analyzer's fold as for any other
language with its own reader (`rlm_lsp.runtime.cost_growth`). A value is per call, for the measured
programs' largest input (as the network's is). Configured in `rlm_config.json`:

    "language_trees": {"file": "poly_trees.npz", "sha256": "...", "counts": [...], "cost": [...],
                       "languages": {"cpp": {"features": "counts+cost", "spread": {"memory": [-0.4, 0.5], ...}}}}

`features` "counts": the counts alone; "counts+cost": the counts, the analyzer's features, and 1.0 where
it read the entry (0.0 and zeros where not). Trees are read with numpy (`FeatureTrees.predict`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import readers
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.feature_trees import FeatureTrees
from rlm_lsp.runtime.model_dir import sha256_file
from rlm_lsp.runtime.prediction import Prediction

KEY = "language_trees"
FILE_NAME = "poly_trees.npz"
FEATURES = ("counts", "counts+cost")


def row(code: str, language: str, entry: str | None = None, with_cost: bool = True) -> list[float]:
    """What the trees read of `code` (one function, or a file's functions joined) in `language`:
    the counts of its normalised text, then (`with_cost`) the analyzer's features of `entry` (the last
    function where None or not found) and whether it read one. ValueError where the language has no
    counts registered."""
    normalise, count = readers.own_normaliser(language), readers.own_counts(language)
    if normalise is None or count is None:
        raise ValueError(f"no code counts for {language!r}")
    text = normalise(code)
    out = [float(v) for v in count(text)]
    if not with_cost:
        return out
    cost = readers.own_cost(language)
    summary = None if cost is None else (cost(text, entry) if entry else None) or cost(text, None)
    names = readers.reader().cost_feature_names
    return out + ([float(v) for v in summary.features()] + [1.0] if summary is not None else [0.0] * len(names) + [0.0])


@dataclass(frozen=True)
class LanguageSpec:
    features: str  # one of FEATURES
    spread: Mapping[str, tuple[float, float]]  # metric -> (p10, p90) of log10(measured / estimate)


class LanguageTrees:
    """A model's trees per language and metric (`cpp.memory`, ...), read on first use."""

    def __init__(self, path: Path, languages: Mapping[str, LanguageSpec], units: Mapping[str, str]):
        self.languages = dict(languages)
        self.units = dict(units)  # metric -> its unit, in the model's order
        self.metrics = metrics = tuple(units)
        names = tuple(f"{lang}.{m}" for lang in self.languages for m in metrics)
        self.trees = FeatureTrees(path, names, "none")
        self.estimate = functools.lru_cache(maxsize=4096)(self._estimate)

    def reads(self, language: str) -> bool:
        return language in self.languages

    def _estimate(self, code: str, language: str, entry: str) -> tuple[float, ...]:
        spec = self.languages[language]
        x = np.array([row(code, language, entry or None, spec.features == "counts+cost")])
        return tuple(float(self.trees.predict(x, f"{language}.{m}")[0]) for m in self.metrics)

    def predict(self, code: str, language: str, entry: str = "") -> dict[str, Prediction]:
        """metric -> Prediction of `code` (no samples: the gate compares the values alone, held to their
        p10-p90 width, `from_trees`)."""
        spread = self.languages[language].spread
        out = {}
        for metric, log10 in zip(self.metrics, self.estimate(code, language, entry), strict=True):
            lo, hi = spread.get(metric, (0.0, 0.0))
            out[metric] = Prediction(metric, 10 ** log10, 10 ** (log10 + lo), 10 ** (log10 + hi), self.units[metric],
                                     from_trees=True)
        return out

    def run(self, of: Mapping[str, tuple], language: str) -> tuple[dict, dict]:
        """The Predictor's `_run` for a language the trees read: `of` maps a cache key to (code, n,
        outside, entry, helpers); no encoder state."""
        return {k: self.predict(v[0], language, v[3]) for k, v in of.items()}, dict.fromkeys(of)


def of_config(config) -> LanguageTrees | None:
    """A model's language trees (None where its config has no `language_trees`); ModelError where the
    entry is malformed, its file is missing or changed, or the runtime counts other features."""
    raw = config.raw.get(KEY)
    if raw is None:
        return None
    path = Path(config.path) / str(raw.get("file", FILE_NAME)) if isinstance(raw, Mapping) else Path()
    try:
        langs = {str(lang): LanguageSpec(str(s["features"]), {str(m): (float(a), float(b))
                                                               for m, (a, b) in s.get("spread", {}).items()})
                 for lang, s in raw["languages"].items()}
        if any(s.features not in FEATURES for s in langs.values()):
            raise ValueError(f"features must be one of {FEATURES}")
        counts, cost = tuple(raw["counts"]), tuple(raw["cost"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ModelError(f"{KEY} entry of rlm_config.json is malformed: {exc!r}") from None
    if not path.is_file():
        raise ModelError(f"model file missing: {path}")
    if raw.get("sha256") and sha256_file(path) != raw["sha256"]:
        raise ModelError(f"model file is corrupt or was replaced (sha256 mismatch): {path}")
    if cost != tuple(readers.reader().cost_feature_names) and any(s.features != "counts" for s in langs.values()):
        raise ModelError(f"{KEY} were fitted on other cost features than this runtime computes; refit them "
                         "(python -m training.learning.poly_trees --ship MODEL_DIR)")
    for lang in langs:
        names = readers.own_count_names(lang)
        if names is not None and tuple(names) != counts:
            raise ModelError(f"{KEY} were fitted on other counts than this runtime computes for {lang}; refit them")
    return LanguageTrees(path, langs, {m.name: m.unit for m in config.metrics if not m.name.endswith("_growth")})
