"""Does the decoder read the code, or the mantissa digits? A teacher-forced probe.

    python -m training.learning.shortcut training/runs/v5/best            # true mantissa fed in
    python -m training.learning.shortcut training/runs/v5/best --fixed    # the same mantissa for every row

For validation rows it feeds the decoder the target's sign and mantissa tokens and reads its
distribution over the exponent token, then scores the expected exponent against the measured
value (Spearman). With `--fixed` every row gets the mantissa 3.162, so any ranking left must
come from the code. A model that scores high with the true mantissa and near 0 with a fixed
one has learned to read the magnitude off the measurement grain in the digits (see
`--label-jitter` in training/learning/train.py and experiments/log/01-model-card-2026-12-01-python.md, Part 1). Only the
memory figure is clean:
latency is decoded after memory, and the probe feeds memory's true exponent before it.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import sys
from collections.abc import Sequence

import numpy as np

from rlm_lsp.runtime import numbers
from training.judging.evaluate import encode_inputs, spearman
from training.learning import dataset
from training.learning import train as T
from training.learning.rlm_model import load_checkpoint, target_ids

METRICS = ["memory", "latency"]


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.learning.shortcut", description=__doc__.split("\n")[0])
    p.add_argument("checkpoint")
    p.add_argument("--fixed", action="store_true", help="feed mantissa 3.162 to every row")
    p.add_argument("--rows", type=int, default=300)
    p.add_argument("--data", default=dataset.DEFAULT_DATA)
    p.add_argument("--synthetic", type=int, default=0, help="probe N synthetic rows instead (a smoke test)")
    args = p.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    model, tok, meta = load_checkpoint(args.checkpoint)
    if numbers.format_of(meta).exponent_first:
        print("this checkpoint decodes the exponent before the digits (P10E): there is no mantissa to read it off")
        return 0
    if not numbers.format_of(meta).feed_forced:
        print("this probe feeds every token of a P10 block; a P10S checkpoint never reads its forced ones")
        return 0
    model.eval()
    if args.synthetic:
        val = dataset.synthetic_examples(args.synthetic)[: args.rows]
    else:
        examples = dataset.load_examples([args.data], dataset.DEFAULT_CORPUS, tiers=["large"])
        val = dataset.split_by_problem(examples, 0.1)[1][: args.rows]
    ids = encode_inputs(tok, meta, [e.code for e in val], METRICS)
    labels = [target_ids(tok, [e.values.get(m) for m in METRICS]) for e in val]
    if args.fixed:
        fixed = target_ids(tok, [3162.0, 3.162])
        block = numbers.TOKENS_PER_NUMBER
        labels = [[f if i % block < block - 1 else t for i, (f, t) in enumerate(zip(fixed, lab))] for lab in labels]
    exponent_ids = T.number_groups(tok, "cpu")[numbers.TOKENS_PER_NUMBER - 1]
    exponents = np.array([int(tok.id_to_token(int(i))[2:-1]) for i in exponent_ids])
    expected = np.zeros((len(val), len(METRICS)))
    with torch.no_grad():
        for s in range(0, len(val), 16):
            x, mask, lab = T.collate(list(zip(ids[s:s + 16], labels[s:s + 16])), 0, "cpu")
            logits = T.forward_logits(model, x, mask, lab)
            for k in range(len(METRICS)):
                pos = numbers.TOKENS_PER_NUMBER * (k + 1) - 1
                probs = torch.softmax(logits[:, pos, exponent_ids].float(), -1).numpy()
                expected[s:s + 16, k] = probs @ exponents
    for k, name in enumerate(METRICS):
        idx = [j for j, e in enumerate(val) if e.values.get(name)]
        rho = spearman([val[j].values[name] for j in idx], expected[idx, k])
        print(f"{name}: Spearman(expected exponent, measured) = {rho:.3f} "
              f"({'fixed' if args.fixed else 'true'} mantissa, {len(idx)} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
