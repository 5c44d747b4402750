"""Pre-train the RLM on unlabelled code (span denoising), then fine-tune it with `training.learning.train`.

    python -m training.learning.pretrain texts --out .gpu/pretrain_ids.npz       # here: tokenize the corpus
    python -m training.learning.pretrain train --ids .gpu/pretrain_ids.npz --out /tmp/pre --max-minutes 4
    python -m training.learning.train --init-from /tmp/pre/best --out /tmp/ft    # the usual fine-tune

The measured programs are few (~7,500); the corpus holds ~33,000 LeetCode solutions in Python,
C++, Java and Go. Pre-training teaches the encoder to read code before it has to read numbers
(the paper's model starts from a pre-trained encoder).

**Texts.** Every corpus solution whose problem is *not* a validation problem
(`dataset.is_validation`, the same hash as the fine-tune's split), rendered with the model's
template exactly as the fine-tune renders it (`<metrics> memory latency <lang> python size 7
<code> ...`), Python through the same `strip_v1` preprocessing, plus a stdin-script rewrite
(`augment.rewrite`) of each Python solution where it differs. Ids are stored ragged (int16 +
offsets), so the GPU machine needs neither the corpus nor a tokenizer pass.

**Objective.** T5-style span corruption with one mask token: about 15% of the tokens after the
header, in spans of mean length 3, are each replaced by `<unk>` in the input; the decoder writes
`<unk> span1 <unk> span2 ... </s>`. Cross-entropy over the whole vocabulary, AdamW, linear
warm-up and cosine decay sized to `--max-minutes`, bf16 autocast on a GPU.

The checkpoint has the shipped tokenizer and architecture (`--size small`), and an rlm_meta.json,
so `training.learning.train --init-from` and `rlm-export` read it like any other.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlm_lsp.python import preprocess
from rlm_lsp.runtime import numbers
from rlm_lsp.runtime.template import SIZED_TEMPLATE, render
from training.learning import augment, dataset
from training.learning.rlm_model import EOS, PAD, UNK, build_model, default_meta, save_checkpoint

DEFAULT_TOKENIZER = str(Path(__file__).resolve().parents[2] / "rlm_lsp" / "models" / "default" / "tokenizer.json")
HEADER_TOKENS = 12  # never masked: the template's header (metrics, language, size)


# --- texts -> ids ------------------------------------------------------------------------------


def corpus_texts(corpus: str, val_fraction: float, seed: int = 0) -> tuple[list[str], dict]:
    """Template-rendered texts of every non-validation solution, and counts per language."""
    rng = random.Random(seed)
    texts, counts, skipped = [], {}, 0
    for row in dataset.read_jsonl([corpus]):
        pid, lang = row.get("problem_id"), row.get("language") or "python"
        if pid is None or dataset.is_validation(str(pid), val_fraction):
            skipped += 1
            continue
        code = dataset.program_code(row)
        if lang == "python":
            code = preprocess.apply("strip_v1", code)
            variants = [code]
            rewritten = augment.rewrite(code, rng)
            if rewritten != code:
                variants.append(rewritten)
        else:
            variants = [code]
        for c in variants:
            texts.append(render(SIZED_TEMPLATE, ("memory", "latency"), lang, c))
        counts[lang] = counts.get(lang, 0) + len(variants)
    counts["validation_problem_rows_skipped"] = skipped
    return texts, counts


def build_ids(args) -> Path:
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(args.tokenizer)
    texts, counts = corpus_texts(args.corpus, args.val_fraction)
    eos = tok.token_to_id(EOS)
    flat, offsets = [], [0]
    for enc in tok.encode_batch(texts):
        ids = enc.ids[: args.max_input_tokens - 1] + [eos] if len(enc.ids) > args.max_input_tokens else enc.ids
        flat.extend(ids)
        offsets.append(len(flat))
    assert tok.get_vocab_size() < 2**15
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, ids=np.array(flat, dtype=np.int16), offsets=np.array(offsets, dtype=np.int64),
                        info=json.dumps({"counts": counts, "texts": len(texts), "tokens": len(flat),
                                         "max_input_tokens": args.max_input_tokens,
                                         "val_fraction": args.val_fraction, "corpus": args.corpus}))
    print(f"{len(texts)} texts, {len(flat)} tokens -> {out}: {counts}")
    return out


def load_ids(path: str) -> tuple[list[np.ndarray], dict]:
    z = np.load(path)
    ids, off = z["ids"].astype(np.int64), z["offsets"]
    return [ids[off[i]:off[i + 1]] for i in range(len(off) - 1)], json.loads(str(z["info"]))


# --- span corruption ---------------------------------------------------------------------------


def corrupt(seq: np.ndarray, mask_id: int, eos_id: int, rng: np.random.Generator,
            noise: float = 0.15, mean_span: float = 3.0, max_target: int = 128) -> tuple[list[int], list[int]]:
    """(input ids, target ids): spans after the header replaced by `mask_id`; the target lists
    each span after its own `mask_id`, in order, then eos. Never masks the final eos."""
    body = seq[:-1] if len(seq) and seq[-1] == eos_id else seq
    lo, hi = min(HEADER_TOKENS, len(body)), len(body)
    n_mask = int(round((hi - lo) * noise))
    n_spans = max(1, int(round(n_mask / mean_span))) if n_mask else 0
    starts = np.sort(rng.choice(np.arange(lo, hi), size=min(n_spans, hi - lo), replace=False)) if n_spans else []
    inp, tgt, pos = list(body[:lo]), [], lo
    for s in starts:
        if s < pos:
            continue
        length = 1 + int(rng.poisson(mean_span - 1))
        e = min(s + length, hi)
        if len(tgt) + 1 + (e - s) > max_target - 1:
            break
        inp.extend(body[pos:s])
        inp.append(mask_id)
        tgt.append(mask_id)
        tgt.extend(body[s:e])
        pos = e
    inp.extend(body[pos:])
    inp.append(eos_id)
    tgt.append(eos_id)
    return [int(x) for x in inp], [int(x) for x in tgt]


def batch_tensors(seqs: Sequence[np.ndarray], mask_id: int, eos_id: int, pad_id: int, rng, device):
    """(input ids, attention mask, labels) of corrupted `seqs`, padded as the fine-tune pads."""
    from training.learning.train import collate

    return collate([corrupt(s, mask_id, eos_id, rng) for s in seqs], pad_id, device)


# --- training ----------------------------------------------------------------------------------


def train(args) -> Path:
    import torch
    from tokenizers import Tokenizer

    from training.learning.loop import lr_factor

    if not (args.max_steps or args.max_minutes):
        sys.exit("pretrain train: give --max-steps or --max-minutes")
    device = torch.device(args.device if args.device != "auto" else ("cuda" if torch.cuda.is_available() else "cpu"))
    torch.manual_seed(args.seed)
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    tok = Tokenizer.from_file(args.tokenizer)
    seqs, info = load_ids(args.ids)
    held = [s for i, s in enumerate(seqs) if i % 50 == 0]  # a fixed 2% for the denoising loss
    train_seqs = [s for i, s in enumerate(seqs) if i % 50 != 0]
    mask_id, eos_id, pad_id = tok.token_to_id(UNK), tok.token_to_id(EOS), tok.token_to_id(PAD)
    model = build_model(tok, args.size, dropout=args.dropout).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01, betas=(0.9, 0.98))
    rng = np.random.default_rng(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = out / "pretrain_log.jsonl"
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if device.type == "cuda" else torch.autocast("cpu", enabled=False)
    print(f"pretrain: {len(train_seqs)} texts ({info['counts']}), model {args.size} "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f}M on {device}", file=sys.stderr)

    def held_loss() -> float:
        model.eval()
        g = np.random.default_rng(123)
        tot = n = 0.0
        with torch.no_grad(), amp:
            for s in range(0, len(held), args.batch_size):
                ids, att, lab = batch_tensors(held[s:s + args.batch_size], mask_id, eos_id, pad_id, g, device)
                loss = model(input_ids=ids, attention_mask=att, labels=lab).loss
                k = int((lab != -100).sum())
                tot, n = tot + float(loss) * k, n + k
        model.train()
        return tot / max(n, 1)

    total = args.max_steps or 10**9
    step, t0, t10, sized, order = 0, time.time(), time.time(), False, []
    model.train()
    while step < total:
        if not order:
            order = list(rng.permutation(len(train_seqs)))
        batch = [train_seqs[order.pop()] for _ in range(min(args.batch_size, len(order)))]
        ids, att, lab = batch_tensors(batch, mask_id, eos_id, pad_id, rng, device)
        for g in opt.param_groups:
            g["lr"] = args.lr * lr_factor(step, total if sized or args.max_steps else 10**6, 0.05, 0.05)
        with amp:
            loss = model(input_ids=ids, attention_mask=att, labels=lab).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        spent = time.time() - t0
        if step == 10:
            t10 = time.time()
        if args.max_minutes and not sized and step == 60:  # size the cosine to the time budget
            per_step = (time.time() - t10) / 50  # steps 10..60: after CUDA start-up and warm-up
            total = min(total, step + int((args.max_minutes * 60 - spent) / per_step * 0.95))
            sized = True
            print(f"{per_step:.3f}s/step: schedule sized to {total} steps", file=sys.stderr)
        if step % args.log_every == 0 or step == total:
            rec = {"step": step, "minutes": round(spent / 60, 2), "loss": round(float(loss.detach()), 4),
                   "lr": opt.param_groups[0]["lr"]}
            if step % (args.log_every * 5) == 0 or step == total:
                rec["held_loss"] = round(held_loss(), 4)
            with open(log, "a") as f:
                f.write(json.dumps(rec) + "\n")
            print(json.dumps(rec), file=sys.stderr, flush=True)
        if args.max_minutes and spent > args.max_minutes * 60:
            break
    meta = default_meta([m for m in dataset.METRICS], max_input_tokens=info["max_input_tokens"],
                        preprocess="strip_v1", input_template=SIZED_TEMPLATE, model_size=args.size,
                        number_format=numbers.P10.config(),
                        pretraining={"steps": step, "texts": len(train_seqs), "counts": info["counts"],
                                     "held_loss": held_loss(), "minutes": round((time.time() - t0) / 60, 2),
                                     "objective": "span corruption, one <unk> mask token, 15%, mean span 3"})
    path = save_checkpoint(model, tok, out / "best", meta)
    print(f"done: {step} steps -> {path}", file=sys.stderr)
    return path


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.learning.pretrain", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("texts", help="tokenize the corpus (minus validation problems) into an .npz")
    t.add_argument("--out", required=True)
    t.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    t.add_argument("--tokenizer", default=DEFAULT_TOKENIZER)
    t.add_argument("--val-fraction", type=float, default=0.1)
    t.add_argument("--max-input-tokens", type=int, default=384)
    r = sub.add_parser("train", help="span-denoising pre-training; writes OUT/best")
    r.add_argument("--ids", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--tokenizer", default=DEFAULT_TOKENIZER)
    r.add_argument("--size", default="small")
    r.add_argument("--dropout", type=float, default=0.1)
    r.add_argument("--batch-size", type=int, default=128)
    r.add_argument("--lr", type=float, default=1e-3)
    r.add_argument("--max-steps", type=int, default=0)
    r.add_argument("--max-minutes", type=float, default=0.0)
    r.add_argument("--log-every", type=int, default=100)
    r.add_argument("--seed", type=int, default=0)
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--device", default="auto")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None):
    args = parse_args(argv)
    return build_ids(args) if args.cmd == "texts" else train(args)


if __name__ == "__main__":
    main()
