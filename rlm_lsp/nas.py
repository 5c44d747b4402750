"""Latency of a neural network on a target device, predicted from its `.onnx` graph.

    from rlm_lsp import nas
    rows = nas.predict_onnx_file("model.onnx", ["pixel3", "1080ti_1"])
    # [{"file", "device", "metric": "latency", "value", "low", "high", "unit": "ms", "graph_tokens", "truncated"}]

The `.onnx` file becomes graph text (`rlm_lsp.graph_text`, no `onnx` package needed), the model reads
`<metrics> latency <device> {device} <graph>\\n{graph text}` where `{device}` is the device's description:
its name and its latency on 10 reference NAS-Bench-201 networks (`devices.json` in the model directory).
A device the model does not list can be given as `NAME=l1,l2,...,l10` (its measured latencies in ms on
the 10 reference networks, in `devices.json`'s `reference_archs` order).

For the commit gate, `latency_verdicts` is a pure function (old and new predictions in, verdicts out) and
`check_onnx_change` runs the model on the old and new bytes of one file.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from rlm_lsp.graph_text import GRAPH_TEXT_VERSION, GraphError, onnx_text
from rlm_lsp.errors import ModelError, UnknownDevice

NAS_DIR = Path(__file__).parent / "models" / "nas"
LANGUAGE = "onnx-graph"
METRIC = "latency"
RUNTIME_DEVICES = ("auto", "cpu", "cuda")  # where onnxruntime runs, not a target device

__all__ = ["GraphError", "ModelError", "UnknownDevice", "Verdict", "describe_device", "load_devices",
           "predict_onnx_file", "predict_graph_text", "latency_verdicts", "check_onnx_change",
           "split_device_args", "format_table", "NAS_DIR"]


def describe_device(name: str, ref_latencies: Sequence[float]) -> str:
    """`pixel3 ms=7.9 50 90 15 ...`: geometric mean of the reference latencies (2 significant digits),
    then each as a percentage of it, rounded to 5 %. Training renders devices with this same function."""
    if not ref_latencies:
        raise ValueError("no reference latencies")
    logs = [math.log(max(float(v), 1e-3)) for v in ref_latencies]
    gmean = math.exp(sum(logs) / len(logs))
    scale = float(f"{gmean:.2g}")
    rel = [int(5 * round(100 * float(v) / gmean / 5)) for v in ref_latencies]
    return f"{name} ms={scale:g} " + " ".join(str(r) for r in rel)


def load_devices(model_dir: str | Path | None = None) -> dict:
    """devices.json: {"descriptions": {name: text}, "reference_archs": [...], "trained": [...],
    "graph_text_version": N}. Raises ModelError if it is missing, unreadable, or made for another
    graph text version than `rlm_lsp.graph_text` writes (absent = v1). Parsed once per file
    version (path, mtime): an evaluation asks for it once per graph and device. Read-only."""
    directory = Path(model_dir or NAS_DIR)
    path = directory / "devices.json"
    try:
        mtime = path.stat().st_mtime_ns
    except FileNotFoundError:
        raise ModelError(f"model file missing: {path}") from None
    except OSError as exc:
        raise ModelError(f"device list cannot be read: {path}: {exc}") from None
    return _read_devices(str(path), mtime)


@functools.lru_cache(maxsize=8)
def _read_devices(path: str, mtime_ns: int) -> dict:
    try:  # load_devices has seen the file exist; a failure here is a read or parse error
        info = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"device list cannot be read: {path}: {exc}") from None
    version = info.get("graph_text_version", 1)
    if version != GRAPH_TEXT_VERSION:
        raise ModelError(f"the NAS model at {Path(path).parent} reads graph text v{version}, and this rlm-lsp "
                         f"writes v{GRAPH_TEXT_VERSION}; use a model exported for v{GRAPH_TEXT_VERSION} "
                         f"(python -m training.nas.export)")
    return info


def device_description(device: str, known: Mapping[str, str], n_refs: int = 10) -> str:
    if device in known:
        return known[device]
    name, sep, values = device.partition("=")
    if sep:
        try:
            refs = [float(v) for v in values.split(",")]
        except ValueError:
            refs = []
        if len(refs) != n_refs or not name or any(not (v > 0) for v in refs):
            raise UnknownDevice(f"custom device {device!r}: give NAME=l1,...,l{n_refs} (ms, {n_refs} positive "
                                f"numbers)")
        return describe_device(name, refs)
    raise UnknownDevice(f"unknown device {device!r}; known: {', '.join(sorted(known))} "
                        f"(or NAME=l1,...,l{n_refs} with latencies on the reference networks)")


def _predictor(model_dir, predictor, **kwargs):
    if predictor is not None:
        return predictor
    from rlm_lsp.predictor import Predictor

    directory = Path(model_dir or NAS_DIR)
    if not (directory / "rlm_config.json").is_file():
        raise ModelError(f"no NAS latency model at {directory}")
    return Predictor.from_dir(directory, **kwargs)


def trained_devices(info: Mapping) -> list[str]:
    """The devices a model with this `devices.json` was trained on (older files: every described one)."""
    return list(info.get("trained", info.get("descriptions", {})))


def device_context(device: str, info: Mapping) -> dict[str, str]:
    """The template context that names `device` to a model with this `devices.json` (`info`).

    A device the model was not trained on gets the placeholder name, so the model reads only its
    reference latencies. Raises UnknownDevice."""
    known = info.get("descriptions", {})
    desc = device_description(device, known, len(info.get("reference_archs", [])) or 10)
    anonymous = info.get("unknown_name")
    if anonymous and device not in trained_devices(info):  # an unseen name only confuses the model
        desc = " ".join([anonymous] + desc.split(" ")[1:])
    return {"device": desc}


def predict_graph_text(text: str, devices: Sequence[str], model_dir: str | Path | None = None, predictor=None,
                       **predictor_kwargs) -> list[dict]:
    """One row per device for an already rendered graph text."""
    pred = _predictor(model_dir, predictor, **predictor_kwargs)
    info = load_devices(pred.config.path)
    trained = set(trained_devices(info))
    contexts = [(d, device_context(d, info)) for d in devices]  # all errors before any work
    rows = []
    for device, context in contexts:
        n_tokens = len(pred.token_ids(text, LANGUAGE, context))
        p = pred.predict([text], language=LANGUAGE, context=context)[0][METRIC]
        rows.append({"device": device.partition("=")[0], "metric": METRIC, "value": p.value, "low": p.low,
                     "high": p.high, "unit": p.unit, "graph_tokens": n_tokens,
                     "truncated": n_tokens > pred.config.max_input_tokens,
                     "trained_device": device in trained})
    return rows


def predict_onnx_file(path: str | Path | bytes, devices: Sequence[str], model_dir: str | Path | None = None,
                      predictor=None, **predictor_kwargs) -> list[dict]:
    """Predicted latency (ms, median and p10..p90) of the `.onnx` network on each device.

    Raises GraphError (malformed, empty or too large file), UnknownDevice, ModelError.
    """
    text = onnx_text(path)
    rows = predict_graph_text(text, devices, model_dir, predictor, **predictor_kwargs)
    name = "<bytes>" if isinstance(path, (bytes, bytearray)) else str(path)
    return [{"file": name, **row} for row in rows]


# -- the gate -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Verdict:
    device: str
    old_ms: float | None
    new_ms: float
    ratio: float | None  # new / old
    limit: float
    regressed: bool  # ratio > limit, and the intervals do not overlap when `require_separation`
    message: str


def latency_verdicts(old: Mapping[str, float] | None, new: Mapping[str, float], max_ratio: float | Mapping[str, float],
                     old_high: Mapping[str, float] | None = None, new_low: Mapping[str, float] | None = None,
                     require_separation: bool = False) -> list[Verdict]:
    """Pure: per device, is new/old latency over the limit?

    `old`, `new`: {device: predicted ms} (old None or missing device = a new file: never a regression);
    `max_ratio`: one limit or {device: limit}; with `require_separation`, a regression also needs
    new p10 > old p90 (`new_low`, `old_high`), so that noise in the samples alone does not block.
    """
    out = []
    for device in sorted(new):
        limit = max_ratio[device] if isinstance(max_ratio, Mapping) else float(max_ratio)
        n = float(new[device])
        o = None if old is None or device not in old else float(old[device])
        if o is None or o <= 0:
            out.append(Verdict(device, o, n, None, limit, False, f"{device}: {n:.3g} ms (new)"))
            continue
        ratio = n / o
        bad = ratio > limit
        if bad and require_separation and old_high and new_low and device in old_high and device in new_low:
            bad = new_low[device] > old_high[device]
        msg = f"{device}: {o:.3g} ms -> {n:.3g} ms ({ratio:.2f}x, limit {limit:.2f}x)"
        out.append(Verdict(device, o, n, ratio, limit, bad, msg))
    return out


def check_onnx_change(old: bytes | str | Path | None, new: bytes | str | Path, devices: Sequence[str],
                      max_ratio: float | Mapping[str, float] = 1.1, model_dir: str | Path | None = None,
                      predictor=None, require_separation: bool = False, **predictor_kwargs) -> list[Verdict]:
    """Old and new versions of one `.onnx` file (bytes or paths; old None for an added file) -> verdicts."""
    pred = _predictor(model_dir, predictor, **predictor_kwargs)
    new_rows = {r["device"]: r for r in predict_onnx_file(new, devices, predictor=pred)}
    old_rows = {r["device"]: r for r in predict_onnx_file(old, devices, predictor=pred)} if old is not None else {}
    return latency_verdicts({d: r["value"] for d, r in old_rows.items()} if old is not None else None,
                            {d: r["value"] for d, r in new_rows.items()}, max_ratio,
                            old_high={d: r["high"] for d, r in old_rows.items()},
                            new_low={d: r["low"] for d, r in new_rows.items()},
                            require_separation=require_separation)


# -- the CLI --------------------------------------------------------------------------------------------


def split_device_args(values: Iterable[str] | None) -> tuple[str, list[str]]:
    """`--device` values -> (onnxruntime device, target devices): auto/cpu/cuda pick where the model runs,
    anything else is a target device for `.onnx` files."""
    runtime, targets = "auto", []
    for v in values or []:
        if v in RUNTIME_DEVICES:
            runtime = v
        else:
            targets.append(v)
    return runtime, targets


def format_table(rows: list[dict]) -> str:
    from rlm_lsp.units import format_value

    lines = [["file", "device", "latency (p10–p90)", ""]]
    for r in rows:
        note = []
        if r.get("truncated"):
            note.append(f"graph truncated ({r['graph_tokens']} tokens)")
        if not r.get("trained_device", True):
            note.append("device not in training")
        lines.append([r["file"], r["device"],
                      f"{format_value('ms', r['value'])} ({format_value('ms', r['low'])}–"
                      f"{format_value('ms', r['high'])})", "; ".join(note)])
    widths = [max(len(line[i]) for line in lines) for i in range(4)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines)


def predict_cli(files: Sequence[Path], devices: Sequence[str], model_dir: Path | None = None, json_out: bool = False,
                out=None, err=None, **predictor_kwargs) -> int:
    """`rlm predict X.onnx --device pixel3 [--device ...]`: prints a table (or JSON); returns the exit code."""
    import sys

    out = out or sys.stdout
    err = err or sys.stderr
    if not devices:
        print("rlm predict: .onnx files need a target device: --device pixel3 (several allowed)", file=err)
        return 2
    try:
        pred = _predictor(model_dir, None, **predictor_kwargs)
        known = load_devices(pred.config.path).get("descriptions", {})
        for d in devices:
            device_description(d, known)
    except (ModelError, UnknownDevice) as exc:
        print(f"rlm: {exc}", file=err)
        return 2
    rows, failed = [], 0
    for path in files:
        try:
            rows.extend(predict_onnx_file(path, devices, predictor=pred))
        except GraphError as exc:
            print(f"rlm: skipped: {exc}", file=err)  # the message names the file
            failed += 1
    if json_out:
        print(json.dumps(rows, indent=2), file=out)
    elif rows:  # no table of headers alone when every file was skipped
        print(format_table(rows), file=out)
    return 1 if failed else 0
