"""Code far longer than the model reads -> its head and tail, before the costly normalisers run.

The model reads at most `max_input_tokens` tokens (a few hundred) of an input, its head and tail
(`rlm_lsp.runtime.predictor.head_and_tail`), but a normaliser (`rlm_lsp.python.preprocess`: parse, strip,
canonical names, unparse) costs about 800 bytes of memory per character of its input: a 1 MB
file of `x = 1` lines took 838 MB and 26 s in `rlm predict`. So code over `MAX_CHARS` keeps only
its first and last `MAX_CHARS // 2` characters, cut at the start of a top-level statement where
there is one (so each part still parses), before it is normalised. Code up to `MAX_CHARS` is not
touched: its predictions are exactly what they were.
"""

from __future__ import annotations

import re

MAX_CHARS = 1 << 15  # 32 Ki code points: some twenty times what the model reads, 800 lines of code
# A line that starts a top-level statement (not a block's continuation such as `else:`).
_TOP_LEVEL = re.compile(r"^(?!(?:else|elif|except|finally)\b)[A-Za-z_@]", re.MULTILINE)


def cut(code: str, limit: int = MAX_CHARS) -> str:
    """`code` itself when it has at most `limit` characters; else its head and tail, at most
    `limit` characters together."""
    if len(code) <= limit:
        return code
    half = limit // 2
    return code[: _head_end(code, half)] + code[_tail_start(code, len(code) - half) :]


def _head_end(code: str, end: int) -> int:
    starts = [m.start() for m in _TOP_LEVEL.finditer(code, 0, end + 1) if m.start() > 0]
    if starts:
        return starts[-1]
    line = code.rfind("\n", 0, end) + 1
    return line or end


def _tail_start(code: str, start: int) -> int:
    first = _TOP_LEVEL.search(code, start)
    if first is not None:
        return first.start()
    line = code.find("\n", start) + 1
    return line or start
