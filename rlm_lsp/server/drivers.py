"""The hover's slow parts, off the protocol thread: "which statement drives it" (`Analyzer.explain`)
and, from a model that reads n, its curve (the model asked at each of `curves.SIZES`, `at_n.curve`).

The model runs again once per statement left out: a few tenths of a second for a short function,
seconds for a long one on a busy CPU. So the hover waits at most WAIT_S for it; past that it
answers without it (`PENDING`: the hover says it is on its way) and the work goes on in its
thread, cached, so the next hover has it. One computation per function text at a time, however
often the mouse comes back. The curve goes the same way (`PENDING_CURVE`), one batch of one input
per size, cached by the Predictor by (code, n). Both read the function with its file's names
(`Snippet.context()`), as its hint did.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any

from rlm_lsp.runtime import at_n
from rlm_lsp.runtime.attribution import Attribution
from rlm_lsp.server.curves import SIZES

logger = logging.getLogger(__name__)

WAIT_S = 1.5  # what a hover may wait; VS Code shows its "Loading..." meanwhile
PENDING = Attribution({}, 0, 0)  # still being computed
PENDING_CURVE: dict[str, list] = {}  # a curve still being computed (compared by identity)


class Explainer:
    def __init__(self, wait_s: float = WAIT_S) -> None:
        self.wait_s = wait_s
        self._running: dict[tuple[str, ...], asyncio.Future] = {}  # (what, language, code, file names) -> its computation

    async def drivers(self, analyzer: Any, result: Any) -> Attribution | None:
        """The cached attribution of `result`'s function, else up to `wait_s` of computing it;
        PENDING when it takes longer, None where there is nothing to say."""
        code, language = result.snippet.code, result.language
        found = analyzer.drivers.cached(code, language, at_n.n_of(result.predictions), result.snippet.context())
        if found is not None:
            return found
        key = ("drivers", language, code, result.snippet.reading)
        return await self._wait(key, lambda: analyzer.explain(result), PENDING)

    async def curve(self, analyzer: Any, result: Any) -> dict[str, list] | None:
        """From a model that reads n, metric -> [(n, its value at n)] for each of SIZES: cached, else
        up to `wait_s` of asking it (PENDING_CURVE when it takes longer); None for any other model,
        or a function without predictions or a Triton kernel (the kernel model reads no n)."""
        model = analyzer.predictor
        if not at_n.reads_n(model) or not result.predictions or result.snippet.kind == "triton_kernel":
            return None
        code, language, context = result.snippet.code, result.language, result.snippet.context()
        found = at_n.cached_curve(model, code, SIZES, language, context)
        if found is not None:
            return found
        key = ("curve", language, code, result.snippet.reading)
        return await self._wait(key, lambda: _asked(model, code, language, context), PENDING_CURVE)

    async def _wait(self, key: tuple[str, ...], work: Callable[[], Any], pending: Any) -> Any:
        future = self._running.get(key)
        if future is None:
            future = asyncio.get_running_loop().run_in_executor(None, work)
            self._running[key] = future
            future.add_done_callback(lambda _: self._running.pop(key, None))
        try:
            # shield: a hover given up on (timeout, or the client cancels it) leaves the work running
            return await asyncio.wait_for(asyncio.shield(future), self.wait_s)
        except asyncio.TimeoutError:
            return pending


def _asked(model: Any, code: str, language: str, context: dict) -> dict[str, list] | None:
    """`at_n.curve` at SIZES; None (no table) where the model fails: a table is never worth a failed hover."""
    try:
        return at_n.curve(model, code, SIZES, language, context)
    except Exception:  # noqa: BLE001 - logged; the hover goes on without it
        logger.exception("the curve failed for %s", code.split("\n", 1)[0][:80])
        return None
