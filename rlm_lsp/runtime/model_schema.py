"""The shape of `rlm_config.json`, checked before anything reads it.

A hand-edited or damaged config used to get as far as the tokenizer or onnxruntime and stop
there with a traceback (`"files": "abc"`, `"languages": "python"` read as six languages), or
worse, load and predict something else without a word (`"input_template": ""` scores a model
that never sees the code). `check` names the first key that is wrong, in one line:

    max_input_tokens: expected a whole number of at least 1, got 0

It checks types and ranges only; what needs the model's files (token ids against the
tokenizer's vocabulary, which graph is which) is checked where they are opened
(`rlm_lsp.runtime.predictor`, `rlm_lsp.runtime.seq2seq`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from typing import Any

_SHA256 = re.compile(r"[0-9a-f]{64}")
_FIELD = re.compile(r"[A-Za-z_]\w*")


class SchemaError(ValueError):
    """A config key with a wrong type or value; the message starts with the key."""


def check(raw: dict[str, Any]) -> None:
    """SchemaError naming the first wrong key of an rlm_config.json object."""
    for key, rule in _REQUIRED.items():
        if key not in raw:
            raise SchemaError(f"{key}: missing")
        rule(key, raw[key])
    for key, rule in _OPTIONAL.items():
        if raw.get(key) is not None:
            rule(key, raw[key])
    # a model that reads n (`rlm_lsp.runtime.template.n_field`) needs the n to read when none is stated
    if "{n}" in raw["input_template"] and raw.get("reference_n") is None:
        raise SchemaError("reference_n: missing, and the input_template reads {n}")


def _whole(key: str, value: Any, low: int = 0, high: int | None = None) -> None:
    # bool is an int to Python, and 1e9 a float that int() would take: neither is a token id.
    if type(value) is not int or value < low or (high is not None and value > high):
        what = f"of at least {low}" if high is None else f"from {low} to {high}"
        raise SchemaError(f"{key}: expected a whole number {what}, got {value!r}")


def _text(key: str, value: Any) -> None:
    if not isinstance(value, str) or not value.strip():
        raise SchemaError(f"{key}: expected a non-empty string, got {value!r}")


def _object(key: str, value: Any) -> None:
    if not isinstance(value, dict):
        raise SchemaError(f"{key}: expected an object, got {value!r}")


def _metrics(key: str, value: Any) -> None:
    if not isinstance(value, list) or not value:
        raise SchemaError(f"{key}: expected a non-empty list of metrics, got {value!r}")
    for i, metric in enumerate(value):
        _object(f"{key}[{i}]", metric)
        for field in ("name", "unit", "definition"):
            if not isinstance(metric.get(field), str):
                raise SchemaError(f"{key}[{i}].{field}: expected a string, got {metric.get(field)!r}")


def _number_tokens(key: str, value: Any) -> None:
    _object(key, value)
    for token, token_id in value.items():
        _whole(f"{key}[{token!r}]", token_id)


def _input_template(key: str, value: Any) -> None:
    """A format string with named fields only, {code} among them: without it the model never
    reads the code and every function gets the same numbers."""
    _text(key, value)
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(value) if name is not None]
    except ValueError as exc:
        raise SchemaError(f"{key}: not a format string ({exc}): {value!r}") from None
    for name in fields:
        if not _FIELD.fullmatch(name):
            raise SchemaError(f"{key}: placeholder {{{name}}} is not a name, in {value!r}")
    if "code" not in fields:
        raise SchemaError(f"{key}: has no {{code}} placeholder, so the model would never read the code: {value!r}")


def _languages(key: str, value: Any) -> None:
    if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
        raise SchemaError(f'{key}: expected a non-empty list of language names such as ["python"], got {value!r}')


def _files(key: str, value: Any) -> None:
    _object(key, value)
    for name, digest in value.items():
        if not isinstance(digest, str) or not _SHA256.fullmatch(digest):
            raise SchemaError(f"{key}[{name!r}]: expected a sha256 of 64 hex digits, got {digest!r}")


def _token_ids(key: str, value: Any) -> None:
    if not isinstance(value, list) or not value:
        raise SchemaError(f"{key}: expected a non-empty list of token ids, got {value!r}")
    for i, token_id in enumerate(value):
        _whole(f"{key}[{i}]", token_id)


def _positive(key: str, value: Any) -> None:
    _whole(key, value, low=1)


_REQUIRED: dict[str, Callable[[str, Any], None]] = {
    "model_version": _text,
    "metrics": _metrics,
    "input_template": _input_template,
    "max_input_tokens": _positive,
    "decoder_start_token_id": _whole,
    "number_format": _object,
    "number_tokens": _number_tokens,
}
_OPTIONAL: dict[str, Callable[[str, Any], None]] = {
    "languages": _languages,
    "preprocess": _text,
    "pad_token_id": _whole,
    "files": _files,
    "logits_token_ids": _token_ids,
    "draw_positions": _positive,
    "training_data": _object,
    # the size the numbers are for: when none is stated (a template with {n}); always (a model with
    # `_growth` metrics and no {n}: the anchor recipe, whose numbers move from there along the growth)
    "reference_n": _positive,
}
