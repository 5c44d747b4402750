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
With `feed_forced` false (a P10S model, `numbers.NumberFormat.feed_forced`), a forced token is never
fed: it is put in its place in the output and the decoder reads only the tokens it chose.

Greedy picks the best allowed token. Sampling draws from the softmax over the
allowed tokens (temperature 1 by default), with uniforms supplied per row so
a row's result does not depend on what else is in the batch.

`observe(position, logits)` sees the tempered logits (B, A) over `allowed[position]` that each
position was chosen from (their softmax is its distribution): `ExponentSmoother` reads the
exponent's there to take its expectation (`predictor.point_estimate` "log_mean_rb").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from rlm_lsp.runtime import numbers

StepFn = Callable[[np.ndarray], np.ndarray]  # (B, T) int64 -> (B, V) float, logits after the last of T
Observer = Callable[[int, np.ndarray], None]  # (position, (B, A) tempered logits over its allowed ids)


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
    observe: Observer | None = None,
    feed_forced: bool = True,
) -> np.ndarray:
    """Returns the chosen token ids, shape (B, P): every position's, the forced ones too."""
    temps = [float(t) for t in temperature] if isinstance(temperature, Sequence) else [float(temperature)] * len(allowed)
    fed = start_ids.astype(np.int64)[:, None]  # (B, 1)
    chosen: list[np.ndarray] = []
    pos = 0
    while pos < len(allowed):
        if not feed_forced and len(allowed[pos]) == 1:  # in the output, never fed
            chosen.append(np.full(len(start_ids), allowed[pos][0], dtype=np.int64))
            pos += 1
            continue
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
        tempered = logits / temps[pos]
        if observe is not None:
            observe(pos, tempered)
        if uniforms is None:
            pick = logits.argmax(axis=-1)
        else:
            pick = _sample(tempered, uniforms[:, pos])
        tokens = ids[pick]  # (B,)
        chosen.append(tokens)
        fed = tokens[:, None]
        pos += 1
    return np.stack(chosen, axis=1)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (B, A) logits."""
    probs = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return probs / probs.sum(axis=-1, keepdims=True)


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


# 10^0 .. 10^13 as exact floats: a value's power of ten is its exponent minus 3, |power| <= 13
_POWERS_OF_TEN = np.array([float(10**k) for k in range(numbers.EXP_MAX + numbers.MANTISSA_DIGITS)], dtype=np.float64)
DIGITS = {t: int(t[1]) for t in numbers.DIGIT_TOKENS}  # <7> -> 7
EXPONENTS = {t: int(t[2:-1]) for t in numbers.EXP_TOKENS}  # <E-3> -> -3


def token_table(number_tokens: dict[str, int], values: dict[str, int]) -> np.ndarray:
    """An int64 array indexed by token id: `values[token]` at each of `values`' tokens' ids
    (`number_tokens`: token -> id), 0 elsewhere. Looks up a whole (rows, P) array of ids at once."""
    table = np.zeros(max(number_tokens.values()) + 1, dtype=np.int64)
    for token, value in values.items():
        table[number_tokens[token]] = value
    return table


class NumberReader:
    """Decoded token ids -> values, all rows at once: `numbers.NumberFormat.decode_metrics` on
    arrays. Each value is the same float that function gives: sign x (d.ddd as the integer dddd)
    x 10^(e - 3), one correctly rounded multiplication or division by an exact power of ten, as
    Python rounds the decimal string. Ids must be ones constrained decoding picked (`allowed_ids`);
    they are not validated again.

        values = NumberReader(number_tokens, grammars, number_format).read(tokens)   # (rows, metrics)
    """

    def __init__(self, number_tokens: dict[str, int], grammars: Sequence[numbers.Grammar],
                 number_format: numbers.NumberFormat = numbers.P10):
        self._digit = token_table(number_tokens, DIGITS)
        self._exponent = token_table(number_tokens, EXPONENTS)
        self._negative = token_table(number_tokens, {"<->": 1}).astype(bool)
        self._offsets = np.array([g.offset for g in grammars], dtype=np.float64)
        width = numbers.TOKENS_PER_NUMBER
        exponent = number_format.exponent_position
        digits = [p for p in range(1, width) if p != exponent]
        self._places = 10 ** np.arange(len(digits) - 1, -1, -1)  # d, d, d, d -> dddd
        self._columns = [(j * width, [j * width + p for p in digits], j * width + exponent) for j in range(len(grammars))]

    def read(self, tokens: np.ndarray) -> np.ndarray:
        """(rows, P) token ids -> (rows, metrics) float64 values (a shifted metric's offset taken off)."""
        out = np.empty((tokens.shape[0], len(self._columns)), dtype=np.float64)
        for j, (sign, digits, exponent) in enumerate(self._columns):
            mantissa = self._digit[tokens[:, digits]] @ self._places  # dddd
            power = self._exponent[tokens[:, exponent]] - (numbers.MANTISSA_DIGITS - 1)
            scale = _POWERS_OF_TEN[np.abs(power)]  # exact, from Python's own floats (not numpy's pow)
            value = np.where(power >= 0, mantissa * scale, mantissa / scale)
            out[:, j] = np.where(self._negative[tokens[:, sign]], -value, value) - self._offsets[j]
        return out


class ExponentSmoother:
    """Each sampled number with its exponent replaced by the exponent's expectation under the
    distribution it was drawn from: sign x d.ddd x 10^E[e]. With the exponent last (P10) that is
    E[e | the sample's sign and digits]; first (P10E), E[e]. Either way the mean of the smoothed
    log values estimates what the samples' own mean does, with the decade's sampling noise taken
    out (Rao-Blackwell): the point estimate "log_mean_rb". Only metrics whose grammar lets the
    decoder choose the exponent are smoothed; the others keep their values.

        observe, expected = smoother.observer()
        tokens = constrained_decode(..., observe=observe)
        smooth = smoother.smooth(values, tokens, expected)     # (rows, metrics), like values
    """

    def __init__(self, allowed: Sequence[np.ndarray], id_to_token: dict[int, str],
                 grammars: Sequence[numbers.Grammar], number_format: numbers.NumberFormat = numbers.P10):
        self.grammars = list(grammars)
        self._exponent_of = token_table({t: int(i) for i, t in id_to_token.items()}, EXPONENTS)
        self.positions: dict[int, tuple[int, np.ndarray]] = {}  # position -> (metric, exponent per allowed id)
        for j in range(len(self.grammars)):
            pos = j * numbers.TOKENS_PER_NUMBER + number_format.exponent_position
            if pos < len(allowed) and len(allowed[pos]) > 1:
                exps = self._exponent_of[allowed[pos]].astype(np.float64)
                self.positions[pos] = (j, exps)

    def observer(self) -> tuple[Observer, dict[int, np.ndarray]]:
        """A `constrained_decode(observe=...)` callback and the dict it fills: {exponent position:
        (rows,) the expected exponent}."""
        expected: dict[int, np.ndarray] = {}

        def observe(pos: int, logits: np.ndarray) -> None:
            if pos in self.positions:
                expected[pos] = softmax(logits) @ self.positions[pos][1]

        return observe, expected

    def smooth(self, values: np.ndarray, tokens: np.ndarray, expected: dict[int, np.ndarray]) -> np.ndarray:
        """(rows, metrics) decoded values and their (rows, P) tokens -> the smoothed values."""
        smooth = np.array(values, dtype=np.float64, copy=True)
        for pos, (j, _) in self.positions.items():
            if pos not in expected:
                continue
            drawn = self._exponent_of[tokens[:, pos]].astype(np.float64)
            offset = self.grammars[j].offset
            smooth[:, j] = (smooth[:, j] + offset) * 10.0 ** (expected[pos] - drawn) - offset
        return smooth
