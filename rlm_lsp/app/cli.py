"""The `rlm` command.

    rlm predict FILE...            table: one row per function or kernel, value and p10-p90 per metric
                                   (and how it grows, `~n²`, from a model that predicts growth)
    rlm predict FILE... --json     the same as JSON (`rlm_lsp.app.cli_jsonl`: the per-metric fields)
    rlm predict --jsonl IN|-       batch-score rows {"id", "code", "language"}; one JSON row out per row in
                                   (language "python", or "cpp", "java", "go" for a model that reads them)
                                   (a row longer than the model reads is scored, with "truncated": true)
    rlm predict FILE... --n 10**5  values at that input size n (from a model that predicts growth; default: a
                                   function's `# rlm: n=...`, n in [tool.rlm], else the model's reference n)
    rlm predict prog.py --input data.txt | --input-bytes N
                                   the <script> row at its input's size in bytes (the file is never read or run)
    rlm predict FILE... --why      also, per function, the statements whose removal lowers each value most
    rlm predict NET.onnx --device pixel3 [--device gpu ...]
                                   predicted latency of a network on target devices
    rlm serve [--tcp HOST:PORT]    the language server (stdio by default)
    rlm gate [...]                 the pre-commit regression gate
    rlm measure FILE[::FUNC]...    run functions at growing sizes in a sandbox; fit how they grow (`cli_measure`)

Where `.rlm/measured.jsonl` at the repository root holds a curve measured on a function's very code
(`rlm measure`, `rlm gate --measure`: `rlm_lsp.measure.store`), its row shows the measured class, marked
(`~n² measured`), and its JSON has `"measured": {...}` per metric beside the prediction.

A file with top-level code runs as a script (`rlm_lsp.python.shapes.program_shape`: "stdin" when it
reads standard input, else "script"). A model that reads the program's shape (`{shape}` in its
template) gets one more row for the whole file, `FILE:1 <script>`, predicted for that shape. A
model without it predicts functions per call only, and a note under the table (on stderr with
--json) says the script as a whole is not predicted.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rlm_lsp import __version__
from rlm_lsp.app import cli_model, cli_polyglot, cli_sizes, cli_why
from rlm_lsp.app.cli_jsonl import (  # noqa: F401 - JSONL_* and _lines: their old home, for callers and tests
    JSONL_BATCH,
    JSONL_CACHE,
    JSONL_LINE_BYTES,
    _lines,
    as_json,
    score_jsonl,
    shaped,
    truncated,
)
from rlm_lsp.measure import store
from rlm_lsp.policy import options, sources
from rlm_lsp.python import snippets
from rlm_lsp.python.shapes import FUNCTION, STDIN, program_shape
from rlm_lsp.python.source import Source
from rlm_lsp.python.source import of as source_of
from rlm_lsp.python.source import parse as parse_source
from rlm_lsp.runtime import at_n, model, source_text
from rlm_lsp.runtime.errors import ConfigError, FileProblem, ModelError
from rlm_lsp.runtime.prediction import GROWTH_SUFFIX, PER_CALL, Prediction, growth_label  # noqa: F401 - Prediction: for callers
from rlm_lsp.runtime.sizes import per_call
from rlm_lsp.runtime.units import format_value
from rlm_lsp.triton import kernels

MAX_FILE_BYTES = 1_000_000


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["serve"]:
        from rlm_lsp.server import main as serve

        return serve(argv[1:])
    if argv[:1] == ["gate"]:
        from rlm_lsp.gate.gate import main as gate

        return gate(argv[1:])
    if argv[:1] == ["measure"]:
        from rlm_lsp.app.cli_measure import main as measure

        return measure(argv[1:])
    args = _parser().parse_args(argv)
    if args.command is None:
        _parser().print_help()
        return 2
    try:
        return _predict(args)
    except BrokenPipeError:  # `rlm predict ... | head -1`: the reader left; stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit's flush
        return 128 + 13  # the shell's status for a process ended by SIGPIPE


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rlm", description="Predict peak memory and latency of code from its text.")
    parser.add_argument("--version", action="version", version=f"rlm-lsp {__version__}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("serve", help="start the language server (see `rlm serve --help`)", add_help=False)
    sub.add_parser("gate", help="run the pre-commit regression gate (see `rlm gate --help`)", add_help=False)
    sub.add_parser("measure", help="measure how functions grow, in a sandbox (see `rlm measure --help`)", add_help=False)
    p = sub.add_parser("predict", help="predict for files, or for JSONL rows with --jsonl")
    p.add_argument("files", nargs="*", type=Path, help="Python files; C++, Java and Go files for a model that reads them")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--why", action="store_true", help="per Python function, the statements whose removal lowers "
                   "each value most (the model again on each statement left out)")
    p.add_argument("--jsonl", metavar="IN", help='score rows {"id", "code", "language"} from a file, or - for stdin (also "shape": '
                        'function, stdin or script, for a model that reads it)')
    p.add_argument("--n", metavar="N", help="input size the values are for, e.g. 100000, 1e5, 10**5, 100k "
                   "(a model that predicts growth; default: a function's # rlm: n=..., n in [tool.rlm], "
                   "else the model's reference n)")
    p.add_argument("--input", type=Path, metavar="FILE", help="a script's input: its size in bytes is the "
                   "<script> row's n (only the size is read; the program never runs)")
    p.add_argument("--input-bytes", metavar="N", help="the same as --input, by number")
    p.add_argument("--model", type=Path, help="model directory (default: the shipped model)")
    p.add_argument("--device", action="append", metavar="DEVICE",
                   help="auto, cpu or cuda: where the model runs (default auto); for .onnx files also a target "
                        "device to predict latency on, e.g. pixel3 (repeat for several)")
    p.add_argument("--threads", type=options.threads, default=1,
                   help=f"onnxruntime intra-op threads (default 1, at most {options.MAX_THREADS})")
    p.add_argument("--samples", type=options.samples, default=16,
                   help=f"samples per prediction; 1 means greedy (at most {options.MAX_SAMPLES})")
    p.add_argument("--seed", type=options.seed, default=0, help="seed of the sampling draws (0 or more)")
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
    from rlm_lsp.networks import nas

    try:
        sizes = cli_sizes.from_args(args.n, args.input, args.input_bytes)
        if args.jsonl and (sizes.n is not None or sizes.input_n is not None):
            raise ValueError('with --jsonl, give each row its "n" or "input_bytes"')
    except ValueError as exc:
        print(f"rlm predict: {exc}", file=sys.stderr)
        return 2
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
        predictor = cli_model.load_model(args, kwargs)
        cli_model.check_template(predictor)
    except ModelError as exc:
        print(f"rlm: model error: {exc}", file=sys.stderr)
        return 2
    if source is not None:
        with source:
            score_jsonl(predictor, _lines(source), sys.stdout)
        return 0
    rows: list[dict] = []
    notes: list[str] = []
    failed = unread = 0
    for path in args.files:
        try:
            rows.extend(predict_file(predictor, path, notes, sizes))
        except ConfigError as exc:  # n in [tool.rlm]: a setting, as a bad --n
            print(f"rlm predict: {exc}", file=sys.stderr)
            return 2
        except cli_polyglot.NotRead as exc:  # a setup problem, as a bad --model: exit 2 once all are done
            print(f"rlm: {path}: {exc}", file=sys.stderr)
            unread += 1
        except FileProblem as exc:
            print(f"rlm: {path}: skipped: {exc}", file=sys.stderr)
            failed += 1
    unsized = per_call(predictor.config)  # what a number without n is for
    if rows and not sizes.used and (sizes.n is not None or sizes.input_n is not None):
        notes.append("note: this model predicts no growth, so --n, --input and --input-bytes do not apply: "
                     f"its values are {unsized}")
    if args.why:
        cli_why.add_why(predictor, rows, lambda p: read_source(Path(p)))
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False))
        for note in notes:
            print(note, file=sys.stderr)
    elif not rows:  # no table of headers alone: every file was skipped, or none held code
        if not failed and not unread:
            print("rlm: nothing to score: no code in " + ", ".join(map(str, args.files)), file=sys.stderr)
    else:
        print(format_table(rows, [m.name for m in predictor.config.metrics], cli_sizes.marked(sizes, rows)))
        for line in (table_legend(rows, bool(sizes.used), unsized), cli_sizes.closing_line(sizes, rows)):
            if line:
                print(line)
        for note in notes:
            print(note)
        for line in cli_why.format_why(rows):
            print(line)
        cut = [r["read_tokens"] for r in rows if r.get("truncated")]
        if cut:
            print(f"* longer than the model's input: it read only the start and the end ({cut[0]['read']} "
                  f"tokens) of {len(cut)} function{'s' if len(cut) > 1 else ''}")
        kernel = predictor.model(model.KERNEL) if isinstance(predictor, model.Router) else None
        if isinstance(kernel, kernels.KernelModel) and any(r.get("kind") == "triton_kernel" for r in rows):
            target = kernel.target
            how = "assuming" if target["shape_assumed"] else "for"
            print(f"kernel_latency: GPU {target['gpu']}, {how} work size {target['shape']} (--gpu, --shape)")
            if target["gpu_note"]:
                print(f"kernel_latency: note: {target['gpu_note']}")
    return 2 if unread else 1 if failed else 0


NOT_REGULAR = source_text.NOT_REGULAR


def read_source(path: Path) -> str:
    """The text of `path`; its kind and size are checked before reading (source_text.read_bytes),
    so a FIFO, /dev/zero or /proc/kmsg never blocks and a huge file is never read."""
    data = source_text.read_bytes(path, MAX_FILE_BYTES)
    if b"\0" in data[:8192]:
        raise FileProblem("binary file")
    try:
        return source_text.decode(data)
    except ValueError as exc:
        raise FileProblem(str(exc)) from None


def predict_file(predictor: model.Model, path: Path, notes: list[str] | None = None,
                 sizes: cli_sizes.Sizes | None = None) -> list[dict]:
    """One row per function or kernel; a file of top-level code only gets one `<module>` row. A
    function longer than the model reads is scored by its head and tail: its row says
    `"truncated": true` and `"read_tokens": {"read", "of"}`.

    A file with top-level code (`program_shape`: "stdin" or "script"): a model that reads the
    shape gets a `<script>` row for the whole file first, at line 1, predicted for that shape (in
    place of the `<module>` row), and every row says its "shape"; for any other model a line saying the
    script as a whole is not predicted goes to `notes`.

    From a model that predicts growth, each row's values are at the n `sizes` asks for it
    (`cli_sizes`: --n, the function's `# rlm: n=...`, [tool.rlm], --input), else at the model's reference n."""
    sizes = sizes if sizes is not None else cli_sizes.Sizes()
    source = read_source(path)
    language = sources.language_of(str(path)) or sources.PYTHON  # any other suffix is read as Python, as always
    if language != sources.PYTHON:
        return cli_polyglot.predict_file(predictor, path, source, language, sizes, notes)
    parsed = parse_source(source)  # once: its functions, its shape and its parse error read this one tree
    found = snippets.extract(parsed)
    units = [(s.qualname, s.kind, s.name_line + 1, s.code) for s in found]
    lines = list(parsed.lines)
    pragmas = {s.name_line + 1: cli_sizes.pragma(lines, s.start_line, path, notes) for s in found}
    shape = program_shape(parsed)
    by_shape = shaped(predictor)
    if by_shape and shape != FUNCTION:  # first: line 1, and the headline of a script
        units.insert(0, ("<script>", "script", 1, source))
    elif not found and source.strip():
        units = [("<module>", "module", 1, source)]
    if shape != FUNCTION and not by_shape and notes is not None:
        notes.append(script_note(path, shape, bool(found)))
    broken = parse_error(parsed)
    del parsed  # its tree is not needed while the model runs
    if broken and notes is not None:
        notes.append(f"note: {path}:{broken}; " + ("only the functions that parse on their own are scored"
                     if found else "the <module> row reads it as text"))
    rows = []
    scorable = [u for u in units if u[1] != "triton_kernel" or "kernel_latency" in predictor.config.metric_names]
    functions = [u for u in scorable if u[1] != "script"]
    contexts = {(s.qualname, s.kind, s.name_line + 1): s.context() or None for s in found}  # each with its file's names
    first = {(s.qualname, s.kind, s.name_line + 1): s.start_line for s in found}  # code line k is file line first + k
    results = at_n.ask_each(predictor, [u[3] for u in functions], [contexts.get(u[:3]) for u in functions])
    kept = store.kept(path, source, [s.qualname for s in found if s.kind != "triton_kernel"])
    whole = [u for u in scorable if u[1] == "script"]
    context = {"shape": shape}
    if whole:
        results += predictor.predict([whole[0][3]], context=context)
    by_unit = dict(zip((u[:3] for u in functions + whole), results))
    for name, kind, line, code in units:
        row = {"file": str(path), "line": line, "function": name, "kind": kind, "language": sources.PYTHON}
        if by_shape:
            row["shape"] = shape if kind == "script" else FUNCTION
        result = by_unit.get((name, kind, line))
        if result is None:
            row["note"] = "Triton kernel: this model has no kernel-latency metric"
        else:
            result = sizes.move(cli_sizes.key(row), result, functools.partial(sizes.asked, path, kind, pragmas.get(line)),
                                cli_sizes.asker(predictor, code, context if kind == "script" else contexts.get((name, kind, line))))
            row.update({m: as_json(p, first.get((name, kind, line), 0)) for m, p in result.items()})
            if name in kept and kind != "script":
                store.add_measured(row, kept[name])
            cut = predictor.read_limit(code, context=context if kind == "script" else contexts.get((name, kind, line))) \
                if truncated(result) else None
            if cut:
                row["truncated"] = True
                row["read_tokens"] = {"read": cut[0], "of": cut[1]}
        rows.append(row)
    return rows


def parse_error(source: str | Source) -> str | None:
    """`LINE: does not parse (MESSAGE)` for source that is not Python 3, else None; `source`: its
    text, or the file parsed once (`rlm_lsp.python.source`)."""
    exc = source_of(source).error
    if exc is None:
        return None
    if isinstance(exc, SyntaxError):
        return f"{exc.lineno or 1}: does not parse ({exc.msg})"
    return f"1: does not parse ({type(exc).__name__})"


def script_note(path: Path, shape: str, has_functions: bool) -> str:
    """The line for a script under a model that predicts functions only."""
    runs = "runs as a script reading stdin" if shape == STDIN else "runs as a script"
    if has_functions:
        return (f"note: {path}: its top-level code {runs}; this model predicts only its functions "
                "(per call), so the script as a whole is not predicted")
    return (f"note: {path}: its top-level code {runs}; this model predicts functions (per call), so "
            "the <module> row reads the file as one function, not as the script's whole run")


def table_legend(rows: list[dict], sized: bool = False, unsized: str = PER_CALL) -> str | None:
    """What the table's numbers are for, as the hover says it: a function's `unsized` (`sizes.per_call`),
    or per call at n when the values are `sized` by a model that predicts growth (the closing line says
    the n); a script's per run on its input; the interval: the middle 80% of the model's samples."""
    scored = [r for r in rows if any(m in r for m in ("memory", "latency"))]
    if not scored:
        return None
    parts = []
    if any(r.get("kind") != "script" for r in scored):
        parts.append("functions: per call" if sized else f"functions: {unsized}")
    if any(r.get("kind") == "script" for r in scored):
        parts.append("<script>: one run of the whole file on its input")
    legend = "; ".join(parts) + "; p10–p90: the middle 80% of the model's samples"
    if any(r.get("language") not in (None, sources.PYTHON) for r in scored):
        legend += " (C++, Java, Go: of its trees' misses on training problems; values per program run)"
    if any(isinstance(r.get(m), dict) and "measured" in r[m] for r in scored for m in store.MEASURED_OF):
        legend += "; ~class measured: the class of a curve measured on this very code (.rlm/measured.jsonl)"
    return legend


def format_table(rows: list[dict], metrics: list[str], marks: dict | None = None) -> str:
    """`8.2 kB (671 B–337 kB)` per metric, `8.2 kB ~n (671 B–337 kB)` with a growth prediction
    (`~n?` when unsure of it, as the editor's hint); `marks`: (file, line, function) -> ` @ n=10⁶`
    after the function's name, for a row at its own n."""
    marks = marks or {}
    metrics = [m for m in metrics if not m.endswith(GROWTH_SUFFIX)] or metrics  # folded into their base
    metrics = [m for m in metrics if any(m in row for row in rows)] or metrics  # no empty columns
    header = ["location", "function"] + [f"{m} (p10–p90)" for m in metrics]
    lines = [header]
    for row in rows:
        cells = [f"{row['file']}:{row['line']}", row["function"] + (" *" if row.get("truncated") else "")
                 + marks.get(cli_sizes.key(row), "")]
        for m in metrics:
            p = row.get(m)
            cells.append(row.get("note", "-") if p is None else
                         f"{format_value(p['unit'], p['value'])}{_growth_word(p)} "
                         f"({format_value(p['unit'], p['low'])}–{format_value(p['unit'], p['high'])})")
        lines.append(cells)
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def _growth_word(p: dict) -> str:
    measured = p.get("measured")
    if isinstance(measured, dict) and measured.get("class"):
        return f" ~{measured['class']} measured"
    if p.get("growth") is None:
        return ""
    return " " + growth_label(p["growth"], p.get("growth_low"), p.get("growth_high"))


if __name__ == "__main__":
    raise SystemExit(main())
