"""The rlm language server's state: documents, settings, model, analysis and what is published.

Thread model:
- the protocol thread (the asyncio loop of transport.py, feeding pygls' protocol) handles every
  message (handlers.py) and only reads caches and enqueues work, so no request waits for the model;
- one worker thread (worker.py) loads the model (model.py) and runs inference after a
  per-document debounce, then hands results back to the loop thread (threads.py), which
  publishes diagnostics and asks the client to refresh hints and lenses together.

State: `versions[uri]` is the latest version the client sent; `results[uri]` is the newest
finished analysis. A result for an older version than `versions[uri]` is dropped. Hint, lens
and hover requests filter `results` (see analysis.still_valid).

Settings: `settings` (window and machine scope: the model, logging) and `folder_settings`
(per workspace folder, from `workspace/configuration` with its `scopeUri`); `settings_for(uri)`
picks the one of the document's folder.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path, uri_scheme

from rlm_lsp.policy import sources
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.lines import split_lines_keepends
from rlm_lsp.runtime.sizes import per_call
from rlm_lsp.server import diagnostics as diagnostics_feature
from rlm_lsp.server import languages, model, preload
from rlm_lsp.server.analysis import MAX_BYTES, TOO_LARGE, Analyzer, FunctionResult, skip_reason
from rlm_lsp.server.document import Document
from rlm_lsp.server.git_head import HeadSource
from rlm_lsp.server.progress import CLIENT_WAIT_S, Reporter
from rlm_lsp.server.protocol import Protocol
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.threads import LoopBridge
from rlm_lsp.server.unsure import FIXED, UsualSpread, of_config
from rlm_lsp.server.worker import Worker

logger = logging.getLogger("rlm_lsp.server")

NAME = "rlm-lsp"
FIRST_BATCH = 8  # new functions predicted before the first results land (visible ones first)
_LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}


@dataclass(frozen=True)
class DocResults:
    version: int
    functions: tuple[FunctionResult, ...]
    lines: tuple[str, ...]  # the analysed text, for client columns of published diagnostics


def _function_of(d: types.Diagnostic) -> str:
    """The function a diagnostic of ours is about (its `data`; "" for none)."""
    return str(d.data.get("function", "")) if isinstance(d.data, dict) else ""


class RlmServer(LanguageServer):
    def __init__(self) -> None:
        from rlm_lsp import __version__

        super().__init__(
            NAME,
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=Protocol,
        )
        self.settings = Settings()
        self.folder_settings: dict[str, Settings] = {}  # workspace folder URI -> its settings
        self.versions: dict[str, int] = {}
        self.results: dict[str, DocResults] = {}
        self.visible: dict[str, tuple[int, int]] = {}  # uri -> lines of the last inlay-hint request
        self.settled: dict[str, frozenset[str]] = {}  # uri -> functions whose regression warning is out
        self.too_large: set[str] = set()  # documents over the analysis cap, told once
        self.told = languages.Told()  # languages the model does not read, told once per model
        self.analyzer: Analyzer | None = None
        self.model_error: str | None = None
        self.head = HeadSource()
        self.bridge = LoopBridge()
        self.worker: Worker | None = None
        self._model_key: tuple | None = None  # of the model loaded (worker thread)
        self._queued_key: tuple | None = None  # of the last model load queued (protocol thread)
        self.report = Reporter(self, self.bridge, self._cap)
        self.model_desc, self.client_name = "", ""  # "the shipped model on CPU"; clientInfo.name ("Neovim")
        self.usual_spread: UsualSpread = FIXED  # the loaded model's, for the unsure mark (unsure.py)
        self.per_call = per_call(None)  # the loaded model's words for a number without n (sizes.py)

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        return self.bridge.loop

    @loop.setter
    def loop(self, value: asyncio.AbstractEventLoop | None) -> None:
        self.bridge.loop = value

    def on_loop(self, fn: Callable[[], Any]) -> None:
        self.bridge.run(fn)

    def _cap(self, *path: str) -> Any:
        node: Any = getattr(self.protocol, "client_capabilities", None)  # None before initialize
        for name in path:
            node = getattr(node, name, None)
            if node is None:
                return None
        return node

    # --- documents (protocol thread) -----------------------------------------------------

    def document_changed(self, uri: str, version: int, delay_s: float) -> None:
        self.versions[uri] = version
        doc = self.workspace.get_text_document(uri)
        assert self.worker is not None
        # The document, not its text: joining a huge text on every keystroke is what the job may skip.
        self.worker.schedule(uri, (version, doc), delay_s)

    def document_closed(self, uri: str) -> None:
        self.versions.pop(uri, None)
        self.visible.pop(uri, None)
        self.results.pop(uri, None)
        self.settled.pop(uri, None)
        self.too_large.discard(uri)
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
        if res is None or uri not in self.versions or not res.functions:
            return (), ()  # nothing to show: never split a (maybe huge) document into lines for it
        doc = self.workspace.get_text_document(uri)
        lines = res.lines if doc.version == res.version else tuple(split_lines_keepends(doc.source))  # not doc.lines: str.splitlines
        return res.functions, lines

    def client_col(self, lines: Sequence[str]) -> Callable[[int, int], int]:
        codec = self.workspace.position_codec

        def col(line: int, char: int) -> int:
            text = lines[line] if 0 <= line < len(lines) else ""
            prefix = text[:char]
            return char if prefix.isascii() else codec.client_num_units(prefix)

        return col

    # --- settings (protocol thread) ------------------------------------------------------

    def _folder_of(self, uri: str) -> str | None:
        folders = [f for f in self.folder_settings if uri.startswith(f.rstrip("/") + "/")]
        return max(folders, key=len) if folders else None

    def settings_for(self, uri: str) -> Settings:
        """The settings of the workspace folder holding `uri` (resource scope), else the window's."""
        folder = self._folder_of(uri)
        return self.folder_settings[folder] if folder else self.settings

    def excluded(self, uri: str) -> str | None:
        """Why `uri` gets nothing by the settings (an `rlm.exclude` glob), or None."""
        if uri_scheme(uri) != "file":
            return None
        folder = self._folder_of(uri)
        glob = self.settings_for(uri).excluded(to_fs_path(uri) or "", to_fs_path(folder) if folder else None)
        return f"rlm.exclude matches {glob}" if glob else None

    def apply_settings(self, new: Settings, folders: dict[str, Settings] | None = None, retry: bool = True) -> None:
        """`retry`: load again a model that failed to load with the same settings (a settings change
        does; the settings pulled after `initialized` do not: `initialize` already tried them)."""
        self.settings = new
        if folders is not None:
            self.folder_settings = folders
        if new.log_level:  # else the command line's --log-level stands
            logging.getLogger().setLevel(_LEVELS[new.log_level])
        logger.info("settings: %s", new)
        if self.worker is None:
            return
        if self.load_model_for(new, retry):
            return
        # Presentation and exclusions: re-run the (memoised) analysis, which redraws everything.
        self.reanalyze_all()

    async def pull_settings(self) -> tuple[Settings, dict[str, Settings]] | None:
        """The window's settings and each workspace folder's (`scopeUri`), or None when the
        client has no `workspace/configuration` (then initializationOptions stand)."""
        if not self._cap("workspace", "configuration"):
            return None
        folders = [f.uri for f in (self.workspace.folders or {}).values()]
        items = [types.ConfigurationItem(section="rlm")]
        items += [types.ConfigurationItem(section="rlm", scope_uri=uri) for uri in folders]
        try:
            got = await asyncio.wait_for(
                self.workspace_configuration_async(types.ConfigurationParams(items=items)), CLIENT_WAIT_S
            )
        except Exception as exc:  # noqa: BLE001 - a client without settings is fine
            logger.info("workspace/configuration failed: %s", exc)
            return None
        if not got or not isinstance(got[0], dict):
            return None
        window = Settings.from_dict(got[0], self.settings)
        per_folder = {uri: Settings.from_dict(raw, window) for uri, raw in zip(folders, got[1:]) if isinstance(raw, dict)}
        return window, per_folder

    def load_model_for(self, settings: Settings, retry: bool = False) -> bool:
        """Queue a model load when `settings` name another model than the last one queued, or with
        `retry` the same one when it failed to load; True if queued."""
        key = settings.model_key()
        if self.worker is None or (key == self._queued_key and not (retry and self.model_error)):
            return False
        self._queued_key = key
        self.worker.call(self._load_model)
        return True

    # --- model (worker thread) -----------------------------------------------------------

    def _load_model(self) -> None:
        settings = self.settings
        key = settings.model_key()
        if key == self._model_key and self.model_error is None:
            return
        self._model_key = key
        self.analyzer = None
        self.report.status("loading", "loading the model")
        token = self.report.begin("Loading the rlm model")
        try:
            loaded = preload.take(settings) or model.load(settings)
        except model.ModelLoadError as exc:
            self.model_error = exc.message
            self.report.end(token, "model failed to load")
            self.report.status("error", "no model: see rlm.modelPath")
            self.report.show(types.MessageType.Error, exc.message, always=True)  # a setup error: once, always
            self._clear_all()
            return
        self.analyzer, self.model_error = loaded.analyzer, None
        self.told.clear()
        self.usual_spread, self.per_call = of_config(c := loaded.analyzer.predictor.config), per_call(c)
        self.model_desc = loaded.words
        self.report.end(token, f"{loaded.words}: loaded")
        self.report.status("ready", loaded.words)
        self.on_loop(self.reanalyze_all)

    def _clear_all(self) -> None:
        def clear() -> None:
            for uri in list(self.results):
                self.results.pop(uri, None)
                self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
            self._refresh()

        self.on_loop(clear)

    # --- analysis (worker thread) --------------------------------------------------------

    def analyze_job(self, uri: str, payload: tuple[int, Document | str]) -> None:
        version, doc = payload
        analyzer = self.analyzer
        if self.versions.get(uri) != version or analyzer is None:
            return  # outdated, or no model (a load re-schedules every open document)
        reason: str | None
        if isinstance(doc, Document) and doc.size() > MAX_BYTES:
            text, reason = "", TOO_LARGE  # known without joining the text
        else:
            text = doc if isinstance(doc, str) else doc.source
            reason = skip_reason(text)
        reason = reason or self.excluded(uri)
        language = sources.document_language(uri, getattr(doc, "language_id", None))
        unread = None if reason else languages.why_not(analyzer.predictor, language)
        if unread is not None and self.told.first(unread):  # once, as an info: not an error, not per edit
            self.report.show(types.MessageType.Info, unread, self.settings_for(uri).show_notifications)
        reason = reason or unread
        if self.versions.get(uri) != version:
            return  # edited while the text was read: that edit's own job follows
        if reason is not None:
            logger.debug("%s: no hints (%s)", uri, reason)
            if reason == TOO_LARGE and uri not in self.too_large:  # one notice, not one per edit
                self.too_large.add(uri)
                self.report.show(types.MessageType.Info, f"rlm: {uri.rsplit('/', 1)[-1]} is {reason}: "
                                 "no hints for it", self.settings_for(uri).show_notifications)
            self._land(uri, DocResults(version, (), ()))
            return
        self.too_large.discard(uri)
        self.report.status("working", "predicting")
        try:
            path = to_fs_path(uri) if uri_scheme(uri) == "file" else None
            head_text = self.head.text(path) if path else None
            parsed = sources.parse(text, language)  # once a version: its functions, names and pragmas read it
            snippets = sources.extract_capped(parsed or text, language)
            lines = tuple(split_lines_keepends(text))
            limit = FIRST_BATCH
            while True:
                # Many new functions (a file just opened, a big paste): land the visible ones
                # first, then the rest in growing batches (a few refreshes, not one per function),
                # dropping the work as soon as a newer version of the document arrives.
                functions = analyzer.analyze(uri, text, head_text, snippets, limit=limit, visible=self.visible.get(uri),
                                             language=language, n=self.settings_for(uri).n, parsed=parsed)
                if not analyzer.pending:
                    break
                self._land(uri, DocResults(version, tuple(functions), lines))
                if not analyzer.pending_visible:  # what the editor shows is done; the rest is background
                    self.report.status("ready", self.model_desc)
                if self.versions.get(uri) != version:
                    if uri not in self.versions:  # closed: no newer job will say "ready"
                        self.report.status("ready", self.model_desc)
                    return
                limit *= 8
        except Exception as exc:  # noqa: BLE001 - a failing model must not take the server down
            logger.exception("prediction failed for %s", uri)
            self.report.show(types.MessageType.Error, f"rlm: prediction failed ({type(exc).__name__}); see the log.",
                             self.settings.show_notifications)
            self.report.status("error", "prediction failed: see the log")
            return
        self.report.status("ready", self.model_desc)
        self._land(uri, DocResults(version, tuple(functions), lines))

    def _land(self, uri: str, res: DocResults) -> None:
        def land() -> None:
            if self.versions.get(uri) != res.version:
                return  # the document moved on while we predicted; its newer job is queued
            self.results[uri] = res
            if self._publish(uri, res, settled=False):
                self.bridge.later(self.settings_for(uri).settle_ms / 1000, lambda: self._settle(uri, res))
            self._refresh()

        self.on_loop(land)

    def _settle(self, uri: str, res: DocResults) -> None:
        if self.results.get(uri) is res and self.versions.get(uri) == res.version:
            self._publish(uri, res, settled=True)

    # --- output (protocol thread) --------------------------------------------------------

    def _publish(self, uri: str, res: DocResults, settled: bool) -> bool:
        """Publish the diagnostics of `res`. Until the edit settled, a regression warning is only
        kept for a function that already had one; True when some were held back."""
        try:  # the regression rule may read the model's feature trees here for the first time
            items = diagnostics_feature.diagnostics(res.functions, self.settings_for(uri), self.client_col(res.lines))
        except ModelError as exc:
            logger.error("diagnostics failed for %s: %s", uri, exc)
            self.report.status("error", f"diagnostics failed: {exc}")
            items = []
        shown = self.settled.get(uri, frozenset())
        regressed = {_function_of(d) for d in items if d.code == "regression"}
        if settled:
            self.settled[uri] = frozenset(regressed)
        else:
            self.settled[uri] = shown & regressed
            items = [d for d in items if d.code != "regression" or _function_of(d) in shown]
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=items, version=res.version)
        )
        return not settled and bool(regressed - shown)

    def _refresh(self) -> None:
        # Both in the same tick, so a client redraws the hint and the lens from the same results.
        if self._cap("workspace", "inlay_hint", "refresh_support"):
            self.workspace_inlay_hint_refresh(None)
        if self._cap("workspace", "code_lens", "refresh_support"):
            self.workspace_code_lens_refresh(None)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls' default pops a message up for e.g. a malformed message; a log line is enough.
        logger.error("%s: %s", getattr(source, "__name__", source), error)
