"""One background thread for everything slow: model loading and inference.

The protocol thread only enqueues. Each document has at most one pending job (a
newer edit replaces it and restarts its debounce delay, as python-lsp-server's
`debounce(keyed_by="doc_uri")` does); `call` jobs (model loads, settings changes)
run first, in order. A single thread keeps the Predictor single-user and makes
"load, then analyse with the loaded model" a plain sequence.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

logger = logging.getLogger(__name__)


class Worker:
    def __init__(self, run_job: Callable[[str, Any], None], name: str = "rlm-worker") -> None:
        self._run_job = run_job
        self._cond = threading.Condition()
        self._pending: dict[str, tuple[float, Any]] = {}  # key -> (due monotonic time, payload)
        self._calls: deque[Callable[[], None]] = deque()
        self._stopped = False
        self._busy = False
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def schedule(self, key: str, payload: Any, delay_s: float) -> None:
        """Run `run_job(key, payload)` after `delay_s`, replacing any pending job for `key`."""
        with self._cond:
            self._pending[key] = (time.monotonic() + max(delay_s, 0.0), payload)
            self._cond.notify()

    def cancel(self, key: str) -> None:
        with self._cond:
            self._pending.pop(key, None)

    def call(self, fn: Callable[[], None]) -> None:
        """Run `fn()` on the worker thread before any pending document job."""
        with self._cond:
            self._calls.append(fn)
            self._cond.notify()

    def idle(self) -> bool:
        with self._cond:
            return not self._busy and not self._calls and not self._pending

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._pending.clear()
            self._calls.clear()
            self._cond.notify()

    def join(self, timeout: float) -> bool:
        """Wait up to `timeout` s for the thread to end (after stop()); True if it did."""
        self._thread.join(timeout)
        return not self._thread.is_alive()

    def _loop(self) -> None:
        while True:
            with self._cond:
                job = self._next_locked()
                if job is None:
                    return
                self._busy = True
            try:
                job()
            except Exception:  # noqa: BLE001 - one bad job must not end the worker
                logger.exception("worker job failed")
            finally:
                with self._cond:
                    self._busy = False

    def _next_locked(self) -> Callable[[], None] | None:
        while not self._stopped:
            if self._calls:
                return self._calls.popleft()
            if self._pending:
                key, (due, payload) = min(self._pending.items(), key=lambda kv: kv[1][0])
                wait = due - time.monotonic()
                if wait <= 0:
                    del self._pending[key]
                    return lambda: self._run_job(key, payload)
                self._cond.wait(wait)
            else:
                self._cond.wait()
        return None
