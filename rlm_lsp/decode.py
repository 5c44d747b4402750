"""Constrained decoding of P10 numbers (either token order, see `numbers.NumberFormat`).

The loop knows nothing about ONNX: it takes a `step` function that maps the
last chosen token of each row, shape (B, 1), to next-token logits, shape
(B, V), and keeps its own KV cache. At each position only the tokens the
number grammar allows can be chosen, so every output parses.

With `merge_forced_start`, the tokens forced at the first positions (the <+> sign of a
nonnegative first metric) are fed together with the start token, shape (B, 1 + F), in the first
step: their logits would be thrown away, so the step that computes them is saved. With
`merge_forced_later` too, a forced token later on (the <+> of a later nonnegative metric) is fed
with the token before it, the last of the previous number: one step fewer again.

Greedy picks the best allowed token. Sampling draws from the softmax over the
allowed tokens (temperature 1 by default), with uniforms supplied per row so
a row's result does not depend on what else is in the batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rlm_lsp import numbers

StepFn = Callable[[np.ndarray], np.ndarray]  # (B, T) int64 -> (B, V) float, logits after the last of T


def allowed_ids(number_tokens: dict[str, int], grammars: Sequence[numbers.Grammar],
                number_format: numbers.NumberFormat = numbers.P10) -> list[np.ndarray]:
    """The allowed token ids at each decoding position: six per number, one number per metric, each
    by its metric's grammar (a nonnegative metric only <+>, a fixed-point one only <E0>)."""
    return [np.array([number_tokens[t] for t in number_format.allowed_at(pos, grammar)], dtype=np.int64)
            for grammar in grammars for pos in range(numbers.TOKENS_PER_NUMBER)]


def constrained_decode(
    step: StepFn,
    start_ids: np.ndarray,  # (B,)
    allowed: Sequence[np.ndarray],  # per position: (A,)
    uniforms: np.ndarray | None = None,  # (B, P) in [0, 1): sample; None: greedy
    temperature: float | Sequence[float] = 1.0,  # one, or one per position (a metric's own)
    merge_forced_start: bool = False,
    merge_forced_later: bool = False,
) -> np.ndarray:
    """Returns the chosen token ids, shape (B, P)."""
    temps = [float(t) for t in temperature] if isinstance(temperature, Sequence) else [float(temperature)] * len(allowed)
    fed = start_ids.astype(np.int64)[:, None]  # (B, 1)
    chosen: list[np.ndarray] = []
    pos = 0
    while pos < len(allowed):
        merge = merge_forced_later if chosen else merge_forced_start
        while merge and pos < len(allowed) - 1 and len(allowed[pos]) == 1:
            forced = np.full(len(start_ids), allowed[pos][0], dtype=np.int64)
            chosen.append(forced)
            fed = np.concatenate([fed, forced[:, None]], axis=1)  # (B, 1 + F)
            pos += 1
        ids = allowed[pos]
        if len(ids) == 1 and pos == len(allowed) - 1:  # a forced last token (a fixed point's <E0>) needs no step
            chosen.append(np.full(len(start_ids), ids[0], dtype=np.int64))
            break
        logits = step(fed)[:, ids].astype(np.float64)  # (B, A)
        if uniforms is None:
            pick = logits.argmax(axis=-1)
        else:
            pick = _sample(logits / temps[pos], uniforms[:, pos])
        tokens = ids[pick]  # (B,)
        chosen.append(tokens)
        fed = tokens[:, None]
        pos += 1
    return np.stack(chosen, axis=1)


def _sample(logits: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Inverse-CDF draw from softmax(logits) per row; u has shape (B,)."""
    logits = logits - logits.max(axis=-1, keepdims=True)
    probs = np.exp(logits)
    cdf = np.cumsum(probs, axis=-1)  # (B, A)
    cdf /= cdf[:, -1:]
    pick = (cdf < u[:, None]).sum(axis=-1)
    return np.minimum(pick, logits.shape[-1] - 1)


def stratified_uniforms(seed: int, n: int, positions: int, key: str | None = None) -> np.ndarray:
    """(n, positions) uniforms for one input's n samples, stratified per decoding position.

    Latin hypercube: at each position the n uniforms fall one in each of the n equal slices of
    [0, 1), in a random order. Each sample is still an exact draw from the model, but together they
    cover its distribution evenly, so the median and the p10-p90 of 16 samples are as steady as
    those of about 48 independent ones (measured: docs/model-card.md). `key` None: the draws every
    input shares (common random numbers); else a hex digest that seeds the input's own draws."""
    rng = np.random.default_rng([seed, 0x6A7E] if key is None else [seed, int(key[:16], 16)])
    slices = np.stack([rng.permutation(n) for _ in range(positions)], axis=1)  # (n, positions)
    return (slices + rng.random((n, positions))) / n
