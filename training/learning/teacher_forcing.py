"""Teacher forcing in every number format: the decoder's logits at each number position of the labels.

    P10, P10E   the decoder is fed every label, shifted right (the start token first)
    P10S        it is fed only the positions it chooses (`fed_positions`: more than one token allowed);
                the tokens a metric's grammar forces are never written for it, as at decode time
                (`rlm_lsp.runtime.decode.constrained_decode(feed_forced=False)`)

Either way the logits come back at every position, (B, P, V), so every per-position loss
(`train.weighted_loss`, the KL terms) reads them by position within the six-token block as before; in
P10S the forced positions' logits are zeros and `ignore_unfed` takes their labels out of the losses.
"""

from __future__ import annotations

from collections.abc import Sequence

from rlm_lsp.runtime import numbers


def fed_positions(grammars: Sequence[numbers.Grammar], number_format: numbers.NumberFormat) -> list[bool] | None:
    """Per decoding position of one row with every metric, whether the decoder is fed its label;
    None where every position is (P10, P10E)."""
    if number_format.feed_forced:
        return None
    return [len(number_format.allowed_at(p, g)) > 1 for g in grammars for p in range(numbers.TOKENS_PER_NUMBER)]


def _keep(labels, fed: Sequence[bool]):
    import torch

    if labels.shape[1] != len(fed):
        raise ValueError(f"P10S: labels of {labels.shape[1]} positions, the model's metrics have {len(fed)}: "
                         "every row must carry every metric (no --subset-prob)")
    return torch.tensor(list(fed), dtype=torch.bool, device=labels.device)


def logits(model, labels, fed: Sequence[bool] | None = None, **inputs):
    """(B, P, V) teacher-forced logits of `model` at each position of `labels` (B, P); `inputs` are
    the encoder's (`input_ids` and `attention_mask`, or `encoder_outputs` and `attention_mask`)."""
    if fed is None:
        return model(decoder_input_ids=model._shift_right(labels), **inputs).logits  # start + labels[:-1]; -100 -> pad
    keep = _keep(labels, fed)
    out = model(decoder_input_ids=model._shift_right(labels[:, keep]), **inputs).logits  # (B, fed, V)
    full = out.new_zeros((labels.shape[0], labels.shape[1], out.shape[-1]))
    full[:, keep] = out
    return full


def ignore_unfed(labels, fed: Sequence[bool] | None):
    """`labels` with the positions the decoder is not fed set to -100 (ignored by every loss)."""
    return labels if fed is None else labels.masked_fill(~_keep(labels, fed)[None, :], -100)
