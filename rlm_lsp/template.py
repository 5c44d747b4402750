"""What the encoder reads: metric names, language and code, rendered by the model's template.

Training and every runtime path render inputs with this one function, so a
model sees the same text at training time and in the editor.
"""

from __future__ import annotations

import string
from typing import Sequence

DEFAULT_TEMPLATE = "<metrics> {metrics} <lang> {language} <code>\n{code}"


def render(template: str, metrics: Sequence[str], language: str, code: str, **context: str) -> str:
    """`context` fills extra placeholders a model's template may have, e.g. {device} or {gpu}."""
    return template.format(metrics=" ".join(metrics), language=language, code=code, **context)


def extra_fields(template: str) -> list[str]:
    """Placeholders beyond {metrics}, {language} and {code} (e.g. {device}) that `context` must fill."""
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    return [n for n in dict.fromkeys(names) if n not in ("metrics", "language", "code")]
