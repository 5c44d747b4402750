"""Train the NAS latency RLM: (device description, graph text) -> latency in ms, one model for all devices.

    nice -n 10 python -m training.nas.train --out training/runs/nas/v1 --max-minutes 30 --d-model 128 --d-ff 512

CPU, one thread (`torch.set_num_threads(1)`; `--torch-device cuda` where there is a GPU), stops at
`--max-minutes` wall clock; the learning rate follows warm-up + cosine over the *time* budget, so the schedule fits whatever speed the machine gives.
`--schedule-steps N` runs that schedule over N steps instead, so a recipe gives the same steps on a slower machine.
Each step draws a fresh batch of (training arch, training device) pairs from HELP's NAS-Bench-201 table;
`--holdout-device` is never trained on (transfer test). At the end: greedy-decode Spearman per device on
`--eval-archs` held-out archs (the test split of `data.split_archs`), written to OUT/eval.json.

Every `--eval-every-min` (time not counted in the schedule) it scores `--val-archs` validation archs on
`--val-devices` (greedy Spearman), writes OUT/last, and OUT/best when the mean improved (what
`python -m training.nas.export` reads; the final evaluation uses it); OUT/history.json has the scores.
`--init-from CKPT` continues from a checkpoint (its weights and tokenizer). Inputs are tokenized once
per arch and per device description (`Encoder`, checked against the tokenizer at start).

The loop is `training.learning.loop` (`NasTask` is what is NAS-specific): `--resume` continues from OUT/last
with the optimiser, schedule and random state; validation decodes through the runtime's decoder.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import time
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Tokenizer, models, pre_tokenizers, processors, trainers

from rlm_lsp.networks.graph_text import GRAPH_TEXT_VERSION
from rlm_lsp.runtime import numbers
from training.learning.loop import STATE_FILE, Evaluation, Loop, LoopConfig, TaskBase, cosine_factor
from training.nas import data

METRIC = {"name": "latency", "unit": "ms",
          "definition": "inference latency of the network on the named device (HELP NAS-Bench-201 protocol)"}
TEMPLATE = "<metrics> {metrics} <device> {device} <graph>\n{code}"
LANGUAGE = "onnx-graph"
MIN_LR_RATIO = 0.05
UNKNOWN_NAME = "device"  # name used for the name-dropout rows: the model must read the reference numbers
# validation devices (one or two per family), scored every --eval-every-min on validation archs
VAL_DEVICES = ["pixel3", "eyeriss", "gold_6226", "silver_4210r", "1080ti_1", "titanxp_1", "2080ti_256", "raspi4"]


def train_tokenizer(texts, vocab_size: int) -> Tokenizer:
    """BPE inside whitespace-separated words; a graph line has no spaces, so common lines become one token."""
    from training.learning.rlm_model import EOS, SPECIAL_TOKENS, UNK

    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    alphabet = [chr(c) for c in range(33, 127)]
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS + ["<device>", "<graph>"],
                                  initial_alphabet=alphabet, min_frequency=2, show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(single=f"$A {EOS}",
                                                       special_tokens=[(EOS, tok.token_to_id(EOS))])
    return tok


def render(device_desc: str, text: str) -> str:
    from rlm_lsp.runtime.template import render as r

    return r(TEMPLATE, [METRIC["name"]], LANGUAGE, text, device=device_desc)


class Encoder:
    """Token ids of `render(desc, graph text)` without tokenizing the whole string every step.

    The pre-tokenizer splits on whitespace and the template puts whitespace between the device part
    and the graph text, so the ids are (device part's ids) + (graph text's ids) + EOS. `check`
    compares this with the tokenizer on real inputs before training starts."""

    def __init__(self, tok, texts: dict):
        from training.learning.rlm_model import EOS

        self.tok = tok
        self.texts = texts
        self.graph = {i: tok.encode(t, add_special_tokens=False).ids for i, t in texts.items()}
        self.prefix: dict[str, list[int]] = {}
        self.eos = tok.token_to_id(EOS)

    def __call__(self, desc: str, arch: int) -> list[int]:
        if desc not in self.prefix:
            self.prefix[desc] = self.tok.encode(render(desc, ""), add_special_tokens=False).ids
        return self.prefix[desc] + self.graph[arch] + [self.eos]

    def check(self, pairs) -> None:
        for desc, i in pairs:
            if self(desc, i) != self.tok.encode(render(desc, self.texts[i])).ids:
                raise AssertionError(f"pre-tokenized ids differ from the tokenizer's (arch {i}, {desc!r})")


def new_model(tok, args):
    from training.learning.rlm_model import build_model

    size = (args.d_model, args.d_ff, args.layers, 2, args.heads, args.d_model // args.heads)
    return build_model(tok, size, dropout=0.0)


def device_weights(items: Sequence[str]) -> dict[str, float]:
    """['gold_6240=3', ...] -> {'gold_6240': 3.0}; a malformed item is a usage error, not a traceback."""
    out = {}
    for item in items:
        name, _, weight = item.partition("=")
        try:
            out[name] = float(weight)
        except ValueError:
            raise SystemExit(f"--device-weight {item!r}: expected NAME=W, e.g. gold_6240=3") from None
        if not out[name] > 0:
            raise SystemExit(f"--device-weight {item!r}: the weight must be positive")
    return out


def progress(args, step: int, elapsed_s: float) -> float:
    """How far the run is through its schedule, 0..1 (1 = stop): by steps with --schedule-steps, else by
    the clock. --max-minutes and --max-steps stop it either way."""
    budget = args.max_minutes * 60
    if step >= args.max_steps or elapsed_s >= budget:
        return 1.0
    return min(1.0, step / args.schedule_steps) if args.schedule_steps else elapsed_s / budget


def learning_rate(args, frac: float) -> float:
    """Linear warm-up over the first --warmup of the schedule, then a cosine down to 5% of --lr
    (the loop's `Cosine` with `fraction=True`)."""
    return args.lr * cosine_factor(frac, args.warmup, 1.0, MIN_LR_RATIO, unit=1e-9)


def arch_split(args) -> tuple[list[int], list[int], list[int]]:
    """(train, val, test) archs: chosen by --split-seed alone, so --seed never moves the test archs."""
    return data.split_archs(args.split_seed)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m training.nas.train", description=__doc__.split("\n")[0])
    p.add_argument("--out", type=Path, default=Path("training/runs/nas/v1"))
    p.add_argument("--max-minutes", type=float, default=30.0)
    p.add_argument("--max-steps", type=int, default=10**9)
    p.add_argument("--schedule-steps", type=int, default=0,
                   help="run warm-up and cosine over N steps, and stop there, instead of over --max-minutes "
                        "(so a recipe gives the same steps on a slower machine; --max-minutes still stops it)")
    p.add_argument("--holdout-device", default="silver_4114")
    p.add_argument("--d-model", type=int, default=160)
    p.add_argument("--d-ff", type=int, default=512)
    p.add_argument("--layers", type=int, default=2, help="encoder layers (decoder: 2)")
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--vocab-size", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=float, default=0.04, help="fraction of the time budget (or of --schedule-steps)")
    p.add_argument("--name-dropout", type=float, default=0.15)
    p.add_argument("--eval-archs", type=int, default=600)
    p.add_argument("--max-input-tokens", type=int, default=256)
    p.add_argument("--seed", type=int, default=0, help="initialisation and batch order")
    p.add_argument("--split-seed", type=int, default=0,
                   help="which archs are held out; every shipped model and evaluation uses 0, so keep it")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--torch-device", default="cpu", help="cpu (default) or cuda")
    p.add_argument("--init-from", type=Path, help="start from this checkpoint (its weights and tokenizer)")
    p.add_argument("--eval-every-min", type=float, default=10.0,
                   help="score the validation archs every N minutes; OUT/best keeps the best, OUT/last the latest")
    p.add_argument("--val-archs", type=int, default=150)
    p.add_argument("--val-devices", nargs="+", default=VAL_DEVICES)
    p.add_argument("--device-weight", action="append", default=[], metavar="NAME=W",
                   help="draw this training device W times as often as the others (repeatable)")
    p.add_argument("--number-format", default="P10", choices=("P10", "P10E"),
                   help="token order of the target: P10 = sign, digits, exponent; P10E = sign, exponent, digits")
    p.add_argument("--resume", action="store_true",
                   help="continue from OUT/last (weights, optimiser, schedule, random state)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (never shown off a terminal)")
    p.add_argument("--relative-target", action="store_true",
                   help="experiment: target = latency / the device's geometric mean on the reference archs "
                        "(the runtime does not scale back, so training.nas.export refuses these checkpoints)")
    return p.parse_args(argv)


def score_archs(model, tok, encode, lat, arch_ids, device_names, descriptions, fmt, dev) -> dict[str, float]:
    """Greedy Spearman per device, decoded by the runtime's decoder (`training.learning.decoding`)."""
    from training.learning.decoding import sample_values
    from training.nas.baseline import spearman

    out = {}
    for d in device_names:
        ids = [encode(descriptions[d], i) for i in arch_ids]
        pred = sample_values(model, tok, ids, [numbers.Grammar()], samples=0, number_format=fmt, batch_size=128,
                             device=dev)[:, 0, 0]
        out[d] = spearman(pred, [lat[d][i] for i in arch_ids])
    return out


class NasTask(TaskBase):
    """Endless batches of (training arch, training device) pairs drawn afresh each step; validation:
    the mean greedy Spearman over --val-devices on --val-archs validation archs."""

    def __init__(self, args, model, tok, encode, data_, meta, fmt, dev):
        import torch

        from training.learning.rlm_model import PAD, number_groups

        self.args, self.model, self.tok, self.encode, self.meta, self.fmt, self.dev = \
            args, model, tok, encode, meta, fmt, dev
        (self.lat, self.descs, self.anon, self.train, self.devices, self.weight_of, self.draw_weights,
         self.scale, self.val_set, self.rng) = data_
        self.pad_id = tok.token_to_id(PAD)
        self.groups = number_groups(tok, dev, fmt)
        self.weights = torch.tensor(fmt.arrange(0.2, [1.0, 0.8, 0.4, 0.2], 1.5), device=dev)  # sign, digits, exp
        self.labels_of: dict[str, dict] = {d: {} for d in self.devices}
        self.history: list[dict] = []
        self.ema = None

    def parameters(self) -> list:
        return list(self.model.parameters())

    def epoch_batches(self, epoch: int):
        return itertools.repeat(None)  # each step draws its own pairs (in `loss`, from the task's generator)

    def loss(self, batch):
        import torch

        from training.learning.rlm_model import target_ids
        from training.learning.train import weighted_loss

        args, rng = self.args, self.rng
        if self.weight_of:
            batch = [(rng.choice(self.train), d) for d in rng.choices(self.devices, self.draw_weights,
                                                                      k=args.batch_size)]
        else:  # the draws of every run before --device-weight, so their commands still reproduce them
            batch = [(rng.choice(self.train), rng.choice(self.devices)) for _ in range(args.batch_size)]
        rows = [self.encode(self.descs[d] if rng.random() >= args.name_dropout else self.anon[d], i) for i, d in batch]
        width = max(len(r) for r in rows)
        ids = torch.full((len(rows), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros_like(ids)
        for r, row in enumerate(rows):
            ids[r, : len(row)] = torch.tensor(row)
            mask[r, : len(row)] = 1
        for i, d in batch:
            if i not in self.labels_of[d]:
                self.labels_of[d][i] = target_ids(self.tok, [self.lat[d][i] / self.scale[d]], self.fmt)
        labels = torch.tensor([self.labels_of[d][i] for i, d in batch])
        ids, mask, labels = ids.to(self.dev), mask.to(self.dev), labels.to(self.dev)
        logits = self.model(input_ids=ids, attention_mask=mask, decoder_input_ids=self.model._shift_right(labels)).logits
        loss = weighted_loss(logits, labels, self.weights, self.groups)
        self.ema = loss.item() if self.ema is None else 0.98 * self.ema + 0.02 * loss.item()
        return loss

    def score(self, arch_ids, device_names, descriptions=None) -> dict[str, float]:
        return score_archs(self.model, self.tok, self.encode, self.lat, arch_ids, device_names,
                           descriptions or self.descs, self.fmt, self.dev)

    def evaluate(self) -> Evaluation:
        import numpy as np

        per = self.score(self.val_set, self.args.val_devices)
        mean = float(np.mean(list(per.values())))
        step = self.meta["training_data"]["steps"]
        self.history.append({"step": step, "minutes": self.meta["training_data"]["train_minutes"],
                             "val_mean": round(mean, 4), **{d: round(v, 4) for d, v in per.items()}})
        (self.args.out / "history.json").write_text(json.dumps(self.history, indent=1) + "\n")
        line = f"mean spearman {mean:.3f} " + " ".join(f"{d} {v:.3f}" for d, v in per.items())
        return Evaluation(key=(mean,), record={"val_mean": round(mean, 4), **{d: round(v, 4) for d, v in per.items()}},
                          line=line, validation={"mean": mean, **per})

    def save(self, path: Path, validation: dict | None, info: dict) -> None:
        from training.learning.rlm_model import save_checkpoint

        save_checkpoint(self.model, self.tok, path, self.meta if validation is None else {**self.meta, "validation": validation})

    def state_dict(self) -> dict:
        return {"rng": self.rng.getstate(), "history": self.history, "ema": self.ema}

    def load_state_dict(self, state: dict) -> None:
        self.rng.setstate(state["rng"])
        self.history, self.ema = state.get("history", []), state.get("ema")


def main(argv: Sequence[str] | None = None) -> dict:
    args = parse_args(argv)
    import numpy as np
    import torch

    from training.learning.rlm_model import load_checkpoint

    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    fmt = numbers.FORMATS[args.number_format]
    t0 = time.time()
    archs, lat = data.load_latency()
    texts = data.graph_texts(archs)
    descs = data.device_descriptions(lat)
    train, val, test = arch_split(args)
    devices = [d for d in sorted(lat) if d != args.holdout_device]
    weight_of = device_weights(args.device_weight)
    unknown = set(weight_of) - set(devices)
    if unknown:
        raise SystemExit(f"--device-weight: not a training device: {', '.join(sorted(unknown))}")
    draw_weights = [weight_of.get(d, 1.0) for d in devices]
    refs = data.reference_archs()
    scale = {d: (float(np.exp(np.mean(np.log([lat[d][i] for i in refs])))) if args.relative_target else 1.0)
             for d in lat}
    print(f"data: {len(archs)} archs, {len(devices)} training devices, held out {args.holdout_device}; "
          f"{time.time() - t0:.0f}s", flush=True)

    earlier: list[dict] = []  # training phases before this one (--init-from), oldest first
    resume = args.resume and (args.out / "last" / STATE_FILE).exists()
    if resume:
        model, tok, prior = load_checkpoint(args.out / "last")
        fmt = numbers.format_of(prior)
        earlier = prior.get("training_data", {}).get("earlier_phases", [])
    elif args.init_from:
        model, tok, prior = load_checkpoint(args.init_from)
        fmt = numbers.format_of(prior)  # keep its layout
        done = prior.get("training_data", {})
        earlier = done.get("earlier_phases", []) + [
            {"checkpoint": str(args.init_from), "steps": done.get("steps"), "train_minutes": done.get("train_minutes")}]
        print(f"weights and tokenizer from {args.init_from}", flush=True)
    else:
        tok_texts = [texts[i] for i in train] + [descs[d] for d in devices] * 50 + \
            [descs[d].replace(d, UNKNOWN_NAME, 1) for d in devices] * 10
        tok = train_tokenizer(tok_texts, args.vocab_size)
        model = new_model(tok, args)
    dev = torch.device(args.torch_device)
    model.to(dev)
    n_params = sum(p.numel() for p in model.parameters())
    encode = Encoder(tok, texts)
    anon = {d: descs[d].replace(d, UNKNOWN_NAME, 1) for d in descs}
    encode.check([(descs[d], i) for d in sorted(lat) for i in train[:40] + test[:20]] +
                 [(anon[d], i) for d in sorted(lat) for i in test[:20]])
    lengths = [len(encode(descs[d], i)) for d in descs for i in train[::50]]
    print(f"model: {n_params / 1e6:.2f}M params, vocab {tok.get_vocab_size()}, input tokens mean "
          f"{np.mean(lengths):.0f} max {max(lengths)} (cut at {args.max_input_tokens})", flush=True)
    if max(lengths) > args.max_input_tokens:
        raise SystemExit("inputs longer than --max-input-tokens")

    meta = {"metrics": [METRIC], "input_template": TEMPLATE, "max_input_tokens": args.max_input_tokens,
            "languages": [LANGUAGE], "preprocess": "none", "number_format": fmt.config(),
            "training_data": {"source": "HELP NAS-Bench-201 latency (nasbench201_latency.csv.gz)",
                              "train_archs": len(train), "test_archs": len(test), "devices": devices,
                              "holdout_device": args.holdout_device, "steps": 0,
                              "seed": args.seed, "split_seed": args.split_seed,
                              "batch_size": args.batch_size, "train_minutes": 0,
                              **({"schedule_steps": args.schedule_steps} if args.schedule_steps else {}),
                              "init_from": str(args.init_from) if args.init_from else None,
                              "relative_target": bool(args.relative_target),
                              **({"device_weight": weight_of} if weight_of else {}),
                              "graph_text_version": GRAPH_TEXT_VERSION, "earlier_phases": earlier},
            "devices": descs}
    val_set = sorted(random.Random(2).sample(val, min(args.val_archs, len(val))))
    task = NasTask(args, model, tok, encode,
                   (lat, descs, anon, train, devices, weight_of, draw_weights, scale, val_set, rng), meta, fmt, dev)

    def record_progress(loop: Loop) -> None:
        meta["training_data"].update(steps=loop.step, train_minutes=round(loop.clock() / 60, 1))
        if loop.step % 50 == 0:
            frac = progress(args, loop.step, loop.clock())
            print(f"step {loop.step} loss {task.ema:.3f} lr {loop.opt.param_groups[0]['lr']:.2e} "
                  f"{loop.clock():.0f}s ({frac:.0%})", flush=True)

    loop = Loop(task, LoopConfig(
        out=args.out, lr=args.lr, weight_decay=0.01, betas=(0.9, 0.98), clip=1.0, warmup=args.warmup,
        min_lr_ratio=MIN_LR_RATIO, schedule_steps=args.schedule_steps, schedule_fraction=True,
        max_steps=args.max_steps, max_minutes=args.max_minutes, clock_excludes_eval=True,
        eval_every_min=args.eval_every_min, eval_at_epoch_end=False, resume=resume,
        progress=not args.no_progress, desc="nas", hooks=[record_progress]))
    model.train()
    loop.run()
    train_s = loop.clock()
    step = loop.step
    print(f"trained {step} steps in {train_s / 60:.1f} min", flush=True)

    # --- evaluation of best/ on held-out archs, every device -----------------------------------------
    model, tok, best_meta = load_checkpoint(args.out / "best")
    model.to(dev)
    encode = Encoder(tok, texts)
    eval_set = data.eval_subset(test, args.eval_archs)
    t1 = time.time()

    def score(arch_ids, device_names, descriptions=descs):
        return score_archs(model, tok, encode, lat, arch_ids, device_names, descriptions, fmt, dev)

    result = {"eval_archs": len(eval_set), "steps": step, "train_minutes": round(train_s / 60, 1),
              "best_steps": best_meta["training_data"]["steps"], "params": n_params,
              "holdout_device": args.holdout_device, "per_device": score(eval_set, sorted(lat))}
    result["holdout_anonymous"] = score(eval_set, [args.holdout_device], anon)[args.holdout_device]
    result["eval_seconds"] = round(time.time() - t1)
    (args.out / "eval.json").write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2), flush=True)
    return result


if __name__ == "__main__":
    main()
