"""The Python model's data stage: measured rows -> examples -> token ids and labels -> batches.

`training.learning.train` (the task on `training.learning.loop`) reads its inputs through these: `_load_data`
(examples split by problem), `_tokenizer`, `encode_examples` (every variant of an example: the
metric subsets, the augmented and neutral rewrites, cut as the recipe cuts them), `pick_variant`
and `jitter` (what one step sees), `make_batches` and `collate` (tensors), and the auxiliary
regression head's targets (`_log_stats`, `_aux_targets`).
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from rlm_lsp.python import preprocess
from rlm_lsp.runtime import numbers
from rlm_lsp.runtime.prediction import is_growth
from rlm_lsp.runtime.predictor import ELISION, head_and_tail
from rlm_lsp.runtime.template import CENSUS_TEMPLATE, CURVE_TEMPLATE, DEFAULT_TEMPLATE, SIZED_TEMPLATE, render
from training.judging.evaluate import truncate
from training.learning import augment, dataset
from training.learning.rlm_model import target_ids, train_tokenizer

# "shaped" (model v4) also names what is predicted: a function call, a script on stdin or a script
TEMPLATES = {"plain": DEFAULT_TEMPLATE, "sized": SIZED_TEMPLATE, "census": CENSUS_TEMPLATE,
             "shaped": SIZED_TEMPLATE.replace(" size {size}", " <shape> {shape} size {size}"),
             "curves": CURVE_TEMPLATE}  # states n, the size the numbers are for (--curve-data)


# --- data -> tensors ---------------------------------------------------------------------------


class Encoded:
    """Token ids of every variant of one example (metric subset x plain/augmented) + labels."""

    def __init__(self, example: dataset.Example, variants: dict[tuple, list[int]], labels: dict):
        self.example = example
        self.variants = variants  # (metrics tuple, augmented) -> input ids
        self.labels = labels  # metrics tuple -> label ids

    def length(self) -> int:
        return max(len(v) for v in self.variants.values())


def encode_examples(tok, examples, metrics, args, train: bool, rng: random.Random) -> list[Encoded]:
    subsets = [tuple(metrics)]
    if train and args.subset_prob > 0 and len(metrics) > 1:
        subsets += [(m,) for m in metrics]
    texts, keys = [], []
    extra_tasks = aux_tiers(args)
    for i, ex in enumerate(examples):
        code = preprocess.apply(args.preprocess, ex.code)
        codes = {False: code}
        if train and args.augment > 0 and ex.language == "python":  # the rewrites are Python's
            aug = augment.rewrite(code, rng, p_driver=getattr(args, "driver_prob", 0.6))
            if getattr(args, "neutral", 0) > 0:
                if rng.random() < args.neutral:
                    aug = augment.neutral(aug, rng)
                aug = preprocess.apply(args.preprocess, aug)  # canonical names again after the rewrite
            if aug != code:
                codes[True] = aug
        for subset in subsets:
            named = subset if ex.tier not in extra_tasks else [f"{m}@{ex.tier}" for m in subset]
            for aug_flag, c in codes.items():
                texts.append(render_example(TEMPLATES[args.template], named, ex, c))
                keys.append((i, subset, aug_flag))
    encs = tok.encode_batch(texts)
    # Training rows keep their start (the recipe the shipped models were trained with); validation
    # rows are read as the runtime reads a too-long input, by head and tail, so the checkpoint is
    # chosen on what the editor and the gate will feed it.
    marker = tok.encode(ELISION, add_special_tokens=False).ids
    variants: list[dict] = [{} for _ in examples]
    for (i, subset, aug_flag), enc in zip(keys, encs):
        variants[i][(subset, aug_flag)] = (truncate(enc.ids, args.max_input_tokens, tok) if train
                                           else head_and_tail(enc.ids, args.max_input_tokens, marker))
    out = []
    for i, ex in enumerate(examples):
        labels = {s: target_ids(tok, [ex.values.get(m) for m in s], number_format(args), grammars(args, s))
                  for s in subsets}
        out.append(Encoded(ex, variants[i], labels))
    return out


def render_example(template: str, metrics, ex: dataset.Example, code: str) -> str:
    """The input text a model with `template` reads for `ex`, its code already preprocessed (a
    curve row's n, `extra["n"]`, where the template reads {n})."""
    sized = {"n": ex.extra["n"]} if "n" in ex.extra else {}
    return render(template, metrics, ex.language, code, shape=ex.extra.get("shape", "function"), **sized)


def aux_tiers(args) -> set[str]:
    """Tiers trained as extra tasks (--aux-tiers), never validated on."""
    return {t for t in (getattr(args, "aux_tiers", "") or "").split(",") if t}


def pick_variant(item: Encoded, metrics, args, rng: random.Random, tok=None):
    subset = tuple(metrics)
    if len(item.labels) > 1 and rng.random() < args.subset_prob:
        subset = rng.choice([s for s in item.labels if len(s) == 1])
    aug = (subset, True) in item.variants and rng.random() < args.augment
    labels = item.labels[subset]
    if all(t == -100 for t in labels):
        subset, aug = tuple(metrics), False
        labels = item.labels[subset]
    if tok is not None and args.label_jitter > 0:
        labels = target_ids(tok, [jitter(item.example.values.get(m), args.label_jitter, rng) for m in subset],
                            number_format(args), grammars(args, subset))
    return item.variants[(subset, aug)], labels


def jitter(value: float | None, width: float, rng: random.Random) -> float | None:
    """The value times 10^u, u uniform in [-width, width] (log10 units), drawn afresh each time.

    Measured values carry their instrument's grain in the trailing mantissa digits (bytes in
    multiples of 8, latency in whole microseconds), and the grain differs with magnitude. The
    mantissa is decoded before the exponent, so without jitter the decoder learns to read the
    exponent off those digits instead of off the code: a shortcut that teacher forcing rewards
    and decoding cannot use. A few per cent of jitter erases the grain; it is below the
    measurement noise of latency and changes no ranking that matters."""
    if not value:
        return value
    return value * 10 ** rng.uniform(-width, width)


def make_batches(items: list[Encoded], batch_size: int, rng: random.Random, shuffle=True):
    """Length-bucketed batches: sort within pools of 50 batches, then shuffle the batches."""
    order = list(range(len(items)))
    if shuffle:
        rng.shuffle(order)
    pool = batch_size * 50
    batches = []
    for s in range(0, len(order), pool):
        chunk = sorted(order[s : s + pool], key=lambda i: items[i].length())
        batches += [chunk[j : j + batch_size] for j in range(0, len(chunk), batch_size)]
    if shuffle:
        rng.shuffle(batches)
    return batches


def collate(rows, pad_id: int, device):
    import torch

    width = max(len(ids) for ids, _ in rows)
    n_lab = max(len(lab) for _, lab in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    labels = torch.full((len(rows), n_lab), -100, dtype=torch.long)
    for i, (x, lab) in enumerate(rows):
        ids[i, : len(x)] = torch.tensor(x)
        mask[i, : len(x)] = 1
        labels[i, : len(lab)] = torch.tensor(lab)
    return ids.to(device), mask.to(device), labels.to(device)


def number_format(args) -> numbers.NumberFormat:
    """The run's number format (`--number-format`; P10 where none is set yet)."""
    return numbers.FORMATS[getattr(args, "number_format", None) or numbers.P10.name]


def grammars(args, metrics) -> list[numbers.Grammar]:
    """Per metric, the grammar of its labels, from its meta entry (`args.metric_config`, set by
    train.main; a metric it does not name is nonnegative, not fixed point)."""
    known = getattr(args, "metric_config", None) or {}
    return [numbers.Grammar.of(known.get(m, {})) for m in metrics]


def _aux_scale(metric: str, value: float) -> float:
    """What the auxiliary head regresses: log10 of a cost; a growth exponent as it is."""
    return value if is_growth(metric) else math.log10(max(value, 1e-9))


def _log_stats(examples, metrics) -> dict[str, tuple[float, float]]:
    out = {}
    for m in metrics:
        logs = [_aux_scale(m, e.values[m]) for e in examples if e.values.get(m) is not None]
        mu = sum(logs) / max(len(logs), 1)
        sd = math.sqrt(sum((x - mu) ** 2 for x in logs) / max(len(logs), 1)) or 1.0
        out[m] = (mu, sd)
    return out


def _aux_targets(examples, metrics, stats, device, skip_tiers=frozenset()):
    """The regression head reads the main tier's values only (rows of `skip_tiers` stay unknown)."""
    import torch

    target = torch.zeros((len(examples), len(metrics)), device=device)
    known = torch.zeros_like(target)
    for i, e in enumerate(examples):
        if e.tier in skip_tiers:
            continue
        for k, m in enumerate(metrics):
            v = e.values.get(m)
            if v is not None:
                mu, sd = stats[m]
                target[i, k] = (_aux_scale(m, v) - mu) / sd
                known[i, k] = 1.0
    return target, known


def _load_data(args):
    if args.synthetic:
        examples = dataset.synthetic_examples(args.synthetic, seed=args.seed)
    elif getattr(args, "anchor_data", None):
        from training.learning import curve_rows
        examples = curve_rows.load_anchor_examples(args.anchor_data, args.corpus, n0=args.reference_n)
    elif getattr(args, "curve_data", None):
        from training.learning import curve_rows
        examples = curve_rows.load_curve_examples(args.curve_data, args.corpus)
    elif getattr(args, "v4_data", False):
        from training.judging import shaped_examples as v4_data
        examples = v4_data.load_v4_examples(leetcode_corpus=args.corpus)
    else:
        if args.corpus not in _CORPUS_CACHE:
            _CORPUS_CACHE[args.corpus] = dataset.load_corpus(args.corpus)
        examples = dataset.load_examples(args.data, _CORPUS_CACHE[args.corpus],
                                         tiers=args.tiers.split(","))
    if getattr(args, "polyglot_data", None):
        from training.learning import polyglot_data

        try:
            examples = examples + polyglot_data.load_examples(
                args.polyglot_data, args.polyglot_languages.split(","), args.corpus,
                texts=getattr(args, "polyglot_texts", None))
        except ValueError as e:
            raise SystemExit(f"polyglot data: {e}") from None
    train, val = dataset.split_by_problem(examples, args.val_fraction)
    repeat = getattr(args, "polyglot_repeat", 1)
    if repeat > 1:  # the same Example again: its encoded variants are drawn afresh per copy
        train += [e for e in train if e.language != "python" for _ in range(repeat - 1)]
    if getattr(args, "variants", False):
        from training.judging import shaped_examples as v4_data
        train += v4_data.variant_examples(train)  # of training programs only: validation stays as it was
    if aux_tiers(args) and not args.synthetic:
        extra = dataset.load_examples(args.data, _CORPUS_CACHE[args.corpus], tiers=sorted(aux_tiers(args)))
        train += dataset.split_by_problem(extra, args.val_fraction)[0]  # validation problems stay unseen
    if not train:
        raise SystemExit(f"no training examples (data={args.data}, tiers={args.tiers})")
    if not val:  # tiny data: still validate on something rather than nothing
        val = train[: max(1, len(train) // 10)]
    return train, val


_CORPUS_CACHE: dict[str, dict] = {}


def _add_new_rows(args, tok, metrics, train_ex, train_items, val_ex, val_items, rng) -> tuple[int, int]:
    """Append rows measured since the last read to the lists in place; returns (train, val) added."""
    if args.corpus not in _CORPUS_CACHE:
        _CORPUS_CACHE[args.corpus] = dataset.load_corpus(args.corpus)
    examples = dataset.load_examples(args.data, _CORPUS_CACHE[args.corpus], tiers=args.tiers.split(","))
    train_now, val_now = dataset.split_by_problem(examples, args.val_fraction)
    known = {e.key for e in train_ex} | {e.key for e in val_ex}
    new_train = [e for e in train_now if e.key not in known]
    new_val = [e for e in val_now if e.key not in known]
    train_ex.extend(new_train)
    train_items.extend(encode_examples(tok, new_train, metrics, args, train=True, rng=rng))
    val_ex.extend(new_val)
    if args.eval_max and len(val_items) + len(new_val) > args.eval_max:
        new_val = new_val[: max(0, args.eval_max - len(val_items))]
    val_items.extend(encode_examples(tok, new_val, metrics, args, train=False, rng=rng))
    return len(new_train), len(new_val)


def _tokenizer(args, train_examples):
    from tokenizers import Tokenizer

    if args.tokenizer:
        return Tokenizer.from_file(args.tokenizer)
    if args.tokenizer_texts == "corpus" and not args.synthetic and Path(args.corpus).exists():
        texts = dataset.corpus_texts(args.corpus)
    else:
        texts = [e.code for e in train_examples]
    texts = [preprocess.apply(args.preprocess, t) for t in texts]
    return train_tokenizer(texts, vocab_size=args.vocab_size)
