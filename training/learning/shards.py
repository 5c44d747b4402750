"""Move a checkpoint through a size-limited pipe (the GPU machine returns files of at most 16 MiB).

    python -m training.learning.shards pack CKPT_DIR OUT_PREFIX      # OUT_PREFIX.0.safetensors, .1, ... + OUT_PREFIX.json
    python -m training.learning.shards unpack OUT_PREFIX CKPT_DIR    # a checkpoint `rlm-export` reads

`pack` stores each tensor once (the tied input embeddings are `shared.weight`) in float16 (with
`--float32`, as trained: exact), split into shards under `--max-mb`; the JSON beside them carries
the T5 config, rlm_meta.json and tokenizer.json.
`unpack` rebuilds the model with this machine's transformers (so a checkpoint trained under
transformers 5 exports with the pinned 4.x) and loads the weights strictly.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

TIED = ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight")


def pack(ckpt: Path, prefix: Path, max_mb: float = 15.0, float32: bool = False) -> list[Path]:
    import torch
    from safetensors.torch import load_file, save_file

    state = load_file(str(ckpt / "model.safetensors"))
    state = {k: v for k, v in state.items() if k not in TIED}
    if "shared.weight" not in state:
        raise SystemExit(f"{ckpt}: no shared.weight in model.safetensors")
    shards, current, size = [], {}, 0
    for key in sorted(state):
        tensor = state[key].to(torch.float32 if float32 else torch.float16).contiguous()
        nbytes = tensor.numel() * tensor.element_size()
        if current and size + nbytes > max_mb * 2**20:
            shards.append(current)
            current, size = {}, 0
        current[key] = tensor
        size += nbytes
    shards.append(current)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, shard in enumerate(shards):
        path = prefix.with_name(f"{prefix.name}.{i}.safetensors")
        save_file(shard, str(path))
        paths.append(path)
    side = {
        "shards": len(shards),
        "config": json.loads((ckpt / "config.json").read_text()),
        "rlm_meta": json.loads((ckpt / "rlm_meta.json").read_text()),
        "tokenizer": (ckpt / "tokenizer.json").read_text(),
    }
    prefix.with_name(prefix.name + ".json").write_text(json.dumps(side))
    return paths


def unpack(prefix: Path, out: Path) -> Path:
    import torch
    from safetensors.torch import load_file
    from tokenizers import Tokenizer

    from training.learning.rlm_model import build_model, save_checkpoint

    side = json.loads(prefix.with_name(prefix.name + ".json").read_text())
    tok = Tokenizer.from_str(side["tokenizer"])
    c = side["config"]
    size = (c["d_model"], c["d_ff"], c["num_layers"], c["num_decoder_layers"], c["num_heads"], c["d_kv"])
    model = build_model(tok, size, dropout=c.get("dropout_rate", 0.1))
    state = {}
    for i in range(side["shards"]):
        state.update(load_file(str(prefix.with_name(f"{prefix.name}.{i}.safetensors"))))
    state = {k: v.to(torch.float32) for k, v in state.items()}
    for key in TIED:
        state[key] = state["shared.weight"]
    model.load_state_dict(state, strict=True)
    return save_checkpoint(model, tok, out, side["rlm_meta"])


def main(argv=None) -> None:
    p = argparse.ArgumentParser(prog="python -m training.learning.shards", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("pack")
    a.add_argument("ckpt", type=Path)
    a.add_argument("prefix", type=Path)
    a.add_argument("--max-mb", type=float, default=15.0)
    a.add_argument("--float32", action="store_true", help="keep the weights' float32 (more shards, exact)")
    b = sub.add_parser("unpack")
    b.add_argument("prefix", type=Path)
    b.add_argument("out", type=Path)
    args = p.parse_args(argv)
    if args.cmd == "pack":
        for path in pack(args.ckpt, args.prefix, args.max_mb, args.float32):
            print(path)
    else:
        print(unpack(args.prefix, args.out))


if __name__ == "__main__":
    main()
