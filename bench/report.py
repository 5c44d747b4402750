"""What every benchmark shares: its section of docs/benchmarks.md, the machine line, a progress bar.

Each bench owns one section, fenced by `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`, and
rewrites only that one, so the benches can run in any order and by different people:

    from bench.report import add_write_flag, machine, progress, publish

    add_write_flag(parser)                       # --no-write: print the section only
    for case in progress(cases, desc="cases"):   # a bar with an ETA on a terminal, silent otherwise
        ...
    publish("lsp", markdown, write=not args.no_write)
"""

from __future__ import annotations

import argparse
import platform
import re
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TypeVar

DOC = Path(__file__).resolve().parents[1] / "docs" / "benchmarks.md"
HEAD = "# Benchmarks\n\nMedians and ratios measured side by side in one run on a noisy shared machine. Each section says the command that produced it.\n"

T = TypeVar("T")


def machine() -> str:
    from rlm_lsp.runtime.machine import cpu_model

    cpu = cpu_model("unknown CPU")
    return f"{cpu}, Python {platform.python_version()}"


def write_section(name: str, markdown: str, doc: Path = DOC) -> None:
    """Replace section `name` of `doc` (or append it), leaving every other section as it is."""
    text = doc.read_text() if doc.exists() else HEAD
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    block = f"{start}\n{markdown.strip()}\n{end}"
    pattern = re.compile(re.escape(start) + ".*?" + re.escape(end), re.S)
    text = pattern.sub(lambda _: block, text) if pattern.search(text) else text.rstrip() + "\n\n" + block + "\n"
    doc.parent.mkdir(exist_ok=True)
    doc.write_text(text)


def add_write_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-write", action="store_true",
                        help=f"print the section only; do not rewrite it in {DOC.relative_to(DOC.parents[1])}")


def publish(name: str, markdown: str, write: bool = True, doc: Path = DOC) -> None:
    """Print the section, and write it into docs/benchmarks.md unless told not to."""
    print(markdown)
    if write:
        write_section(name, markdown, doc)
        print(f"wrote the `{name}` section of {doc}", file=sys.stderr)


def progress(items: Iterable[T], desc: str, total: int | None = None, unit: str = "it") -> Iterator[T]:
    """`items`, with a tqdm bar (rate and ETA) on stderr when it is a terminal; nothing otherwise."""
    if not sys.stderr.isatty():
        yield from items
        return
    from tqdm import tqdm  # the dev and train extras have it

    yield from tqdm(items, desc=desc, total=total, unit=unit, file=sys.stderr, dynamic_ncols=True)


def bar(total: int, desc: str, unit: str = "it"):
    """A bar to `.update(n)` by hand (work done in another thread or process); silent off a terminal."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr, dynamic_ncols=True,
                disable=not sys.stderr.isatty())
