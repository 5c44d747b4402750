"""The server's command line, read before anything heavy is imported: `python -m rlm_lsp` checks it
before the model's preload starts, so a bad argument exits at once with one line (exit 2)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rlm serve", description="rlm language server (stdio by default)")
    p.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio")
    p.add_argument("--log-level", default=os.environ.get("RLM_LOG_LEVEL", "WARNING"))
    p.add_argument("--log-file", help="log here instead of stderr")
    return p


def parse(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The arguments; SystemExit(2) with argparse's message where they are wrong."""
    p = parser()
    args = p.parse_args(argv)
    port = (args.tcp or "").rpartition(":")[2]
    if args.tcp and (not port.isdigit() or not 0 < int(port) < 65536):
        p.error(f"--tcp wants HOST:PORT with a port from 1 to 65535, not {args.tcp!r}")
    return args
