"""python -m rlm_lsp.export.upgrade MODEL_DIR...: bring a model directory exported before a graph
rewrite up to date, without its checkpoint.

Exact, always: the decoders' self-attention bias read from a table (`fast_graphs.self_bias_table`) and the
encoder's position bias gathered by distance (`fast_graphs.encoder_bias_gather`), not sliced
again (`fast_graphs.encoder_bias_unsliced`) and laid out from one run of its table
(`fast_graphs.encoder_bias_toeplitz`): the same floats, less work a prediction. Each rewrite
checks itself against the graph it replaces; rlm_config.json
gets the new files' hashes, and export_report.json says what was done. A graph that already has a
rewrite (its metadata says so) is left alone, so running it twice changes nothing.

Not exact, only when asked (`--per-input-encoder`): the fast int8 encoder's matmuls with one
activation scale per input (`fast_graphs.per_input_scales`), what `rlm-export` writes since session
26. The report records the fidelity of the upgraded encoder against the one it replaced, on the
exporter's sample inputs; outside the exporter's budget, or on any error, every file is put back
as it was and the command says why in one line.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from rlm_lsp.export.fast_graphs import ENCODER_TOEPLITZ_KEY, ENCODER_UNSLICED_KEY
from rlm_lsp.runtime.model_dir import CONFIG_NAME, MODEL_FILES, ModelConfig, ModelError, sha256_file
from rlm_lsp.runtime.seq2seq import ENCODER_BIAS_KEY, ENCODER_SCALES_KEY, SELF_BIAS_KEY

# (file, the metadata key a rewritten graph carries, the fast_graphs rewrite)
REWRITES = (("encoder_model.onnx", ENCODER_BIAS_KEY, "encoder_bias_gather"),
            ("encoder_model.onnx", ENCODER_UNSLICED_KEY, "encoder_bias_unsliced"),
            ("encoder_model.onnx", ENCODER_TOEPLITZ_KEY, "encoder_bias_toeplitz"),
            ("decoder_model.onnx", SELF_BIAS_KEY, "self_bias_table"),
            ("decoder_with_past_model.onnx", SELF_BIAS_KEY, "self_bias_table"))
PER_INPUT_ENCODER = (("encoder_model.onnx", ENCODER_SCALES_KEY, "per_input_scales"),)
REPORT = "export_report.json"


def upgrade(model_dir: Path, per_input_encoder: bool = False) -> list[str]:
    """Rewrites the graphs of `model_dir` in place; returns the files changed."""
    ModelConfig.load(model_dir)  # a directory the runtime loads (hashes checked) before anything is written
    if not per_input_encoder:
        return _upgrade(model_dir, REWRITES)
    _check_per_row_encoder(model_dir / "encoder_model.onnx")  # before anything is written
    with tempfile.TemporaryDirectory(prefix="rlm-upgrade-") as tmp:
        before = Path(tmp) / "before"  # what the rewrite that is not exact is judged against
        shutil.copytree(model_dir, before)
        try:
            return _upgrade(model_dir, REWRITES + PER_INPUT_ENCODER, before)
        except Exception as exc:  # noqa: BLE001 - onnx, onnxruntime and the checks raise their own kinds
            for path in before.iterdir():  # every file back as it was: nothing half-upgraded is left
                shutil.copy2(path, model_dir / path.name)
            raise ValueError(f"{exc}; the directory is left as it was") from None


def _upgrade(model_dir: Path, rewrites, before: Path | None = None) -> list[str]:
    import onnx

    from rlm_lsp.export import fast_graphs

    changed, done = [], []
    for name, key, rewrite in rewrites:
        path = model_dir / name
        model = onnx.load(str(path))
        meta = {p.key: p.value for p in model.metadata_props}
        if key in meta:
            continue
        getattr(fast_graphs, rewrite)(model)
        if meta.get(fast_graphs.LAYOUT_KEY) == fast_graphs.SHARED_CROSS_KV:  # fast graphs are saved optimised
            model = fast_graphs.pre_optimize(model)
        onnx.checker.check_model(model)
        onnx.save(model, str(path))
        changed.append(name)
        done.append(rewrite)
    if changed:
        config_path = model_dir / CONFIG_NAME
        config = json.loads(config_path.read_text())
        config["files"] = {**config.get("files", {}), **{name: sha256_file(model_dir / name) for name in MODEL_FILES}}
        config_path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        report_path = model_dir / REPORT
        report = json.loads(report_path.read_text()) if report_path.exists() else {}
        entry = {"at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                 "rewrites": sorted(set(done)), "files": {name: config["files"][name] for name in changed}}
        if before is not None and "per_input_scales" in done:
            from rlm_lsp.export.cli import SAMPLE_CODES
            from rlm_lsp.export.parity import fidelity

            judged = entry["fidelity_against_before"] = fidelity(before, model_dir, SAMPLE_CODES)
            if not judged["within_budget"]:
                raise ValueError(f"the per-input encoder moves the numbers outside the exporter's fidelity budget "
                                 f"(KL {judged['kl_mean']:.4f}, budget {judged['kl_budget']}; log10 shift medians "
                                 + ", ".join(f"{m} {v['median']:.3f}" for m, v in judged["log10_shift"].items())
                                 + f", budget {judged['shift_budget']})")
        report.setdefault("upgrades", []).append(entry)
        report_path.write_text(json.dumps(report, indent=2) + "\n")
        ModelConfig.load(model_dir)
    return changed


def _check_per_row_encoder(path: Path) -> None:
    """ValueError unless `path` is a fast int8 encoder, per row or per input already."""
    import onnx

    from rlm_lsp.export import fast_graphs

    model = onnx.load(str(path), load_external_data=False)
    meta = {p.key: p.value for p in model.metadata_props}
    if meta.get(fast_graphs.LAYOUT_KEY) != fast_graphs.SHARED_CROSS_KV or not (
            ENCODER_SCALES_KEY in meta or any(n.op_type == "MatMulInteger" for n in model.graph.node)):
        raise ValueError(f"{path}: --per-input-encoder needs a fast int8 encoder (rlm-export's default)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m rlm_lsp.export.upgrade", description=__doc__.splitlines()[0])
    parser.add_argument("model_dirs", type=Path, nargs="+", metavar="MODEL_DIR")
    parser.add_argument("--per-input-encoder", action="store_true",
                        help="also the encoder with one activation scale per input (not exact; fidelity reported)")
    args = parser.parse_args(argv)
    for model_dir in args.model_dirs:
        try:
            changed = upgrade(model_dir, args.per_input_encoder)
        except (ModelError, ValueError, OSError) as exc:
            print(f"upgrade: {model_dir}: {exc}", file=sys.stderr)
            return 2
        print(f"{model_dir}: {', '.join(changed) if changed else 'up to date'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
