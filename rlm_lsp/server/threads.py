"""The bridge from the worker thread to the protocol thread.

Every message to the client goes out from the protocol thread (the asyncio loop of
transport.py). The worker hands work over with `run` (fire and forget) or `call` (a Future
with the result), as python-lsp-server and the pygls examples do with `call_soon_threadsafe`.
Before the loop exists (in-process use, unit tests) both run the function at once.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import threading
from collections.abc import Callable
from typing import Any

logger = logging.getLogger("rlm_lsp.server")


class LoopBridge:
    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None

    def on_loop_thread(self) -> bool:
        return self.loop is None or threading.current_thread() is threading.main_thread()

    def run(self, fn: Callable[[], Any]) -> None:
        """Run `fn` on the protocol thread: now when already there (or no loop yet), else soon."""
        if self.on_loop_thread():
            fn()
            return
        try:
            self.loop.call_soon_threadsafe(logged(fn))  # type: ignore[union-attr]
        except RuntimeError:  # the loop closed: the server is exiting
            pass

    def later(self, delay_s: float, fn: Callable[[], Any]) -> None:
        """Run `fn` on the protocol thread after `delay_s` (at once without a loop)."""
        if self.loop is None:
            fn()
            return

        def schedule() -> None:
            self.loop.call_later(delay_s, logged(fn))  # type: ignore[union-attr]

        try:
            self.loop.call_soon_threadsafe(schedule)
        except RuntimeError:
            pass

    def call(self, fn: Callable[[], Any]) -> concurrent.futures.Future:
        """Run `fn` on the protocol thread; the Future gets its result or exception."""
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


def logged(fn: Callable[[], Any]) -> Callable[[], None]:
    def run() -> None:
        try:
            fn()
        except Exception:  # noqa: BLE001
            logger.exception("callback failed")

    return run
