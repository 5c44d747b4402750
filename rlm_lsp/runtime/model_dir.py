"""A model directory on disk, and `rlm_config.json` that describes it.

Loading checks everything before a session is built, so a missing, corrupt
or mismatched file fails with one message that names it:

    ModelError: model file missing: /path/decoder_model.onnx
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from rlm_lsp.runtime import model_schema, numbers, readers
from rlm_lsp.runtime.errors import ModelError  # noqa: F401 - its old home; callers import it from here
from rlm_lsp.runtime.prediction import GROWTH_SUFFIX

CONFIG_NAME = "rlm_config.json"
MODEL_FILES = (
    "encoder_model.onnx",
    "decoder_model.onnx",
    "decoder_with_past_model.onnx",
    "tokenizer.json",
)
FORMAT_VERSION = 1
DEFAULT_DIR = Path(__file__).parents[1] / "models" / "default"


POINT_ESTIMATES = ("median", "log_mean", "log_mean_rb")
TEMPERATURE_RANGE = (0.05, 10.0)  # sampling_temperature values a model directory may carry


@dataclass(frozen=True)
class MetricSpec:
    name: str
    unit: str
    definition: str
    grammar: numbers.Grammar = numbers.Grammar()  # how its numbers are written (sign, exponent, offset)
    # Its own sampling temperature (`rlm-export --growth-temperature`, a growth's interval
    # calibrated apart from the values'); None: the model's `temperature`.
    temperature: float | None = None

    @property
    def nonnegative(self) -> bool:  # decoding may only choose <+> for the sign
        return self.grammar.nonnegative

    @property
    def fixed_point(self) -> bool:  # decoded as ±d.ddd: the exponent token is always <E0>
        return self.grammar.fixed_point


@dataclass(frozen=True)
class TreesSpec:
    """The `feature_trees` entry of a config (`rlm_lsp.runtime.feature_trees`): the file, the normaliser
    its features read, and per metric it covers (agree, level, exponent)."""

    file: str
    preprocess: str
    checks: dict[str, tuple[float, float, float]]


@dataclass(frozen=True)
class ModelConfig:
    path: Path
    model_version: str
    metrics: tuple[MetricSpec, ...]
    input_template: str
    max_input_tokens: int
    languages: tuple[str, ...]
    preprocess: str
    decoder_start_token_id: int
    number_tokens: dict[str, int]
    training_data: dict = field(default_factory=dict)
    # Decoders exported with a number-only head: column j of their logits is token id
    # logits_token_ids[j]. None: the logits span the whole vocabulary.
    logits_token_ids: tuple[int, ...] | None = None
    # Sampling temperature (`rlm-export --temperature`): above 1 widens the p10-p90 interval
    # (better coverage), below 1 narrows it. 1.0 when the config does not say.
    temperature: float = 1.0
    # The number shown and compared: "median" of the samples, "log_mean" (their geometric mean,
    # which moves little when the distribution moves little), or "log_mean_rb" (the same with each
    # sample's exponent at its expectation: less noise again). "median" when not said.
    point_estimate: str = "median"
    # Token order of each number: P10 (exponent last) or P10E (exponent right after the sign).
    number_format: numbers.NumberFormat = numbers.P10
    # The decoding positions the shared draws are laid out for: a model shipped with its trailing
    # metrics cut (`rlm-export --metrics`) keeps the full model's, so the metrics it kept draw the
    # same uniforms and give the same numbers. None: the config's own metrics' positions.
    draw_positions: int | None = None
    # The feature trees the regression rule consults (`rlm_lsp.runtime.feature_trees`); None: none shipped.
    feature_trees: TreesSpec | None = None
    # A model whose template reads {n}: the size its numbers are for when the caller states none
    # (`rlm_lsp.runtime.template.n_field`). A model that predicts growth without reading n (the
    # anchor recipe, `training.learning.curve_rows.load_anchor_examples`): the size its numbers are
    # always for, moved from there along the growth. None: neither.
    reference_n: int | None = None
    raw: dict = field(default_factory=dict, repr=False)

    @property
    def positions(self) -> int:
        """Decoding positions: one number block per metric."""
        return numbers.TOKENS_PER_NUMBER * len(self.metrics)

    def position_temperatures(self) -> list[float]:
        """The sampling temperature at each decoding position: a metric's own, else the model's."""
        return [self.temperature if m.temperature is None else m.temperature
                for m in self.metrics for _ in range(numbers.TOKENS_PER_NUMBER)]

    @property
    def reads_n(self) -> bool:
        """Whether the template reads the size n (`{n}`): such a model is asked at a stated n, its
        size in the input text (`rlm_lsp.runtime.at_n`), never moved there along a growth exponent."""
        return "{n}" in self.input_template

    def n_for(self, context: Mapping | None = None) -> float | None:
        """The size the model's numbers are for: for a model that reads n (its template's {n}), the
        context's `n`, else its reference n; for one that predicts growth (a `<metric>_growth`) and
        names a reference n without reading n, that reference n, whatever the context (its callers
        move the numbers along the growth: `rlm_lsp.runtime.growth.at`); None for any other model."""
        if self.reads_n:
            return float((context or {}).get("n", self.reference_n))
        if self.reference_n is not None and any(m.name.endswith(GROWTH_SUFFIX) for m in self.metrics):
            return float(self.reference_n)
        return None

    @property
    def metric_names(self) -> list[str]:
        return [m.name for m in self.metrics]

    def metric(self, name: str) -> MetricSpec:
        for spec in self.metrics:
            if spec.name == name:
                return spec
        raise KeyError(name)

    @classmethod
    def load(cls, path: str | Path, verify_hashes: bool = True) -> ModelConfig:
        path = Path(path)
        if not path.is_dir():
            raise ModelError(f"model directory not found: {path}")
        config_file = path / CONFIG_NAME
        if not config_file.is_file():
            raise ModelError(f"model file missing: {config_file}")
        try:
            raw = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"model config is not valid JSON: {config_file}: {exc}") from None
        if not isinstance(raw, dict):
            raise ModelError(f"model config is not a JSON object: {config_file}")
        needed = required_files(raw)
        for name in needed:
            if not (path / name).is_file():
                raise ModelError(f"model file missing: {path / name}")
        try:
            config = cls._from_raw(path, raw)
        except model_schema.SchemaError as exc:  # its message names the key
            raise ModelError(f"model config {config_file} is invalid: {exc}") from None
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"model config {config_file} is invalid: {exc!r}") from None
        if verify_hashes:
            _verify_hashes(path, raw.get("files", {}), needed)
        return config

    @classmethod
    def _from_raw(cls, path: Path, raw: dict) -> ModelConfig:
        if raw.get("format_version") != FORMAT_VERSION:
            raise ValueError(f"format_version {raw.get('format_version')!r}, expected {FORMAT_VERSION}")
        model_schema.check(raw)
        number_format = numbers.NumberFormat.from_config(raw["number_format"])
        number_tokens = {str(k): int(v) for k, v in raw["number_tokens"].items()}
        missing = [t for t in numbers.ALL_TOKENS if t not in number_tokens]
        if missing:
            raise ValueError(f"number_tokens lacks {missing[:3]}")
        logits_ids = raw.get("logits_token_ids")
        if logits_ids is not None:
            logits_ids = tuple(int(i) for i in logits_ids)
            lacking = sorted(set(number_tokens.values()) - set(logits_ids))
            if lacking:
                raise ValueError(f"logits_token_ids lacks number token ids {lacking[:3]}")
        temperature = _temperature(raw)
        point_estimate = str(raw.get("point_estimate", "median"))
        if point_estimate not in POINT_ESTIMATES:
            raise ValueError(f"point_estimate {point_estimate!r}, expected one of {', '.join(POINT_ESTIMATES)}")
        metrics = tuple(MetricSpec(m["name"], m["unit"], m["definition"], numbers.Grammar.of(m),
                                   _temperature(m, f"metric {m['name']!r}: ") if "sampling_temperature" in m else None)
                        for m in raw["metrics"])
        if not metrics:
            raise ValueError("no metrics")
        return cls(
            path=path,
            model_version=str(raw["model_version"]),
            metrics=metrics,
            input_template=str(raw["input_template"]),
            max_input_tokens=int(raw["max_input_tokens"]),
            languages=tuple(raw.get("languages", ["python"])),
            preprocess=str(raw.get("preprocess", "none")),
            decoder_start_token_id=int(raw["decoder_start_token_id"]),
            number_tokens=number_tokens,
            training_data=dict(raw.get("training_data", {})),
            logits_token_ids=logits_ids,
            temperature=temperature,
            point_estimate=point_estimate,
            number_format=number_format,
            draw_positions=int(raw["draw_positions"]) if raw.get("draw_positions") is not None else None,
            feature_trees=trees_spec(raw, [m.name for m in metrics]),
            reference_n=int(raw["reference_n"]) if raw.get("reference_n") is not None else None,
            raw=raw,
        )


def check_temperature(temperature: float, what: str = "sampling_temperature") -> float:
    """`temperature` if it is one a model directory may carry (`TEMPERATURE_RANGE`), else ValueError."""
    low, high = TEMPERATURE_RANGE
    if not low <= temperature <= high:
        raise ValueError(f"{what} {temperature} outside {low:g}..{high:g}")
    return temperature


def _temperature(raw: dict, where: str = "") -> float:
    return check_temperature(float(raw.get("sampling_temperature", 1.0)), f"{where}sampling_temperature")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def required_files(raw: dict) -> tuple[str, ...]:
    """The files a model directory must hold: the graphs and tokenizer, and the feature trees
    (`rlm_lsp.runtime.feature_trees`) and growth trees (`rlm_lsp.runtime.growth`) where its config names them."""
    extra = []
    for entry in ("feature_trees", "growth_trees"):
        spec = raw.get(entry)
        if isinstance(spec, dict) and spec.get("file"):
            extra.append(str(spec["file"]))
    return MODEL_FILES + tuple(extra)


def _verify_hashes(path: Path, files: dict, names: tuple[str, ...] = MODEL_FILES) -> None:
    for name in names:
        expected = files.get(name)
        if expected is None:
            raise ModelError(f"model config lists no sha256 for {path / name}")
        if sha256_file(path / name) != expected:
            raise ModelError(f"model file is corrupt or was replaced (sha256 mismatch): {path / name}")


def trees_spec(raw: dict, metric_names: list[str] | None = None) -> TreesSpec | None:
    """The config's `feature_trees` entry, checked (ValueError naming it otherwise); None without
    one. Only the metrics in `metric_names` (all, when None) are kept."""
    spec = raw.get("feature_trees")
    if not spec:
        return None
    try:
        exponents = spec.get("exponent", {})
        if not all(isinstance(x, dict) for x in (spec.get("agree"), spec.get("level"), exponents)):
            raise TypeError("agree, level and exponent must map metrics to numbers")
        checks = {str(m): (float(spec["agree"][m]), float(spec["level"][m]), float(exponents.get(m, 1.0)))
                  for m in spec["agree"] if metric_names is None or m in metric_names}
        preprocess = str(spec.get("preprocess", raw.get("preprocess", "none")))
        if preprocess != raw.get("preprocess", "none"):  # predictions are cached by the model's text
            raise ValueError(f"the trees read {preprocess!r} text, the model {raw.get('preprocess')!r}")
        if list(spec.get("features", ())) != list(readers.reader().feature_names):
            raise ValueError("its features are not rlm_lsp.python.code_features.FEATURE_NAMES; fit the trees again")
        return TreesSpec(str(spec["file"]), preprocess, checks)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ValueError(f"feature_trees in {CONFIG_NAME} is invalid: {exc!r}") from None


def feature_tree_levels(path: Path = DEFAULT_DIR) -> dict[str, float]:
    """The confidence levels the model at `path` is judged at with its feature trees
    (`rlm_lsp.runtime.feature_trees`); {} where it ships none or its config cannot be read."""
    try:
        spec = trees_spec(json.loads((Path(path) / CONFIG_NAME).read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}
    return {} if spec is None else {m: level for m, (_, level, _) in spec.checks.items()}
