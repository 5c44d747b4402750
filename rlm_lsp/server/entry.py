"""The server's entry point: `rlm serve`, `python -m rlm_lsp`, the `rlm-lsp` script.

Logging: once the client is connected, every record at or above the log level
(`--log-level`, then the client's `rlm.logLevel`) goes to it as `window/logMessage` with its own
level, so an editor shows a warning as a warning (stderr lines are shown as errors by
vscode-languageclient). Before that, and with `--log-file`, records go to stderr or the file.

Stdout is the JSON-RPC channel: main() moves it to a private file descriptor and points fd 1
at stderr, so a stray print from any library cannot corrupt the stream.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
from collections.abc import Sequence

from lsprotocol import types

from rlm_lsp.server import arguments, preload, transport
from rlm_lsp.server.handlers import create_server
from rlm_lsp.server.server import RlmServer

_KIND = ((logging.ERROR, types.MessageType.Error), (logging.WARNING, types.MessageType.Warning),
         (logging.INFO, types.MessageType.Info))


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments.parse(argv)
    host, _, port = (args.tcp or "").rpartition(":")

    preload.start()  # `rlm serve`, `rlm-lsp`: not started yet (python -m rlm_lsp started it before the imports)
    # Our own framing (transport.py), not pygls' start_io/start_tcp: those go deaf after one bad frame.
    server = create_server()
    client = _ClientLog(server)
    handler: logging.Handler = (
        logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    if not args.log_file:
        handler.addFilter(lambda record: not client.active())  # the client has them from then on
    root = logging.getLogger()
    for h in (handler, client):
        h.addFilter(transport.LogLimit())  # a flood of bad messages must not flood the log
        root.addHandler(h)
    root.setLevel(args.log_level.upper())
    logging.getLogger("pygls").setLevel(max(root.level, logging.WARNING))
    if args.tcp:
        try:
            # Loopback unless a host is named: the protocol has no authentication.
            rc = transport.run_tcp(server, host.strip("[]") or "127.0.0.1", int(port))
        except OSError as exc:
            print(f"rlm serve: cannot listen on {args.tcp}: {exc.strerror or exc}", file=sys.stderr)
            rc = 2
    else:
        rc = transport.run_stdio(server, sys.stdin.fileno(), _claim_stdout())
    _exit(server, rc)
    return rc  # not reached


def _exit(server: RlmServer, rc: int) -> None:
    """End the process now: stop the worker, flush, and os._exit.

    A normal interpreter exit while the worker thread is inside onnxruntime tears down
    onnxruntime's threads under it and aborts ("terminate called without an active
    exception", SIGABRT). os._exit skips that teardown; the worker gets a second to
    finish its current call first.
    """
    if server.worker is not None:
        server.worker.stop()
        server.worker.join(1.0)
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(rc)


class _ClientLog(logging.Handler):
    """Log records to the client, as window/logMessage of the record's level."""

    def __init__(self, server: RlmServer) -> None:
        super().__init__(logging.DEBUG)
        self.server = server
        self._inside = threading.local()

    def active(self) -> bool:
        return self.server.loop is not None and not self.server.loop.is_closed()

    def emit(self, record: logging.LogRecord) -> None:
        if not self.active() or getattr(self._inside, "yes", False):
            return
        kind = next((k for level, k in _KIND if record.levelno >= level), types.MessageType.Log)
        params = types.LogMessageParams(type=kind, message=f"{record.name}: {record.getMessage()}")
        self._inside.yes = True  # a record logged while sending this one stays out of the client
        try:
            self.server.on_loop(lambda: self.server.window_log_message(params))
        finally:
            self._inside.yes = False


def _claim_stdout():
    """Keep fd 1 for JSON-RPC only: dup it away, then send anything else written there to stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel
