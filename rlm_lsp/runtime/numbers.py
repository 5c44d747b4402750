"""The P10 number format: a float as six tokens, and the grammar of valid tokens.

One number is a sign, four mantissa digits and an exponent:

    <+> <1> <7> <2> <5> <E-1>   ==   +1.725 x 10^-1   ==   0.1725

The mantissa is read as d.ddd, so the exponent range E-10..E10 covers
1e-10 .. 9.999e10. Values outside the range are clipped to it; values too
small to show become zero. Several numbers (one per metric) are written one
after the other, six tokens each.

The same tokens may also be written exponent first (`P10E`, a model's
`number_format.exponent_first`):

    <+> <E-1> <1> <7> <2> <5>

Then the decoder picks the order of magnitude before the digits, coarse to fine,
instead of guessing a first digit before it has said which decade it means.

Each metric has its own `Grammar`, from its rlm_config entry. A *nonnegative* metric (bytes,
milliseconds; the default) may only take the sign `<+>`. A metric's number is *normalized*: its
first digit is 1-9, as every encoded value's is (the format writes a zero as `<0><0><0><0>`; a
metric clips it to 10^-10 instead), so a decoder can never sample a latency of exactly 0 ms. A
*fixed-point* metric (`fixed_point`: a growth exponent) always has the exponent `<E0>`, so the number
is a sign and d.ddd, three decimals within ±9.999, and its first digit is the integer part (0 allowed):

    <+> <1> <9> <5> <0> <E0>   ==   +1.950

so the decoder cannot wander off to 10^7 for a slope that lies between -1 and 3.

A metric may also be written *shifted* (`offset` and `exponent`): the number is value + offset, a
normalized P10 number whose exponent is always `exponent`. A growth with offset 2 and exponent 0:

    <+> <2> <1> <7> <0> <E0>   ==   2.170 - 2   ==   0.17

Three decimals, within -1..7.999, and every number the decoder writes starts with 1-9 like any
other metric's, so the growth's many zeros cannot leak into a latency's first digit.

A metric may write fewer significant `digits` (1 to 4): the others are always `<0>`. A growth with
offset 2, exponent 0 and two digits is `<+> <2> <2> <0> <0> <E0>` == 0.2, a tenth at a time.

In the *P10S* format (`NumberFormat.feed_forced` false) a token the grammar forces (the only one
allowed at its position: a nonnegative metric's <+>, a fixed exponent, the digits past a metric's
`digits`) is not written for the decoder at all: the decoder reads and writes only the tokens it
chooses, and the forced ones are put back in place, so the six positions of every number, and all
that reads them, stay as they are. The shifted growth above is then two tokens, `<2> <2>`: the
decoding work of a number is the tokens it writes.

Pure Python: no numpy, no tensors. The decoder uses `allowed_at` to mask
its logits so that every output parses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

MANTISSA_DIGITS = 4
EXP_MIN = -10
EXP_MAX = 10
TOKENS_PER_NUMBER = 2 + MANTISSA_DIGITS  # sign, digits, exponent

SIGN_TOKENS = ("<+>", "<->")
DIGIT_TOKENS = tuple(f"<{d}>" for d in range(10))
EXP_TOKENS = tuple(f"<E{e}>" for e in range(EXP_MIN, EXP_MAX + 1))
ALL_TOKENS = SIGN_TOKENS + DIGIT_TOKENS + EXP_TOKENS

FIXED_EXPONENT_TOKEN = "<E0>"  # the only exponent a fixed-point number takes
MAX_FIXED = float(f"9.{'9' * (MANTISSA_DIGITS - 1)}")
MAX_VALUE = float(f"9.{'9' * (MANTISSA_DIGITS - 1)}e{EXP_MAX}")
MIN_POSITIVE = 10.0**EXP_MIN


@dataclass(frozen=True)
class Grammar:
    """One metric's numbers: `nonnegative` ones take only the sign <+>; `fixed_point` ones only the
    exponent <E0> (±d.ddd); shifted ones write value + `offset` with the exponent always `exponent`."""

    nonnegative: bool = True
    fixed_point: bool = False
    offset: float = 0.0
    exponent: int | None = None
    digits: int = MANTISSA_DIGITS  # significant digits written; the rest are <0>

    def __post_init__(self):
        if not 1 <= self.digits <= MANTISSA_DIGITS:
            raise ValueError(f"a metric's digits must be 1 to {MANTISSA_DIGITS}, not {self.digits}")

    @classmethod
    def of(cls, metric: Mapping) -> Grammar:
        """From a metric's entry in rlm_config.json or a checkpoint's meta (both default as above)."""
        exponent = metric.get("exponent")
        return cls(bool(metric.get("nonnegative", True)), bool(metric.get("fixed_point", False)),
                   float(metric.get("offset", 0.0)), None if exponent is None else int(exponent),
                   int(metric.get("digits", MANTISSA_DIGITS)))

    @property
    def exponent_token(self) -> str | None:
        """The one exponent token this grammar allows, or None when it may take any."""
        if self.fixed_point:
            return FIXED_EXPONENT_TOKEN
        return None if self.exponent is None else f"<E{self.exponent}>"


NONZERO_DIGIT_TOKENS = DIGIT_TOKENS[1:]  # a normalized mantissa's first digit


def _sign(value: float) -> str:
    """The sign token (-0.0 keeps its minus); raises ValueError on NaN."""
    if math.isnan(value):
        raise ValueError("cannot encode NaN")
    return "<->" if value < 0 or (value == 0 and math.copysign(1.0, value) < 0) else "<+>"


def _digit_tokens(mantissa: int, digits: int) -> list[str]:
    """A mantissa of `digits` digits -> the four digit tokens, the ones past `digits` <0>."""
    return [f"<{d}>" for d in str(mantissa).rjust(digits, "0") + "0" * (MANTISSA_DIGITS - digits)]


def _sign_digits_exponent(value: float, normalized: bool = False,
                          digits: int = MANTISSA_DIGITS) -> tuple[str, list[str], str]:
    """Float -> (sign, four digits, exponent) tokens, rounding to `digits` significant digits and
    clipping to the range (`normalized`: a zero, too, to the smallest positive value, so the first
    digit is never 0)."""
    sign = _sign(value)
    magnitude = min(abs(value), MAX_VALUE)
    if magnitude < MIN_POSITIVE / 2 and not normalized:
        return sign, ["<0>"] * MANTISSA_DIGITS, "<E0>"
    magnitude = max(magnitude, MIN_POSITIVE)
    exponent = math.floor(math.log10(magnitude))
    scale = 10 ** (digits - 1)
    mantissa = round(magnitude / 10.0**exponent * scale)
    if mantissa >= 10 * scale:  # 9.9996 rounds up to 10.000
        mantissa //= 10
        exponent += 1
    if exponent > EXP_MAX:
        exponent, mantissa = EXP_MAX, 10 * scale - 1
    return sign, _digit_tokens(mantissa, digits), f"<E{exponent}>"


def _fixed_exponent(value: float, exponent: int = 0, normalized: bool = True,
                    digits: int = MANTISSA_DIGITS) -> tuple[str, list[str], str]:
    """Float -> (sign, four digits, <E`exponent`>): d.ddd x 10^exponent (to `digits` significant
    digits), clipped to ±9.999 x 10^exponent (`normalized`: and to at least 1.000 x 10^exponent, so
    the first digit is never 0). A fixed-point number is `_fixed_exponent(value, 0, normalized=False)`."""
    sign = _sign(value)
    scale = 10 ** (digits - 1)
    mantissa = min(round(abs(value) / 10.0**exponent * scale), 10 * scale - 1)
    if normalized:
        mantissa = max(mantissa, scale)
    return sign, _digit_tokens(mantissa, digits), f"<E{exponent}>"


@dataclass(frozen=True)
class NumberFormat:
    """Where the exponent sits in a number's six tokens: last (P10) or right after the sign (P10E);
    and whether the decoder reads the tokens a grammar forces (P10, P10E) or only those it chooses
    (P10S: exponent last, forced tokens not fed)."""

    exponent_first: bool = False
    feed_forced: bool = True

    @property
    def name(self) -> str:
        return ("P10E" if self.exponent_first else "P10") + ("" if self.feed_forced else "S")

    @property
    def exponent_position(self) -> int:
        return 1 if self.exponent_first else TOKENS_PER_NUMBER - 1

    def arrange(self, sign, digits: Sequence, exponent) -> list:
        """The six parts of one number (tokens, or anything per position such as loss weights) in this order."""
        return [sign, exponent, *digits] if self.exponent_first else [sign, *digits, exponent]

    def encode(self, value: float, grammar: Grammar | None = None) -> list[str]:
        """Float -> six tokens; with a metric's `grammar`, as that grammar allows them (fixed point:
        the exponent <E0>; else normalized)."""
        if grammar is None:
            return self.arrange(*_sign_digits_exponent(value))
        value, digits = value + grammar.offset, grammar.digits
        if grammar.fixed_point:
            return self.arrange(*_fixed_exponent(value, 0, normalized=False, digits=digits))
        if grammar.exponent is not None:  # clipped to its decade (and, nonnegative, never below it)
            return self.arrange(*_fixed_exponent(max(value, 0.0) if grammar.nonnegative else value, grammar.exponent,
                                                 digits=digits))
        return self.arrange(*_sign_digits_exponent(value, normalized=True, digits=digits))

    def decode(self, tokens: Sequence[str]) -> float:
        """Six tokens -> float. Raises ValueError on anything the grammar forbids."""
        if len(tokens) != TOKENS_PER_NUMBER:
            raise ValueError(f"expected {TOKENS_PER_NUMBER} tokens, got {len(tokens)}")
        for position, token in enumerate(tokens):
            if token not in self.allowed_at(position):
                raise ValueError(f"token {token!r} is not valid at position {position} of a {self.name} number")
        exponent_token = tokens[self.exponent_position]
        digit_tokens = [t for i, t in enumerate(tokens[1:], 1) if i != self.exponent_position]
        sign = -1.0 if tokens[0] == "<->" else 1.0
        mantissa = int("".join(t[1] for t in digit_tokens))
        exponent = int(exponent_token[2:-1])
        return sign * float(f"{mantissa}e{exponent - (MANTISSA_DIGITS - 1)}")

    @property
    def first_digit_position(self) -> int:
        return 2 if self.exponent_first else 1

    def allowed_at(self, position: int, grammar: Grammar | None = None) -> tuple[str, ...]:
        """The tokens valid at `position` within one number (positions repeat per number): of any
        number the format can write, or, with `grammar`, of a metric with that grammar."""
        position %= TOKENS_PER_NUMBER
        if position == 0:
            return ("<+>",) if grammar is not None and grammar.nonnegative else SIGN_TOKENS
        if position == self.exponent_position:
            fixed = grammar.exponent_token if grammar is not None else None
            return (fixed,) if fixed else EXP_TOKENS
        if grammar is not None and position - self.first_digit_position >= grammar.digits:
            return ("<0>",)  # past the metric's significant digits
        if position == self.first_digit_position and grammar is not None and not grammar.fixed_point:
            return NONZERO_DIGIT_TOKENS
        return DIGIT_TOKENS

    def decode_metrics(self, tokens: Sequence[str], grammars: Sequence[Grammar]) -> list[float]:
        """One number per metric, each as its grammar wrote it (a shifted metric's offset taken off)."""
        return [value - grammar.offset for value, grammar in zip(self.decode_many(tokens), grammars, strict=True)]

    def encode_many(self, values: Sequence[float]) -> list[str]:
        return [token for value in values for token in self.encode(value)]

    def decode_many(self, tokens: Sequence[str]) -> list[float]:
        if len(tokens) % TOKENS_PER_NUMBER:
            raise ValueError(f"token count {len(tokens)} is not a multiple of {TOKENS_PER_NUMBER}")
        return [self.decode(tokens[i : i + TOKENS_PER_NUMBER])
                for i in range(0, len(tokens), TOKENS_PER_NUMBER)]

    def config(self) -> dict:
        """The `number_format` entry of rlm_config.json."""
        order = "sign, exponent, d, d, d, d" if self.exponent_first else "sign, d, d, d, d, exponent"
        fed = "" if self.feed_forced else "; the tokens a metric's grammar forces are not fed to the decoder"
        return {"kind": "P10" if self.feed_forced else "P10S", "mantissa_digits": MANTISSA_DIGITS,
                "exp_min": EXP_MIN, "exp_max": EXP_MAX, "exponent_first": self.exponent_first,
                "value": f"sign * d.ddd * 10^exp, one 6-token block ({order}) per metric in `metrics` order{fed}"}

    @classmethod
    def from_config(cls, fmt: dict) -> NumberFormat:
        """Reads a `number_format` entry; raises ValueError on one this runtime cannot decode."""
        if (fmt.get("kind") not in ("P10", "P10S")
                or (fmt.get("mantissa_digits"), fmt.get("exp_min"), fmt.get("exp_max")) != (MANTISSA_DIGITS, EXP_MIN, EXP_MAX)):
            raise ValueError(f"unsupported number_format {fmt}")
        exponent_first = fmt.get("exponent_first", False)
        if not isinstance(exponent_first, bool):
            raise ValueError(f"number_format.exponent_first must be true or false, not {exponent_first!r}")
        if fmt["kind"] == "P10S" and exponent_first:
            raise ValueError("number_format P10S writes the exponent last: exponent_first must be false")
        return cls(exponent_first, feed_forced=fmt["kind"] == "P10")


P10 = NumberFormat()
P10E = NumberFormat(exponent_first=True)
P10S = NumberFormat(feed_forced=False)
FORMATS = {f.name: f for f in (P10, P10E, P10S)}  # the Python trainer's --number-format choices


def format_of(meta: dict) -> NumberFormat:
    """The number format a checkpoint's rlm_meta.json (or an rlm_config.json) names; P10 if none."""
    return NumberFormat.from_config(meta["number_format"]) if "number_format" in meta else P10

# The P10 layout as plain functions: what models made before P10E use.
encode = P10.encode
decode = P10.decode
allowed_at = P10.allowed_at
encode_many = P10.encode_many
decode_many = P10.decode_many
