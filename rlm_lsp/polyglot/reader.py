"""The C++, Java and Go readers, lent to the runtime (`rlm_lsp.runtime.readers.register_language`):
a model reads one of their functions as `normalise(text, language)`, the text its training rows
were made of. Imported by `rlm_lsp/__init__.py`; tree-sitter itself loads on the first use."""

from __future__ import annotations

import functools

from rlm_lsp.polyglot.functions import LANGUAGES, normalise
from rlm_lsp.runtime import readers

for _language in LANGUAGES:
    readers.register_language(_language, functools.partial(normalise, language=_language))
