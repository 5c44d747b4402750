"""The model, loaded while the server process starts (#61: a cold first hint in VS Code).

`python -m rlm_lsp` calls `start()` before it imports the server: a thread loads the model and
predicts one small function (onnxruntime's first runs, the lazily read trees and modules) while the
main thread imports pygls and lsprotocol, about a second of Python; onnxruntime builds its sessions
and runs without the GIL. The settings it loads for come from RLM_PRELOAD, the JSON a launcher puts
there (the VS Code extension: its initializationOptions); unset, the defaults: the shipped model.
RLM_PRELOAD=off: no preload.

The server's first model load (worker thread, `RlmServer._load_model`) calls `take(settings)`: the
preloaded model when the settings the client sent name the same one (`Settings.model_key`), after
waiting for the thread; else None, and the model loads as before. A preload that failed also gives
None, so a bad model path is reported the usual way.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from typing import Any

logger = logging.getLogger("rlm_lsp.server")

ENV = "RLM_PRELOAD"
WARM_URI = "rlm-preload:warm_up.py"
WARM_UP = (
    "def warm_up(items, n):\n"
    "    out = []\n"
    "    for x in items:\n"
    "        out.append(sorted(items)[:n])\n"
    "    return out\n"
)

_lock = threading.Lock()
_job: _Preload | None = None


class _Preload(threading.Thread):
    def __init__(self, settings: Any) -> None:
        super().__init__(name="rlm-preload", daemon=True)
        self.settings = settings
        self.key = settings.model_key()
        self.loaded: Any = None
        self.seconds = 0.0

    def run(self) -> None:
        started = time.perf_counter()
        try:
            from rlm_lsp.server import model

            self.loaded = model.load(self.settings)
        except Exception as exc:  # noqa: BLE001 - the worker loads again and reports it
            logger.debug("preload failed: %s", exc)
            return
        try:
            analyzer = self.loaded.analyzer
            analyzer.analyze(WARM_URI, WARM_UP, None)
            analyzer.forget(WARM_URI)
            analyzer.predicted = 0  # the count is of the client's functions
        except Exception as exc:  # noqa: BLE001 - a warm-up is never worth a model
            logger.debug("preload warm-up failed: %s", exc)
        self.seconds = time.perf_counter() - started


def start(environ: Any = None) -> bool:
    """Start loading the model in a thread (once per process); False when RLM_PRELOAD says off."""
    global _job
    raw = (os.environ if environ is None else environ).get(ENV, "")
    if raw.strip().lower() in ("off", "0", "false", "no"):
        return False
    with _lock:
        if _job is not None:
            return True
        from rlm_lsp.server.settings import Settings

        try:
            values = json.loads(raw) if raw.strip() else {}
        except ValueError:
            values = {}
        _job = _Preload(Settings.from_dict(values))
        _job.start()
    return True


def take(settings: Any) -> Any:
    """The preloaded `model.Loaded` for `settings`, or None (none started, another model, or it failed).
    Once: a later load (a settings change) loads afresh."""
    global _job
    with _lock:
        job, _job = _job, None
    if job is None:
        return None
    if job.key != settings.model_key():
        logger.info("preloaded model dropped: the client's settings name another (%s)", settings.model_key())
        return None  # its thread ends on its own; what it loaded goes with it
    job.join()
    if job.loaded is not None:
        logger.info("model taken from the preload (%.2fs in its thread)", job.seconds)
    return job.loaded
