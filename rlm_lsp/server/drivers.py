"""The hover's "which statement drives it" (`Analyzer.explain`), off the protocol thread.

The model runs again once per statement left out: a few tenths of a second for a short function,
seconds for a long one on a busy CPU. So the hover waits at most WAIT_S for it; past that it
answers without it (`PENDING`: the hover says it is on its way) and the work goes on in its
thread, cached, so the next hover has it. One computation per function text at a time, however
often the mouse comes back.
"""

from __future__ import annotations

import asyncio
from typing import Any

from rlm_lsp.runtime.attribution import Attribution

WAIT_S = 1.5  # what a hover may wait; VS Code shows its "Loading..." meanwhile
PENDING = Attribution({}, 0, 0)  # still being computed


class Explainer:
    def __init__(self, wait_s: float = WAIT_S) -> None:
        self.wait_s = wait_s
        self._running: dict[tuple[str, str], asyncio.Future] = {}  # (language, code) -> its computation

    async def drivers(self, analyzer: Any, result: Any) -> Attribution | None:
        """The cached attribution of `result`'s function, else up to `wait_s` of computing it;
        PENDING when it takes longer, None where there is nothing to say."""
        code, language = result.snippet.code, result.language
        found = analyzer.drivers.cached(code, language)
        if found is not None:
            return found
        key = (language, code)
        future = self._running.get(key)
        if future is None:
            future = asyncio.get_running_loop().run_in_executor(None, analyzer.explain, result)
            self._running[key] = future
            future.add_done_callback(lambda _: self._running.pop(key, None))
        try:
            # shield: a hover given up on (timeout, or the client cancels it) leaves the work running
            return await asyncio.wait_for(asyncio.shield(future), self.wait_s)
        except asyncio.TimeoutError:
            return PENDING
