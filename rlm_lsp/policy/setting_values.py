"""The values of single `[tool.rlm]` settings and their command-line twins, each parsed or refused
with a one-line ConfigError naming where it came from (`rlm_lsp.policy.project_config` reads the table)."""

from __future__ import annotations

import math
import re
from typing import Any

from rlm_lsp.policy import structural
from rlm_lsp.runtime.errors import ConfigError

MEASURE_MODES = ("flagged", "all")  # `measure = true` is "flagged": what the prediction flags


def parse_measure(value: Any, where: str) -> str | None:
    """`measure`: true ("flagged": what the prediction flags), false (None), "flagged" or "all"."""
    if value is True or value is False:
        return MEASURE_MODES[0] if value else None
    if isinstance(value, str) and value.lower() in MEASURE_MODES:
        return value.lower()
    raise ConfigError(f"{where}: expected true, false, \"flagged\" or \"all\", got {value!r}")


def parse_seconds(value: Any, where: str) -> float:
    """A positive number of seconds (`measure-budget`), as a number or its text."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = math.nan
    if isinstance(value, bool) or not math.isfinite(x) or x <= 0:
        raise ConfigError(f"{where}: expected a positive number of seconds, got {value!r}")
    return x


def parse_inputs(table: Any, where: str) -> dict[str, str]:
    """`[tool.rlm.inputs]`: function name (or `Class.method`) -> "module:make"."""
    if not isinstance(table, dict) or not all(isinstance(v, str) and re.fullmatch(r"[\w.]+:\w+", v)
                                              for v in table.values()):
        raise ConfigError(f'{where}: expected a table of function = "module:make", got {table!r}')
    return dict(table)


def parse_structural(value: Any, where: str) -> str | None:
    """`structural-growth`: true (the chosen rule, `structural.CHOSEN`), false, or a rule's name."""
    if value is True or value is False:
        return structural.CHOSEN if value else None
    if isinstance(value, str) and value.lower() in structural.VARIANTS:
        return value.lower()
    raise ConfigError(f"{where}: expected true, false or one of {', '.join(map(repr, structural.VARIANTS))}, got {value!r}")


def parse_confidence(value: Any, where: str) -> float:
    """A share of paired draws, 0 (the point estimates alone decide) to 1."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: expected a number from 0 to 1, got {value!r}") from None
    if isinstance(value, bool) or not 0 <= x <= 1:
        raise ConfigError(f"{where}: expected a number from 0 to 1, got {value!r}")
    return x
