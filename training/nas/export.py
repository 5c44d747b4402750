"""Export the NAS latency checkpoint with `export` (int8 ONNX), and write devices.json next to it.

    python -m training.nas.export training/runs/nas/v1/best rlm_lsp/models/nas

This runs `python -m rlm_lsp.export` with NAS-Bench-201 graph texts as its parity samples, each with a
training device's description in the template's `{device}` field, then writes devices.json.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) < 2:
        print("usage: python -m training.nas.export CHECKPOINT OUT [export options]", file=sys.stderr)
        return 2
    checkpoint, out = Path(argv[0]), Path(argv[1])
    meta = json.loads((checkpoint / "rlm_meta.json").read_text())
    descriptions: dict = meta["devices"]
    trained = meta["training_data"]["devices"]
    if meta["training_data"].get("relative_target"):
        print("this checkpoint predicts latency / device scale (--relative-target); the runtime expects ms",
              file=sys.stderr)
        return 2

    import rlm_lsp.export.cli as export_cli
    from training.nas.nb201_graph import nb201_text
    from training.nas.train import UNKNOWN_NAME

    samples = ["|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|skip_connect~0|nor_conv_3x3~1|skip_connect~2|",
               "|avg_pool_3x3~0|+|nor_conv_1x1~0|skip_connect~1|+|nor_conv_1x1~0|skip_connect~1|skip_connect~2|",
               "|none~0|+|nor_conv_3x3~0|none~1|+|skip_connect~0|none~1|nor_conv_1x1~2|",
               "|nor_conv_1x1~0|+|nor_conv_1x1~0|nor_conv_1x1~1|+|nor_conv_1x1~0|nor_conv_1x1~1|nor_conv_1x1~2|",
               "|skip_connect~0|+|none~0|none~1|+|none~0|none~1|none~2|",
               "|avg_pool_3x3~0|+|avg_pool_3x3~0|nor_conv_3x3~1|+|nor_conv_3x3~0|none~1|avg_pool_3x3~2|"]
    context = {"device": descriptions[trained[0]]}
    rc = export_cli.main([str(checkpoint), str(out), *argv[2:]],
                         samples=[(nb201_text(a), context) for a in samples])
    if rc == 0:
        from training.nas.data import reference_archs

        (out / "devices.json").write_text(json.dumps({
            "descriptions": descriptions,
            "trained": trained,
            "holdout": meta["training_data"].get("holdout_device"),
            "reference_archs": reference_archs(),
            "unknown_name": UNKNOWN_NAME,
            "graph_text_version": meta["training_data"].get("graph_text_version", 1),
            "note": "description = name, geometric-mean latency (ms) on the reference NAS-Bench-201 archs "
                    "(HELP nasbench201_hardware_embedding_index), then each as % of it",
        }, indent=2) + "\n")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
