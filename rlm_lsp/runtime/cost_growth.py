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

    "growth_analyzer": {"reference_n": 10000, "metrics": ["memory"], "own_n": [541, 10000, 100, 20],
                        "spread": {"sure": [-0.3, 0.3], "unsure": [-0.6, 0.6]},
                        "trees": {"file": "cost_trees.npz", "features": [...], "metrics": [...], "blend": 0.5}}

`metrics`: the metrics whose growth is given (the others keep none). `nest_mix` (optional): the
metrics whose growth, where the entry has a loop, is the mean of the above and its deepest loop nest
as written (for, while, comprehensions): the analyzer corrects the nest (a halving loop, an amortised
pointer, a library call) and the nest keeps the analyzer from a wrong reading's extremes. A function
without a loop keeps the analyzer's reading (a library call, a recursion). `own_n` holds one size per time
class (exponent < 0.5, 0.5-1.5, 1.5-2.5, >= 2.5), read only where latency's growth is given; without
it the RLM's number is taken to be at `reference_n` already. `trees` (optional): per metric, trees
on the training curves that read the analyzer's summary and the code's counts
(`training.learning.cost_trees`); the growth is then `(1 - blend) × the analyzer's + blend × the trees'`.
`time_classes` (optional): latency's correction (`training.learning.time_classes`, time-v7): a
classifier of the four time buckets on real functions says how likely the analyzer's bucket is; the
analyzer's exponent stands where it is sure and agrees with the loop nest as written, or where its
bucket gets at least `trust`; otherwise the growth is the centre of the most likely bucket.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import readers, value_shift
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.feature_trees import FeatureTrees
from rlm_lsp.runtime.growth import at
from rlm_lsp.runtime.prediction import Prediction, scaled

METRICS = ("memory", "latency")


@dataclass(frozen=True)
class AnalyzerSpec:
    reference_n: int
    sure: tuple[float, float] = (-0.3, 0.3)
    unsure: tuple[float, float] = (-0.6, 0.6)
    encoder: int = 0  # the growth protocol's: the analyzer reads no encoder state
    own_n: tuple[float, ...] = ()  # the RLM's number's own n, per time class (the module's docstring)
    metrics: tuple[str, ...] = METRICS
    trees: Mapping | None = None
    nest_mix: tuple[str, ...] = ()  # metrics whose growth is the mean with the loop nest as written
    time_classes: Mapping | None = None  # latency's correction (the module's docstring)
    own_latency: tuple[str, ...] = ()  # other languages whose latency growth is given (the docstring)
    own_n_languages: tuple[str, ...] = ()  # other languages whose values are read at their own n too
    memory_floor_bytes: Mapping[str, float] = dataclasses.field(default_factory=dict)  # language -> bytes per element
    value_trees: Mapping | None = None  # Python values' factor (`rlm_lsp.runtime.value_shift`)

    @classmethod
    def parse(cls, raw: Mapping) -> AnalyzerSpec:
        try:
            spread = raw.get("spread", {})
            sure, unsure = (tuple(map(float, spread.get(k, d))) for k, d in (("sure", cls.sure), ("unsure", cls.unsure)))
            if len(sure) != 2 or len(unsure) != 2:
                raise ValueError("each spread is two numbers")
            spec = cls(int(raw["reference_n"]), (sure[0], sure[1]), (unsure[0], unsure[1]), 0,
                       tuple(map(float, raw.get("own_n", ()))), tuple(str(m) for m in raw.get("metrics", METRICS)),
                       raw.get("trees"), tuple(str(m) for m in raw.get("nest_mix", ())), raw.get("time_classes"),
                       tuple(str(x) for x in raw.get("own_latency", ())),
                       tuple(str(x) for x in raw.get("own_n_languages", ())),
                       {str(k): float(v) for k, v in raw.get("memory_floor_bytes", {}).items()},
                       raw.get("value_trees"))
            if any(not 0 < b <= 64 for b in spec.memory_floor_bytes.values()):
                raise ValueError("memory_floor_bytes are bytes per element, above 0 and at most 64")
            if spec.trees is not None and not (isinstance(spec.trees.get("file"), str) and
                                               0 <= float(spec.trees["blend"]) <= 1 and spec.trees.get("features")):
                raise ValueError("trees need a file, features and a blend from 0 to 1")
            tc = spec.time_classes
            if tc is not None and not (isinstance(tc.get("file"), str) and 0 < float(tc["trust"]) <= 1):
                raise ValueError("time_classes need a file and a trust above 0, at most 1")
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"growth_analyzer entry of rlm_config.json is malformed: {exc}") from None
        if spec.reference_n < 1 or len(spec.sure) != 2 or len(spec.unsure) != 2 or \
                len(spec.own_n) not in (0, 4) or any(not 1 <= n <= 1e12 for n in spec.own_n):
            raise ModelError("growth_analyzer: reference_n must be positive, each spread two numbers and "
                             "own_n four sizes (one per time class)")
        if spec.trees is not None and tuple(spec.trees["features"]) != feature_names():
            raise ModelError("growth_analyzer's trees were fitted on other features than this runtime computes; "
                             "refit them (python -m training.learning.cost_trees MODEL_DIR)")
        if spec.time_classes is not None and tuple(spec.time_classes.get("features", ())) != TimeClasses.names():
            raise ModelError("growth_analyzer's time_classes were fitted on other features than this runtime computes; "
                             "refit them (python -m training.learning.time_classes MODEL_DIR)")
        return spec


def feature_names() -> tuple[str, ...]:
    """The cost trees' row as this runtime computes it: the analyzer's features, then the counts."""
    r = readers.reader()
    return tuple(r.cost_feature_names) + tuple(r.growth_feature_names)


CENTRES = (0.0, 1.0, 2.0, 3.0)  # the time buckets' centres (exponent < 0.5, 0.5-1.5, 1.5-2.5, >= 2.5)


def bucket(k: float) -> int:
    return 0 if k < 0.5 else 1 if k < 1.5 else 2 if k < 2.5 else 3


class TimeClasses:
    """The time-class trees: per bucket a raw-score ensemble (`class0` .. `class3`), softmax -> how likely."""

    def __init__(self, path: Path, trust: float = 0.4):
        self.trees = FeatureTrees(path, tuple(f"class{k}" for k in range(len(CENTRES))), "")
        self.trust = trust

    @staticmethod
    def names() -> tuple[str, ...]:
        return tuple(readers.reader().cost_feature_names) + ("nest", "sure")

    def proba(self, rows: np.ndarray) -> np.ndarray:
        raw = np.stack([self.trees.predict(rows, m) for m in self.trees.metrics], axis=1)
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def correct(self, s) -> float:
        """Latency's growth of summary `s`: the analyzer's, or the centre of the likelier bucket."""
        g = s.growth("latency")
        b = bucket(g)
        if s.sure and s.nest and bucket(s.nest) == b:
            return g
        p = self.proba(np.array([s.features() + [float(s.nest), float(s.sure)]]))[0]
        k = int(np.argmax(p))
        return g if p[b] >= self.trust or k == b else CENTRES[k]


class CostGrowth:
    """The analyzer as a model's growth: `fold` is `GrowthTrees.fold`'s."""

    def __init__(self, spec: AnalyzerSpec, model_dir: Path | None = None):
        self.spec = spec
        self.summary = functools.lru_cache(maxsize=4096)(_summary)
        self.trees = None
        if spec.trees is not None and model_dir is not None:
            names = tuple(str(m) for m in spec.trees.get("metrics", spec.metrics))
            self.trees = FeatureTrees(model_dir / str(spec.trees["file"]), names,
                                      str(spec.trees.get("preprocess", "canon_v1")))
        self.classes = None
        if spec.time_classes is not None and model_dir is not None:
            self.classes = TimeClasses(model_dir / str(spec.time_classes["file"]), float(spec.time_classes["trust"]))
        try:
            self.values = value_shift.of_spec(spec.value_trees, model_dir)
        except ValueError as exc:
            raise ModelError(f"growth_analyzer: {exc}") from None

    def exponent(self, s, metric: str, code: str) -> float:
        """The analyzer's exponent, blended with the trees' where the model ships them for `metric`,
        and with the entry's loop nest as written for the metrics of `nest_mix`; latency's corrected
        by the time-class trees where the model ships them."""
        if metric == "latency" and self.classes is not None:
            return self.classes.correct(s)
        g = s.growth(metric)
        fn = readers.reader().growth_features
        if self.trees is not None and metric in self.trees.metrics and fn is not None:
            row = np.array([s.features() + list(fn(code, self.trees.preprocess, ""))])
            blend = float(self.spec.trees["blend"]) if self.spec.trees else 0.0
            g = (1 - blend) * g + blend * float(self.trees.predict(row, metric)[0])
        return (g + s.nest) / 2 if metric in self.spec.nest_mix and s.nest > 0 else g

    def fold(self, predictions: dict[str, Prediction], code: str, pooled=None, outside: str = "",
             entry: str = "", helpers: str = "", language: str = "python") -> dict[str, Prediction]:
        """Each metric of `self.spec.metrics` with the analyzer's growth; `helpers` (the same-file
        functions `code` calls, `readers.HELPERS`) are read before it, `code`'s function the entry.
        A language with its own reader (C++, Java, Go) is read by its own front end, without the
        trees (they count Python's features)."""
        offset = helpers.count("\n")  # the function's line k is line offset + k of what was read
        code = helpers + code if helpers else code
        s = self.summary(code, entry, language)
        own = readers.own_normaliser(language) is not None
        if s is None:
            return predictions
        out = dict(predictions)
        legend = tuple(s.legend())
        exponent = functools.partial(_own_exponent, language=language) if own else self.exponent
        # the time classes were fitted and judged on Python (time-v7); another language's latency growth is
        # given where the config lists it in `own_latency` (poly-time-v1), else it keeps its value alone
        metrics = [m for m in self.spec.metrics if not (own and m == "latency" and self.classes is not None
                                                         and language not in self.spec.own_latency)]
        growth = {m: max(0.0, exponent(s, m, code)) for m in metrics if out.get(m) is not None or m == "latency"}
        at_own = "latency" in growth and (not own or language in self.spec.own_n_languages)
        own_n = self.own_n(growth["latency"]) if at_own else float(self.spec.reference_n)
        for metric in metrics:
            p = out.get(metric)
            if p is None:
                continue
            g = growth[metric]
            lo, hi = self.spec.sure if s.sure else self.spec.unsure
            grown = dataclasses.replace(
                p, growth=g, growth_low=max(0.0, g + lo), growth_high=g + hi, growth_samples=(),
                n=own_n, cost=s.text(metric), cost_legend=legend,
                cost_lines=tuple(k - offset for k in s.lines(metric) if k > offset), cost_unknown=s.unknown)
            out[metric] = floor(at(grown, float(self.spec.reference_n)), self.spec.memory_floor_bytes.get(language)
                                if metric == "memory" else None)
        return self.values.apply(s, out) if self.values is not None and not own else out

    def own_n(self, time_growth: float) -> float:
        """The n the RLM's number is for, from the time class the analyzer predicts."""
        if not self.spec.own_n:
            return float(self.spec.reference_n)
        return self.spec.own_n[bucket(time_growth)]


def floor(p: Prediction, per_element: float | None) -> Prediction:
    """`p` raised, with its interval, to what the allocation its growth reads takes at least: `per_element`
    bytes times n ** growth at its n (poly-mem-floor: an n×n int table at n = 10⁴ holds 4·10⁸ bytes,
    whatever the trees' whole-program values say). Unchanged where no floor is configured or it is below."""
    if per_element is None or p.growth is None or p.n is None:
        return p
    least = per_element * p.n ** p.growth
    if p.value >= least:
        return p
    return scaled(p, least / p.value)


def _own_exponent(s, metric: str, code: str, language: str) -> float:
    """A language with its own front end: the analyzer's exponent; latency's averaged with the text's
    deepest loop nest where it has a loop (poly-time-v1, judged on the Python twins' curves)."""
    g = s.growth(metric)
    if metric != "latency":
        return g
    depth = loop_depth(code, language)
    return (g + depth) / 2 if depth > 0 else g


@functools.lru_cache(maxsize=1024)
def loop_depth(code: str, language: str) -> float:
    """The deepest loop nest of `code`'s normalised text, as the language's code counts read it."""
    normalise, count, names = readers.own_normaliser(language), readers.own_counts(language), \
        readers.own_count_names(language)
    if normalise is None or count is None or not names or "loop_depth" not in names:
        return 0.0
    return float(count(normalise(code))[names.index("loop_depth")])


def _summary(code: str, entry: str, language: str = "python"):
    read = readers.own_cost(language) if readers.own_normaliser(language) is not None else readers.reader().cost
    return None if read is None else read(code, entry or None)


def of_config(config) -> CostGrowth | None:
    raw = config.raw.get("growth_analyzer")
    return None if raw is None else CostGrowth(AnalyzerSpec.parse(raw), config.path)
