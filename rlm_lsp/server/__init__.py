"""The rlm language server (pygls): inlay hints, code lenses, hovers and diagnostics.

Entry points: `rlm serve`, `python -m rlm_lsp`, and the `rlm-lsp` script all call `main(argv)`.
Only this package imports pygls and lsprotocol. One stage a file: `entry.py` (process, logging),
`handlers.py` (one handler per LSP method), `server.py` (state), `worker.py` + `threads.py`
(the worker and the way back to the protocol thread), `protocol.py` (pygls' protocol, fixed),
`model.py` (loading), `preload.py` (the model loaded while the process starts), `progress.py`
(status, progress, pop-ups), `analysis.py`, and the pure features `hints`, `lens`, `hover`,
`diagnostics`, `words`.

`main` and `create_server` load lazily: `python -m rlm_lsp` starts `preload` before pygls and
lsprotocol are imported (about a second of Python), so the model loads meanwhile (#61).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__all__ = ["create_server", "main"]
_WHERE = {"main": "rlm_lsp.server.entry", "create_server": "rlm_lsp.server.handlers"}

if TYPE_CHECKING:
    from rlm_lsp.server.entry import main
    from rlm_lsp.server.handlers import create_server


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'rlm_lsp.server' has no attribute {name!r}")
