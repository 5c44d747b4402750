"""Changed `.onnx` networks: predicted latency per target device, old version against new.

A network file has no functions; the gate reads its graph (rlm_lsp.networks.graph_text, no `onnx`
package needed), predicts its latency on each target device with the shipped network
model (rlm_lsp/models/nas) and fails where it grew past the ratio. An added network has
nothing to compare with and is noted, not judged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlm_lsp.gate.compare import Finding
from rlm_lsp.gate.report import GateResult, Note

ONNX_SUFFIX = ".onnx"
DEFAULT_DEVICES = ("pixel3", "1080ti_1", "gold_6226")  # a phone, a GPU and a server CPU


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
    """Old and new versions of one `.onnx` file (bytes or paths; old None for an added file) -> verdicts.
    The network model is loaded once per model directory (`rlm_lsp.networks.nas.load`)."""
    from rlm_lsp.networks import nas

    model = predictor if predictor is not None else nas.load(model_dir, **predictor_kwargs)
    new_p = {p.device: p for p in nas.predict_onnx_file(new, devices, predictor=model)}
    old_p = {p.device: p for p in nas.predict_onnx_file(old, devices, predictor=model)} if old is not None else {}
    return latency_verdicts({d: p.value for d, p in old_p.items()} if old is not None else None,
                            {d: p.value for d, p in new_p.items()}, max_ratio,
                            old_high={d: p.high for d, p in old_p.items()},
                            new_low={d: p.low for d, p in new_p.items()},
                            require_separation=require_separation)


def judge_networks(versions: Sequence[Any], devices: Sequence[str], ratio: float, result: GateResult,
                   model_dir: str | None = None) -> None:
    """Adds a Finding per device whose predicted latency grew by `ratio` or more; notes for the rest."""
    if not versions:
        return
    from rlm_lsp.networks import nas

    for fv in versions:
        if fv.deleted:
            continue
        if fv.new is None:
            result.notes.append(Note(fv.path, f"skipped: {fv.problem or 'cannot read'}"))
            continue
        if fv.old is None:
            result.notes.append(Note(fv.path, "new network: no previous version to compare with"))
            continue
        try:
            verdicts = check_onnx_change(fv.old, fv.new, list(devices), max_ratio=ratio, model_dir=model_dir,
                                         device="cpu")
        except (nas.GraphError, nas.UnknownDevice, nas.ModelError) as exc:
            result.notes.append(Note(fv.path, f"skipped: {exc}"))
            continue
        result.files += 1
        for v in verdicts:
            if v.regressed:
                result.findings.append(Finding(
                    path=fv.path, line=1, qualname="<network>", change="modified", metric=f"latency on {v.device}",
                    unit="ms", rule="ratio", old=v.old_ms, new=v.new_ms, ratio=v.ratio, limit=v.limit,
                ))
