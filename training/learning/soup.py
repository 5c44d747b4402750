"""python -m training.learning.soup OUT CKPT CKPT [CKPT ...]: the mean of several checkpoints' weights.

A uniform "model soup": fine-tunes of one starting point (different seeds, same recipe) tend to
stay in one basin, where the mean of their weights often ranks better than each of them and costs
nothing at run time (an ensemble would run every model). The checkpoints must share an
architecture, a tokenizer and a meta; OUT gets the first one's tokenizer and meta, with the list of
ingredients in `meta["soup"]`, and is what `rlm-export` and `training.learning.train --init-from` read.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def soup(checkpoints: Sequence[Path], out: Path, any_preprocess: bool = False) -> dict:
    """Writes the averaged checkpoint to `out`; returns a summary. `any_preprocess`: ingredients
    may have been trained on another preprocess than the first's (a fine-tune mixed with its own
    start, "WiSE-FT"); `out` reads the first's."""

    from training.learning.rlm_model import load_checkpoint, save_checkpoint

    if len(checkpoints) < 2:
        raise ValueError("a soup needs at least two checkpoints")
    model, tok, meta = load_checkpoint(checkpoints[0])
    total = {k: v.detach().clone().double() for k, v in model.state_dict().items()}
    vocab = tok.get_vocab()
    for path in checkpoints[1:]:
        other, other_tok, other_meta = load_checkpoint(path)
        if other_tok.get_vocab() != vocab:
            raise ValueError(f"{path}: another tokenizer than {checkpoints[0]}'s")
        if other_meta.get("metrics") != meta.get("metrics"):
            raise ValueError(f"{path}: other metrics than {checkpoints[0]}'s")
        if other_meta.get("preprocess") != meta.get("preprocess") and not any_preprocess:
            raise ValueError(f"{path}: another preprocess than {checkpoints[0]}'s (--any-preprocess mixes them)")
        state = other.state_dict()
        if state.keys() != total.keys() or any(state[k].shape != total[k].shape for k in total):
            raise ValueError(f"{path}: another architecture than {checkpoints[0]}'s")
        for k in total:
            total[k] += state[k].double()
    original = model.state_dict()
    model.load_state_dict({k: (v / len(checkpoints)).to(original[k].dtype) for k, v in total.items()})
    meta = {**meta, "soup": [str(p) for p in checkpoints]}
    save_checkpoint(model, tok, out, meta)
    return {"out": str(out), "ingredients": len(checkpoints), "tensors": len(total)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.learning.soup", description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="checkpoint directory to write")
    parser.add_argument("checkpoints", type=Path, nargs="+", help="checkpoint directories (training.learning.train's best/)")
    parser.add_argument("--any-preprocess", action="store_true",
                        help="allow ingredients trained on another preprocess; OUT reads the first's")
    args = parser.parse_args(argv)
    try:
        print(json.dumps(soup(args.checkpoints, args.out, args.any_preprocess), indent=2))
    except (OSError, ValueError) as exc:
        print(f"soup: error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
