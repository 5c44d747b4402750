"""The rlm language server (pygls): inlay hints, code lenses, hovers and diagnostics.

Entry points: `rlm serve`, `python -m rlm_lsp`, and the `rlm-lsp` script all call `main(argv)`.
Only this package imports pygls and lsprotocol.
"""

from rlm_lsp.server.server import create_server, main

__all__ = ["create_server", "main"]
