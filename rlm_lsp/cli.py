"""The `rlm` command.

    rlm predict FILE...            table: one row per function or kernel, value and p10-p90 per metric
    rlm predict FILE... --json     the same as JSON
    rlm predict --jsonl IN|-       batch-score rows {"id", "code", "language"}; one JSON row out per row in
    rlm predict NET.onnx --device pixel3 [--device gpu ...]
                                   predicted latency of a network on target devices
    rlm serve [--tcp HOST:PORT]    the language server (stdio by default)
    rlm gate [...]                 the pre-commit regression gate
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import IO, Iterable, Iterator, Sequence

from rlm_lsp import kernels, snippets
from rlm_lsp.model_dir import ModelError
from rlm_lsp.predictor import InputError, Prediction, Predictor
from rlm_lsp.units import format_value

MAX_FILE_BYTES = 1_000_000
JSONL_BATCH = 32
JSONL_CACHE = 256


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from rlm_lsp.server import main as serve

        return serve(argv[1:])
    if argv[:1] == ["gate"]:
        from hooks.gate import main as gate

        return gate(argv[1:])
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 2
    return _predict(args)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlm", description="Predict peak memory and latency of code from its text.")
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
    p.add_argument("--samples", type=int, default=16, help="samples per prediction; 1 means greedy")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--gpu", help="GPU for @triton.jit kernel latency (default: the kernel model's default GPU)")
    p.add_argument("--shape", help="work size for kernels, e.g. 'B=8 T=2048' or '4096x4096' "
                                   "(default: the kernel model's default shape)")
    p.add_argument("--kernel-model", type=Path,
                   help="kernel latency model directory (default: the shipped one, unless --model is given)")
    p.add_argument("--nas-model", type=Path, help="network latency model directory for .onnx files")
    return parser


def _predict(args: argparse.Namespace) -> int:
    if not args.files and not args.jsonl:
        print("rlm predict: give files, or --jsonl IN", file=sys.stderr)
        return 2
    from rlm_lsp import nas

    device, targets = nas.split_device_args(args.device)
    kwargs = dict(device=device, threads=args.threads, samples=args.samples, seed=args.seed)
    if args.jsonl:
        kwargs["cache_size"] = JSONL_CACHE  # batch rows rarely repeat: keep memory flat
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
    except ModelError as exc:
        print(f"rlm: model error: {exc}", file=sys.stderr)
        return 2
    if args.jsonl:
        source = sys.stdin if args.jsonl == "-" else open(args.jsonl, encoding="utf-8", errors="replace")
        with source:
            score_jsonl(predictor, source, sys.stdout)
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
        cut = [r["read_tokens"] for r in rows if r.get("read_tokens")]
        if cut:
            print(f"* longer than the model's input: it read only the first {cut[0]['read']} tokens "
                  f"of {len(cut)} function{'s' if len(cut) > 1 else ''}")
        ctx = getattr(predictor, "context", None)
        if isinstance(ctx, dict) and any(r.get("kind") == "triton_kernel" for r in rows):
            how = "assuming" if ctx["shape_assumed"] else "for"
            print(f"kernel_latency: GPU {ctx['gpu']}, {how} work size {ctx['shape']} (--gpu, --shape)")
            if ctx.get("gpu_note"):
                print(f"kernel_latency: note: {ctx['gpu_note']}")
    return 1 if failed else 0


class FileProblem(Exception):
    """A file that cannot be scored: unreadable, binary, not UTF-8, too large."""


def read_source(path: Path) -> str:
    try:
        data = path.read_bytes()
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


def predict_file(predictor: Predictor, path: Path) -> list[dict]:
    """One row per function or kernel; a file of top-level code only gets one `<module>` row."""
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
            cut = predictor.read_limit(code) if result else None  # kernels: None (their own cut)
            if cut:
                row["read_tokens"] = {"read": cut[0], "of": cut[1]}
        rows.append(row)
    return rows


def _as_json(p: Prediction) -> dict:
    return {"value": p.value, "low": p.low, "high": p.high, "unit": p.unit}


def format_table(rows: list[dict], metrics: list[str]) -> str:
    metrics = [m for m in metrics if any(m in row for row in rows)] or metrics  # no empty columns
    header = ["location", "function"] + [f"{m} (p10–p90)" for m in metrics]
    lines = [header]
    for row in rows:
        cells = [f"{row['file']}:{row['line']}", row["function"] + (" *" if row.get("read_tokens") else "")]
        for m in metrics:
            p = row.get(m)
            cells.append(row.get("note", "-") if p is None else
                         f"{format_value(p['unit'], p['value'])} ({format_value(p['unit'], p['low'])}–"
                         f"{format_value(p['unit'], p['high'])})")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def score_jsonl(predictor: Predictor, source: IO[str], out: IO[str]) -> None:
    """Streams rows in batches; memory stays flat however many rows come in."""
    for batch in _batches(_parse_rows(source, predictor), JSONL_BATCH):
        good = [row for row in batch if "error" not in row]
        by_language: dict[str, list[dict]] = {}
        for row in good:
            by_language.setdefault(row["language"], []).append(row)
        for language, rows in by_language.items():
            for row, result in zip(rows, predictor.predict([r["code"] for r in rows], language)):
                row["result"] = {m: _as_json(p) for m, p in result.items()}
        for row in batch:
            record = {"id": row.get("id")}
            record.update(row["result"] if "result" in row else {"error": row["error"]})
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
        out.flush()


def _parse_rows(source: Iterable[str], predictor: Predictor) -> Iterator[dict]:
    for number, line in enumerate(source, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            if not isinstance(row, dict):
                raise ValueError("row is not a JSON object")
        except ValueError as exc:
            yield {"id": None, "error": f"line {number}: invalid JSON: {exc}"}
            continue
        yield _validate(row, predictor)


def _validate(row: dict, predictor: Predictor) -> dict:
    """The row to score, or the row with an "error" saying why it cannot be scored."""
    out = {"id": row.get("id"), "code": row.get("code"), "language": row.get("language") or "python"}
    try:
        predictor.check(out["code"], out["language"])
        n = len(predictor.token_ids(out["code"], out["language"]))
        if n > predictor.config.max_input_tokens:
            raise InputError(f"input is {n} tokens, over the model's limit of {predictor.config.max_input_tokens}")
    except InputError as exc:
        out["error"] = str(exc)
    return out


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
