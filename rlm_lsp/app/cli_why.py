"""`rlm predict FILE --why`: per Python function, the statements whose removal lowers each value most
(`rlm_lsp.runtime.attribution`, leaving each statement out and predicting again).

    rows (cli.predict_file) -> each Python function's code again (its file, its line)
         -> Attributor -> "why" per row: metric -> [{line, end_line, text, drop}] (file lines, 1-based)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rlm_lsp.python import leave_out, snippets
from rlm_lsp.runtime.attribution import Attribution, Attributor

KINDS = ("function", "method")  # kernels are read by another model; scripts are not one function


def add_why(predictor, rows: Sequence[dict], read: Callable[[str], str]) -> None:
    """Set `row["why"]` on every Python function's row; `read(path)` gives a file's text."""
    attributor = Attributor(predictor, leave_out.leave_each_out)
    codes: dict[str, dict[int, snippets.Snippet]] = {}  # file -> name line (1-based) -> snippet
    for row in rows:
        if row.get("kind") not in KINDS or row.get("language") != "python" or "note" in row:
            continue
        path = row["file"]
        if path not in codes:
            codes[path] = {s.name_line + 1: s for s in snippets.extract(read(path))}
        s = codes[path].get(row["line"])
        if s is not None:  # a model that reads n: the variants at the n the row's values are for
            n = next((v["n"] for v in row.values() if isinstance(v, dict) and v.get("n") is not None), None)
            row["why"] = as_json(attributor(s.code, "python", n, s.context()), s.start_line)  # its file's names


def as_json(found: Attribution, start_line: int) -> dict:
    """metric -> the statements lowering it most, as file lines; "first" when only the first were tried."""
    out: dict = {m: [{"line": start_line + e.part.line, "end_line": start_line + e.part.end_line,
                      "text": e.part.text, "drop": round(e.drop, 3)} for e in effects]
                 for m, effects in found.effects.items()}
    if found.tried < found.total:
        out["first"] = found.tried
    return out


def format_why(rows: Sequence[dict]) -> list[str]:
    """`prog.py:3 count_paths: memory: line 6 −99% (`table = ...`), ...; latency: ...` per row."""
    out = []
    for row in rows:
        why = row.get("why")
        if why is None:
            continue
        parts = []
        for metric, effects in why.items():
            if metric == "first":
                continue
            said = ", ".join(f"{_where(e)} −{e['drop'] * 100:.0f}% (`{e['text']}`)" for e in effects)
            parts.append(f"{metric}: {said or 'no statement lowers it'}")
        cut = f" (first {why['first']} statements)" if "first" in why else ""
        said_all = "; ".join(parts) or "one statement only: nothing to leave out"  # issue 61: never an empty line
        out.append(f"  {row['file']}:{row['line']} {row['function']}{cut}: {said_all}")
    return ["without each statement, the largest drops:", *out] if out else []


def _where(effect: dict) -> str:
    first, last = effect["line"], effect["end_line"]
    return f"line {first}" if first == last else f"lines {first}–{last}"
