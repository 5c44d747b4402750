"""Build the RLM: a code tokenizer that carries the number tokens, and a T5 encoder-decoder.

A checkpoint directory, as written by `save_checkpoint`, is what `rlm-export` reads:

    config.json, model.safetensors, generation_config.json   (Hugging Face T5)
    tokenizer.json                                           (tokenizers BPE + number tokens)
    rlm_meta.json                                            (metrics, template, max tokens, data summary)
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

from rlm_lsp.runtime import numbers
from rlm_lsp.runtime.template import DEFAULT_TEMPLATE

PAD, EOS, UNK = "<pad>", "</s>", "<unk>"
SPECIAL_TOKENS = [PAD, EOS, UNK, "<metrics>", "<lang>", "<code>", *numbers.ALL_TOKENS]

SIZES = {
    # name: (d_model, d_ff, encoder layers, decoder layers, heads, d_kv)
    "tiny": (32, 64, 1, 1, 2, 16),
    "small": (256, 1024, 3, 2, 4, 64),
    "small6": (256, 1024, 6, 2, 4, 64),  # a 6-layer encoder; int8 still ships under 40 MB
    "base": (384, 1536, 4, 2, 6, 64),
}


def train_tokenizer(texts: Iterable[str], vocab_size: int = 8000, extra_special: Sequence[str] = ()) -> Tokenizer:
    """Byte-level BPE over code; special and number tokens get fixed low ids (pad=0, eos=1).
    `extra_special` tokens (e.g. the Triton model's work-size tokens) come right after them."""
    tok = Tokenizer(models.BPE(unk_token=UNK))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=SPECIAL_TOKENS + list(extra_special),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        min_frequency=2,
        show_progress=False,
    )
    tok.train_from_iterator(texts, trainer=trainer)
    tok.post_processor = processors.TemplateProcessing(
        single=f"$A {EOS}", special_tokens=[(EOS, tok.token_to_id(EOS))]
    )
    return tok


def number_token_ids(tok: Tokenizer) -> dict[str, int]:
    ids = {t: tok.token_to_id(t) for t in numbers.ALL_TOKENS}
    missing = [t for t, i in ids.items() if i is None]
    if missing:
        raise ValueError(f"tokenizer lacks number tokens: {missing[:5]}")
    return ids


def build_model(tok: Tokenizer, size: str | tuple = "small", dropout: float = 0.1):
    """A fresh T5; `size` is a SIZES name or a (d_model, d_ff, enc, dec, heads, d_kv) tuple."""
    from transformers import T5Config, T5ForConditionalGeneration

    d_model, d_ff, enc, dec, heads, d_kv = SIZES[size] if isinstance(size, str) else size
    config = T5Config(
        vocab_size=tok.get_vocab_size(),
        d_model=d_model,
        d_ff=d_ff,
        d_kv=d_kv,
        num_layers=enc,
        num_decoder_layers=dec,
        num_heads=heads,
        dropout_rate=dropout,
        feed_forward_proj="gated-gelu",
        tie_word_embeddings=False,
        pad_token_id=tok.token_to_id(PAD),
        eos_token_id=tok.token_to_id(EOS),
        decoder_start_token_id=tok.token_to_id(PAD),
    )
    config.tie_word_embeddings = False  # transformers 5 forces True in T5Config; we keep 4.x's untied head
    model = T5ForConditionalGeneration(config)
    if model.encoder.embed_tokens is not model.shared:  # transformers 5 then unties the inputs too
        model.encoder.embed_tokens = model.decoder.embed_tokens = model.shared
    # T5 initialises an untied lm_head with std 1, which gives logits of std ~sqrt(d_model)
    # and a first loss far above log(vocab); scale it like the tied head would be.
    model.lm_head.weight.data.mul_(d_model**-0.5)
    return model


def number_groups(tok, device, number_format: numbers.NumberFormat = numbers.P10):
    """Per position in a P10 block: the token ids allowed there (what constrained decoding picks from)."""
    import torch

    return [
        torch.tensor([tok.token_to_id(t) for t in number_format.allowed_at(p)], device=device)
        for p in range(numbers.TOKENS_PER_NUMBER)
    ]


def target_ids(tok: Tokenizer, values: Sequence[float | None],
               number_format: numbers.NumberFormat = numbers.P10,
               grammars: Sequence[numbers.Grammar] = ()) -> list[int]:
    """Decoder labels: one P10 block per metric, by its grammar (default: not fixed point); a
    missing metric is -100 (ignored by the loss)."""
    ids = number_token_ids(tok)
    grammars = list(grammars) + [numbers.Grammar()] * (len(values) - len(grammars))
    out: list[int] = []
    for value, grammar in zip(values, grammars):
        if value is None:
            out.extend([-100] * numbers.TOKENS_PER_NUMBER)
        else:
            out.extend(ids[t] for t in number_format.encode(value, grammar))
    return out


def default_meta(metrics: Sequence[dict], max_input_tokens: int = 512, **extra) -> dict:
    return {
        "metrics": list(metrics),
        "input_template": DEFAULT_TEMPLATE,
        "max_input_tokens": max_input_tokens,
        "languages": ["python"],
        "preprocess": "none",
        **extra,
    }


def save_checkpoint(model, tok: Tokenizer, out_dir: str | Path, meta: dict) -> Path:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    save_fast_tokenizer(tok, out)
    tok.save(str(out / "tokenizer.json"))  # the raw tokenizers file, as the runtime reads it
    (out / "rlm_meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    return out


def save_fast_tokenizer(tok: Tokenizer, out_dir: str | Path) -> None:
    """The transformers view of the same tokenizer (tokenizer_config.json etc.): optimum needs it."""
    from transformers import PreTrainedTokenizerFast

    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        model_input_names=["input_ids", "attention_mask"],
        pad_token=PAD,
        eos_token=EOS,
        unk_token=UNK,
    )
    fast.save_pretrained(str(out_dir))


def load_checkpoint(path: str | Path):
    from transformers import T5ForConditionalGeneration

    path = Path(path)
    tok = Tokenizer.from_file(str(path / "tokenizer.json"))
    meta = json.loads((path / "rlm_meta.json").read_text())
    model = T5ForConditionalGeneration.from_pretrained(path)
    return model, tok, meta
