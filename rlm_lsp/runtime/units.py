"""Compact, readable units for hints: 48 MB, 120 ms, 3.2 µs."""

from __future__ import annotations

_BYTES = (("GB", 1e9), ("MB", 1e6), ("kB", 1e3))
_MS = (("h", 3.6e6), ("min", 6e4), ("s", 1e3), ("ms", 1.0), ("µs", 1e-3), ("ns", 1e-6))


def _short(x: float) -> str:
    """Two or three significant digits, no trailing zeros: 48, 4.8, 0.48 -> '48', '4.8', '0.48'."""
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.0f}" if abs(x - round(x)) < 0.05 else f"{x:.1f}".rstrip("0").rstrip(".")
    return f"{x:.2g}" if x < 1 else f"{x:.1f}".rstrip("0").rstrip(".")


def format_value(unit: str, value: float) -> str:
    """`format_value("bytes", 48e6)` -> '48 MB'; `format_value("ms", 0.12)` -> '120 µs'."""
    if unit == "bytes":
        for name, size in _BYTES:
            if abs(value) >= size:
                return f"{_short(value / size)} {name}"
        return f"{value:.0f} B"
    if unit == "ms":
        for name, size in _MS:
            if abs(value) >= size:
                return f"{_short(value / size)} {name}"
        return f"{_short(value / 1e-6)} ns"
    return f"{_short(value)} {unit}"


def format_ratio(ratio: float) -> str:
    return f"{ratio:.1f}×" if ratio < 100 else f"{ratio:.0f}×"
