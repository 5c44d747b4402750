"""`rlm predict` on C++, Java and Go files (`.cpp .cc .cxx .hpp .h`, `.java`, `.go`): one row per
function or method, found with tree-sitter (`rlm_lsp.policy.sources`), scored by the same Predictor and
template as Python's, with the row's "language".

Values are at the n `sizes` asks each row for (`rlm_lsp.app.cli_sizes`: --n, a `// rlm: n=...` comment
just above the function, n in [tool.rlm]), moved along the row's growth, as Python's.

A model that does not list the file's language in its rlm_config.json gives it no number:
`NotRead` carries the one line that says which model, what it reads and what to do, and
`rlm predict` exits 2.
"""

from __future__ import annotations

import functools
from pathlib import Path

from rlm_lsp.app import cli_sizes
from rlm_lsp.app.cli_jsonl import as_json, truncated
from rlm_lsp.policy import sources
from rlm_lsp.runtime import model

WHAT_TO_DO = "give --model a model directory that reads it"


class NotRead(Exception):
    """The file's language cannot be scored here: the model does not read it, or tree-sitter is missing."""


def predict_file(predictor: model.Model, path: Path, source: str, language: str,
                 sizes: cli_sizes.Sizes | None = None, notes: list[str] | None = None) -> list[dict]:
    """{"file", "line", "function", "kind", "language", metric...} per function, in source order; a
    malformed `// rlm: n=` is a note, and its function keeps the default n."""
    sizes = sizes if sizes is not None else cli_sizes.Sizes()
    if not sources.reads(predictor, language):
        raise NotRead(sources.not_read(predictor, language, WHAT_TO_DO))
    try:
        found = sources.extract(source, language)
    except sources.Unavailable as exc:
        raise NotRead(str(exc)) from None
    found = [s for s in found if s.code.strip()]
    results = predictor.predict([s.code for s in found], language) if found else []
    rows = []
    lines = source.splitlines()
    for s, result in zip(found, results, strict=True):
        row = {"file": str(path), "line": s.name_line + 1, "function": s.qualname, "kind": s.kind, "language": language}
        result = sizes.move(cli_sizes.key(row), result,
                            functools.partial(sizes.asked, path, s.kind,
                                              cli_sizes.pragma(lines, s.start_line, path, notes, language)))
        row.update({m: as_json(p) for m, p in result.items()})
        cut = predictor.read_limit(s.code, language) if truncated(result) else None
        if cut:
            row["truncated"] = True
            row["read_tokens"] = {"read": cut[0], "of": cut[1]}
        rows.append(row)
    return rows
