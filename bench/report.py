"""Writes one benchmark's section of docs/benchmarks.md, leaving the other sections alone."""

from __future__ import annotations

import platform
import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEAD = "# Benchmarks\n\nMedians and ratios measured side by side in one run on a noisy shared machine. Each section says the command that produced it.\n"


def machine() -> str:
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, Python {platform.python_version()}"


def write_section(name: str, markdown: str) -> None:
    text = DOC.read_text() if DOC.exists() else HEAD
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{markdown.strip()}\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    DOC.parent.mkdir(exist_ok=True)
    DOC.write_text(text)
