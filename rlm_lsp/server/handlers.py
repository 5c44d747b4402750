"""The LSP methods, one thin handler each (the pygls examples' shape): read the cache or the
settings, enqueue work, answer. State and work live on RlmServer (server.py).
"""

from __future__ import annotations

import asyncio
from typing import Any

from lsprotocol import types

from rlm_lsp.server import actions as actions_feature
from rlm_lsp.server import curves, document
from rlm_lsp.server import hints as hints_feature
from rlm_lsp.server import hover as hover_feature
from rlm_lsp.server import lens as lens_feature
from rlm_lsp.server.drivers import Explainer
from rlm_lsp.server.server import RlmServer
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.worker import Worker


def create_server() -> RlmServer:
    server = RlmServer()
    explainer = Explainer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: RlmServer, params: types.InitializeParams) -> None:
        ls.loop = asyncio.get_running_loop()
        document.install(ls.workspace)  # edits in time proportional to the edit, not the document
        # A client without workspace/configuration (Neovim 0.7) only ever sends these.
        ls.settings = Settings.from_dict(params.initialization_options, ls.settings)
        ls.worker = Worker(ls.analyze_job)
        ls.client_name = params.client_info.name if params.client_info else ""
        # The model loads now, by these settings, not after `initialized` and workspace/configuration:
        # settings pulled then that name the same model keep it, others load theirs.
        ls.load_model_for(ls.settings)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: RlmServer, params: types.InitializedParams) -> None:
        window, folders = await ls.pull_settings() or (ls.settings, None)
        ls.apply_settings(window, folders, retry=False)

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    async def did_change_configuration(ls: RlmServer, params: types.DidChangeConfigurationParams) -> None:
        pulled = await ls.pull_settings()
        ls.apply_settings(*(pulled or (Settings.from_dict(params.settings, ls.settings),)))

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RlmServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.document_changed(params.text_document.uri, params.text_document.version, 0.0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RlmServer, params: types.DidChangeTextDocumentParams) -> None:
        doc = params.text_document
        ls.document_changed(doc.uri, doc.version, ls.settings_for(doc.uri).debounce_ms / 1000)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RlmServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.document_closed(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    def inlay_hint(ls: RlmServer, params: types.InlayHintParams) -> list[types.InlayHint]:
        uri = params.text_document.uri
        settings = ls.settings_for(uri)
        if not settings.feature_enabled("inlayHints"):
            return []
        ls.visible[uri] = (params.range.start.line, params.range.end.line)
        functions, lines = ls.cached(uri)
        return hints_feature.inlay_hints(functions, lines, params.range, settings, ls.client_col(lines), ls.usual_spread,
                                         ls.per_call)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    def code_lens(ls: RlmServer, params: types.CodeLensParams) -> list[types.CodeLens]:
        settings = ls.settings_for(params.text_document.uri)
        if not settings.feature_enabled("codeLens"):
            return []
        functions, lines = ls.cached(params.text_document.uri)
        return lens_feature.code_lenses(functions, lines, settings)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix])
    )
    def code_action(ls: RlmServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        only = params.context.only
        if only and not any(types.CodeActionKind.QuickFix.value.startswith(k) for k in only):
            return []
        uri = params.text_document.uri
        functions, lines = ls.cached(uri)
        if not lines:
            return []
        return actions_feature.code_actions(
            uri, ls.versions.get(uri), params.context.diagnostics, functions, lines, ls.client_col(lines),
            commands=actions_feature.client_commands(ls._cap()),
            versioned_edits=bool(ls._cap("workspace", "workspace_edit", "document_changes")),
        )

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: RlmServer, params: types.HoverParams) -> types.Hover | None:
        analyzer = ls.analyzer
        settings = ls.settings_for(params.text_document.uri)
        if not settings.feature_enabled("hover") or analyzer is None:
            return None
        functions, lines = ls.cached(params.text_document.uri)
        col = ls.client_col(lines)
        found = hover_feature.find(functions, lines, params.position, col)
        if found is None:
            return None
        config = analyzer.predictor.config
        definitions = {m.name: getattr(m, "definition", "") for m in config.metrics}
        formats = ls._cap("text_document", "hover", "content_format")
        markdown = not formats or types.MarkupKind.Markdown in formats
        # the curve's picture only where the hover draws images (VS Code and its forks); Neovim,
        # Helix, Emacs print markdown as text, where a data: URL is a screenful of base64
        images = markdown and curves.draws_images(ls.client_name)
        # which statement drives each value: the model again on every statement left out, so in a
        # thread (never on the protocol thread) and only on hover, once per function text (cached)
        # (a model that reads n: its curve too, asked at each size, the same way; together, so one wait)
        drivers, curve = await asyncio.gather(explainer.drivers(analyzer, found), explainer.curve(analyzer, found))
        text = hover_feature.markdown(found, settings, definitions, ls.model_desc or "rlm's model",
                                      note=hover_feature.reading_note(found, analyzer.predictor), lines=lines,
                                      usual=ls.usual_spread, images=images, drivers=drivers, curve=curve,
                                      unsized=ls.per_call)
        if text is None:
            return None
        if not markdown:  # e.g. plain-text-only clients
            contents = types.MarkupContent(kind=types.MarkupKind.PlainText, value=hover_feature.plain(text))
        else:
            contents = types.MarkupContent(kind=types.MarkupKind.Markdown, value=text)
        return types.Hover(contents=contents, range=hover_feature.name_range(found, col))

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: RlmServer, *args: Any) -> None:
        if ls.worker is not None:
            ls.worker.stop()
        # pygls cancels every pending request next while iterating `_request_futures`, and a
        # cancel runs Protocol's done-callback, which pops from it ("dictionary changed size
        # during iteration"). Cancel them here, over a copy, so pygls finds them all done.
        current = ls.protocol.msg_id
        for key, future in list(ls.protocol._request_futures.items()):
            if key != current:
                future.cancel()

    return server
