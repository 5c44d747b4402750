"""The JSON-RPC protocol object of the server (pygls' LanguageServerProtocol, two fixes)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest, JsonRpcServerNotInitialized
from pygls.protocol import LanguageServerProtocol


class Protocol(LanguageServerProtocol):
    """pygls 2.1 keeps the Future of every notification handled by a generator handler
    (didOpen, didChange, didClose, ...) in `_request_futures` for good: one per keystroke.
    Drop each such Future once it is done, so memory does not grow with the number of edits.

    Lifecycle, as the spec asks: a request before `initialize` gets ServerNotInitialized
    (-32002), one after `shutdown` gets InvalidRequest; notifications then are dropped,
    except `exit` (pygls exits 0 after `shutdown`, 1 without)."""

    def handle_message(self, message: Any) -> None:
        method = getattr(message, "method", None)
        if method is not None and method != types.EXIT:
            error: JsonRpcException | None = None
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
                future.add_done_callback(self._forget(key))

    def _forget(self, key: Any) -> Callable[[Any], None]:
        """A done-callback that drops the future of request `key` from the table."""
        def drop(_future: Any) -> None:
            self._request_futures.pop(key, None)
        return drop
