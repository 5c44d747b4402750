"""C++, Java and Go training examples (issue 51, item 2): ladder rows joined with the corpus's code.

    python -m training.learning.polyglot_data training/data/leetcode_cpp.jsonl.gz ...   # counts only
    python -m training.learning.polyglot_data --stage-texts OUT.jsonl.gz DATA ...       # texts, staged

A row of `training/data/leetcode_<lang>.jsonl.gz` (or a measurement stream's `.jsonl`) names its
program by `key` = "<source>:<path>" of `../shared/corpora/leetcode/solutions.jsonl.gz` and its rung
(`1/16`, `1/4`, `1` of the Python ladder's `large` size). The reference target is the rung-`1` row
(n = L), as Python's is its `large` tier: `memory_bytes` (peak RSS above the language's empty
program) and `latency_ms` (CPU time, min of 3). Only rows with status `ok` whose output was not
found wrong are read; a program measured twice is merged by the median.

Memory at or below 0 bytes (a run whose peak RSS did not rise above the empty program's, within a
page) carries no rank, so that metric is left unknown for the row (its latency stays); no row of
the data of 2026-12-06 had one.

The code a model reads is what the runtime is fed for a file of that language: the solution's
functions and methods (`rlm_lsp.polyglot.functions.functions`), each normalised
(`functions.normalise`: comments gone, whitespace normalised), joined in source order by one line
break. A file with no function found is skipped (counted in `stats`).

A machine without the corpus (or without tree-sitter: the GPU machine of `training/device/device_poly.sh`)
reads those texts from a staged file instead (`--stage-texts` here, `texts=` / train's
`--polyglot-texts` there): one `{"key", "language", "text"}` line per program the data names, `text`
null where the corpus has no function for it. A program of the data the staged file lacks is an error,
not a skip: the data grew after staging, and training on fewer rows than asked would go unseen.
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from collections.abc import Iterable, Sequence

from training.learning import dataset

LANGUAGES = ("cpp", "java", "go")
REFERENCE_RUNG = "1"
_FIELDS = {"memory": "memory_bytes", "latency": "latency_ms"}


def solution_text(code: str, language: str) -> str | None:
    """The normalised functions of one source file, joined; None when it has none."""
    from rlm_lsp.polyglot.functions import functions, normalise

    found = functions(code, language)
    if not found:
        return None
    return "".join(normalise(text, language) for _q, _a, _b, text in found)


def reference_rows(rows: Iterable[dict], languages: Sequence[str]) -> dict[str, list[dict]]:
    """key -> its usable rung-1 rows, for the `languages` given."""
    out: dict[str, list[dict]] = {}
    for r in rows:
        if (r.get("language") in languages and r.get("rung") == REFERENCE_RUNG and r.get("status") == "ok"
                and r.get("correct") is not False and r.get("key")):
            out.setdefault(r["key"], []).append(r)
    return out


def _value(rows: list[dict], metric: str) -> float | None:
    vals = []
    for r in rows:
        v = r.get(_FIELDS[metric])
        if isinstance(v, (int, float)) and v == v and v > 0:
            vals.append(float(v))
    return statistics.median(vals) if vals else None


def corpus_codes(keys: set[str], corpus: str = dataset.DEFAULT_CORPUS) -> dict[str, str]:
    """key -> code for the keys asked (one pass over the corpus)."""
    out = {}
    for row in dataset.read_jsonl([corpus]):
        key = f"{row['source']}:{row['path']}"
        if key in keys:
            out[key] = row["code"]
    return out


def function_texts(groups: dict[str, list[dict]], corpus: str = dataset.DEFAULT_CORPUS) -> dict[str, str | None]:
    """key -> the text a model reads (None: no function found), for the keys the corpus has."""
    codes = corpus_codes(set(groups), corpus)
    return {key: solution_text(code, groups[key][0]["language"]) for key, code in codes.items()}


def stage_texts(paths: Sequence[str], out: str, languages: Sequence[str] = LANGUAGES,
                corpus: str = dataset.DEFAULT_CORPUS) -> dict[str, int]:
    """Write every program of `paths` with its text (null: none) to `out` (.jsonl.gz); counts by language."""
    groups = reference_rows(dataset.read_jsonl(dataset.expand(list(paths))), languages)
    texts = function_texts(groups, corpus)
    counts: dict[str, int] = {}
    with gzip.open(out, "wt") as f:
        for key, rows in sorted(groups.items()):
            language = rows[0]["language"]
            f.write(json.dumps({"key": key, "language": language, "text": texts.get(key)}) + "\n")
            counts[language] = counts.get(language, 0) + 1
    return counts


def staged_texts(path: str) -> dict[str, str | None]:
    """key -> text of a `stage_texts` file."""
    return {row["key"]: row["text"] for row in dataset.read_jsonl([path])}


def load_examples(paths: Sequence[str], languages: Sequence[str] = LANGUAGES,
                  corpus: str = dataset.DEFAULT_CORPUS, stats: dict | None = None,
                  texts: str | None = None) -> list[dataset.Example]:
    """One Example per program with a usable rung-1 row, sorted by key; its text from the corpus, or
    from the staged file `texts` (which must hold every program: ValueError otherwise)."""
    groups = reference_rows(dataset.read_jsonl(dataset.expand(list(paths))), languages)
    if texts is None:
        found = function_texts(groups, corpus)
    else:
        found = staged_texts(texts)
        missing = sorted(set(groups) - set(found))
        if missing:
            raise ValueError(f"{len(missing)} programs of the polyglot data are not in {texts} "
                             f"(first {missing[0]}): stage the texts again")
    stats = stats if stats is not None else {}
    examples = []
    for key, rows in sorted(groups.items()):
        language = rows[0]["language"]
        values = {m: _value(rows, m) for m in dataset.METRIC_NAMES}
        if all(v is None for v in values.values()):
            stats[f"{language}_no_value"] = stats.get(f"{language}_no_value", 0) + 1
            continue
        text = found.get(key)
        if text is None:
            stats[f"{language}_no_code"] = stats.get(f"{language}_no_code", 0) + 1
            continue
        examples.append(dataset.Example(
            key=key, problem_id=str(rows[0]["problem_id"]), code=text, values=values, language=language,
            tier="large", extra={"source": rows[0].get("source"), "shape": "function", "rung": REFERENCE_RUNG}))
        stats[language] = stats.get(language, 0) + 1
    return examples


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.learning.polyglot_data")
    p.add_argument("data", nargs="+", help="C++/Java/Go ladder rows (.jsonl or .jsonl.gz)")
    p.add_argument("--stage-texts", metavar="OUT", help="write each program's text to OUT (.jsonl.gz) instead")
    p.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    args = p.parse_args(argv)
    if args.stage_texts:
        print(json.dumps({"staged": stage_texts(args.data, args.stage_texts, corpus=args.corpus)}))
        return 0
    stats: dict = {}
    examples = load_examples(args.data, corpus=args.corpus, stats=stats)
    train, val = dataset.split_by_problem(examples)
    by = {lang: (sum(e.language == lang for e in train), sum(e.language == lang for e in val)) for lang in LANGUAGES}
    print(json.dumps({"examples": stats, "train_val": by}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
