"""The code reader: what the runtime calls on a code but a model family provides.

The runtime (model directory, Predictor, template, feature trees, Router) imports no family, so that
imports run one way: runtime <- families <- application (tests/test_house.py). What it needs of
the code itself, the Python family lends it here: `rlm_lsp.python.reader` registers the reader and
the template's derived fields, and `rlm_lsp/__init__.py` imports it, so it is registered before
any module of the package runs.

A code may come with its file: the names the file defines outside it, as one line the family
wrote (`rlm_lsp.python.snippets.Snippet.outside`). It travels in a predict call's context under
`OUTSIDE`; the Predictor takes it out of the template's fields and hands it, untouched, to
`normalise`, `features` and `growth_features` (the runtime never reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rlm_lsp.runtime import template

OUTSIDE = "outside"  # the context entry of a code's file names (above); "" or absent: none
ENTRY = "entry"  # the context entry naming the function of a code to predict (the rest: its helpers)
HELPERS = "helpers"  # the context entry holding the source of the same-file functions a code calls (`Snippet.helpers`)


@dataclass(frozen=True)
class CodeReader:
    normalise: Callable[[str, str, str], str]  # (normaliser name, code, outside) -> code; ValueError for an unknown name
    features: Callable[[str, str, str], list[float]]  # (code, normaliser name, outside) -> the feature trees' row
    feature_names: tuple[str, ...]  # the names of that row, as a trees file must list them
    is_kernel: Callable[[str], bool]  # True for a Triton kernel's code: the Router's one rule
    cut: Callable[[str], str] = lambda code: code  # a too-long code cut to a head and tail that still parse
    growth_features: Callable[[str, str, str], list[float]] | None = None  # (code, normaliser, outside) -> the growth trees' row
    growth_feature_names: tuple[str, ...] = ()
    cost: Callable[[str, str | None], Any] | None = None  # (code, entry) -> the cost analyzer's Summary or None
    cost_feature_names: tuple[str, ...] = ()  # the names of `Summary.features()`


_READER: list[CodeReader] = []
# Languages a family reads as their own text (C++, Java, Go: `rlm_lsp.polyglot.reader`): the model
# reads `normalise(code)`, and none of the Python reader's steps (its normalisers, the long-input
# cut, the feature and growth trees, which count Python) apply to them.
_OWN: dict[str, Callable[[str], str]] = {}
# Their cost analyzer front ends: (code, entry) -> the analyzer's Summary or None, as `CodeReader.cost`.
_OWN_COST: dict[str, Callable[[str, str | None], Any]] = {}
# Their code counts: normalised text -> a row of numbers, and the row's names (`rlm_lsp.runtime.language_trees`).
_OWN_COUNTS: dict[str, tuple[Callable[[str], list[float]], tuple[str, ...]]] = {}


def register(reader: CodeReader, derived: Mapping[str, Callable[[str], str]]) -> None:
    """Make `reader` the code reader, and add `derived` to the template's fields."""
    _READER[:] = [reader]
    template.DERIVED.update(derived)


def register_language(language: str, normalise: Callable[[str], str],
                      cost: Callable[[str, str | None], Any] | None = None,
                      counts: tuple[Callable[[str], list[float]], tuple[str, ...]] | None = None) -> None:
    """Read `language`'s code as `normalise(code)`, not through the code reader; `cost`, where given,
    is its cost analyzer front end ((code, entry) -> Summary or None), read by a `growth_analyzer`;
    `counts`, where given, (normalised text -> row, the row's names), read by `language_trees`."""
    _OWN[language] = normalise
    _OWN_COST.pop(language, None)
    _OWN_COUNTS.pop(language, None)
    if cost is not None:
        _OWN_COST[language] = cost
    if counts is not None:
        _OWN_COUNTS[language] = counts


def own_counts(language: str) -> Callable[[str], list[float]] | None:
    """The code counts of a language registered with `register_language`; None where it has none."""
    found = _OWN_COUNTS.get(language)
    return None if found is None else found[0]


def own_count_names(language: str) -> tuple[str, ...] | None:
    found = _OWN_COUNTS.get(language)
    return None if found is None else found[1]


def own_cost(language: str) -> Callable[[str, str | None], Any] | None:
    """The cost front end of a language registered with `register_language`; None where it has none."""
    return _OWN_COST.get(language)


def own_normaliser(language: str) -> Callable[[str], str] | None:
    """The normaliser of a language registered with `register_language`; None for the code reader's."""
    return _OWN.get(language)


def reader() -> CodeReader:
    if not _READER:
        raise RuntimeError("no code reader is registered: `import rlm_lsp` registers the Python family's")
    return _READER[0]
