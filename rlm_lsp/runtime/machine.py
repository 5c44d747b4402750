"""What machine this is, for benchmark reports and measured rows: the one `/proc/cpuinfo` reader."""

from __future__ import annotations

from pathlib import Path

CPUINFO = Path("/proc/cpuinfo")


def cpu_model(default: str = "") -> str:
    """The CPU's model name ("AMD EPYC 7B13"); `default` where /proc/cpuinfo is absent or says none."""
    try:
        text = CPUINFO.read_text(errors="replace")
    except OSError:
        return default
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return default
