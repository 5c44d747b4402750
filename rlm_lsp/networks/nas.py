"""Latency of a neural network on a target device, predicted from its `.onnx` graph: the network
family's model (`NetworkModel`, a `rlm_lsp.runtime.model.Model`).

    from rlm_lsp.networks import nas
    preds = nas.predict_onnx_file("model.onnx", ["pixel3", "1080ti_1"])
    # one rlm_lsp.runtime.prediction.Prediction per device: metric "latency", value/low/high in ms, device,
    # tokens (graph text length), truncated, known_target (a device of the training data)

The `.onnx` file becomes graph text (`rlm_lsp.networks.graph_text`, no `onnx` package needed), the model reads
`<metrics> latency <device> {device} <graph>\\n{graph text}` where `{device}` is the device's description:
its name and its latency on 10 reference NAS-Bench-201 networks (`devices.json` in the model directory).
A device the model does not list can be given as `NAME=l1,l2,...,l10` (its measured latencies in ms on
the 10 reference networks, in `devices.json`'s `reference_archs` order).

The gate's verdicts on a changed network (old against new) are the gate's own: `rlm_lsp.gate.networks`.
The model is loaded once per model directory and settings (`load`).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from rlm_lsp.networks.graph_text import GRAPH_TEXT_VERSION, GraphError, onnx_text
from rlm_lsp.runtime.errors import InputError, ModelError, UnknownDevice
from rlm_lsp.runtime.model import once_per_context
from rlm_lsp.runtime.prediction import Prediction

NAS_DIR = Path(__file__).parents[1] / "models" / "nas"
LANGUAGE = "onnx-graph"
METRIC = "latency"
RUNTIME_DEVICES = ("auto", "cpu", "cuda")  # where onnxruntime runs, not a target device

__all__ = ["GraphError", "ModelError", "NetworkModel", "UnknownDevice", "describe_device", "device_context",
           "load", "load_devices", "predict_onnx_file", "predict_graph_text", "split_device_args", "format_table",
           "NAS_DIR"]


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
    graph text version than `rlm_lsp.networks.graph_text` writes (absent = v1). Parsed once per file
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


class NetworkModel:
    """The network latency model: graph texts (`graph_text.onnx_text`) in, latency per target device out.

    `predict(texts, context={"device": NAME})` is the `Model` call; `predict_graph(text, devices)`
    gives one Prediction per device, each naming its `device`."""

    def __init__(self, predictor):
        self.predictor = predictor
        self.config = predictor.config
        self.info = load_devices(predictor.config.path)
        self.trained = set(trained_devices(self.info))

    def _context(self, context: Mapping[str, str] | None) -> tuple[str, dict[str, str]]:
        device = (context or {}).get("device")
        if not device:
            raise UnknownDevice("a network's latency is for a target device: give context {'device': NAME}")
        return device, device_context(device, self.info)

    def _finish(self, p: Prediction, device: str) -> Prediction:
        return dataclasses.replace(p, device=device.partition("=")[0], known_target=device in self.trained)

    def predict(self, codes: Sequence[str], language: str = LANGUAGE, metrics: Sequence[str] | None = None,
                context: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None) -> list[dict[str, Prediction]]:
        if context is not None and not isinstance(context, Mapping):  # one per code
            return once_per_context(self, codes, language, metrics, context)
        device, ctx = self._context(context)
        if metrics is not None and METRIC not in metrics:
            return [{} for _ in codes]
        results = self.predictor.predict(list(codes), language=LANGUAGE, context=ctx)
        return [{METRIC: self._finish(r[METRIC], device)} for r in results]

    def cached(self, code: str, language: str = LANGUAGE,
               context: Mapping[str, str] | None = None) -> dict[str, Prediction] | None:
        device, ctx = self._context(context)
        hit = self.predictor.cached(code, LANGUAGE, ctx)
        return None if hit is None else {METRIC: self._finish(hit[METRIC], device)}

    def check(self, code: str, language: str = LANGUAGE) -> None:
        if not isinstance(code, str) or not code.strip():
            raise InputError("empty graph text")

    def read_limit(self, code: str, language: str = LANGUAGE,
                   context: Mapping[str, str] | None = None) -> tuple[int, int] | None:
        return self.predictor.read_limit(code, LANGUAGE, self._context(context)[1])

    def predict_graph(self, text: str, devices: Sequence[str]) -> list[Prediction]:
        """One Prediction per device for a rendered graph text; every device is checked before any work."""
        contexts = [(d, device_context(d, self.info)) for d in devices]
        return [self._finish(self.predictor.predict([text], language=LANGUAGE, context=ctx)[0][METRIC], device)
                for device, ctx in contexts]


def load(model_dir: str | Path | None = None, **predictor_kwargs) -> NetworkModel:
    """The network model of `model_dir` (default the shipped one), built once per directory and
    settings: the gate asks for it once per changed `.onnx` file."""
    directory = Path(model_dir or NAS_DIR)
    config = directory / "rlm_config.json"
    if not config.is_file():
        raise ModelError(f"no NAS latency model at {directory}")
    return _load(str(directory.resolve()), config.stat().st_mtime_ns, tuple(sorted(predictor_kwargs.items())))


@functools.lru_cache(maxsize=4)
def _load(directory: str, mtime_ns: int, kwargs: tuple) -> NetworkModel:
    from rlm_lsp.runtime.predictor import Predictor

    return NetworkModel(Predictor.from_dir(directory, **dict(kwargs)))


def _model(model_dir, predictor, **kwargs) -> NetworkModel:
    """`predictor` as a NetworkModel (a NetworkModel, or the Predictor of a network model), else `load`."""
    if isinstance(predictor, NetworkModel):
        return predictor
    if predictor is not None:
        return NetworkModel(predictor)
    return load(model_dir, **kwargs)


def predict_graph_text(text: str, devices: Sequence[str], model_dir: str | Path | None = None, predictor=None,
                       **predictor_kwargs) -> list[Prediction]:
    """One Prediction per device for an already rendered graph text."""
    return _model(model_dir, predictor, **predictor_kwargs).predict_graph(text, devices)


def predict_onnx_file(path: str | Path | bytes, devices: Sequence[str], model_dir: str | Path | None = None,
                      predictor=None, **predictor_kwargs) -> list[Prediction]:
    """Predicted latency (ms, point estimate and p10..p90) of the `.onnx` network on each device.

    Raises GraphError (malformed, empty or too large file), UnknownDevice, ModelError.
    """
    text = onnx_text(path)
    return predict_graph_text(text, devices, model_dir, predictor, **predictor_kwargs)


def as_row(p: Prediction, file: str) -> dict:
    """The JSON row `rlm predict x.onnx --json` prints for one device's Prediction."""
    return {"file": file, "device": p.device, "metric": p.metric, "value": p.value, "low": p.low, "high": p.high,
            "unit": p.unit, "graph_tokens": p.tokens, "truncated": p.truncated, "trained_device": p.known_target}


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
    from rlm_lsp.runtime.units import format_value

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
        model = load(model_dir, **predictor_kwargs)
        known = model.info.get("descriptions", {})
        for d in devices:
            device_description(d, known)
    except (ModelError, UnknownDevice) as exc:
        print(f"rlm: {exc}", file=err)
        return 2
    rows: list[dict] = []
    failed = 0
    for path in files:
        try:
            rows.extend(as_row(p, str(path)) for p in predict_onnx_file(path, devices, predictor=model))
        except GraphError as exc:
            print(f"rlm: skipped: {exc}", file=err)  # the message names the file
            failed += 1
    if json_out:
        print(json.dumps(rows, indent=2), file=out)
    elif rows:  # no table of headers alone when every file was skipped
        print(format_table(rows), file=out)
    return 1 if failed else 0
