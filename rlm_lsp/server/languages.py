"""Which documents the model can give hints to, by language: a C++, Java or Go document gets hints
and hovers when the model lists its language (rlm_config.json "languages") and tree-sitter is
installed; otherwise none, and the user is told why once per language and model, not per keystroke.

Pure but for the set of what was told: the server (server.py) asks `why_not` in the worker thread
before it analyses a document, and `Told.first` whether to say it.
"""

from __future__ import annotations

from typing import Any

from rlm_lsp.policy import sources

WHAT_TO_DO = "set rlm.modelPath to a model directory that reads it"


def why_not(predictor: Any, language: str) -> str | None:
    """Why a document in `language` gets no hints from `predictor`, in one line; None when it gets them."""
    if language == sources.PYTHON:
        return None
    name = sources.NAMES.get(language, language)
    if not sources.reads(predictor, language):
        return f"rlm: no hints for {name} files: " + sources.not_read(predictor, language, WHAT_TO_DO)
    problem = sources.grammar_problem(language)  # tree-sitter may be missing
    return None if problem is None else f"rlm: no hints for {name} files: {problem}"


class Told:
    """The lines already said, so each is said once (a model reload may say it again)."""

    def __init__(self) -> None:
        self._said: set[str] = set()

    def first(self, line: str) -> bool:
        if line in self._said:
            return False
        self._said.add(line)
        return True

    def clear(self) -> None:
        self._said.clear()
