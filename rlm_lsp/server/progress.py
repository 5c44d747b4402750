"""What the server tells the user about itself: the `rlm/status` notification (the VS Code
status bar item), the work-done progress of a model load, and pop-up messages.

Pop-ups follow `rlm.showNotifications` ("off" by default, as ruff does): a message that only
reports goes to the log; a setup problem that stops every prediction (no model) is always shown,
once, with the fix.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from rlm_lsp.server.threads import LoopBridge

logger = logging.getLogger("rlm_lsp.server")

STATUS_NOTIFICATION = "rlm/status"  # {"state": "loading"|"ready"|"working"|"error", "message": str}
CLIENT_WAIT_S = 5.0
# rlm.showNotifications -> the lowest message type that pops up (MessageType: 1 error .. 4 log)
_SHOW = {"off": 0, "onError": 1, "onWarning": 2, "always": 3}


class Reporter:
    def __init__(self, server: Any, bridge: LoopBridge, capability: Callable[..., Any]) -> None:
        self._server = server
        self._bridge = bridge
        self._cap = capability
        self._status: str | None = None
        self._shown: set[str] = set()
        self._n = 0

    def status(self, state: str, message: str = "") -> None:
        if state == self._status:
            return
        self._status = state
        self._bridge.run(lambda: self._server.protocol.notify(STATUS_NOTIFICATION, {"state": state, "message": message}))

    def show(self, kind: types.MessageType, message: str, setting: str = "off", always: bool = False) -> None:
        """Pop `message` up once when `always` (a setup error) or when `setting` (rlm.showNotifications)
        allows its kind; it is logged either way."""
        logger.log(logging.ERROR if kind == types.MessageType.Error else logging.WARNING, "%s", message)
        if not always and kind > _SHOW.get(setting, 0):
            return
        if message in self._shown:
            return
        self._shown.add(message)
        params = types.ShowMessageParams(type=kind, message=message)
        self._bridge.run(lambda: self._server.window_show_message(params))

    def begin(self, title: str) -> str | None:
        """Start a work-done progress bar (worker thread); None when the client has none."""
        if not self._cap("window", "work_done_progress") or self._bridge.loop is None:
            return None
        self._n += 1
        token = f"rlm-model-load-{self._n}"
        try:
            created = self._bridge.call(lambda: self._server.work_done_progress.create(token))
            created.result(CLIENT_WAIT_S).result(CLIENT_WAIT_S)
        except Exception as exc:  # noqa: BLE001 - no progress bar is not an error
            logger.info("work done progress not created: %s", exc)
            return None
        begin = types.WorkDoneProgressBegin(title=title, cancellable=False, message="loading")
        self._bridge.run(lambda: self._server.work_done_progress.begin(token, begin))
        return token

    def end(self, token: str | None, message: str) -> None:
        if token is not None:
            end = types.WorkDoneProgressEnd(message=message)
            self._bridge.run(lambda: self._server.work_done_progress.end(token, end))
