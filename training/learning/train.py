"""Train the RLM: a T5 encoder-decoder from scratch that writes both metrics as P10 numbers.

    python -m training.learning.train --out training/runs/v3                          # real data: 8 epochs of batch 64
    python -m training.learning.train --out training/runs/v1 --resume                 # after an interruption
    python -m training.learning.train --synthetic 64 --size tiny --max-steps 5 --out /tmp/t   # smoke test

One encoder pass serves both metrics: the template names them ("memory latency"),
the labels are their P10 blocks one after the other, and a metric with no
measurement is -100 (ignored by the loss). Loss: teacher-forced cross-entropy,
weighted per position in the block (the exponent and the leading digit carry the
magnitude, the last digits are mostly noise).

The loop is `training.learning.loop` (`RlmTask` here is what is specific to this model). Every
`--eval-every` steps (default: at the end of each epoch) the validation loss and a Spearman
per metric are computed, decoded by the runtime's decoder (`training.learning.decoding`: the allowed
tokens, `--eval-samples` shared stratified draws and the geometric-mean point estimate that
`rlm-export` ships by default); the best checkpoint (by the mean Spearman, validation loss
breaking ties) goes to OUT/best, the latest to OUT/last with the optimiser, scheduler and
random state, so `--resume` continues where it stopped. Training stops at `--epochs`,
`--max-steps`, `--max-minutes` or after `--patience` evaluations without improvement,
whichever comes first; the learning-rate schedule (linear warm-up, cosine decay:
`training.learning.loop.Cosine`, transformers' curve) is sized to the step budget that fits in
`--max-minutes`.

The defaults are the shipped model's recipe (python-v3): from scratch, label jitter from the
first step, batch 64, about 940 steps. It was trained on a GPU (`training/device/device_sweep.sh`, 6.5
minutes for five configurations side by side); on 2 CPU cores the same run took 70 minutes.
Longer schedules scored worse on validation: the model overfits the ~7,500 training programs.

`main(argv)` is the entry point; it returns the path of the best checkpoint.
"""

from __future__ import annotations

import os

# On a shared, oversubscribed CPU, OpenMP's spin-waiting makes 2 threads ~5x slower than 1;
# passive waiting keeps 2 threads at least as fast as 1. Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlm_lsp.python import preprocess
from rlm_lsp.runtime import decode, numbers
from rlm_lsp.runtime.prediction import is_growth
from training.judging.evaluate import score
from training.learning import dataset, decoding, teacher_forcing
from training.learning.loop import STATE_FILE, Evaluation, Loop, LoopConfig, TaskBase, lr_factor, setup_device  # noqa: F401
from training.learning.rlm_model import (
    PAD,
    SIZES,
    build_model,
    default_meta,
    load_checkpoint,
    number_groups,
    save_checkpoint,
)
from training.learning.train_data import (  # noqa: F401 - the data stage, importable from here as before
    TEMPLATES,
    Encoded,
    _add_new_rows,
    _aux_targets,
    _load_data,
    _log_stats,
    _tokenizer,
    aux_tiers,
    collate,
    encode_examples,
    jitter,
    make_batches,
    number_format,
    pick_variant,
)


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training.learning.train", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="training/runs/default", help="run directory (best/, last/)")
    p.add_argument("--resume", action="store_true", help="continue from OUT/last")
    p.add_argument("--init-from", help="start from this checkpoint's weights and tokenizer "
                   "(fresh optimiser and schedule: a second phase on more data)")
    # data
    p.add_argument("--data", nargs="+", default=[dataset.DEFAULT_DATA])
    p.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    p.add_argument("--tiers", default="large", help="comma-separated measurement tiers to use")
    p.add_argument("--v4-data", action="store_true",
                   help="model v4's data (training.judging.shaped_examples): v1's functions with their ladder growth, and data "
                        "v2's scripts (Kattis on stdin, Euler, Rosetta); metrics default to memory, latency and "
                        "their growth; needs --template shaped")
    p.add_argument("--curve-data", nargs="+", metavar="CURVES",
                   help="the measured cost curves (training/data/leetcode_curves.jsonl.gz; training.learning.curve_rows): "
                        "every ok (program, size) row at its n, with the program's asymptotic growth; metrics default "
                        "to memory, latency and their growth; needs --template curves (it states n)")
    p.add_argument("--anchor-data", nargs="+", metavar="CURVES",
                   help="the measured cost curves as one row per program (training.learning.curve_rows."
                        "load_anchor_examples): its value at --reference-n on its growth line, and that growth; "
                        "metrics default to memory, latency and their growth; needs a template without {n} "
                        "(e.g. --template shaped): the runtime moves the numbers from --reference-n along the growth")
    p.add_argument("--reference-n", type=int, default=10_000,
                   help="with --curve-data: the n the model's numbers are for when a caller states none; with "
                        "--anchor-data: the n0 the anchors are at, for which the model's numbers always are "
                        "(rlm_config.json's reference_n)")
    p.add_argument("--variants", action="store_true",
                   help="with --v4-data: add data v2's measured variants of training programs (memory scaled "
                        "by the measured variant/parent ratio; training.judging.shaped_examples.variant_examples)")
    p.add_argument("--aux-tiers", default="",
                   help="comma-separated tiers whose training-problem rows are added as extra tasks: the "
                        "template names their metrics as METRIC@TIER (e.g. memory@examples), so the model "
                        "tells them apart and the runtime, which names plain metrics, predicts --tiers")
    p.add_argument("--polyglot-data", nargs="*", default=[],
                   help="C++/Java/Go ladder rows (training.learning.polyglot_data: the rung-1 row per program, "
                        "its normalised functions), added to --data's Python rows and split by the same problem hash")
    p.add_argument("--polyglot-texts", default=None, metavar="FILE",
                   help="the --polyglot-data programs' texts from FILE (`python -m training.learning.polyglot_data "
                        "--stage-texts`), not from --corpus: for a machine without the corpus or tree-sitter")
    p.add_argument("--polyglot-languages", default="cpp,java,go", help="of --polyglot-data, these languages")
    p.add_argument("--polyglot-repeat", type=int, default=1,
                   help="each --polyglot-data training row this many times per epoch (they are few beside Python's)")
    p.add_argument("--val-fraction", type=float, default=0.1)
    p.add_argument("--synthetic", type=int, default=0, help="train on N synthetic rows instead")
    p.add_argument("--reload-data", action="store_true",
                   help="re-read --data at each epoch start and add new training rows "
                        "(for a measurement run still appending)")
    p.add_argument("--reload-every-min", type=float, default=5.0)
    p.add_argument("--metrics", default=None,
                   help="comma-separated (default: memory,latency; with --v4-data also their _growth)")
    p.add_argument("--preprocess", default="strip_v1", choices=preprocess.NAMES,
                   help="canon_v1: canonical names (issue 22's c1 recipe, with --neutral 0.8)")
    p.add_argument("--neutral", type=float, default=0.0,
                   help="share of augmented variants that also get a neutral rewrite (augment.neutral: an "
                        "unused assignment, an assert, swapped independent statements, ...), re-normalised "
                        "after; 0 = the v3 recipe's augmentation")
    p.add_argument("--driver-prob", type=float, default=0.6,
                   help="share of rewritten variants that get a stdin driver appended (v3's recipe: 0.6; a "
                        "shaped model, told a function from a script, wants 0)")
    p.add_argument("--augment", type=float, default=0.3,
                   help="probability of a rewritten (stdin-driver / renamed) variant per example")
    p.add_argument("--subset-prob", type=float, default=0.0,
                   help="probability of naming a single metric in the template")
    # tokenizer and model
    p.add_argument("--tokenizer", help="reuse this tokenizer.json instead of training one")
    p.add_argument("--tokenizer-texts", default="corpus", choices=("corpus", "examples"))
    p.add_argument("--vocab-size", type=int, default=8000)
    p.add_argument("--size", default="small", choices=sorted(SIZES))
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--template", default="sized", choices=sorted(TEMPLATES),
                   help="input template: 'sized' states the code's length before it, 'census' also a count of "
                        "loops, calls and costly builtins (see rlm_lsp.runtime.template)")
    p.add_argument("--max-input-tokens", type=int, default=384)
    # optimisation
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--warmup", type=float, default=0.05, help="fraction of steps")
    p.add_argument("--min-lr-ratio", type=float, default=0.05)
    p.add_argument("--clip", type=float, default=1.0)
    p.add_argument("--position-weights", default="0.2,1.0,0.8,0.4,0.2,1.5",
                   help="loss weight of sign, 4 digits, exponent (in this order whatever --number-format)")
    p.add_argument("--number-format", default=None, choices=sorted(numbers.FORMATS),
                   help="token order of each target: P10 = sign, digits, exponent (the default); P10E = sign, "
                        "exponent, digits; P10S = P10 with the tokens a metric's grammar forces never fed to "
                        "the decoder (fewer decoding steps). A resumed run keeps its checkpoint's; an "
                        "--init-from run too, unless P10S is asked of a P10 checkpoint")
    p.add_argument("--growth-digits", type=int, default=None, choices=range(1, numbers.MANTISSA_DIGITS + 1),
                   help="significant digits a growth exponent is written with (default 4; 2 = a tenth a draw); "
                        "the others are always <0> and, with --number-format P10S, never decoded")
    p.add_argument("--label-jitter", type=float, default=0.02,
                   help="multiply each training target by 10^U(-w, w) afresh per use (see jitter())")
    p.add_argument("--aux-weight", type=float, default=1.0,
                   help="weight of an auxiliary regression loss on the mean-pooled encoder output "
                        "(standardised log10 targets); the head is training-only, never exported. "
                        "It gives the encoder a direct signal, so the decoder stops ignoring it sooner")
    p.add_argument("--consistency", type=float, default=0.0,
                   help="weight of a consistency loss: for the rows of a batch that drew their rewritten "
                        "variant, the plain program is also run, and the symmetric KL between the two "
                        "constrained number distributions (teacher-forced, position-weighted) is added "
                        "(issue 22: a neutral rewrite should not move the prediction); 0 = off")
    p.add_argument("--distill-from", default=None, metavar="CHECKPOINT",
                   help="a frozen teacher (its own preprocess and template, the same tokenizer): for the "
                        "rows of a batch that drew their plain program with every metric, the teacher reads "
                        "that program its way, and KL(teacher || model) over the constrained number "
                        "distributions (teacher-forced, position-weighted) is added, weighted by --distill "
                        "(issue 22: a canonical-name student learning from a real-name teacher)")
    p.add_argument("--distill", type=float, default=1.0, help="weight of --distill-from's loss")
    p.add_argument("--freeze-encoder", action="store_true",
                   help="train the decoder only (e.g. a last phase teaching it to read a trained encoder)")
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--max-minutes", type=float, default=0.0,
                   help="time budget of the whole run (resumed runs included); sizes the schedule")
    p.add_argument("--resize", action="store_true",
                   help="with --resume: size the schedule again to the (new) --max-minutes")
    p.add_argument("--eval-every", type=int, default=0, help="steps; 0 = once per epoch")
    p.add_argument("--eval-max", type=int, default=500, help="validation rows used during training")
    p.add_argument("--eval-samples", type=int, default=8,
                   help="shared draws per validation row, decoded as the runtime does; their point estimate "
                        "(geometric mean) is scored (0 or 1 = greedy)")
    p.add_argument("--patience", type=int, default=6)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="auto")
    p.add_argument("--no-progress", action="store_true", help="no progress bar (never shown off a terminal)")
    return p.parse_args(argv)


def weighted_loss(logits, labels, weights, groups):
    """Cross-entropy over the tokens allowed at each position (as decoding is constrained),
    weighted by position within the P10 block; -100 is ignored."""
    import torch
    import torch.nn.functional as F

    total = logits.new_zeros((), dtype=torch.float32)
    norm = logits.new_zeros((), dtype=torch.float32)
    for p, cols in enumerate(groups):
        lab = labels[:, p :: numbers.TOKENS_PER_NUMBER]  # (B, n_metrics)
        if lab.numel() == 0:
            continue
        sel = logits[:, p :: numbers.TOKENS_PER_NUMBER, :].index_select(-1, cols).float()  # (B, n, A)
        lut = torch.full((logits.shape[-1],), -100, dtype=torch.long, device=labels.device)
        lut[cols] = torch.arange(len(cols), device=labels.device)
        local = torch.where(lab == -100, torch.full_like(lab, -100), lut[lab.clamp(min=0)])
        ce = F.cross_entropy(sel.reshape(-1, len(cols)), local.reshape(-1), ignore_index=-100,
                             reduction="sum")
        total = total + weights[p] * ce
        norm = norm + weights[p] * (local != -100).sum()
    return total / norm.clamp(min=1e-6)


def symmetric_kl(logits_a, logits_b, labels, weights, groups):
    """Position-weighted mean of (KL(a||b) + KL(b||a)) / 2 over the constrained tokens of each
    labelled position (-100 ignored): how far two inputs' number distributions are apart."""
    return _position_weighted(logits_a, logits_b, labels, weights, groups,
                              lambda la, lb: 0.5 * ((la.exp() * (la - lb)).sum(-1) + (lb.exp() * (lb - la)).sum(-1)))


def _position_weighted(logits_a, logits_b, labels, weights, groups, divergence):
    """Position-weighted mean of divergence(log_softmax_a, log_softmax_b) -> (B, n) over the
    constrained tokens of each labelled position of a number block (-100 ignored)."""
    import torch

    total = logits_a.new_zeros((), dtype=torch.float32)
    norm = logits_a.new_zeros((), dtype=torch.float32)
    for p, cols in enumerate(groups):
        lab = labels[:, p :: numbers.TOKENS_PER_NUMBER]
        if lab.numel() == 0:
            continue
        la = logits_a[:, p :: numbers.TOKENS_PER_NUMBER, :].index_select(-1, cols).float().log_softmax(-1)
        lb = logits_b[:, p :: numbers.TOKENS_PER_NUMBER, :].index_select(-1, cols).float().log_softmax(-1)
        known = (lab != -100).float()
        total = total + weights[p] * (divergence(la, lb) * known).sum()
        norm = norm + weights[p] * known.sum()
    return total / norm.clamp(min=1e-6)


def _teacher(args, tok, metrics, train_items, device):
    """--distill-from's frozen model, and each training item's input as it reads it (its own
    preprocess and template; the same tokenizer as the student's, or SystemExit)."""
    from training.judging.evaluate import truncate
    from training.learning.train_data import render_example

    teacher, teacher_tok, meta = load_checkpoint(args.distill_from)
    if teacher_tok.get_vocab() != tok.get_vocab():
        raise SystemExit(f"--distill-from {args.distill_from}: its tokenizer is not the model's")
    teacher.to(device).eval()
    for param in teacher.parameters():
        param.requires_grad_(False)
    texts = [render_example(meta["input_template"], metrics, item.example,
                            preprocess.apply(meta.get("preprocess", "none"), item.example.code))
             for item in train_items]
    encs = tok.encode_batch(texts)
    return teacher, {i: truncate(enc.ids, args.max_input_tokens, tok) for i, enc in enumerate(encs)}


def distill_kl(student, teacher, labels, weights, groups):
    """Position-weighted mean of KL(teacher || student) over the constrained tokens of each
    labelled position (-100 ignored): the student pulled towards the teacher's distributions."""
    return _position_weighted(student, teacher, labels, weights, groups,
                              lambda ls, lt: (lt.exp() * (lt - ls)).sum(-1))


def _init_format(prior: numbers.NumberFormat, asked: str | None) -> str:
    """The number format of a run initialised from a checkpoint in `prior`: the checkpoint's token
    order whatever is asked, but P10S asked of a P10 one (the same order, the forced tokens no longer fed)."""
    if (prior.name, asked) == (numbers.P10.name, numbers.P10S.name):
        return numbers.P10S.name
    return prior.name


def forward_logits(model, ids, mask, labels, fed=None):
    """(B, P, V) teacher-forced logits; `fed`: the positions a P10S decoder reads (`teacher_forcing`)."""
    return teacher_forcing.logits(model, labels, fed, input_ids=ids, attention_mask=mask)


# --- validation --------------------------------------------------------------------------------


def evaluate_model(model, tok, val_items, metrics, weights, args, device, grammars=None) -> dict:
    """Validation loss (teacher forcing) and the runtime's constrained decode sharing one encoder
    pass per batch: --eval-samples shared stratified draws per row and the point estimate an
    export ships by default (`training.learning.decoding`; greedy when --eval-samples <= 1)."""
    import torch

    fmt = number_format(args)
    groups = number_groups(tok, device, fmt)
    grammars = grammars or [numbers.Grammar()] * len(metrics)
    fed = teacher_forcing.fed_positions(grammars, fmt)
    allowed = decoding.allowed_ids(tok, grammars, fmt)
    reps = max(args.eval_samples, 1)
    linear = [is_growth(m) for m in metrics]  # a growth exponent's estimate: the runtime's (median)
    draws = decoding.shared_uniforms(reps, len(allowed)) if reps > 1 else None  # same draws at every evaluation
    id_to_token = {tok.token_to_id(t): t for t in numbers.ALL_TOKENS}
    smooth_by = decode.ExponentSmoother(allowed, id_to_token, grammars, fmt)
    model.eval()
    pad_id = tok.token_to_id(PAD)
    total, count = 0.0, 0
    values = [None] * len(val_items)
    key = tuple(metrics)
    with torch.no_grad():
        for batch in make_batches(val_items, args.batch_size * 2, random.Random(0), shuffle=False):
            rows = [(val_items[i].variants[(key, False)], val_items[i].labels[key]) for i in batch]
            ids, mask, labels = collate(rows, pad_id, device)
            enc = model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
            logits = teacher_forcing.logits(model, labels, fed, encoder_outputs=(enc,), attention_mask=mask)
            labels = teacher_forcing.ignore_unfed(labels, fed)
            total += weighted_loss(logits, labels, weights, groups).item() * len(batch)
            count += len(batch)
            uniforms = None if draws is None else np.tile(draws, (len(batch), 1))  # (B*R, P)
            observe, expected = smooth_by.observer()
            toks = decoding.decode_encoded(model, enc.repeat_interleave(reps, dim=0),
                                           mask.repeat_interleave(reps, dim=0), allowed, uniforms, observe=observe,
                                           number_format=fmt)
            drawn = np.array([fmt.decode_metrics([id_to_token[t] for t in seq], grammars)
                              for seq in toks.tolist()], dtype=float).reshape(len(toks), len(grammars))
            even = smooth_by.smooth(drawn, toks, expected)
            for j, i in enumerate(batch):
                rows_j = slice(j * reps, (j + 1) * reps)  # (R, M) each
                values[i] = list(decoding.point_values(drawn[None, rows_j], decoding.DEFAULT_POINT_ESTIMATE, linear,
                                                       even[None, rows_j])[0])
    examples = [it.example for it in val_items]
    preds = {m: {"value": [v[k] for v in values]} for k, m in enumerate(metrics)}
    rep = score(examples, preds, metrics)
    model.train()
    sp = [rep[m]["spearman"] for m in metrics if m in rep and rep[m]["n"] > 1 and rep[m]["spearman"] == rep[m]["spearman"]]
    return {"val_loss": total / max(count, 1), "spearman_mean": sum(sp) / max(len(sp), 1),
            "scores": rep}


class RlmTask(TaskBase):
    """The Python model's task on `training.learning.loop`: length-bucketed epochs of encoded examples,
    the position-weighted constrained cross-entropy plus the auxiliary regression head, and the
    validation loss and runtime-decoded Spearman (best: mean Spearman, loss breaking ties)."""

    def __init__(self, args, model, tok, meta, metrics, train_ex, val_ex, train_items, val_items, rng, device):
        import torch

        self.args, self.model, self.tok, self.meta, self.metrics = args, model, tok, meta, metrics
        self.train_ex, self.val_ex, self.train_items, self.val_items = train_ex, val_ex, train_items, val_items
        self.rng, self.device = rng, device
        self.extra_tasks = aux_tiers(args)
        self.main_ex = [e for e in train_ex if e.tier not in self.extra_tasks]
        sign_w, *digit_w, exp_w = [float(w) for w in args.position_weights.split(",")]
        self.weights = torch.tensor(number_format(args).arrange(sign_w, digit_w, exp_w), device=device)
        self.aux_head = torch.nn.Linear(model.config.d_model, len(metrics)).to(device)
        self.aux_stats = _log_stats(self.main_ex, metrics)
        self.trainable = [p for p in model.parameters() if p.requires_grad]
        self.pad_id = tok.token_to_id(PAD)
        self.groups = number_groups(tok, device, number_format(args))
        self.grammars = decoding.grammars_of(meta)
        self.fed = teacher_forcing.fed_positions(self.grammars, number_format(args))  # None but for P10S
        self.last_reload = time.time()
        self.teacher, self.teacher_ids = None, {}
        if getattr(args, "distill_from", None):
            self.teacher, self.teacher_ids = _teacher(args, tok, metrics, train_items, device)

    def parameters(self) -> list:
        return self.trainable + list(self.aux_head.parameters())

    def clip_parameters(self) -> list:
        return self.trainable

    def epoch_batches(self, epoch: int):
        return make_batches(self.train_items, self.args.batch_size, random.Random(self.args.seed * 1000 + epoch))

    def loss(self, batch):
        import torch

        args = self.args
        rows = [pick_variant(self.train_items[i], self.metrics, args, self.rng, self.tok) for i in batch]
        ids, mask, labels = collate(rows, self.pad_id, self.device)
        with torch.set_grad_enabled(not args.freeze_encoder):
            enc = self.model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
        logits = teacher_forcing.logits(self.model, labels, self.fed, encoder_outputs=(enc,), attention_mask=mask)
        labels = teacher_forcing.ignore_unfed(labels, self.fed)
        loss = weighted_loss(logits, labels, self.weights, self.groups)
        if getattr(args, "consistency", 0.0) > 0:
            loss = loss + args.consistency * self.consistency(batch, rows, logits, labels)
        if self.teacher is not None:
            loss = loss + args.distill * self.distillation(batch, rows, logits)
        if args.aux_weight and not args.freeze_encoder:
            target, known = _aux_targets([self.train_items[i].example for i in batch], self.metrics,
                                         self.aux_stats, self.device, skip_tiers=self.extra_tasks)
            pooled = (enc * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)  # (B, D)
            err = (self.aux_head(pooled) - target) ** 2 * known
            loss = loss + args.aux_weight * err.sum() / known.sum().clamp(min=1)
        return loss

    def consistency(self, batch, rows, logits, labels):
        """Symmetric KL between a rewritten row's number distributions and its plain program's
        (the rows of `batch` that drew their rewrite; zero when none did)."""
        full = tuple(self.metrics)
        paired = [k for k, (i, (ids, _)) in enumerate(zip(batch, rows))
                  if (full, True) in self.train_items[i].variants and ids is self.train_items[i].variants[(full, True)]]
        if not paired:
            return logits.new_zeros(())
        plain = [(self.train_items[batch[k]].variants[(full, False)], rows[k][1]) for k in paired]
        ids, mask, plain_labels = collate(plain, self.pad_id, self.device)
        plain_logits = forward_logits(self.model, ids, mask, plain_labels, self.fed)
        plain_labels = teacher_forcing.ignore_unfed(plain_labels, self.fed)
        return symmetric_kl(logits[paired], plain_logits, plain_labels, self.weights, self.groups)

    def distillation(self, batch, rows, logits):
        """KL(teacher || model) on the rows of `batch` that drew their plain program with every
        metric (a rewrite or a metric subset has no real-name reading for the teacher)."""
        import torch

        full = tuple(self.metrics)
        plain = [k for k, (i, (ids, _)) in enumerate(zip(batch, rows))
                 if ids is self.train_items[i].variants.get((full, False)) and i in self.teacher_ids]
        if not plain:
            return logits.new_zeros(())
        ids, mask, labels = collate([(self.teacher_ids[batch[k]], rows[k][1]) for k in plain], self.pad_id, self.device)
        with torch.no_grad():
            teacher_logits = forward_logits(self.teacher, ids, mask, labels)  # the teacher reads its own P10
        labels = teacher_forcing.ignore_unfed(labels, self.fed)
        return distill_kl(logits[plain], teacher_logits, labels, self.weights, self.groups)

    def evaluate(self) -> Evaluation:
        res = evaluate_model(self.model, self.tok, self.val_items, self.metrics, self.weights, self.args,
                             self.device, self.grammars)
        line = (f"loss {res['val_loss']:.4f} "
                + " ".join(f"{m} rho {res['scores'][m]['spearman']:.3f}" for m in res["scores"]))
        record = {"val_loss": round(res["val_loss"], 4), "spearman_mean": round(res["spearman_mean"], 4),
                  "scores": res["scores"]}
        return Evaluation(key=(res["spearman_mean"], -res["val_loss"]), record=record, line=line, result=res,
                          validation={"val_loss": res["val_loss"], **res["scores"]})

    def save(self, path: Path, validation: dict | None, info: dict) -> None:
        if validation is not None:  # kept in the meta, so OUT/last says which best it follows too
            self.meta["validation"] = {"step": info["step"], **validation}
        save_checkpoint(self.model, self.tok, path, self.meta)

    def state_dict(self) -> dict:
        return {"aux_head": self.aux_head.state_dict(), "rng": self.rng.getstate()}

    def load_state_dict(self, state: dict) -> None:
        if "aux_head" in state:
            self.aux_head.load_state_dict(state["aux_head"])
        self.rng.setstate(state["rng"])

    def start_epoch(self, epoch: int, step: int) -> bool:
        """With --reload-data, add the rows measured since the last read (True: the validation set grew)."""
        args = self.args
        if not args.reload_data or time.time() - self.last_reload <= args.reload_every_min * 60:
            return False
        self.last_reload = time.time()
        n_train, n_val = _add_new_rows(args, self.tok, self.metrics, self.train_ex, self.train_items,
                                       self.val_ex, self.val_items, self.rng)
        self.meta["training_data"] = dataset.summary(self.train_ex + self.val_ex, self.val_ex)
        print(f"\nreloaded data: +{n_train} train, +{n_val} val rows -> "
              f"{len(self.train_items)} / {len(self.val_items)}", file=sys.stderr)
        return bool(n_val)


def main(argv: Sequence[str] | None = None) -> Path:
    args = parse_args(argv)
    import torch

    device = setup_device(args.device, args.threads)
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    known = dataset.METRICS
    given = [flag for flag, on in (("--curve-data", args.curve_data), ("--anchor-data", args.anchor_data),
                                   ("--v4-data", args.v4_data)) if on]
    if len(given) > 1:
        raise SystemExit(f"give one of {', '.join(given)}: each is a whole data set")
    if args.anchor_data:
        from training.learning import curve_rows

        known = curve_rows.METRICS
        if "{n}" in TEMPLATES[args.template]:
            raise SystemExit("--anchor-data rows are at one n0, never read n: it needs a template without {n} "
                             "(e.g. --template shaped)")
    elif args.curve_data:
        from training.learning import curve_rows

        known = curve_rows.METRICS
        if "{n}" not in TEMPLATES[args.template]:
            raise SystemExit("--curve-data trains each row at its n: it needs --template curves")
    elif args.v4_data:
        from training.judging import shaped_examples as v4_data

        known = v4_data.V4_METRICS
        if "{shape}" not in TEMPLATES[args.template]:
            raise SystemExit("--v4-data trains functions and scripts together: it needs --template shaped")
    growth_too = args.v4_data or args.curve_data or args.anchor_data
    metrics = (args.metrics or ",".join(m["name"] for m in known if growth_too or m in dataset.METRICS)).split(",")
    unknown = sorted(set(metrics) - {m["name"] for m in known})
    if unknown:
        raise SystemExit(f"unknown metric(s) {', '.join(unknown)}; known: {', '.join(m['name'] for m in known)}")
    meta_metrics = [m for m in known if m["name"] in metrics]
    if args.growth_digits is not None:
        meta_metrics = [dict(m, digits=args.growth_digits) if is_growth(m["name"]) else m for m in meta_metrics]
    metrics = [m["name"] for m in meta_metrics]  # the labels' order is the meta's
    args.metric_config = {m["name"]: m for m in meta_metrics}  # the labels' grammars (saved with the args)

    t_load = time.time()
    train_ex, val_ex = _load_data(args)
    resume = args.resume and (out / "last" / STATE_FILE).exists()
    if resume:
        model, tok, meta = load_checkpoint(out / "last")
        args.number_format = numbers.format_of(meta).name
    elif args.init_from:
        model, tok, prior = load_checkpoint(args.init_from)
        args.number_format = _init_format(numbers.format_of(prior), args.number_format)
        print(f"initialised from {args.init_from}", file=sys.stderr)
    else:
        args.number_format = args.number_format or numbers.P10.name
        tok = _tokenizer(args, train_ex)
        model = build_model(tok, args.size, dropout=args.dropout)
    if not number_format(args).feed_forced and args.subset_prob > 0:
        raise SystemExit("--number-format P10S trains every row on every metric: it needs --subset-prob 0")
    model.to(device)
    if args.freeze_encoder:
        for p in model.encoder.parameters():  # includes the shared token embeddings
            p.requires_grad_(False)
    train_items = encode_examples(tok, train_ex, metrics, args, train=True, rng=rng)
    val_items = encode_examples(tok, val_ex, metrics, args, train=False, rng=rng)
    if args.eval_max and len(val_items) > args.eval_max:
        val_items = random.Random(1).sample(val_items, args.eval_max)
    extra_tasks = aux_tiers(args)
    main_ex = [e for e in train_ex if e.tier not in extra_tasks]
    summary = dataset.summary(main_ex + val_ex, val_ex)
    if len(main_ex) < len(train_ex):
        summary["aux_tasks"] = {"tiers": sorted(extra_tasks), "examples": len(train_ex) - len(main_ex)}
    meta = default_meta(
        meta_metrics,
        max_input_tokens=args.max_input_tokens,
        preprocess=args.preprocess,
        training_data=summary,
        model_size=args.size,
        input_template=TEMPLATES[args.template],
        number_format=number_format(args).config(),
        train_args={k: v for k, v in vars(args).items() if k not in ("resume",)},
    )
    if "{n}" in TEMPLATES[args.template] or args.anchor_data:  # anchor rows: the numbers are for n0
        meta["reference_n"] = args.reference_n
    # the languages it read, Python first (the runtime's default language is the first listed)
    meta["languages"] = sorted({e.language for e in main_ex + val_ex}, key=lambda lang: (lang != "python", lang))
    n_params = sum(p.numel() for p in model.parameters())
    print(
        f"data: {len(train_ex)} train / {len(val_ex)} val rows "
        f"({summary['problems']} problems), vocab {tok.get_vocab_size()}, "
        f"model {args.size} {n_params / 1e6:.1f}M params on {device}, "
        f"load {time.time() - t_load:.0f}s",
        file=sys.stderr,
    )
    task = RlmTask(args, model, tok, meta, metrics, train_ex, val_ex, train_items, val_items, rng, device)
    steps_per_epoch = math.ceil(len(train_items) / args.batch_size)
    total = steps_per_epoch * args.epochs
    if args.max_steps:
        total = min(total, args.max_steps)
    loop = Loop(task, LoopConfig(
        out=out, lr=args.lr, weight_decay=args.weight_decay, betas=(0.9, 0.98), clip=args.clip,
        warmup=args.warmup, min_lr_ratio=args.min_lr_ratio, schedule_steps=total, size_to_budget=True,
        resize=args.resize, epochs=args.epochs, steps_per_epoch=steps_per_epoch, max_minutes=args.max_minutes,
        eval_every=args.eval_every, patience=args.patience, resume=resume, progress=not args.no_progress))
    model.train()
    best = loop.run()
    print(f"done: {loop.step} steps in {loop.spent / 60:.1f} min; best step {best['step']} "
          f"loss {best['val_loss']:.4f} spearman {best['spearman_mean']:.3f} -> {out / 'best'}",
          file=sys.stderr)
    return out / "best"


def train(argv: Sequence[str]) -> Path:
    return main(argv)


if __name__ == "__main__":
    main()
