"""User settings of the language server: parsed, validated, frozen.

They arrive as `initializationOptions` and then through `workspace/configuration`
(section `rlm`) or `workspace/didChangeConfiguration`. The VS Code extension sends
its `rlm.*` settings with the same keys. Unknown keys are ignored and a bad value
falls back to the default, so a typo in a user's settings never stops the server.

    {"modelPath": "", "device": "auto", "threads": 1, "debounceMs": 300,
     "metrics": {"memory": true, "latency": true},
     "features": {"inlayHints": true, "codeLens": false, "hover": true, "diagnostics": true},
     "budgets": {"memory": "512 MB", "latency": 200},      # number = the metric's unit
     "regressionRatio": null,                                 # null: [tool.rlm]'s (2.0); 0: off
     "gpu": "",                                               # Triton kernels: GPU to predict for
     "exclude": ["**/tests/**"],                              # globs: files that get nothing
     "logLevel": "warning",                                   # error | warning | info | debug
     "showNotifications": "off",                              # off | onError | onWarning | always
     "settleMs": 1500,                                        # regression warnings wait this long
     "n": null}                                               # the input size hints are for; null: the model's

Per-folder (resource-scoped) values come from `workspace/configuration` with each workspace
folder's `scopeUri`; a client without `workspace/configuration` (Neovim 0.7) gets what it sent
as `initializationOptions`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from rlm_lsp.policy import options
from rlm_lsp.runtime.sizes import parse_n
from rlm_lsp.server.globs import MAX_PATTERN, compile_glob

logger = logging.getLogger(__name__)

DEVICES = ("auto", "cpu", "cuda")
FEATURES = ("inlayHints", "codeLens", "hover", "diagnostics")
FEATURE_DEFAULTS = {"inlayHints": True, "codeLens": False, "hover": True, "diagnostics": True}
LOG_LEVELS = ("error", "warning", "info", "debug")
NOTIFICATIONS = ("off", "onError", "onWarning", "always")

# Budget strings: "512 MB", "1.5GB", "200 ms", "2 s", "300us".
_BUDGET = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ]*)\s*$")
_SCALE = {
    "": 1.0,
    "b": 1.0,
    "kb": 1e3,
    "mb": 1e6,
    "gb": 1e9,
    "tb": 1e12,
    "kib": 2**10,
    "mib": 2**20,
    "gib": 2**30,
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "ms": 1.0,
    "s": 1e3,
    "sec": 1e3,
    "min": 6e4,
}
_UNIT_OF_SUFFIX = {
    "b": "bytes",
    "kb": "bytes",
    "mb": "bytes",
    "gb": "bytes",
    "tb": "bytes",
    "kib": "bytes",
    "mib": "bytes",
    "gib": "bytes",
    "ns": "ms",
    "us": "ms",
    "µs": "ms",
    "ms": "ms",
    "s": "ms",
    "sec": "ms",
    "min": "ms",
}


@dataclass(frozen=True)
class Settings:
    model_path: str = ""  # "" -> the shipped default model
    device: str = "auto"
    threads: int = 1
    debounce_ms: int = 300
    metrics: Mapping[str, bool] = field(default_factory=dict)  # missing metric -> shown
    features: Mapping[str, bool] = field(default_factory=lambda: dict(FEATURE_DEFAULTS))
    budgets: Mapping[str, float | str] = field(default_factory=dict)  # metric -> budget (raw)
    regression_ratio: float | None = None  # None: the workspace's [tool.rlm] ratio (the gate's; 2.0)
    gpu: str = ""  # GPU the Triton kernel model predicts for ("" -> the model's default, e.g. A100)
    exclude: tuple[str, ...] = ()  # globs of files that get no hints, lenses or warnings
    log_level: str = ""  # "": the command line's --log-level (WARNING by default)
    show_notifications: str = "off"
    settle_ms: int = 1500  # a regression warning waits until the document was this long unchanged
    # The input size n the hints and hovers give values at (`rlm_lsp.runtime.sizes`); None: `[tool.rlm]`'s
    # n, else the model's reference n. A function's own `# rlm: n=...` comment goes before it.
    n: float | None = None

    def excluded(self, path: str, folder: str | None = None) -> str | None:
        """The first `exclude` glob matching `path` (relative to `folder` when inside it), or None.
        A pattern that starts with `/` is anchored, as in .gitignore: at the folder (`/demo.py`:
        that file only, what the quick fix writes), or an absolute path."""
        path = path.replace("\\", "/")
        candidates = [path]
        anchored = [path]
        if folder:
            folder = folder.replace("\\", "/").rstrip("/") + "/"
            if path.startswith(folder):
                candidates.insert(0, path[len(folder):])
                anchored.insert(0, "/" + path[len(folder):])
        for pattern in self.exclude:
            glob = compile_glob(pattern)
            if any(glob.match(c) for c in (anchored if pattern.startswith("/") else candidates)):
                return pattern
        return None

    def metric_enabled(self, metric: str) -> bool:
        return bool(self.metrics.get(metric, True))

    def feature_enabled(self, feature: str) -> bool:
        return bool(self.features.get(feature, FEATURE_DEFAULTS.get(feature, True)))

    def budget(self, metric: str, unit: str) -> float | None:
        """The budget of `metric` in `unit` ("bytes" or "ms"), or None when unset or unparsable."""
        raw = self.budgets.get(metric)
        if raw is None or raw == "":
            return None
        try:
            return parse_quantity(raw, unit)
        except ValueError as exc:
            logger.warning("ignoring budget for %s: %s", metric, exc)
            return None

    def model_key(self) -> tuple[str, str, int, str]:
        """What a loaded model depends on: a change of any of these reloads it."""
        return (self.model_path, self.device, self.threads, self.gpu)

    @classmethod
    def from_dict(cls, raw: Any, base: Settings | None = None) -> Settings:
        """Settings from a client's dict (`{"rlm": {...}}` or the section itself), over `base`."""
        base = base or cls()
        if not isinstance(raw, Mapping):
            return base
        if isinstance(raw.get("rlm"), Mapping):
            raw = raw["rlm"]
        values = {f.name: getattr(base, f.name) for f in fields(cls)}
        for key, name, check in _KEYS:
            if key not in raw or raw[key] is None:
                continue
            try:
                values[name] = check(raw[key])
            except (TypeError, ValueError) as exc:
                logger.warning("ignoring setting rlm.%s=%r: %s", key, raw[key], exc)
        return cls(**values)


def parse_quantity(raw: float | int | str, unit: str) -> float:
    """`parse_quantity("512 MB", "bytes")` -> 512e6; a bare number is taken in `unit`."""
    if isinstance(raw, bool):
        raise ValueError(f"not a quantity: {raw!r}")
    if isinstance(raw, (int, float)):
        return float(raw)
    match = _BUDGET.match(str(raw))
    if not match:
        raise ValueError(f"not a quantity: {raw!r}")
    number, suffix = float(match[1]), match[2].lower()
    if suffix not in _SCALE:
        raise ValueError(f"unknown unit {match[2]!r} in {raw!r}")
    if suffix and _UNIT_OF_SUFFIX[suffix] != unit:
        raise ValueError(f"{raw!r} is not in {unit}")
    return number * _SCALE[suffix]


def _str(v: Any) -> str:
    if not isinstance(v, str):
        raise TypeError("expected a string")
    return v.strip()


def _device(v: Any) -> str:
    v = _str(v).lower()
    if v not in DEVICES:
        raise ValueError(f"expected one of {', '.join(DEVICES)}")
    return v


def _int_range(lo: int, hi: int):
    def check(v: Any) -> int:
        if isinstance(v, bool):
            raise TypeError("expected an integer")
        n = int(v)
        if not lo <= n <= hi:
            raise ValueError(f"expected {lo}..{hi}")
        return n

    return check


def _bool_map(v: Any) -> dict[str, bool]:
    if not isinstance(v, Mapping):
        raise TypeError("expected an object of booleans")
    return {str(k): bool(b) for k, b in v.items()}


def _features(v: Any) -> dict[str, bool]:
    return {**FEATURE_DEFAULTS, **_bool_map(v)}


def _globs(v: Any) -> tuple[str, ...]:
    if isinstance(v, str):
        v = [v]
    if not isinstance(v, (list, tuple)) or not all(isinstance(g, str) for g in v):
        raise TypeError("expected a list of globs")
    if any(len(g) > MAX_PATTERN for g in v):
        raise ValueError(f"a glob longer than {MAX_PATTERN} characters")
    return tuple(g.strip() for g in v if g.strip())


def _choice(choices: tuple[str, ...]):
    def check(v: Any) -> str:
        found = {c.lower(): c for c in choices}.get(_str(v).lower())
        if found is None:
            raise ValueError(f"expected one of {', '.join(choices)}")
        return found

    return check


def _budgets(v: Any) -> dict[str, float | str]:
    if not isinstance(v, Mapping):
        raise TypeError("expected an object metric -> budget")
    return {str(k): b for k, b in v.items() if b is not None and b != ""}


def _ratio(v: Any) -> float:
    if isinstance(v, bool):
        raise TypeError("expected a number")
    r = float(v)
    if r != 0 and r <= 1:
        raise ValueError("expected a ratio above 1, or 0 for off")
    return r


def _n(v: Any) -> float | None:
    """`100000`, `"1e5"`, `"10**5"`; "" is unset (the next source's n)."""
    return None if isinstance(v, str) and not v.strip() else parse_n(v)


_KEYS = (
    ("modelPath", "model_path", _str),
    ("device", "device", _device),
    ("threads", "threads", _int_range(1, options.MAX_THREADS)),
    ("debounceMs", "debounce_ms", _int_range(0, 60_000)),
    ("metrics", "metrics", _bool_map),
    ("features", "features", _features),
    ("budgets", "budgets", _budgets),
    ("regressionRatio", "regression_ratio", _ratio),
    ("gpu", "gpu", _str),
    ("exclude", "exclude", _globs),
    ("logLevel", "log_level", _choice(LOG_LEVELS)),
    ("showNotifications", "show_notifications", _choice(NOTIFICATIONS)),
    ("settleMs", "settle_ms", _int_range(0, 60_000)),
    ("n", "n", _n),
)
