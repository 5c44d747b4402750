"""The P10 number format: a float as six tokens, and the grammar of valid tokens.

One number is a sign, four mantissa digits and an exponent:

    <+> <1> <7> <2> <5> <E-1>   ==   +1.725 x 10^-1   ==   0.1725

The mantissa is read as d.ddd, so the exponent range E-10..E10 covers
1e-10 .. 9.999e10. Values outside the range are clipped to it; values too
small to show become zero. Several numbers (one per metric) are written one
after the other, six tokens each.

Pure Python: no numpy, no tensors. The decoder uses `allowed_at` to mask
its logits so that every output parses.
"""

from __future__ import annotations

import math
from typing import Sequence

MANTISSA_DIGITS = 4
EXP_MIN = -10
EXP_MAX = 10
TOKENS_PER_NUMBER = 2 + MANTISSA_DIGITS  # sign, digits, exponent

SIGN_TOKENS = ("<+>", "<->")
DIGIT_TOKENS = tuple(f"<{d}>" for d in range(10))
EXP_TOKENS = tuple(f"<E{e}>" for e in range(EXP_MIN, EXP_MAX + 1))
ALL_TOKENS = SIGN_TOKENS + DIGIT_TOKENS + EXP_TOKENS

MAX_VALUE = float(f"9.{'9' * (MANTISSA_DIGITS - 1)}e{EXP_MAX}")
MIN_POSITIVE = 10.0**EXP_MIN


def encode(value: float) -> list[str]:
    """Float -> six tokens, rounding the mantissa to four digits and clipping to the range."""
    if math.isnan(value):
        raise ValueError("cannot encode NaN")
    sign = "<->" if value < 0 or (value == 0 and math.copysign(1.0, value) < 0) else "<+>"
    magnitude = min(abs(value), MAX_VALUE)
    if magnitude < MIN_POSITIVE / 2:
        return [sign] + ["<0>"] * MANTISSA_DIGITS + [f"<E{0}>"]
    magnitude = max(magnitude, MIN_POSITIVE)
    exponent = math.floor(math.log10(magnitude))
    scale = 10 ** (MANTISSA_DIGITS - 1)
    mantissa = round(magnitude / 10.0**exponent * scale)
    if mantissa >= 10 * scale:  # 9.9996 rounds up to 10.000
        mantissa //= 10
        exponent += 1
    if exponent > EXP_MAX:
        exponent, mantissa = EXP_MAX, 10 * scale - 1
    digits = str(mantissa).rjust(MANTISSA_DIGITS, "0")
    return [sign] + [f"<{d}>" for d in digits] + [f"<E{exponent}>"]


def decode(tokens: Sequence[str]) -> float:
    """Six tokens -> float. Raises ValueError on anything the grammar forbids."""
    if len(tokens) != TOKENS_PER_NUMBER:
        raise ValueError(f"expected {TOKENS_PER_NUMBER} tokens, got {len(tokens)}")
    for position, token in enumerate(tokens):
        if token not in allowed_at(position):
            raise ValueError(f"token {token!r} is not valid at position {position}")
    sign = -1.0 if tokens[0] == "<->" else 1.0
    mantissa = int("".join(t[1] for t in tokens[1:-1]))
    exponent = int(tokens[-1][2:-1])
    return sign * float(f"{mantissa}e{exponent - (MANTISSA_DIGITS - 1)}")


def allowed_at(position: int) -> tuple[str, ...]:
    """The tokens valid at `position` within one number (positions repeat per number)."""
    position %= TOKENS_PER_NUMBER
    if position == 0:
        return SIGN_TOKENS
    if position <= MANTISSA_DIGITS:
        return DIGIT_TOKENS
    return EXP_TOKENS


def encode_many(values: Sequence[float]) -> list[str]:
    return [token for value in values for token in encode(value)]


def decode_many(tokens: Sequence[str]) -> list[float]:
    if len(tokens) % TOKENS_PER_NUMBER:
        raise ValueError(f"token count {len(tokens)} is not a multiple of {TOKENS_PER_NUMBER}")
    return [
        decode(tokens[i : i + TOKENS_PER_NUMBER]) for i in range(0, len(tokens), TOKENS_PER_NUMBER)
    ]
