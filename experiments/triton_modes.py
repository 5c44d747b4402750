"""Does the kernel model read the launch mode? Full vs forward on the same Liger benchmark point.

    python -m experiments.triton_modes rlm_lsp/models/triton /tmp/other_model

For the training-split Liger groups measured both `full` (forward + backward) and `forward`, it
predicts both through the runtime and prints how many get identical predictions, and the median
predicted full/forward ratio next to the measured one.
"""
import sys
from collections import defaultdict

import numpy as np

from rlm_lsp.runtime.predictor import Predictor
from rlm_lsp.triton.kernels import LANGUAGE, METRIC, model_context
from training.triton import data


def mode_pairs(limit: int = 124) -> list[dict]:
    groups = defaultdict(dict)
    for r in data.load_rows():
        if r["split"] != "train" or not r.get("source", "").startswith("liger"):
            continue
        mode = next((m for m in ("full", "forward", "backward") if r["shape"].rstrip().endswith(m)), None)
        if mode:
            groups[(r["family"], r["gpu"], r["shape"].rsplit("|", 1)[0], r["text"][:200])][mode] = r
    return [g for g in groups.values() if "full" in g and "forward" in g][:limit]


def main(paths: list[str]) -> int:
    pairs = mode_pairs()
    for path in paths:
        predictor = Predictor.from_dir(path, device="cpu")
        template = predictor.config.input_template
        predicted, measured, same = [], [], 0
        for g in pairs:
            full, fwd = (predictor.predict([g[m]["text"]], LANGUAGE,
                                           context=model_context(template, g[m]["gpu"], g[m]["shape"]))[0][METRIC].value
                         for m in ("full", "forward"))
            same += full == fwd
            predicted.append(full / fwd)
            measured.append(g["full"]["ms"] / g["forward"]["ms"])
        print(f"{path}: {len(pairs)} groups, identical {same}, median full/forward predicted "
              f"{np.median(predicted):.2f}, measured {np.median(measured):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
