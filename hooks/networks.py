"""Changed `.onnx` networks: predicted latency per target device, old version against new.

A network file has no functions; the gate reads its graph (rlm_lsp.graph_text, no `onnx`
package needed), predicts its latency on each target device with the shipped network
model (rlm_lsp/models/nas) and fails where it grew past the ratio. An added network has
nothing to compare with and is noted, not judged.
"""

from __future__ import annotations

from typing import Any, Sequence

from rlm_lsp.gate.compare import Finding
from rlm_lsp.gate.report import GateResult, Note

ONNX_SUFFIX = ".onnx"
DEFAULT_DEVICES = ("pixel3", "1080ti_1", "gold_6226")  # a phone, a GPU and a server CPU


def judge_networks(versions: Sequence[Any], devices: Sequence[str], ratio: float, result: GateResult,
                   model_dir: str | None = None) -> None:
    """Adds a Finding per device whose predicted latency grew by `ratio` or more; notes for the rest."""
    if not versions:
        return
    from rlm_lsp import nas

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
            verdicts = nas.check_onnx_change(fv.old, fv.new, list(devices), max_ratio=ratio, model_dir=model_dir,
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
