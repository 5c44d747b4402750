"""Which language a file or an editor document is in, its functions as Snippets, and whether the
model reads that language: one answer for the CLI, the language server and the gate.

    path or (uri, languageId) -> language      (`language_of`, `document_language`)
    text, language -> Source                    (Python: the version parsed once, `parse`; its readers share it)
    source, language -> [Snippet]               (Python: `rlm_lsp.python.snippets`; C++, Java and Go:
                                                `rlm_lsp.polyglot.functions.units`, with tree-sitter)
    model, language -> read? and why not        (`reads`, `not_read`)

A model reads the languages its rlm_config.json lists under "languages"; the shipped default lists
Python, C++, Java and Go (the last three read by trees: `rlm_lsp.runtime.language_trees`). A model that
does not list a language gives its functions no number, never one made up, and every surface says so
once, in one line, with what to do.
"""

from __future__ import annotations

from pathlib import PurePath

from rlm_lsp.polyglot import functions as polyglot
from rlm_lsp.python import snippets
from rlm_lsp.python.snippets import Snippet
from rlm_lsp.python.source import Source
from rlm_lsp.python.source import parse as parse_source
from rlm_lsp.runtime import at_n, model

PYTHON = "python"
SUFFIXES = {".py": PYTHON, ".pyw": PYTHON, ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp",
            ".h": "cpp", ".java": "java", ".go": "go"}
POLYGLOT_SUFFIXES = tuple(s for s, lang in SUFFIXES.items() if lang != PYTHON)
# LSP languageId -> the model's language name (a C header opened as "c" is read by the C++ grammar)
LANGUAGE_IDS = {"python": PYTHON, "cpp": "cpp", "c": "cpp", "java": "java", "go": "go"}
NAMES = {PYTHON: "Python", "cpp": "C++", "java": "Java", "go": "Go"}
Unavailable = polyglot.PolyglotUnavailable  # tree-sitter or a grammar is not installed


def language_of(path: str) -> str | None:
    """The language of a file by its suffix; None for a suffix none of the readers knows."""
    return SUFFIXES.get(PurePath(path).suffix.lower())


def document_language(uri: str, language_id: str | None) -> str:
    """An editor document's language: its languageId, else its suffix, else Python (as before
    there were other languages: a client sends the server only the documents it selects)."""
    return LANGUAGE_IDS.get(language_id or "") or language_of(uri) or PYTHON


MAX_FUNCTIONS = 2_000  # more in one file is generated code; judged or hinted no further (issue 61.6)


def too_many(found: list) -> str | None:
    """Why a file's functions are not all judged, or None."""
    return f"more than {MAX_FUNCTIONS:,} functions ({len(found):,}): generated code?" if len(found) > MAX_FUNCTIONS else None


def extract_capped(source: str | Source, language: str) -> list[Snippet]:
    """`extract`, the first `MAX_FUNCTIONS` only: what the editor hints, so one huge file never holds up
    every other document's hints."""
    return extract(source, language)[:MAX_FUNCTIONS]


def extract(source: str | Source, language: str) -> list[Snippet]:
    """The functions and methods of `source` (Python: its text or the version parsed once, `parse`);
    raises `Unavailable` for C++, Java or Go without tree-sitter."""
    if language == PYTHON:
        return snippets.extract(source)
    source = source.text if isinstance(source, Source) else source
    return [Snippet(qualname=u.qualname, name=u.name, kind="method" if "." in u.qualname or "::" in u.name
                    else "function", code=u.text, start_line=u.start_line, end_line=u.end_line,
                    name_line=u.name_line, name_col=u.name_col, header_end_line=u.header_end_line,
                    header_end_col=u.header_end_col)
            for u in polyglot.units(source, language)]


def parse(text: str, language: str) -> Source | None:
    """One version of a file parsed once, for its readers to share (`rlm_lsp.python.source`): Python
    only (None for the other languages, whose functions tree-sitter reads)."""
    return parse_source(text) if language == PYTHON else None


def _config(predictor: model.Model):
    """The config of the function model behind `predictor` (a Router's function model), or None."""
    return getattr(at_n.function_model(predictor), "config", None)


def languages(predictor: model.Model) -> tuple[str, ...]:
    """The languages the function model behind `predictor` reads (its rlm_config.json "languages")."""
    return tuple(getattr(_config(predictor), "languages", ()) or ())


def grammar_problem(language: str) -> str | None:
    """Why `language`'s functions cannot be found here (tree-sitter or its grammar missing); None when they can."""
    if language == PYTHON:
        return None
    try:
        extract("", language)  # loads the grammar
    except Unavailable as exc:
        return str(exc)
    return None


def reads(predictor: model.Model, language: str) -> bool:
    return language in languages(predictor)


def not_read(predictor: model.Model, language: str, what_to_do: str) -> str:
    """One line: which model, what it reads, and `what_to_do` about it."""
    version = getattr(_config(predictor), "model_version", None) or "in use"
    read = ", ".join(NAMES.get(lang, lang) for lang in languages(predictor)) or "no source language"
    return (f"the model {version} reads {read} only, not {NAMES.get(language, language)}: {what_to_do} "
            f'(its rlm_config.json "languages" must include "{language}")')
