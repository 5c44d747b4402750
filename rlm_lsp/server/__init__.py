"""The rlm language server (pygls): inlay hints, code lenses, hovers and diagnostics.

Entry points: `rlm serve`, `python -m rlm_lsp`, and the `rlm-lsp` script all call `main(argv)`.
Only this package imports pygls and lsprotocol. One stage a file: `entry.py` (process, logging),
`handlers.py` (one handler per LSP method), `server.py` (state), `worker.py` + `threads.py`
(the worker and the way back to the protocol thread), `model.py` (loading), `progress.py`
(status, progress, pop-ups), `analysis.py`, and the pure features `hints`, `lens`, `hover`,
`diagnostics`, `words`.
"""

from rlm_lsp.server.entry import main
from rlm_lsp.server.handlers import create_server

__all__ = ["create_server", "main"]
