"""`rlm predict --jsonl IN|-`: batch-score rows {"id", "code", "language"[, "shape"]}, one JSON row
out per row in, and the per-metric JSON both it and `rlm predict --json` write.

"language" is "python" (the default) or one the model lists in its rlm_config.json, such as
"cpp", "java" or "go", whose "code" is one function's text; a scored row says the "language" it
was read as, a row in a language the model does not read gets an "error" naming what it reads.

Each metric's object is {"value", "low", "high", "unit"} (p10 and p90 as low and high); from a
model that predicts growth also "n" (the input size the value is for; null where the model
states none), "growth" (the predicted exponent of n), "growth_low" and "growth_high" (its p10
and p90) and "growth_class" (`1`, `log n`, `n`, `n log n`, `n²`, `n³`, `2ⁿ`); where the growth is the
cost analyzer's, "cost" (the leading cost per sized input, `n·m`), "cost_of" (what each letter
stands for: {"n": "len(text)", "m": "len(pattern)"}) and "cost_lines" (the lines carrying it). Without a growth
prediction these keys are omitted, not null, so a model without growth writes exactly what it
always wrote.

A row may carry "n" (a function's input size) or "input_bytes" (a script's stdin size): a model
that reads n (its template's `{n}`, `rlm_lsp.runtime.at_n`) is asked at that size, any other's values
are moved there along the predicted curve (`rlm_lsp.runtime.growth.at`); rows without keep the
model's reference n, and each metric's "n" says which n its value is for. A model with neither
growth nor `{n}` ignores both. A row may name the function to predict with "entry" (`name` or
`Class.method`); the rest of its code is that function's helpers. Without it, the last top-level
function (or the public method of the last class) is the entry.

A model whose template reads the program's shape (`rlm_lsp.runtime.template.shaped`) gets each row's
"shape" ("function", "stdin" or "script") when the row gives one, else `program_shape` of its
code, and its result says the "shape" it was predicted for.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Iterator
from typing import IO

from rlm_lsp.python.shapes import SHAPES, program_shape
from rlm_lsp.runtime import at_n, growth, model, sizes, template
from rlm_lsp.runtime.errors import InputError
from rlm_lsp.runtime.prediction import Prediction, growth_name
from rlm_lsp.runtime.readers import ENTRY

JSONL_BATCH = 32
JSONL_CACHE = 256
JSONL_LINE_BYTES = 4_000_000  # a longer row is an error; memory stays bounded on /dev/zero


def as_json(p: Prediction, first_line: int = 0) -> dict:
    """{"value", "low", "high", "unit"}, and "n" where the value is for a size (growth predicted, or a
    model that reads n), "growth", "growth_low", "growth_high", "growth_class" when growth is predicted;
    "cost", "cost_of", "cost_lines" where the cost analyzer gave it (lines of the code, or of its file
    when the code starts at `first_line` + 1 there)."""
    out = {"value": p.value, "low": p.low, "high": p.high, "unit": p.unit}
    g = getattr(p, "growth", None)
    if g is not None or getattr(p, "n", None) is not None:
        out["n"] = p.n  # null for a growth the RLM predicts with no reference n (model v4)
    if g is not None:
        out.update(growth=g, growth_low=p.growth_low, growth_high=p.growth_high, growth_class=growth_name(g))
    if getattr(p, "cost", ""):
        out.update(cost=p.cost, cost_of=dict(p.cost_legend), cost_lines=[first_line + k for k in p.cost_lines])
    return out


def truncated(result: dict[str, Prediction]) -> bool:
    return any(p.truncated for p in result.values())


def shaped(predictor) -> bool:
    """Whether the Python model behind `predictor` reads the program's shape (`{shape}`)."""
    base = predictor.model(model.FUNCTION) if isinstance(predictor, model.Router) else predictor
    config = getattr(base, "config", None)
    language = (getattr(config, "languages", None) or ("python",))[0]
    return base is not None and template.shaped(getattr(config, "input_template", ""), language)


def score_jsonl(predictor: model.Model, source: Iterable[str | bytes | None], out: IO[str]) -> None:
    """Streams rows in batches; memory stays flat however many rows come in. A row that cannot
    be scored gets {"id", "error"} and the run goes on; each batch is written and flushed as soon
    as it is scored. A row longer than the model reads is scored by its head and tail and says
    `"truncated": true` (the key is there only then). An id holding NaN or Infinity, which JSON has not, is written as its text
    (a string: "NaN", "[1, Infinity]"); the output is strict JSON."""
    by_shape, asks = shaped(predictor), at_n.reads_n(predictor)
    for batch in _batches(_parse_rows(source, predictor, by_shape), JSONL_BATCH):
        good = [row for row in batch if "error" not in row]
        groups: dict[tuple[str, str | None, float | None], list[dict]] = {}
        for row in good:  # a model that reads n: one batch per size, each asked at its own
            groups.setdefault((row["language"], row.get("shape"), row["n"] if asks else None), []).append(row)
        for (language, shape, n), rows in groups.items():
            _score(predictor, rows, language, shape, n)
        for row in batch:
            record = {"id": _json_id(row.get("id"))}
            if "result" in row:
                record["language"] = row["language"]
            record.update(row["result"] if "result" in row else {"error": row["error"]})
            out.write(_dumps(record) + "\n")
        out.flush()


def _score(predictor: model.Model, rows: list[dict], language: str, shape: str | None = None,
           n: float | None = None) -> None:
    """Sets each row's "result", or its "error" when the model fails on it: a batch that fails
    is retried row by row, so that it costs only the rows that fail alone. `shape`: the program
    shape all `rows` are predicted for (a shaped model only; None: the model reads no shape).
    `n`: the size all `rows` are asked at (a model that reads n only; None: its reference n)."""
    codes = [r["code"] for r in rows]
    contexts = [{**({} if shape is None else {"shape": shape}), **({ENTRY: r["entry"]} if r.get("entry") else {})}
                or None for r in rows]
    try:
        results = at_n.ask_each(predictor, codes, contexts, language, n)
    except Exception as exc:  # noqa: BLE001  # whatever the model raises, it is this batch's problem
        if len(rows) > 1:
            for row in rows:
                _score(predictor, [row], language, shape, n)
        else:
            rows[0]["error"] = _one_line(f"prediction failed: {_describe(exc)}")
        return
    for row, result in zip(rows, results):
        if row.get("n") is not None:  # unchanged where the model was asked at it (`growth.at`: its own n)
            result = {m: growth.at(p, row["n"]) for m, p in result.items()}
        row["result"] = {m: as_json(p) for m, p in result.items()}
        if shape is not None:
            row["result"]["shape"] = shape
        if truncated(result):
            row["result"]["truncated"] = True


def _lines(source: IO[bytes], limit: int = JSONL_LINE_BYTES) -> Iterator[bytes | None]:
    """The lines of `source`, None for each one longer than `limit` (read past, never held)."""
    while line := source.readline(limit + 1):
        if len(line) > limit and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = source.readline(limit + 1)
            yield None
        else:
            yield line


def _parse_rows(source: Iterable[str | bytes | None], predictor: model.Model,
                by_shape: bool = False) -> Iterator[dict]:
    for number, line in enumerate(source, 1):
        if line is None:
            yield {"id": None, "error": f"line {number}: longer than {JSONL_LINE_BYTES // 1_000_000} MB"}
            continue
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8-sig" if number == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                yield {"id": None, "error": f"line {number}: not UTF-8 (byte {exc.start})"}
                continue
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("row is not a JSON object")
        except (ValueError, RecursionError) as exc:  # RecursionError: [[[[... nested too deep
            yield {"id": None, "error": _one_line(f"line {number}: invalid JSON: {exc}")}
            continue
        yield _validate(row, predictor, by_shape)


def _entry_of(entry, code: str) -> str:
    """A row's "entry": the function (`name` or `Class.method`) its code is predicted for."""
    if not isinstance(entry, str) or not entry.strip():
        raise InputError('"entry" must name a function of the code ("name" or "Class.method")')
    name, _, method = entry.strip().partition(".")
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return entry.strip()  # the model still reads it; the analyzer gives no growth
    for node in tree.body:
        if getattr(node, "name", None) == name and (not method or any(getattr(m, "name", None) == method
                                                                      for m in getattr(node, "body", []))):
            return entry.strip()
    raise InputError(f'"entry" {entry.strip()!r} is not a top-level function or method of the code')


def _validate(row: dict, predictor: model.Model, by_shape: bool = False) -> dict:
    """The row to score, or the row with an "error" saying why it cannot be scored. `by_shape`:
    the model reads the program's shape, so the row gets its "shape" (given, or from its code)."""
    out = {"id": row.get("id"), "code": row.get("code"), "language": row.get("language") or "python"}
    try:
        if "code" not in row:
            raise InputError('missing "code"')
        for key in ("code", "language"):
            value = out[key]
            if not isinstance(value, str):
                raise InputError(f'"{key}" must be a string, got {"null" if value is None else type(value).__name__}')
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise InputError(f'"{key}" holds a lone surrogate (\\u{ord(value[exc.start]):04x} '
                                 f"at character {exc.start})") from None
        code, language = str(out["code"]), str(out["language"])  # both checked to be strings above
        predictor.check(code, language)
        out["n"] = _size_of(row)
        if row.get("entry") is not None:
            out["entry"] = _entry_of(row["entry"], code)
        if by_shape:
            out["shape"] = _shape_of(row, code)
    except InputError as exc:
        out["error"] = _one_line(str(exc))
    except Exception as exc:  # noqa: BLE001  # the tokenizer or preprocessing on odd code: this row only
        out["error"] = _one_line(f"cannot read this code: {_describe(exc)}")
    return out


def _size_of(row: dict) -> float | None:
    """The row's "n" or "input_bytes" (the size its values are for), parsed; None without either."""
    given = [k for k in ("n", "input_bytes") if row.get(k) is not None]
    if len(given) > 1:
        raise InputError('give "n" or "input_bytes", not both')
    if not given:
        return None
    key, value = given[0], row[given[0]]
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)) or len(str(value)) > 40:
            raise ValueError
        return sizes.parse_n(value)
    except (ValueError, OverflowError):
        raise InputError(f'"{key}" must be a size from 1 to {sizes.MAX_N:.0e} like 100000, 1e5 or "10**5", '
                         f"got {json.dumps(value)[:40]}") from None


def _shape_of(row: dict, code: str) -> str:
    given = row.get("shape")
    if given is None:
        return program_shape(code)
    if given not in SHAPES:
        raise InputError(f'"shape" must be one of {", ".join(SHAPES)}, got {json.dumps(given)[:40]}')
    return given


def _json_id(value):
    """The row's id as given, or its text when it holds NaN or Infinity."""
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return json.dumps(value)
    return value


def _dumps(record: dict) -> str:
    try:
        text = json.dumps(record, ensure_ascii=False, allow_nan=False)
    except ValueError:  # a prediction that is not a finite number
        return json.dumps({"id": record["id"], "error": "prediction is not a finite number"})
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate in an id: written as a \u escape
        text = json.dumps(record, allow_nan=False)
    return text


def _one_line(text: str) -> str:
    return " ".join(text.splitlines())


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _batches(rows: Iterable[dict], size: int) -> Iterator[list[dict]]:
    batch: list[dict] = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
