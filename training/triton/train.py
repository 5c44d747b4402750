"""Train the kernel latency RLM (CPU, one thread, a wall-clock budget).

    nice -n 19 python -m training.triton.train --out training/work/triton_ckpt_v2 --threads 1 --budget-min 100

Input: TEMPLATE of rlm_lsp.triton.kernels ("<metrics> kernel_latency <lang> triton <W12> <fwd> <gpu> A100
<shape> [4096] | fp32 <code>\\n<kernels + launch wrapper>"), at most --max-tokens. The work size
is one tokenizer token per power of two (`<W0>`..`<W48>`, rlm_lsp.triton.kernels.WORK_TOKENS) whose
embeddings lie on a line (ordered by size): they start there, and with --work-line (the default)
they are put back on their best-fit line after every step. So "bigger" stays one direction, and a
bucket seen with few operators moves with its neighbours instead of on its own. The launch mode
(forward / backward / forward+backward) is one token too (rlm_lsp.triton.kernels.MODE_TOKENS).
Target: the median latency in ms as one P10 block (--number-format P10E: exponent before the
digits). `--target per-work`: the latency per 2^20 elements of work instead, ms * 2^(20 - k) for
the row's work bucket `<W k>` (rlm_lsp.triton.kernels.PER_WORK). `--target roofline`: the latency over
one curve of the work size, ms / (c0 + c1 * 2^k), the curve fitted to the training rows
(`fit_roofline`, recorded in training_data). The runtime multiplies either back
(`rlm_lsp.triton.kernels.target_scale`), so a model that learned nothing but a constant would rank rows
exactly as their work size does.
Trains on the `train` split (held-out families never seen), saves a checkpoint that
`training.triton.export_model` turns into the int8 model directory.

The loop is `training.learning.loop` (`KernelTask` in `main` is what is kernel-specific): AdamW, warm-up and
cosine to 10% of --lr over --expected-steps, else over the --budget-min clock (then the warm-up is
the first 5% of the budget; before the shared loop it was the first 50 steps), OUT rewritten every
--save-every steps with OUT/trainer_state.pt, so `--resume` continues the run.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from pathlib import Path

from rlm_lsp.runtime import numbers
from rlm_lsp.runtime.template import render
from rlm_lsp.triton.kernels import (
    LANGUAGE,
    METRIC,
    MODE_TOKENS,
    PER_WORK,
    ROOFLINE,
    TEMPLATE,
    TEMPLATE_V4,
    WORK_MAX,
    WORK_MIN,
    WORK_TOKENS,
    model_context,
    target_scale,
    work_bucket,
)
from training.learning import rlm_model
from training.learning.loop import STATE_FILE, Loop, LoopConfig, TaskBase
from training.triton import data

SIZES = {
    # name: (d_model, d_ff, encoder layers, decoder layers, heads, d_kv)
    "kernel": (160, 640, 2, 2, 4, 40),
    "kernel_s": (128, 512, 2, 2, 4, 32),
}
TEMPLATES = {"v3": TEMPLATE, "v4": TEMPLATE_V4}  # v4: plus the kernel's op counts (`<ops> load 2 ...`)
TARGETS = {"ms": "ms", "per-work": PER_WORK, "roofline": ROOFLINE}  # -> training_data["target"] (runtime reads it)
METRICS = [{"name": METRIC, "unit": "ms",
            "definition": "median GPU time of one kernel launch (triton.testing.do_bench / Liger p50) "
                          "on the given GPU and work size"}]


def render_row(row: dict, template: str = TEMPLATE) -> str:
    return render(template, [METRIC], LANGUAGE, row["text"], **model_context(template, row["gpu"], row["shape"]))


def fit_roofline(rows: list[dict]) -> dict:
    """One latency curve of the work size, c0 + c1 * 2^k ms (launch overhead plus a cost per
    element), least squares in log ms over `rows`; k is the row's `<W k>` bucket, as at run time."""
    import numpy as np
    from scipy.optimize import least_squares

    k = np.array([work_bucket(r["shape"]) for r in rows], dtype=float)
    y = np.log([r["ms"] for r in rows])
    start = [float(np.min(y)), float(np.median(y - k * np.log(2)))]
    a, b = least_squares(lambda p: np.logaddexp(p[0], p[1] + k * np.log(2)) - y, start).x
    return {"c0_ms": float(np.exp(a)), "c1_ms": float(np.exp(b)), "rows": len(rows)}


def init_work_embeddings(model, tok, seed: int = 0) -> None:
    """<W k> embedding = a shared base + (k - 24)/12 * a shared direction + a little noise: an
    ordered line, so neighbouring sizes start close and bigger is one consistent direction."""
    import torch

    g = torch.Generator().manual_seed(seed)
    emb = model.get_input_embeddings().weight
    d = emb.shape[1]
    base, direction = torch.randn(d, generator=g), torch.randn(d, generator=g)
    mid, span = (WORK_MIN + WORK_MAX) / 2, (WORK_MAX - WORK_MIN) / 4
    with torch.no_grad():
        for k, t in zip(range(WORK_MIN, WORK_MAX + 1), WORK_TOKENS):
            emb[tok.token_to_id(t)] = base + (k - mid) / span * direction + 0.3 * torch.randn(d, generator=g)


def project_work_line(model, ids) -> None:
    """Put the <W k> embedding rows back on their least-squares line a + (k - mean k) * b."""
    import torch

    emb = model.get_input_embeddings().weight
    with torch.no_grad():
        rows = emb[ids]
        k = torch.arange(len(ids), dtype=rows.dtype)
        k = (k - k.mean())[:, None]
        mean = rows.mean(0, keepdim=True)
        slope = (k * (rows - mean)).sum(0, keepdim=True) / (k * k).sum()
        emb[ids] = mean + k * slope


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("training/work/triton_ckpt"))
    p.add_argument("--size", default="kernel_s", choices=sorted(SIZES))
    p.add_argument("--vocab", type=int, default=4000)
    p.add_argument("--max-tokens", type=int, default=192)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--budget-min", type=float, default=25.0, help="wall-clock training budget (minutes)")
    p.add_argument("--max-steps", type=int, default=0, help="0: as many as the budget allows")
    p.add_argument("--expected-steps", type=int, default=0,
                   help="cosine schedule length in steps; 0: over the wall-clock budget (the step rate "
                        "changes when the CPU frees up)")
    p.add_argument("--template", choices=sorted(TEMPLATES),
                   help="input template: v3, or v4 (v3 plus a line counting the kernel's loads, stores, dots, "
                        "loops, math and reductions). Default: --init's, else v3")
    p.add_argument("--code-drop", type=float, default=0.15,
                   help="fraction of examples whose code is cut to its first 0-32 tokens")
    p.add_argument("--snapshot-every-min", type=float, default=20.0,
                   help="also keep a copy of the checkpoint every this many minutes (OUT/min<M>)")
    p.add_argument("--keep-steps", type=int, nargs="*", default=[],
                   help="also keep a copy of the checkpoint at these steps (OUT_step<N>), to compare runs "
                        "at the same step")
    p.add_argument("--target", choices=sorted(TARGETS),
                   help="what the number is: the latency in ms, ms per 2^20 elements of work, or ms over "
                        "a latency curve of the work size fitted to the training rows (multiplied back at "
                        "run time). Default: --init's, else ms")
    p.add_argument("--exp-weight", type=float, default=4.0, help="loss weight of the exponent token")
    p.add_argument("--work-line", action=argparse.BooleanOptionalAction, default=True,
                   help="keep the <W k> embeddings on one line (projected after every step)")
    p.add_argument("--number-format", default="P10", choices=("P10", "P10E"),
                   help="token order of the target: P10 = sign, digits, exponent; P10E = sign, exponent, digits")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--init", type=Path, help="continue training this checkpoint (same tokenizer)")
    p.add_argument("--save-every", type=int, default=100, help="steps between checkpoint saves")
    p.add_argument("--resume", action="store_true",
                   help="continue the run in OUT (weights, optimiser, schedule, random state; OUT/trainer_state.pt)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (never shown off a terminal)")
    p.add_argument("--all-rows", action="store_true", help="train on every row (no held-out families)")
    p.add_argument("--liger-work", choices=data.LIGER_WORK,
                   help="a Liger row's work size: the product of its named dims (dims, up to v3), or the "
                        "largest tensor its benchmark builds (tensors). Default: --init's, else dims")
    p.add_argument("--extra-times", nargs="*", default=[],
                   help="TritonBench re-timings on other GPUs (`training.triton.tritonbench time` output), "
                        "joined onto the A100 rows; they never change the family split")
    p.add_argument("--val-frac", type=float,
                   help="hold out whole training families holding about this share of the training rows "
                        "as validation (training.triton.data.VAL_FAMILIES_SEED); score them with "
                        "`training.triton.evaluate --split val`. Default: --init's, else 0 (none)")
    return p.parse_args(argv)


def main(argv=None) -> Path:
    import torch

    args = parse_args(argv)
    fmt = numbers.FORMATS[args.number_format]
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    t0 = time.time()
    prior_data = {}
    resume = args.resume and (args.out / STATE_FILE).exists()
    init = args.out if resume else args.init  # a resumed run continues OUT itself
    if init:  # continue a checkpoint: its tokenizer, weights, number format and rows (unless told otherwise)
        model, tok, prior = rlm_model.load_checkpoint(init)
        fmt, prior_data = numbers.format_of(prior), prior.get("training_data", {})
    if args.liger_work is None:
        args.liger_work = prior_data.get("liger_work", "dims")
    if args.val_frac is None:
        args.val_frac = float(prior_data.get("val_frac", 0.0))
    target = prior_data.get("target", "ms") if init else TARGETS[args.target or "ms"]
    if init and args.target and TARGETS[args.target] != target:
        raise SystemExit(f"--target {args.target}: {init} was trained with target {target}")
    template = prior["input_template"] if init else TEMPLATES[args.template or "v3"]
    if init and args.template and TEMPLATES[args.template] != template:
        raise SystemExit(f"--template {args.template}: {init} was trained with another template")
    rows = data.load_rows(liger_work=args.liger_work, val_frac=args.val_frac, extra_times=args.extra_times)
    train_rows = rows if args.all_rows else [r for r in rows if r["split"] == "train"]
    retimed = sum(r["source"] == "tritonbench-retimed" for r in rows)
    print(f"rows {len(rows)} train {len(train_rows)}" + (f" (re-timed on other GPUs: {retimed})" if args.extra_times else "")
          + f" ({time.time() - t0:.0f}s)", flush=True)

    curve = (prior_data.get("roofline") if init else fit_roofline(train_rows)) if target == ROOFLINE else None
    scale_data = {"target": target, **({"roofline": curve} if curve else {})}
    if curve:
        print(f"roofline: {curve['c0_ms']:.4g} ms + {curve['c1_ms']:.4g} ms * 2^k", flush=True)

    texts = [render_row(r, template) for r in train_rows]
    uniq = sorted(set(texts))
    if not init:
        # the work-size tokens follow the number tokens, so those ids stay where the exporter expects them
        tok = rlm_model.train_tokenizer(uniq * 2 + data.unlabelled_texts(), vocab_size=args.vocab,
                                        extra_special=WORK_TOKENS + list(MODE_TOKENS.values()))
    tok.no_padding()
    tok.no_truncation()
    eos = tok.token_to_id(rlm_model.EOS)
    enc_cache: dict[str, list[int]] = {}
    items = []
    for text, row in zip(texts, train_rows):
        if text not in enc_cache:
            ids = tok.encode(text).ids
            if len(ids) > args.max_tokens:
                ids = ids[: args.max_tokens - 1] + [eos]
            enc_cache[text] = ids
        items.append((enc_cache[text], rlm_model.target_ids(tok, [row["ms"] / target_scale(scale_data, row["shape"])],
                                                            fmt)))
    print(f"tokenizer {tok.get_vocab_size()} mean len {sum(len(i) for i, _ in items) / len(items):.0f}", flush=True)
    print("first input:", tok.encode(texts[0]).tokens[:24], flush=True)

    if not init:
        model = rlm_model.build_model(tok, SIZES[args.size], dropout=0.1)
        init_work_embeddings(model, tok, args.seed)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model {args.size}: {n_params / 1e6:.2f}M params", flush=True)
    pad = tok.token_to_id(rlm_model.PAD)
    pos_w = torch.tensor(fmt.arrange(0.1, [2.0, 1.0, 0.5, 0.3], args.exp_weight))  # the sign is fixed: little weight
    groups = rlm_model.number_groups(tok, "cpu", fmt)
    local = []  # vocab id -> index inside the position's group
    for cols in groups:
        lut = torch.zeros(tok.get_vocab_size(), dtype=torch.long)
        lut[cols] = torch.arange(len(cols))
        local.append(lut)
    code_id = tok.token_to_id("<code>")
    work_ids = torch.tensor([tok.token_to_id(t) for t in WORK_TOKENS])
    gpus = Counter(r["gpu"] for r in rows)

    def cut_code(seq: list[int]) -> list[int]:
        """With probability --code-drop keep only the first 0-32 code tokens: the model must then
        predict from the GPU and work size alone, as it must for an operator it has never seen."""
        if args.code_drop <= 0 or rng.random() >= args.code_drop or code_id not in seq:
            return seq
        keep = seq.index(code_id) + 1 + rng.randint(0, 32)
        return seq[:keep] + [eos] if keep < len(seq) - 1 else seq

    class KernelTask(TaskBase):
        """Endless length-sorted, shuffled passes over the training rows; no validation (the
        held-out families are scored by `training.triton.evaluate`); the checkpoint is OUT itself."""

        losses: list[float] = []

        def parameters(self):
            return list(model.parameters())

        def epoch_batches(self, epoch):
            while True:
                order = sorted(range(len(items)), key=lambda i: (len(items[i][0]) + rng.random() * 40))
                chunks = [order[i: i + args.batch] for i in range(0, len(order), args.batch)]
                rng.shuffle(chunks)
                yield from chunks

        def loss(self, idx):
            seqs = [cut_code(items[i][0]) for i in idx]
            width = max(len(q) for q in seqs)
            ids = torch.full((len(idx), width), pad, dtype=torch.long)
            mask = torch.zeros_like(ids)
            for j, q in enumerate(seqs):
                ids[j, : len(q)] = torch.tensor(q)
                mask[j, : len(q)] = 1
            labels = torch.tensor([items[i][1] for i in idx])
            out = model(input_ids=ids, attention_mask=mask, labels=labels)
            # per-position weights: the exponent and first digit decide the ranking, the sign is fixed;
            # cross-entropy over the tokens decoding may choose at each position (constrained, as at runtime)
            ce = torch.stack([torch.nn.functional.cross_entropy(out.logits[:, p].index_select(-1, groups[p]),
                                                                local[p][labels[:, p]], reduction="none")
                              for p in range(labels.shape[1])], dim=1)
            loss = (ce * pos_w[: ce.shape[1]]).sum(1).mean() / float(pos_w.sum())
            self.losses.append(float(loss.detach()))
            return loss

        def after_step(self):
            if args.work_line:
                project_work_line(model, work_ids)

        def save(self, path: Path, validation, info: dict) -> None:
            was_training = model.training
            model.eval()
            losses = self.losses
            meta = rlm_model.default_meta(
                METRICS, max_input_tokens=args.max_tokens, input_template=template, languages=[LANGUAGE],
                number_format=fmt.config(),
                training_data={
                    "task": "triton kernel latency",
                    "sources": "TritonBench channel G (GPU inferred A100) + Liger-Kernel benchmark speed rows (liger*)",
                    "rows_train": len(train_rows), "rows_total": len(rows),
                    "held_out_families": [] if args.all_rows else sorted({r["family"] for r in rows if r["split"] == "test"}),
                    "gpus": dict(gpus.most_common()),
                    "default_gpu": gpus.most_common(1)[0][0],
                    "default_shape": "n=1048576 | work 2^20",
                    "default_shape_note": "1M elements (2^20) of work when the editor knows no shape",
                    "steps": info["step"], "size": args.size, "params": n_params, "work_line": args.work_line,
                    "liger_work": args.liger_work,
                    **scale_data,
                    "val_frac": args.val_frac,
                    **({"extra_times": [str(p) for p in args.extra_times]} if args.extra_times else {}),
                    "val_families": sorted({r["family"] for r in rows if r["split"] == "val"}),
                    "minutes": round(info["minutes"], 1),
                    "final_loss": sum(losses[-50:]) / max(1, len(losses[-50:])),
                },
            )
            rlm_model.save_checkpoint(model, tok, path, meta)
            (path / "train_log.json").write_text(json.dumps({"losses": losses, "final": bool(info.get("final")),
                                                             "args": {k: str(v) for k, v in vars(args).items()}}))
            model.train(was_training)

        def state_dict(self):
            return {"rng": rng.getstate(), "losses": self.losses}

        def load_state_dict(self, state):
            rng.setstate(state["rng"])
            self.losses[:] = state.get("losses", [])

    task = KernelTask()
    snaps = {"next": args.snapshot_every_min}

    def snapshots_and_log(loop: Loop) -> None:
        step = loop.step
        if step in args.keep_steps:
            task.save(Path(f"{args.out}_step{step}"), None, loop.info())
        if args.snapshot_every_min and loop.clock() >= snaps["next"] * 60:
            task.save(Path(f"{args.out}_min{int(snaps['next'])}"), None, loop.info())
            snaps["next"] += args.snapshot_every_min
        if step % 25 == 0:
            print(f"step {step} loss {sum(task.losses[-25:]) / 25:.3f} lr {loop.opt.param_groups[0]['lr']:.2e} "
                  f"{loop.clock():.0f}s", flush=True)

    if args.work_line and not resume:
        project_work_line(model, work_ids)
    loop = Loop(task, LoopConfig(
        out=args.out, last_dir=args.out, lr=args.lr, weight_decay=0.01, clip=1.0, warmup=0.05, min_lr_ratio=0.1,
        schedule_steps=args.expected_steps, stop_at_schedule_end=False, max_steps=args.max_steps,
        max_minutes=args.budget_min, eval_at_epoch_end=False, save_every=args.save_every, resume=resume,
        progress=not args.no_progress, desc="triton", hooks=[snapshots_and_log]))
    model.train()
    loop.run()
    print(f"saved {args.out} after {loop.step} steps, {time.time() - t0:.0f}s", flush=True)
    return args.out


if __name__ == "__main__":
    main()
