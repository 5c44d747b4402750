"""The C++, Java and Go readers, lent to the runtime (`rlm_lsp.runtime.readers.register_language`):
a model reads one of their functions as `normalise(text, language)`, the text its training rows
were made of, a model with a `growth_analyzer` reads their growth from `cost_front.read`, and one with
`language_trees` their values from `counts.counts`.
Imported by `rlm_lsp/__init__.py`; tree-sitter itself loads on the first use."""

from __future__ import annotations

import functools

from rlm_lsp.polyglot.counts import NAMES, counts  # tree-sitter loads on the first count
from rlm_lsp.polyglot.functions import LANGUAGES, normalise
from rlm_lsp.runtime import readers


def _cost(code: str, entry: str | None = None, *, language: str):
    from rlm_lsp.polyglot.cost_front import read  # on first use: importing rlm_lsp stays light
    return read(code, language, entry)


for _language in LANGUAGES:
    readers.register_language(_language, functools.partial(normalise, language=_language),
                              cost=functools.partial(_cost, language=_language),
                              counts=(functools.partial(counts, language=_language), NAMES))
