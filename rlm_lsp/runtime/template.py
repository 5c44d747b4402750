"""What the encoder reads: metric names, language and code, rendered by the model's template.

Training and every runtime path render inputs with this one function, so a
model sees the same text at training time and in the editor.

A template may also name *derived* fields, computed here from the code itself:

- ``{size}``: the code's length as one small number, round(2 * log2(non-blank lines)).
  A T5 encoder has only relative positions and averages over its input, so it is
  nearly blind to how long a program is; this states it in a few tokens.
- ``{census}``: a one-line count of loops, loop depth, calls and costly builtins
  (`rlm_lsp.python.code_census`).
- ``{kops}``: the same for a Triton kernel: loads, stores, dots, loops, math, reductions
  (`rlm_lsp.python.code_census.kernel_census`).
- ``{shape}``: for Python, how the code is run, `function`, `stdin` or `script`
  (`rlm_lsp.python.shapes`): what a shaped model's number is for. A function snippet (what the editor,
  the gate and the CLI score) is a def, so it is `function`; a caller scoring a whole file may
  pass `shape=` in `context`. Derived for Python only: a Triton kernel model's `{shape}` is its
  work size, which the kernel model always passes.

One field is derived from the *context* instead, never from the code:

- ``{n}``: the size the numbers are for (issue 48), given as `n=` in `context` (a number, or a
  string of one: the size, never its rendered text) and written by `n_field` as log10(n) with one
  decimal, `4.0` for 10⁴. Why so: a tenth of a decade (1.26x) separates every rung of the curve
  ladders (2x apart), where `1e4` would merge three rungs into one word; the text of a size never
  changes with how it was given (10000, 1e4, "10000.0" read alike); and the byte-level BPE
  tokenizer writes it as a few digit tokens the model already reads, one decade one leading digit.
  A model whose template has it carries `reference_n` in its config: the Predictor renders that
  when the caller states no n (`rlm_lsp.runtime.predictor.Predictor.render`).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable, Sequence

DEFAULT_TEMPLATE = "<metrics> {metrics} <lang> {language} <code>\n{code}"
SIZED_TEMPLATE = "<metrics> {metrics} <lang> {language} size {size} <code>\n{code}"
CENSUS_TEMPLATE = "<metrics> {metrics} <lang> {language} size {size} {census} <code>\n{code}"
# a cost-curve model (issue 48): the size the numbers are for, before the code's length
CURVE_TEMPLATE = "<metrics> {metrics} <lang> {language} n {n} size {size} <code>\n{code}"
SHAPED_TEMPLATE = "<metrics> {metrics} <lang> {language} <shape> {shape} size {size} <code>\n{code}"


def n_field(n: float | str) -> str:
    """The `{n}` text of size `n`: log10(n) with one decimal (`4.0` for 10⁴, `5.3` for 2e5);
    ValueError for a size that is not a number of at least 1."""
    try:
        value = float(n)
    except (TypeError, ValueError):
        raise ValueError(f"n must be a number of at least 1, not {n!r}") from None
    if not (math.isfinite(value) and value >= 1):
        raise ValueError(f"n must be a number of at least 1, not {n!r}")
    return f"{math.log10(value):.1f}"


def size_bucket(code: str) -> str:
    lines = sum(1 for line in code.splitlines() if line.strip())
    return str(round(2 * math.log2(max(lines, 1))))


# "census", "kops" and "shape" read Python: the Python family adds them (`rlm_lsp.runtime.readers.register`).
DERIVED: dict[str, Callable[[str], str]] = {"size": size_bucket}
PYTHON_ONLY = frozenset({"shape"})  # derived for language "python" only


def shaped(template: str, language: str = "python") -> bool:
    """Whether a model with this template reads the program's shape (and so can score a script)."""
    return language == "python" and "{shape}" in template


def render(template: str, metrics: Sequence[str], language: str, code: str, **context: str) -> str:
    """`context` fills extra placeholders a model's template may have, e.g. {device} or {gpu};
    its `n` (a size, for a template with {n}) is written by `n_field`."""
    if "n" in context and "{n}" in template:
        context["n"] = n_field(context["n"])
    derived = {name: fn(code) for name, fn in DERIVED.items()
               if name not in context and "{" + name + "}" in template
               and (language == "python" or name not in PYTHON_ONLY)}
    return template.format(metrics=" ".join(metrics), language=language, code=code,
                           **derived, **context)


def extra_fields(template: str, language: str | None = None) -> list[str]:
    """Placeholders a caller must fill via `context` (e.g. {device}): not {metrics}, {language},
    {code}, {n} (the model's reference n unless stated), nor the fields derived from the code (the Python-only ones only when `language` is
    "python": without a language, {shape} is a field to fill, as a kernel model's is)."""
    names = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    derived = [n for n in DERIVED if language == "python" or n not in PYTHON_ONLY]
    fixed = ("metrics", "language", "code", "n", *derived)
    return [n for n in dict.fromkeys(names) if n not in fixed]
