"""The rlm language server: state, wiring and the entry point.

Thread model:
- the protocol thread (the asyncio loop of transport.py, feeding pygls' protocol) handles every message and only reads
  caches and enqueues work, so no request ever waits for the model;
- one worker thread (worker.py) loads the model and runs inference after a
  per-document debounce, then hands results back to the loop thread, which
  publishes diagnostics and asks the client to refresh hints and lenses.

State: `versions[uri]` is the latest version the client sent; `results[uri]` is
the newest finished analysis. A result for an older version than `versions[uri]`
is dropped. Hint, lens and hover requests filter `results` (see analysis.still_valid).

Stdout is the JSON-RPC channel: main() moves it to a private file descriptor and
points fd 1 at stderr, so a stray print from any library cannot corrupt the stream.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import logging
import os
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from lsprotocol import types
from pygls.exceptions import JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import to_fs_path, uri_scheme

from rlm_lsp.server import diagnostics as diagnostics_feature
from rlm_lsp.server import hints as hints_feature
from rlm_lsp.server import hover as hover_feature
from rlm_lsp.server import lens as lens_feature
from rlm_lsp.server import transport
from rlm_lsp.server.analysis import Analyzer, FunctionResult, skip_reason
from rlm_lsp.server.git_head import HeadSource
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.worker import Worker
from rlm_lsp.snippets import extract

logger = logging.getLogger("rlm_lsp.server")

NAME = "rlm-lsp"
STATUS_NOTIFICATION = "rlm/status"  # {"state": "loading"|"ready"|"working"|"error", "message": str}
_CLIENT_WAIT_S = 5.0
FIRST_BATCH = 8  # new functions predicted before the first results land (visible ones first)


@dataclass(frozen=True)
class DocResults:
    version: int
    functions: tuple[FunctionResult, ...]
    lines: tuple[str, ...]  # the analysed text, for client columns of published diagnostics


class _Protocol(LanguageServerProtocol):
    """pygls 2.1 keeps the Future of every notification handled by a generator handler
    (didOpen, didChange, didClose, ...) in `_request_futures` for good: one per keystroke.
    Drop each such Future once it is done, so memory does not grow with the number of edits.

    Lifecycle, as the spec asks: a request before `initialize` gets ServerNotInitialized
    (-32002), one after `shutdown` gets InvalidRequest; notifications then are dropped,
    except `exit` (pygls exits 0 after `shutdown`, 1 without)."""

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is not None and method != types.EXIT:
            error = None
            if self._workspace is None and method != types.INITIALIZE:
                error = JsonRpcServerNotInitialized("server not initialized")
            elif self._shutdown:
                error = JsonRpcInvalidRequest("server is shutting down")
            if error is not None:
                if hasattr(message, "id"):  # a request; a notification is dropped
                    self._send_response(message.id, error=error.to_response_error())
                return
        super().handle_message(message)

    def _handle_notification(self, method_name: str, params: Any) -> None:
        before = set(self._request_futures)
        super()._handle_notification(method_name, params)
        for key in set(self._request_futures) - before:
            future = self._request_futures.get(key)
            if future is not None:
                future.add_done_callback(lambda _f, key=key: self._request_futures.pop(key, None))


class RlmServer(LanguageServer):
    def __init__(self) -> None:
        from rlm_lsp import __version__

        super().__init__(
            NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=_Protocol,
        )
        self.settings = Settings()
        self.versions: dict[str, int] = {}
        self.results: dict[str, DocResults] = {}
        self.visible: dict[str, tuple[int, int]] = {}  # uri -> lines of the last inlay-hint request
        self.analyzer: Analyzer | None = None
        self.model_error: str | None = None
        self.head = HeadSource()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.worker: Worker | None = None
        self._model_key: tuple | None = None
        self._shown_errors: set[str] = set()
        self._status: str | None = None
        self.model_desc = ""  # "model tiny-test-0 on cpu", for the client's status
        self._progress_n = 0

    # --- client capabilities -------------------------------------------------------------

    def _cap(self, *path: str) -> Any:
        node: Any = getattr(self.protocol, "client_capabilities", None)  # None before initialize
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return None
        return node

    # --- threads ---------------------------------------------------------------------------

    def on_loop(self, fn: Callable[[], Any]) -> None:
        """Run `fn` on the protocol thread: every message to the client goes out from there."""
        if self.loop is None or threading.current_thread() is threading.main_thread():
            fn()  # no loop yet (in-process use) or already on it
        else:
            try:
                self.loop.call_soon_threadsafe(_logged(fn))
            except RuntimeError:  # the loop closed: the server is exiting
                pass

    def _call_on_loop(self, fn: Callable[[], Any]) -> concurrent.futures.Future:
        fut: concurrent.futures.Future = concurrent.futures.Future()

        def run() -> None:
            try:
                fut.set_result(fn())
            except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
                fut.set_exception(exc)

        if self.loop is None:
            run()
        else:
            self.loop.call_soon_threadsafe(run)
        return fut

    # --- documents (protocol thread) -----------------------------------------------------

    def document_changed(self, uri: str, version: int, delay_s: float) -> None:
        self.versions[uri] = version
        text = self.workspace.get_text_document(uri).source
        assert self.worker is not None
        self.worker.schedule(uri, (version, text), delay_s)

    def document_closed(self, uri: str) -> None:
        self.versions.pop(uri, None)
        self.visible.pop(uri, None)
        self.results.pop(uri, None)
        if self.worker is not None:
            self.worker.cancel(uri)
            analyzer = self.analyzer
            if analyzer is not None:
                self.worker.call(lambda: analyzer.forget(uri))
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    def reanalyze_all(self, delay_s: float = 0.0) -> None:
        for uri in list(self.versions):
            if uri in self.versions:
                self.document_changed(uri, self.versions[uri], delay_s)

    def cached(self, uri: str) -> tuple[tuple[FunctionResult, ...], tuple[str, ...]]:
        """(results, current lines) for a request; empty when nothing is cached."""
        res = self.results.get(uri)
        if res is None or uri not in self.versions:
            return (), ()
        doc = self.workspace.get_text_document(uri)
        lines = res.lines if doc.version == res.version else tuple(doc.lines)
        return res.functions, lines

    def client_col(self, lines: Sequence[str]) -> Callable[[int, int], int]:
        codec = self.workspace.position_codec

        def col(line: int, char: int) -> int:
            text = lines[line] if 0 <= line < len(lines) else ""
            prefix = text[:char]
            return char if prefix.isascii() else codec.client_num_units(prefix)

        return col

    # --- settings (protocol thread) ------------------------------------------------------

    def apply_settings(self, new: Settings) -> None:
        old, self.settings = self.settings, new
        logger.info("settings: %s", new)
        if self.worker is None:
            return
        if self._model_key is None or new.model_key() != old.model_key() or self.model_error:
            self.worker.call(self._load_model)  # also retries a model that failed to load
            return
        # Presentation only: redraw from the cache, no inference.
        for uri, res in list(self.results.items()):
            self._publish(uri, res)
        self._refresh()

    async def pull_settings(self) -> Settings | None:
        if not self._cap("workspace", "configuration"):
            return None
        try:
            items = await asyncio.wait_for(
                self.workspace_configuration_async(
                    types.ConfigurationParams(items=[types.ConfigurationItem(section="rlm")])
                ),
                _CLIENT_WAIT_S,
            )
        except Exception as exc:  # noqa: BLE001 - a client without settings is fine
            logger.info("workspace/configuration failed: %s", exc)
            return None
        if not items or not isinstance(items[0], dict):
            return None
        return Settings.from_dict(items[0], self.settings)

    # --- model (worker thread) -----------------------------------------------------------

    def _load_model(self) -> None:
        settings = self.settings
        key = settings.model_key()
        if key == self._model_key and self.model_error is None:
            return
        self._model_key = key
        self.analyzer = None
        self.set_status("loading", "loading the model")
        token = self._progress_begin("Loading the rlm model")
        started = time.perf_counter()
        try:
            from rlm_lsp import Predictor

            kw = {"device": settings.device, "threads": settings.threads}
            predictor = (
                Predictor.from_dir(settings.model_path, **kw) if settings.model_path else Predictor.default(**kw)
            )
            predictor = _with_kernel_model(predictor, settings)
            analyzer = Analyzer(predictor)
        except Exception as exc:  # noqa: BLE001 - ModelError, onnxruntime errors: all mean "no model"
            logger.error("cannot load the model: %s", exc)
            self.model_error = (
                f"rlm: cannot load the model ({exc}). "
                "Predictions are off until rlm.modelPath points to a valid model directory."
            )
            self._progress_end(token, "model failed to load")
            self.set_status("error", str(exc))
            self._show_once(self.model_error)
            self._clear_all()
            return
        self.analyzer, self.model_error = analyzer, None
        version = getattr(predictor.config, "model_version", "?")
        where = f"model {version} on {getattr(predictor, 'device', settings.device)}"
        logger.info("%s loaded in %.2fs", where, time.perf_counter() - started)
        self.model_desc = where
        self._progress_end(token, f"{where} loaded")
        self.set_status("ready", where)
        self.on_loop(self.reanalyze_all)

    def _clear_all(self) -> None:
        def clear() -> None:
            for uri in list(self.results):
                self.results.pop(uri, None)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            self._refresh()

        self.on_loop(clear)

    def _progress_begin(self, title: str) -> str | None:
        if not self._cap("window", "work_done_progress") or self.loop is None:
            return None
        self._progress_n += 1
        token = f"rlm-model-load-{self._progress_n}"
        try:
            created = self._call_on_loop(lambda: self.work_done_progress.create(token))
            created.result(_CLIENT_WAIT_S).result(_CLIENT_WAIT_S)
        except Exception as exc:  # noqa: BLE001 - no progress bar is not an error
            logger.info("work done progress not created: %s", exc)
            return None
        begin = types.WorkDoneProgressBegin(title=title, cancellable=False, message="loading")
        self.on_loop(lambda: self.work_done_progress.begin(token, begin))
        return token

    def _progress_end(self, token: str | None, message: str) -> None:
        if token is not None:
            end = types.WorkDoneProgressEnd(message=message)
            self.on_loop(lambda: self.work_done_progress.end(token, end))

    def set_status(self, state: str, message: str = "") -> None:
        if state == self._status:
            return
        self._status = state
        self.on_loop(lambda: self.protocol.notify(STATUS_NOTIFICATION, {"state": state, "message": message}))

    def _show_once(self, message: str) -> None:
        if message in self._shown_errors:
            return
        self._shown_errors.add(message)
        params = types.ShowMessageParams(type=types.MessageType.Error, message=message)
        self.on_loop(lambda: self.window_show_message(params))

    # --- analysis (worker thread) --------------------------------------------------------

    def analyze_job(self, uri: str, payload: tuple[int, str]) -> None:
        version, text = payload
        analyzer = self.analyzer
        if self.versions.get(uri) != version or analyzer is None:
            return  # outdated, or no model (a load re-schedules every open document)
        reason = skip_reason(text)
        if reason is not None:
            logger.info("%s: no hints (%s)", uri, reason)
            self._land(uri, DocResults(version, (), ()))
            return
        self.set_status("working", "predicting")
        try:
            path = to_fs_path(uri) if uri_scheme(uri) == "file" else None
            head_text = self.head.text(path) if path else None
            snippets = extract(text)
            lines = tuple(text.splitlines(True))
            limit = FIRST_BATCH
            while True:
                # Many new functions (a file just opened, a big paste): land the visible ones
                # first, then the rest in growing batches (a few refreshes, not one per function),
                # dropping the work as soon as a newer version of the document arrives.
                functions = analyzer.analyze(uri, text, head_text, snippets, limit=limit, visible=self.visible.get(uri))
                if not analyzer.pending:
                    break
                self._land(uri, DocResults(version, tuple(functions), lines))
                if self.versions.get(uri) != version:
                    return
                limit *= 8
        except Exception as exc:  # noqa: BLE001 - a failing model must not take the server down
            logger.exception("prediction failed for %s", uri)
            self._show_once(f"rlm: prediction failed ({type(exc).__name__}); see the server log.")
            self.set_status("error", str(exc))
            return
        self.set_status("ready", self.model_desc)
        self._land(uri, DocResults(version, tuple(functions), lines))

    def _land(self, uri: str, res: DocResults) -> None:
        def land() -> None:
            if self.versions.get(uri) != res.version:
                return  # the document moved on while we predicted; its newer job is queued
            self.results[uri] = res
            self._publish(uri, res)
            self._refresh()

        self.on_loop(land)

    # --- output (protocol thread) --------------------------------------------------------

    def _publish(self, uri: str, res: DocResults) -> None:
        items = diagnostics_feature.diagnostics(res.functions, self.settings, self.client_col(res.lines))
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=res.version)
        )

    def _refresh(self) -> None:
        if self._cap("workspace", "inlay_hint", "refresh_support"):
            self.workspace_inlay_hint_refresh(None)
        if self._cap("workspace", "code_lens", "refresh_support"):
            self.workspace_code_lens_refresh(None)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls' default pops a message up for e.g. a malformed message; a log line is enough.
        logger.error("%s: %s", getattr(source, "__name__", source), error)


def _with_kernel_model(predictor: Any, settings: Settings) -> Any:
    """The predictor plus the Triton kernel-latency model when one is shipped (rlm_lsp.kernels).

    Without it, kernels get no hint: the base model has no `kernel_*` metric. A kernel model
    that fails to load costs the kernel hints only, never the function hints.
    """
    try:
        from rlm_lsp.kernels import with_kernels
    except ImportError:
        return predictor
    try:
        return with_kernels(predictor, gpu=settings.gpu or None)
    except Exception as exc:  # noqa: BLE001 - degrade to functions only
        logger.warning("kernel latency model not loaded: %s", exc)
        return predictor


def _logged(fn: Callable[[], Any]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except Exception:  # noqa: BLE001
            logger.exception("callback failed")

    return run


# --- handlers: thin, one per method ---------------------------------------------------------


def create_server() -> RlmServer:
    server = RlmServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RlmServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        ls.settings = Settings.from_dict(params.initialization_options, ls.settings)
        ls.worker = Worker(ls.analyze_job)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: RlmServer, params: types.InitializedParams) -> None:
        pulled = await ls.pull_settings()
        ls.apply_settings(pulled or ls.settings)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: RlmServer, params: types.DidChangeConfigurationParams) -> None:
        pulled = await ls.pull_settings()
        ls.apply_settings(pulled or Settings.from_dict(params.settings, ls.settings))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RlmServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri, params.text_document.version, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RlmServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = params.text_document
        ls.document_changed(doc.uri, doc.version, ls.settings.debounce_ms / 1000)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RlmServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.document_closed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    def inlay_hint(ls: RlmServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        if not ls.settings.feature_enabled("inlayHints"):
            return []
        ls.visible[params.text_document.uri] = (params.range.start.line, params.range.end.line)
        functions, lines = ls.cached(params.text_document.uri)
        return hints_feature.inlay_hints(functions, lines, params.range, ls.settings, ls.client_col(lines))

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: RlmServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        if not ls.settings.feature_enabled("codeLens"):
            return []
        functions, lines = ls.cached(params.text_document.uri)
        return lens_feature.code_lenses(functions, lines, ls.settings)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: RlmServer, params: types.HoverParams) -> types.Hover | None:
        analyzer = ls.analyzer
        if not ls.settings.feature_enabled("hover") or analyzer is None:
            return None
        functions, lines = ls.cached(params.text_document.uri)
        col = ls.client_col(lines)
        found = hover_feature.find(functions, lines, params.position, col)
        if found is None:
            return None
        config = analyzer.predictor.config
        definitions = {m.name: getattr(m, "definition", "") for m in config.metrics}
        text = hover_feature.markdown(found, ls.settings, definitions, str(getattr(config, "model_version", "?")),
                                      note=hover_feature.reading_note(found, analyzer.predictor))
        if text is None:
            return None
        return types.Hover(
            contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
            range=hover_feature.name_range(found, col),
        )

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RlmServer, *args: Any) -> None:
        if ls.worker is not None:
            ls.worker.stop()
        # pygls cancels every pending request next while iterating `_request_futures`, and a
        # cancel runs _Protocol's done-callback, which pops from it ("dictionary changed size
        # during iteration"). Cancel them here, over a copy, so pygls finds them all done.
        current = ls.protocol.msg_id
        for key, future in list(ls.protocol._request_futures.items()):
            if key != current:
                future.cancel()

    return server


# --- entry point ------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rlm serve", description="rlm language server (stdio by default)")
    parser.add_argument("--stdio", action="store_true", help="talk LSP over stdin/stdout (the default)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP socket instead of stdio")
    parser.add_argument("--log-level", default=os.environ.get("RLM_LOG_LEVEL", "WARNING"))
    parser.add_argument("--log-file", help="log here instead of stderr")
    args = parser.parse_args(argv)

    handler: logging.Handler = (
        logging.FileHandler(args.log_file) if args.log_file else logging.StreamHandler(sys.stderr)
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(transport.LogLimit())  # a flood of bad messages must not flood the log
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(args.log_level.upper())
    logging.getLogger("pygls").setLevel(max(root.level, logging.WARNING))

    # Our own framing (transport.py), not pygls' start_io/start_tcp: those go deaf after one bad frame.
    server = create_server()
    root.addHandler(_ClientLog(server))
    if args.tcp:
        host, _, port = args.tcp.rpartition(":")
        rc = transport.run_tcp(server, host or "127.0.0.1", int(port))
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
    """Log records made with extra={"client": True} also go to the client, as window/logMessage."""

    def __init__(self, server: RlmServer) -> None:
        super().__init__(logging.INFO)
        self.server = server

    def emit(self, record: logging.LogRecord) -> None:
        if not getattr(record, "client", False) or self.server.loop is None:
            return
        kind = types.MessageType.Warning if record.levelno >= logging.WARNING else types.MessageType.Info
        params = types.LogMessageParams(type=kind, message=record.getMessage())
        self.server.on_loop(lambda: self.server.window_log_message(params))


def _claim_stdout():
    """Keep fd 1 for JSON-RPC only: dup it away, then send anything else written there to stderr."""
    sys.stdout.flush()
    channel = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel
