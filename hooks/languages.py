"""The gate on C++, Java and Go files (issue 51, item 3): their functions, which of them the model
can judge, and their predictions, each language read as itself.

    file versions -> the ones tree-sitter can read        (`readable_files`: the others get a note)
    file bytes -> Functions, or why not                   (`functions_of`, any language: Python's by
                                                           `compare.parse_functions`)
    source -> Functions                                   (`parse_functions`: tree-sitter's functions,
                                                           compared by what the model reads of them)
    matching, model -> the changes in languages it reads  (`judged`: the others get a note per file)
    changes -> code -> metric -> Prediction               (`predict`: one batch per language)

A file the gate cannot judge for its language (the model does not list it in rlm_config.json
"languages", or tree-sitter is not installed) is named in the report with the reason, as a note
that never fails the gate, even with fail-unjudged: it is how the gate is set up, not the file.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from typing import Any

from rlm_lsp.gate import compare
from rlm_lsp.gate.compare import Function, FunctionChange, Matching, codes_to_predict
from rlm_lsp.gate.report import Note
from rlm_lsp.policy import rules, sources
from rlm_lsp.runtime import at_n, source_text
from rlm_lsp.runtime.lines import split_lines

NOT_JUDGED = "not judged"
WHAT_TO_DO = "set model in [tool.rlm] (or --model) to a model directory that reads it"


def language(path: str) -> str:
    return sources.language_of(path) or sources.PYTHON


def readable_files(versions: Sequence[Any]) -> tuple[list[Any], list[Note]]:
    """`versions` without the C++, Java or Go files whose grammar is not installed, and a note for each."""
    kept, notes = [], []
    for fv in versions:
        problem = None if fv.deleted else sources.grammar_problem(language(fv.path))
        if problem is not None:
            notes.append(Note(fv.path, f"{NOT_JUDGED}: {problem}"))
            continue
        kept.append(fv)
    return kept, notes


def functions_of(path: str, data: bytes, max_bytes: int) -> tuple[list[Function], str | None]:
    """(functions, None) or ([], why the file cannot be judged), for a file of any language the gate reads."""
    if b"\0" in data[:8192]:
        return [], "binary file"
    if len(data) > max_bytes:
        return [], f"larger than {max_bytes // 1_000_000} MB"
    try:
        source = source_text.decode(data)
    except ValueError as exc:
        return [], str(exc)
    try:
        lang = language(path)
        found = parse_functions(path, source, lang) if lang != sources.PYTHON else compare.parse_functions(path, source)
        many = sources.too_many(found)
        return ([], many) if many else (found, None)
    except sources.Unavailable as exc:  # a deleted file's old side (`readable_files` kept it)
        return [], str(exc)
    except SyntaxError as exc:
        return [], f"syntax error at line {exc.lineno}: {exc.msg}"
    except (ValueError, RecursionError, MemoryError) as exc:
        return [], f"cannot parse: {exc}"


def parse_functions(path: str, source: str, lang: str) -> list[Function]:
    """The functions of a C++, Java or Go source (tree-sitter is tolerant: broken code gives fewer)."""
    out = []
    for snippet in sources.extract(source, lang):
        norm = rules.canonical(snippet.code, frozenset(), lang)
        own = re.escape(re.split(r"::|\.", snippet.name)[-1])
        anon = re.sub(rf"\b{own}\b", "f0", norm, count=1)  # a rename matches its old self
        shape = tuple(line.strip() for line in split_lines(norm) if line.strip())
        out.append(Function(path, snippet, norm, anon, shape, language=lang))
    return out


def judged(matching: Matching, predictor: Any, old: Mapping[str, Sequence[Function]] | None = None,
           new: Mapping[str, Sequence[Function]] | None = None,
           old_path_of: Mapping[str, str] | None = None) -> tuple[Matching, list[Note]]:
    """`matching` without the changes in languages the model does not read, and one note per file.
    Given the functions it was matched from (`old`, `new`, `old_path_of`, as `compare.match` takes
    them), those files are matched again without them, so none of their functions counts as
    unchanged, renamed or removed either: the gate did not read them."""
    keep, notes, told = [], [], set()
    for change in matching.changed:
        lang = change.new.language
        if lang == sources.PYTHON or sources.reads(predictor, lang):
            keep.append(change)
        elif change.path not in told:
            told.add(change.path)
            notes.append(Note(change.path, f"{NOT_JUDGED}: " + sources.not_read(predictor, lang, WHAT_TO_DO)))
    if told and old is not None and new is not None:
        renames = dict(old_path_of or {})
        gone = told | {renames[p] for p in told if p in renames}
        matching = compare.match({p: f for p, f in old.items() if p not in gone},
                                 {p: f for p, f in new.items() if p not in told}, renames)
        keep = [c for c in matching.changed if c.path not in told]
    return dataclasses.replace(matching, changed=keep), notes


def predict(predictor: Any, changes: Sequence[FunctionChange], metrics: Sequence[str],
            n: float | None = None) -> dict[str, Any]:
    """code -> metric -> Prediction for every old and new code of `changes`, one batch per language.
    `n` (`[tool.rlm]`'s): a model that reads n is asked at it, both versions alike, so their values
    are compared at that n (`at_n.ask`); any other model is asked at its reference n, as always.
    Each version is read with the names of its own version of its file it uses (`Snippet.outside`);
    a code met twice keeps the names it was first met with (it reads the same text unless its
    helpers' kinds differ)."""
    by_language: dict[str, list[FunctionChange]] = {}
    for change in changes:
        by_language.setdefault(change.new.language, []).append(change)
    out: dict[str, Any] = {}
    for lang, group in by_language.items():
        codes = codes_to_predict(group)
        read_as: dict[str, Any] = {}  # code -> the snippet whose file names it is read with
        for fn in (f for change in group for f in (change.old, change.new) if f is not None):
            read_as.setdefault(fn.snippet.code, fn.snippet)
        contexts = [read_as[c].context() or None for c in codes]
        out.update(zip(codes, at_n.ask_each(predictor, codes, contexts, lang, n, metrics=metrics), strict=True))
    return out
