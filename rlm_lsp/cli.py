"""The `rlm` command.

    rlm predict FILE...            table: one row per function or kernel, value and p10-p90 per metric
    rlm predict FILE... --json     the same as JSON
    rlm predict --jsonl IN|-       batch-score rows {"id", "code", "language"}; one JSON row out per row in
                                   (a row longer than the model reads is scored, with "truncated": true)
    rlm predict NET.onnx --device pixel3 [--device gpu ...]
                                   predicted latency of a network on target devices
    rlm serve [--tcp HOST:PORT]    the language server (stdio by default)
    rlm gate [...]                 the pre-commit regression gate
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO

from rlm_lsp import __version__, kernels, model, snippets
from rlm_lsp.errors import FileProblem, InputError, ModelError
from rlm_lsp.prediction import Prediction
from rlm_lsp.predictor import Predictor
from rlm_lsp.units import format_value

MAX_FILE_BYTES = 1_000_000
JSONL_BATCH = 32
JSONL_CACHE = 256
JSONL_LINE_BYTES = 4_000_000  # a longer row is an error; memory stays bounded on /dev/zero


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from rlm_lsp.server import main as serve

        return serve(argv[1:])
    if argv[:1] == ["gate"]:
        from rlm_lsp.gate.gate import main as gate

        return gate(argv[1:])
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 2
    return _predict(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlm", description="Predict peak memory and latency of code from its text.")
    parser.add_argument("--version", action="version", version=f"rlm-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("serve", help="start the language server (see `rlm serve --help`)", add_help=False)
    sub.add_parser("gate", help="run the pre-commit regression gate (see `rlm gate --help`)", add_help=False)
    p = sub.add_parser("predict", help="predict for files, or for JSONL rows with --jsonl")
    p.add_argument("files", nargs="*", type=Path, help="Python files")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--jsonl", metavar="IN", help='score rows {"id", "code", "language"} from a file, or - for stdin')
    p.add_argument("--model", type=Path, help="model directory (default: the shipped model)")
    p.add_argument("--device", action="append", metavar="DEVICE",
                   help="auto, cpu or cuda: where the model runs (default auto); for .onnx files also a target "
                        "device to predict latency on, e.g. pixel3 (repeat for several)")
    p.add_argument("--threads", type=int, default=1, help="onnxruntime intra-op threads (default 1)")
    p.add_argument("--samples", type=_at_least_one, default=16, help="samples per prediction; 1 means greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gpu", help="GPU for @triton.jit kernel latency (default: the kernel model's default GPU)")
    p.add_argument("--shape", help="work size for kernels, e.g. 'B=8 T=2048' or '4096x4096' "
                                   "(default: the kernel model's default shape)")
    p.add_argument("--kernel-model", type=Path,
                   help="kernel latency model directory (default: the shipped one, unless --model is given)")
    p.add_argument("--nas-model", type=Path, help="network latency model directory for .onnx files")
    return parser


def _at_least_one(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value


def _predict(args: argparse.Namespace) -> int:
    if not args.files and not args.jsonl:
        print("rlm predict: give files, or --jsonl IN", file=sys.stderr)
        return 2
    from rlm_lsp import nas

    device, targets = nas.split_device_args(args.device)
    kwargs = dict(device=device, threads=args.threads, samples=args.samples, seed=args.seed)
    source = None
    if args.jsonl:
        kwargs["cache_size"] = JSONL_CACHE  # batch rows rarely repeat: keep memory flat
        try:  # bytes: each line is decoded on its own, so one that is not UTF-8 costs only itself
            source = sys.stdin.buffer if args.jsonl == "-" else open(args.jsonl, "rb")
        except OSError as exc:
            print(f"rlm: --jsonl {args.jsonl}: cannot read: {exc.strerror or exc}", file=sys.stderr)
            return 2
    networks = [f for f in args.files if f.suffix == ".onnx"]
    if networks:
        code = nas.predict_cli(networks, targets, model_dir=args.nas_model, json_out=args.json, **kwargs)
        args.files = [f for f in args.files if f.suffix != ".onnx"]
        if not args.files:
            return code
    elif targets:
        print(f"rlm predict: unknown --device {targets[0]!r}: use auto, cpu or cuda "
              "(target devices apply to .onnx files)", file=sys.stderr)
        return 2
    try:
        try:
            predictor = Predictor.from_dir(args.model, **kwargs) if args.model else Predictor.default(**kwargs)
        except ModelError:
            if args.model or not kernels.KernelModel.available(args.kernel_model):
                raise
            predictor = None  # no Python model shipped: kernels only
        if args.kernel_model or not args.model:  # an explicit --model alone means exactly that model
            predictor = kernels.with_kernels(predictor, gpu=args.gpu, shape_hint=args.shape,
                                             model_dir=args.kernel_model)
        _check_template(predictor)
    except ModelError as exc:
        print(f"rlm: model error: {exc}", file=sys.stderr)
        return 2
    if source is not None:
        with source:
            score_jsonl(predictor, _lines(source), sys.stdout)
        return 0
    rows, failed = [], 0
    for path in args.files:
        try:
            rows.extend(predict_file(predictor, path))
        except FileProblem as exc:
            print(f"rlm: {path}: skipped: {exc}", file=sys.stderr)
            failed += 1
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
    elif not rows:  # no table of headers alone: every file was skipped, or none held code
        if not failed:
            print("rlm: nothing to score: no code in " + ", ".join(map(str, args.files)), file=sys.stderr)
    else:
        print(format_table(rows, [m.name for m in predictor.config.metrics]))
        cut = [r["read_tokens"] for r in rows if r.get("truncated")]
        if cut:
            print(f"* longer than the model's input: it read only the start and the end ({cut[0]['read']} "
                  f"tokens) of {len(cut)} function{'s' if len(cut) > 1 else ''}")
        kernel = predictor.model(model.KERNEL) if isinstance(predictor, model.Router) else None
        if kernel is not None and any(r.get("kind") == "triton_kernel" for r in rows):
            target = kernel.target
            how = "assuming" if target["shape_assumed"] else "for"
            print(f"kernel_latency: GPU {target['gpu']}, {how} work size {target['shape']} (--gpu, --shape)")
            if target["gpu_note"]:
                print(f"kernel_latency: note: {target['gpu_note']}")
    return 1 if failed else 0


def _check_template(predictor) -> None:
    """ModelError when the Python model's input_template cannot be filled here (a field such as
    {device} that only another tool supplies, or a malformed template)."""
    base = predictor.model(model.FUNCTION) if isinstance(predictor, model.Router) else predictor
    if base is None:  # kernels only
        return
    try:
        base.render("pass\n")
    except (KeyError, IndexError, ValueError) as exc:
        raise ModelError(f"input_template of {base.config.path} cannot be filled by rlm predict: "
                         f"{type(exc).__name__}: {exc}") from None


NOT_REGULAR = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}


def read_source(path: Path) -> str:
    """The text of `path`; sizes and kinds are checked before reading, so a FIFO or /dev/zero
    never blocks and a huge file is never read."""
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"not a regular file ({NOT_REGULAR.get(stat.S_IFMT(info.st_mode), 'unknown kind')})")
        if info.st_size > MAX_FILE_BYTES:
            raise FileProblem(f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")
        with open(path, "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)  # it may have grown since the stat
    except OSError as exc:
        raise FileProblem(exc.strerror or str(exc)) from None
    if len(data) > MAX_FILE_BYTES:
        raise FileProblem(f"file is larger than {MAX_FILE_BYTES // 1_000_000} MB")
    if b"\0" in data[:8192]:
        raise FileProblem("binary file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileProblem(f"not UTF-8 text (byte {exc.start})") from None


def predict_file(predictor: model.Model, path: Path) -> list[dict]:
    """One row per function or kernel; a file of top-level code only gets one `<module>` row. A
    function longer than the model reads is scored by its head and tail: its row says
    `"truncated": true` and `"read_tokens": {"read", "of"}`."""
    source = read_source(path)
    found = snippets.extract(source)
    units = [(s.qualname, s.kind, s.name_line + 1, s.code) for s in found]
    if not found and source.strip():
        units = [("<module>", "module", 1, source)]
    known = set(predictor.config.metric_names)
    rows = []
    scorable = [u for u in units if u[1] != "triton_kernel" or "kernel_latency" in known]
    results = predictor.predict([u[3] for u in scorable]) if scorable else []
    by_unit = dict(zip((u[:3] for u in scorable), results))
    for name, kind, line, code in units:
        row = {"file": str(path), "line": line, "function": name, "kind": kind}
        result = by_unit.get((name, kind, line))
        if result is None:
            row["note"] = "Triton kernel: this model has no kernel-latency metric"
        else:
            row.update({m: _as_json(p) for m, p in result.items()})
            cut = predictor.read_limit(code) if _truncated(result) else None
            if cut:
                row["truncated"] = True
                row["read_tokens"] = {"read": cut[0], "of": cut[1]}
        rows.append(row)
    return rows


def _as_json(p: Prediction) -> dict:
    return {"value": p.value, "low": p.low, "high": p.high, "unit": p.unit}


def _truncated(result: dict[str, Prediction]) -> bool:
    return any(p.truncated for p in result.values())


def format_table(rows: list[dict], metrics: list[str]) -> str:
    metrics = [m for m in metrics if any(m in row for row in rows)] or metrics  # no empty columns
    header = ["location", "function"] + [f"{m} (p10–p90)" for m in metrics]
    lines = [header]
    for row in rows:
        cells = [f"{row['file']}:{row['line']}", row["function"] + (" *" if row.get("truncated") else "")]
        for m in metrics:
            p = row.get(m)
            cells.append(row.get("note", "-") if p is None else
                         f"{format_value(p['unit'], p['value'])} ({format_value(p['unit'], p['low'])}–"
                         f"{format_value(p['unit'], p['high'])})")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def score_jsonl(predictor: model.Model, source: Iterable[str | bytes | None], out: IO[str]) -> None:
    """Streams rows in batches; memory stays flat however many rows come in. A row that cannot
    be scored gets {"id", "error"} and the run goes on; each batch is written and flushed as soon
    as it is scored. A row longer than the model reads is scored by its head and tail and says
    `"truncated": true` (the key is there only then). An id holding NaN or Infinity, which JSON has not, is written as its text
    (a string: "NaN", "[1, Infinity]"); the output is strict JSON."""
    for batch in _batches(_parse_rows(source, predictor), JSONL_BATCH):
        good = [row for row in batch if "error" not in row]
        by_language: dict[str, list[dict]] = {}
        for row in good:
            by_language.setdefault(row["language"], []).append(row)
        for language, rows in by_language.items():
            _score(predictor, rows, language)
        for row in batch:
            record = {"id": _json_id(row.get("id"))}
            record.update(row["result"] if "result" in row else {"error": row["error"]})
            out.write(_dumps(record) + "\n")
        out.flush()


def _score(predictor: model.Model, rows: list[dict], language: str) -> None:
    """Sets each row's "result", or its "error" when the model fails on it: a batch that fails
    is retried row by row, so that it costs only the rows that fail alone."""
    try:
        results = predictor.predict([r["code"] for r in rows], language)
    except Exception as exc:  # noqa: BLE001  # whatever the model raises, it is this batch's problem
        if len(rows) > 1:
            for row in rows:
                _score(predictor, [row], language)
        else:
            rows[0]["error"] = _one_line(f"prediction failed: {_describe(exc)}")
        return
    for row, result in zip(rows, results):
        row["result"] = {m: _as_json(p) for m, p in result.items()}
        if _truncated(result):
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


def _parse_rows(source: Iterable[str | bytes | None], predictor: model.Model) -> Iterator[dict]:
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
        yield _validate(row, predictor)


def _validate(row: dict, predictor: model.Model) -> dict:
    """The row to score, or the row with an "error" saying why it cannot be scored."""
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
        predictor.check(out["code"], out["language"])
    except InputError as exc:
        out["error"] = _one_line(str(exc))
    except Exception as exc:  # noqa: BLE001  # the tokenizer or preprocessing on odd code: this row only
        out["error"] = _one_line(f"cannot read this code: {_describe(exc)}")
    return out


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


if __name__ == "__main__":
    raise SystemExit(main())
