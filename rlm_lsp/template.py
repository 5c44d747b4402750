"""What the encoder reads: metric names, language and code, rendered by the model's template.

Training and every runtime path render inputs with this one function, so a
model sees the same text at training time and in the editor.

A template may also name *derived* fields, computed here from the code itself:

- ``{size}``: the code's length as one small number, round(2 * log2(non-blank lines)).
  A T5 encoder has only relative positions and averages over its input, so it is
  nearly blind to how long a program is; this states it in a few tokens.
- ``{census}``: a one-line count of loops, loop depth, calls and costly builtins
  (`rlm_lsp.code_census`).
- ``{kops}``: the same for a Triton kernel: loads, stores, dots, loops, math, reductions
  (`rlm_lsp.code_census.kernel_census`).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence

from rlm_lsp.code_census import code_census, kernel_census

DEFAULT_TEMPLATE = "<metrics> {metrics} <lang> {language} <code>\n{code}"
SIZED_TEMPLATE = "<metrics> {metrics} <lang> {language} size {size} <code>\n{code}"
CENSUS_TEMPLATE = "<metrics> {metrics} <lang> {language} size {size} {census} <code>\n{code}"


def size_bucket(code: str) -> str:
    lines = sum(1 for line in code.splitlines() if line.strip())
    return str(round(2 * math.log2(max(lines, 1))))


DERIVED: dict[str, Callable[[str], str]] = {"size": size_bucket, "census": code_census, "kops": kernel_census}


def render(template: str, metrics: Sequence[str], language: str, code: str, **context: str) -> str:
    """`context` fills extra placeholders a model's template may have, e.g. {device} or {gpu}."""
    derived = {name: fn(code) for name, fn in DERIVED.items()
               if name not in context and "{" + name + "}" in template}
    return template.format(metrics=" ".join(metrics), language=language, code=code,
                           **derived, **context)


def extra_fields(template: str) -> list[str]:
    """Placeholders a caller must fill via `context` (e.g. {device}): not {metrics}, {language},
    {code}, nor the fields derived from the code."""
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    fixed = ("metrics", "language", "code", *DERIVED)
    return [n for n in dict.fromkeys(names) if n not in fixed]
