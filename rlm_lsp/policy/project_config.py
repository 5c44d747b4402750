"""Project settings: defaults, then `[tool.rlm]` in pyproject.toml, then the command line.

One reading for the gate and the language server (the editor layers its `rlm.*` settings on top).

```toml
[tool.rlm]
model = "models/rlm"               # model directory, relative to this file; default: the shipped model
metrics = ["memory", "latency"]    # metrics the gate judges (default: also kernel_latency)
gpu = "H100"                       # GPU that @triton.jit kernel latency is predicted for
ratio = 2.0                        # fail when new/old >= this, for every metric...
confidence = 0.7                   # ...and at least this share of the paired samples agree (0: the estimates alone,
                                   #    and the model's feature trees where it ships them; default: each metric's
                                   #    calibrated level, rlm_lsp.policy.rules.level_for: 0.5 with the shipped model's trees)
latency-ratio = 3.0                # ...or per metric: `<metric>-ratio`
memory-budget = "512 MB"           # fail when a new prediction exceeds this (new functions too)
latency-budget = "250 ms"          # sizes: B kB MB GB KiB MiB GiB; times: ns us µs ms s min
include = ["src/**"]               # only these paths (fnmatch on the repository-relative path)
exclude = ["tests/**", "*_pb2.py"]
fail-unjudged = true               # fail when a file cannot be judged (default false: a note only)
fail-inconclusive = true           # an inconclusive growth fails too (default false: reported only)
structural-growth = true           # a growth step read from the code, for models that predict no growth
                                   #    (rlm_lsp.policy.structural: true is its chosen rule S1, or "s0" / "s1" /
                                   #    "s2", the cost analyzer's step; default off)
n = "10**5"                        # the input size `rlm predict` and the editor give values at (default: the
                                   #    model's reference n; rlm_lsp.runtime.sizes); the gate compares at the reference n
measure = true                     # the gate measures what the prediction flags, in the sandbox ("all": every
                                   #    changed function; default false; `rlm gate --measure`, docs/measuring.md)
measure-budget = 60                # seconds all measuring of one gate run may take (default 60)

[tool.rlm.inputs]                  # `rlm measure`: a function's inputs from `make(n) -> tuple of arguments`
parse_log = "bench.inputs:make_log"    # (module importable from this file's folder; docs/measuring.md)

[tool.rlm.budgets]                 # budgets per path glob: the first glob that matches a file wins
"src/hot/**" = { latency = "10 ms", memory = "64 MB" }
```

Keys may be spelled with `-` or `_`. Keys the gate does not know are left to the other
`rlm` tools that share the table. A pattern matches the whole repository-relative posix
path, `*` also crosses `/`, and a pattern without `/` also matches the file name alone.
"""

from __future__ import annotations

import difflib
import fnmatch
import math
import re

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rlm_lsp.policy import rules, structural
from rlm_lsp.policy.setting_values import (  # noqa: F401 - MEASURE_MODES: for callers
    MEASURE_MODES,
    parse_confidence,
    parse_inputs,
    parse_measure,
    parse_seconds,
    parse_structural,
)
from rlm_lsp.runtime import sizes, source_text
from rlm_lsp.runtime.errors import ConfigError, FileProblem  # noqa: F401 - ConfigError's old home; callers import it from here

DEFAULT_RATIO = 2.0
MAX_CONFIG_BYTES = 10_000_000  # a pyproject.toml is kilobytes; this only stops a runaway file
DEFAULT_METRICS = ("memory", "latency", "kernel_latency")  # kernel_latency: @triton.jit kernels
DEFAULT_MEASURE_BUDGET_S = 60.0

_SIZE_UNITS = {
    "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
    "kib": 2.0**10, "mib": 2.0**20, "gib": 2.0**30, "tib": 2.0**40,
}  # fmt: skip
_TIME_UNITS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "μs": 1e-3, "ms": 1.0, "s": 1e3, "sec": 1e3, "min": 6e4}
_QUANTITY = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµμ]*)\s*$")


@dataclass(frozen=True)
class Budget:
    """An absolute ceiling, in the metric's base unit ("bytes" or "ms")."""

    value: float
    unit: str  # "bytes" | "ms" | "" when given as a bare number (taken in the metric's unit)
    text: str  # as written, for messages


@dataclass(frozen=True)
class GateConfig:
    metrics: tuple[str, ...] = DEFAULT_METRICS
    default_ratio: float = DEFAULT_RATIO
    ratios: dict[str, float] = field(default_factory=dict)  # metric -> ratio; missing -> default_ratio
    budgets: dict[str, Budget] = field(default_factory=dict)
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    model: str | None = None  # absolute path, or None for the shipped model
    gpu: str | None = None  # the GPU kernel latency is predicted for; None: the kernel model's default
    fail_unjudged: bool = False  # a file the gate cannot judge (syntax error, undecodable) fails the gate
    confidence: float | None = None  # share of paired draws over the ratio; None: each metric's (rules.level_for)
    fail_inconclusive: bool = False  # an inconclusive growth (estimates past the ratio, model unsure) fails
    path_budgets: tuple[tuple[str, dict[str, Budget]], ...] = ()  # (glob, metric -> budget), in file order
    structural_growth: str | None = structural.DEFAULT  # rule S's variant (`structural`); None: off
    n: float | None = None  # the input size values are shown at (`rlm predict`, the editor); None: the model's
    inputs: dict[str, str] = field(default_factory=dict)  # function -> "module:make", for `rlm measure`
    measure: str | None = None  # the gate measures: "flagged", "all" (MEASURE_MODES); None: it predicts only
    measure_budget: float = DEFAULT_MEASURE_BUDGET_S  # seconds all of one gate run's measuring may take
    source: str | None = None  # the pyproject.toml read, for messages
    unknown: tuple[str, ...] = ()  # settings it does not know, as said in a note (`'ratoi' (did you mean 'ratio'?)`)

    def ratio(self, metric: str) -> float:
        return self.ratios.get(metric, self.default_ratio)

    def level(self, metric: str, *predictions) -> float:
        """The confidence level `metric` is judged at (`rlm_lsp.policy.rules.level_for`; the old and new
        `predictions` say whether the model's feature trees judge with it)."""
        return rules.level_for(metric, self.confidence, *predictions)

    def budget_for(self, metric: str, path: str) -> tuple[Budget | None, str]:
        """The budget `metric` of the file `path` meets, and where it comes from: the first
        `[tool.rlm.budgets]` glob that matches the path and names the metric, else the global one."""
        for pattern, budgets in self.path_budgets:
            if metric in budgets and _glob_match(path, pattern):
                return budgets[metric], f"budgets {pattern!r}"
        budget = self.budgets.get(metric)
        return budget, (f"{metric.replace('_', '-')}-budget" if budget is not None else "")

    def ratio_source(self, metric: str) -> str:
        """Which setting the ratio of `metric` comes from, for the report."""
        return f"{metric.replace('_', '-')}-ratio" if metric in self.ratios else "ratio"

    def wants(self, path: str) -> bool:
        """Whether the include/exclude globs let this repository-relative path through."""
        if self.include and not any(_glob_match(path, p) for p in self.include):
            return False
        return not any(_glob_match(path, p) for p in self.exclude)


def parse_quantity(text: str | float | int, where: str) -> Budget:
    """'512 MB' -> Budget(512e6, 'bytes'); '2 s' -> Budget(2000, 'ms'); 300 -> Budget(300, '')."""
    if isinstance(text, bool) or not isinstance(text, str | int | float):
        raise ConfigError(f"{where}: expected a number or a quantity like '512 MB' or '200 ms', got {text!r}")
    if isinstance(text, int | float):
        value, unit = float(text), ""
    else:
        match = _QUANTITY.match(text)
        if not match:
            raise ConfigError(f"{where}: expected a quantity like '512 MB' or '200 ms', got {text!r}")
        number, suffix = float(match[1]), match[2]
        key = suffix.lower()
        if not suffix:
            value, unit = number, ""
        elif key in _SIZE_UNITS:
            value, unit = number * _SIZE_UNITS[key], "bytes"
        elif key in _TIME_UNITS:
            value, unit = number * _TIME_UNITS[key], "ms"
        else:
            raise ConfigError(
                f"{where}: unknown unit {suffix!r} in {text!r} (sizes: B kB MB GB MiB GiB; times: ns us ms s)"
            )
    if not math.isfinite(value) or value < 0:
        raise ConfigError(f"{where}: must be a finite non-negative amount, got {text!r}")
    return Budget(value, unit, str(text))


def parse_ratio(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ConfigError(f"{where}: expected a number > 1, got {value!r}")
    try:
        ratio = float(value)
    except ValueError:
        raise ConfigError(f"{where}: expected a number > 1, got {value!r}") from None
    if not ratio > 1.0 or not math.isfinite(ratio):  # inf would switch the ratio off in silence
        raise ConfigError(f"{where}: a ratio must be a finite number greater than 1, got {value!r}")
    return ratio


def find_pyproject(start: Path) -> Path | None:
    """The pyproject.toml at `start` (the repository root), if any."""
    candidate = start / "pyproject.toml"
    return candidate if candidate.is_file() else None


def load(pyproject: Path | None) -> GateConfig:
    """Defaults overlaid with `[tool.rlm]` of `pyproject` (None: defaults only)."""
    if pyproject is None:
        return GateConfig()
    return from_table(read_table(pyproject), base_dir=pyproject.parent, source=str(pyproject))


def from_text(data: bytes, base_dir: Path, source: str) -> GateConfig:
    """`load` of a pyproject.toml's bytes (the base's, read from git); ConfigError when they are not one."""
    try:
        tool = tomllib.loads(data.decode("utf-8")).get("tool", {})
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{source}: cannot read: {exc}") from None
    table = tool.get("rlm", {}) if isinstance(tool, dict) else None
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.rlm] must be a table")
    return from_table(table, base_dir=base_dir, source=source)


def read_table(pyproject: Path) -> dict[str, Any]:
    """The `[tool.rlm]` table of `pyproject` ({} without one); ConfigError when it cannot be read."""
    try:
        # A FIFO or a device named as the config would block or never end: checked before reading.
        data = tomllib.loads(source_text.read_bytes(pyproject, MAX_CONFIG_BYTES).decode("utf-8"))
    except (FileProblem, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{pyproject}: cannot read: {exc}") from None
    tool = data.get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{pyproject}: tool: expected a table ([tool.rlm]), got {tool!r}")
    table = tool.get("rlm", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{pyproject}: [tool.rlm] must be a table")
    return table


def nearest_pyproject(path: Path) -> Path | None:
    """The pyproject.toml of the nearest folder above `path`, as the editor finds a document's."""
    return next((found for d in path.resolve().parents if (found := find_pyproject(d))), None)


def parse_n(value: Any, where: str) -> float:
    """`n` as `rlm_lsp.runtime.sizes.parse_n` reads it; ConfigError naming `where` otherwise."""
    try:
        return sizes.parse_n(value)
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None


KEYS = frozenset({"ratio", "metrics", "include", "exclude", "gpu", "confidence", "fail-unjudged", "fail-inconclusive",
                  "structural-growth", "budgets", "n", "model", "inputs", "measure", "measure-budget"})


def from_table(table: dict[str, Any], base_dir: Path, source: str = "[tool.rlm]") -> GateConfig:
    settings = {key.replace("_", "-"): value for key, value in table.items()}
    config = GateConfig(source=source)
    ratios: dict[str, float] = {}
    budgets: dict[str, Budget] = {}
    unknown = []
    for key in settings:  # ignored, but said: a typo would otherwise set nothing without a word (issue 61.9)
        if key not in KEYS and not key.endswith(("-ratio", "-budget")):
            near = difflib.get_close_matches(key, [*KEYS, "memory-ratio", "latency-budget"], n=1)
            unknown.append(f"{key!r}" + (f" (did you mean {near[0]!r}?)" if near else ""))
    config = replace(config, unknown=tuple(unknown))
    for key, value in settings.items():
        where = f"{source}: {key}"
        if key == "ratio":
            config = replace(config, default_ratio=parse_ratio(value, where))
        elif key.endswith("-ratio"):
            ratios[key.removesuffix("-ratio").replace("-", "_")] = parse_ratio(value, where)
        elif key.endswith("-budget") and key != "measure-budget":
            budgets[key.removesuffix("-budget").replace("-", "_")] = parse_quantity(value, where)
    if "metrics" in settings:
        config = replace(config, metrics=_strings(settings["metrics"], f"{source}: metrics"))
    if "include" in settings:
        config = replace(config, include=_strings(settings["include"], f"{source}: include"))
    if "exclude" in settings:
        config = replace(config, exclude=_strings(settings["exclude"], f"{source}: exclude"))
    if "gpu" in settings:
        gpu = settings["gpu"]
        if not isinstance(gpu, str) or not gpu:
            raise ConfigError(f"{source}: gpu: expected a GPU name like 'H100', got {gpu!r}")
        config = replace(config, gpu=gpu)
    if "confidence" in settings:
        config = replace(config, confidence=parse_confidence(settings["confidence"], f"{source}: confidence"))
    for key in ("fail-unjudged", "fail-inconclusive"):
        if key in settings:
            value = settings[key]
            if not isinstance(value, bool):
                raise ConfigError(f"{source}: {key}: expected true or false, got {value!r}")
            if key == "fail-unjudged":
                config = replace(config, fail_unjudged=value)
            else:
                config = replace(config, fail_inconclusive=value)
    if "structural-growth" in settings:
        config = replace(config, structural_growth=parse_structural(settings["structural-growth"], f"{source}: structural-growth"))
    if "budgets" in settings:
        config = replace(config, path_budgets=_path_budgets(settings["budgets"], f"{source}: budgets"))
    if "n" in settings:
        config = replace(config, n=parse_n(settings["n"], f"{source}: n"))
    if "inputs" in settings:
        config = replace(config, inputs=parse_inputs(settings["inputs"], f"{source}: inputs"))
    if "measure" in settings:
        config = replace(config, measure=parse_measure(settings["measure"], f"{source}: measure"))
    if "measure-budget" in settings:
        config = replace(config, measure_budget=parse_seconds(settings["measure-budget"], f"{source}: measure-budget"))
    if "model" in settings:
        model = settings["model"]
        if not isinstance(model, str) or not model:
            raise ConfigError(f"{source}: model: expected a path, got {model!r}")
        config = replace(config, model=str((base_dir / model).resolve()))
    return replace(config, ratios=ratios, budgets=budgets)


def override(
    config: GateConfig,
    *,
    ratios: list[str] | None = None,
    budgets: list[str] | None = None,
    metrics: str | None = None,
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    model: str | None = None,
    gpu: str | None = None,
    fail_unjudged: bool | None = None,
    confidence: str | None = None,
    fail_inconclusive: bool | None = None,
    measure: str | None = None,
    measure_budget: str | None = None,
) -> GateConfig:
    """Command-line values on top: `--ratio 3` (every metric) or `--ratio memory=3`,
    `--budget latency=200ms`, `--metrics memory`; include/exclude replace the file's lists."""
    new_ratios = dict(config.ratios)
    for item in ratios or []:
        metric, _, value = item.rpartition("=")
        if metric:
            new_ratios[metric] = parse_ratio(value, f"--ratio {item}")
        else:  # one ratio for every metric replaces the file's per-metric ones
            config = replace(config, default_ratio=parse_ratio(value, f"--ratio {item}"))
            new_ratios = {}
    new_budgets = dict(config.budgets)
    for item in budgets or []:
        metric, sep, value = item.partition("=")
        if not sep or not metric:
            raise ConfigError(f"--budget {item}: expected METRIC=AMOUNT, e.g. memory=512MB")
        new_budgets[metric] = parse_quantity(value, f"--budget {item}")
    config = replace(config, ratios=new_ratios, budgets=new_budgets)
    if metrics is not None:
        config = replace(config, metrics=tuple(m.strip() for m in metrics.split(",") if m.strip()))
    if include:
        config = replace(config, include=tuple(include))
    if exclude:
        config = replace(config, exclude=tuple(exclude))
    if model is not None:
        config = replace(config, model=str(Path(model).resolve()))
    if gpu is not None:
        config = replace(config, gpu=gpu)
    if fail_unjudged is not None:
        config = replace(config, fail_unjudged=fail_unjudged)
    if fail_inconclusive is not None:
        config = replace(config, fail_inconclusive=fail_inconclusive)
    if confidence is not None:
        config = replace(config, confidence=parse_confidence(confidence, f"--confidence {confidence}"))
    if measure is not None:
        config = replace(config, measure=parse_measure(measure, f"--measure={measure}"))
    if measure_budget is not None:
        config = replace(config, measure_budget=parse_seconds(measure_budget, f"--measure-budget {measure_budget}"))
    return config


def _path_budgets(table: Any, where: str) -> tuple[tuple[str, dict[str, Budget]], ...]:
    """`{"src/hot/**": {latency = "10 ms"}}` -> (("src/hot/**", {"latency": Budget(10, "ms")}),)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: expected a table of path globs, e.g. \"src/hot/**\" = {{ latency = \"10 ms\" }}, "
                          f"got {table!r}")
    out = []
    for pattern, budgets in table.items():
        if not isinstance(budgets, dict) or not budgets:
            raise ConfigError(f"{where}: {pattern!r}: expected a table like {{ latency = \"10 ms\" }}, got {budgets!r}")
        parsed = {metric.replace("-", "_"): parse_quantity(value, f"{where}: {pattern!r}: {metric}")
                  for metric, value in budgets.items()}
        out.append((pattern, parsed))
    return tuple(out)


MAX_GLOBS, MAX_GLOB_CHARS = 200, 400  # a repository's own settings must not make every path check slow


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: expected a list of strings, got {value!r}")
    if len(value) > MAX_GLOBS or any(len(v) > MAX_GLOB_CHARS for v in value):
        raise ConfigError(f"{where}: at most {MAX_GLOBS} patterns of at most {MAX_GLOB_CHARS} characters each")
    return tuple(value)


def _glob_match(path: str, pattern: str) -> bool:
    pattern = pattern.removeprefix("./")
    if pattern.endswith("/"):
        pattern += "*"
    if fnmatch.fnmatchcase(path, pattern):
        return True
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    if pattern.startswith("**/"):
        return fnmatch.fnmatchcase(path, pattern[3:])
    return False
