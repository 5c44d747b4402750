import math

import pytest

from rlm_lsp.runtime import numbers

GROWTH = numbers.Grammar(nonnegative=False, fixed_point=True)

ROUND_TRIPS = [
    # value, tokens, decoded
    (0.0, "<+> <0> <0> <0> <0> <E0>", 0.0),
    (-0.0, "<-> <0> <0> <0> <0> <E0>", -0.0),
    (1.0, "<+> <1> <0> <0> <0> <E0>", 1.0),
    (0.1725, "<+> <1> <7> <2> <5> <E-1>", 0.1725),
    (-3.5, "<-> <3> <5> <0> <0> <E0>", -3.5),
    (48_123_456, "<+> <4> <8> <1> <2> <E7>", 48_120_000.0),
    (1e-10, "<+> <1> <0> <0> <0> <E-10>", 1e-10),
    (9.999e10, "<+> <9> <9> <9> <9> <E10>", 9.999e10),
    (9.99971, "<+> <1> <0> <0> <0> <E1>", 10.0),  # mantissa rounds up into the next exponent
    (1e20, "<+> <9> <9> <9> <9> <E10>", 9.999e10),  # clipped to the largest value
    (-1e20, "<-> <9> <9> <9> <9> <E10>", -9.999e10),
    (5e-11, "<+> <1> <0> <0> <0> <E-10>", 1e-10),  # rounds up to the smallest value
    (1e-12, "<+> <0> <0> <0> <0> <E0>", 0.0),  # too small to show: zero
]


@pytest.mark.parametrize("value,tokens,decoded", ROUND_TRIPS)
def test_table(value, tokens, decoded):
    assert numbers.encode(value) == tokens.split()
    assert numbers.decode(tokens.split()) == decoded
    assert math.copysign(1, numbers.decode(tokens.split())) == math.copysign(1, decoded)


@pytest.mark.parametrize("value", [1.234, 5678.0, 0.001234, 3.3e-7, 7.77e9, 123.4])
def test_four_digit_values_round_trip_exactly(value):
    assert numbers.decode(numbers.encode(value)) == pytest.approx(value, rel=1e-12)


def test_relative_error_is_bounded_over_the_range():
    for exp in range(-10, 11):
        for m in (1.0, 1.23456, 4.99951, 9.87654):
            v = m * 10.0**exp
            assert abs(numbers.decode(numbers.encode(v)) - v) <= 5e-4 * v


def test_grammar_positions_and_vocab():
    assert numbers.allowed_at(0) == ("<+>", "<->")
    assert all(numbers.allowed_at(p) == numbers.DIGIT_TOKENS for p in range(1, 5))
    assert numbers.allowed_at(5)[0] == "<E-10>" and numbers.allowed_at(5)[-1] == "<E10>"
    assert numbers.allowed_at(6) == numbers.allowed_at(0)  # the next number starts again
    assert len(numbers.ALL_TOKENS) == 33


@pytest.mark.parametrize("bad", [
    ["<+>", "<1>", "<0>", "<0>", "<E0>"],  # too short
    ["<1>", "<1>", "<0>", "<0>", "<0>", "<E0>"],  # digit where the sign goes
    ["<+>", "<1>", "<E1>", "<0>", "<0>", "<E0>"],  # exponent among the digits
    ["<+>", "<1>", "<0>", "<0>", "<0>", "<E11>"],  # exponent out of range
])
def test_decode_rejects_invalid(bad):
    with pytest.raises(ValueError):
        numbers.decode(bad)


def test_nan_is_rejected():
    with pytest.raises(ValueError):
        numbers.encode(float("nan"))


def test_many():
    tokens = numbers.encode_many([1024.0, 12.5])
    assert len(tokens) == 12
    assert numbers.decode_many(tokens) == [1024.0, 12.5]
    with pytest.raises(ValueError):
        numbers.decode_many(tokens[:-1])


# --- P10E: the same tokens, exponent right after the sign ----------------------------------------

@pytest.mark.parametrize("value,tokens,decoded", ROUND_TRIPS)
def test_exponent_first_is_the_same_number_reordered(value, tokens, decoded):
    sign, *digits, exponent = tokens.split()
    assert numbers.P10E.encode(value) == [sign, exponent, *digits]
    assert numbers.P10E.decode([sign, exponent, *digits]) == decoded


def test_exponent_first_grammar():
    fmt = numbers.P10E
    assert fmt.allowed_at(0) == numbers.SIGN_TOKENS
    assert fmt.allowed_at(1) == numbers.EXP_TOKENS
    assert all(fmt.allowed_at(p) == numbers.DIGIT_TOKENS for p in range(2, 6))
    assert fmt.allowed_at(7) == numbers.EXP_TOKENS  # second number
    with pytest.raises(ValueError, match="position 1 of a P10E number"):
        fmt.decode(numbers.encode(1.5))  # a P10 block is not a P10E block
    assert fmt.decode_many(fmt.encode_many([1024.0, 0.0125])) == [1024.0, 0.0125]


def test_format_config_round_trip():
    for fmt in (numbers.P10, numbers.P10E):
        assert numbers.NumberFormat.from_config(fmt.config()) == fmt
    legacy = {"kind": "P10", "mantissa_digits": 4, "exp_min": -10, "exp_max": 10}  # models before P10E
    assert numbers.NumberFormat.from_config(legacy) == numbers.P10
    with pytest.raises(ValueError, match="exponent_first must be true or false"):
        numbers.NumberFormat.from_config({**legacy, "exponent_first": "yes"})
    with pytest.raises(ValueError, match="unsupported number_format"):
        numbers.NumberFormat.from_config({**legacy, "kind": "IEEE"})


@pytest.mark.parametrize("value, tokens", [
    (1.95, ["<+>", "<1>", "<9>", "<5>", "<0>", "<E0>"]),
    (-0.02, ["<->", "<0>", "<0>", "<2>", "<0>", "<E0>"]),
    (0.0004, ["<+>", "<0>", "<0>", "<0>", "<0>", "<E0>"]),  # below the third decimal: zero
    (42.0, ["<+>", "<9>", "<9>", "<9>", "<9>", "<E0>"]),  # clipped to 9.999
    (-1e9, ["<->", "<9>", "<9>", "<9>", "<9>", "<E0>"]),
])
def test_fixed_point_table(value, tokens):
    assert numbers.P10.encode(value, GROWTH) == tokens
    decoded = numbers.P10.decode(tokens)
    assert decoded == pytest.approx(max(-numbers.MAX_FIXED, min(numbers.MAX_FIXED, round(value, 3))), abs=1e-12)


@pytest.mark.parametrize("value", [-3.217, -0.5, 0.0, 0.001, 0.999, 1.0, 2.5, 9.999])
def test_fixed_point_round_trips_three_decimals_in_both_orders(value):
    for fmt in (numbers.P10, numbers.P10E):
        tokens = fmt.encode(value, GROWTH)
        assert tokens[fmt.exponent_position] == "<E0>"
        assert fmt.decode(tokens) == pytest.approx(value, abs=1e-12)


def test_fixed_point_grammar_allows_only_e0_at_the_exponent():
    for fmt in (numbers.P10, numbers.P10E):
        for pos in range(numbers.TOKENS_PER_NUMBER):
            fixed, free = fmt.allowed_at(pos, GROWTH), fmt.allowed_at(pos)
            assert fixed == (("<E0>",) if pos == fmt.exponent_position else free)
    with pytest.raises(ValueError):
        numbers.P10.encode(float("nan"), GROWTH)


def test_a_metrics_number_is_normalized_so_a_zero_cannot_be_sampled():
    # every encoded positive value has a first digit 1-9; only the format's zero has <0> there
    for fmt in (numbers.P10, numbers.P10E):
        first = fmt.first_digit_position
        assert fmt.allowed_at(first, numbers.Grammar()) == tuple(f"<{d}>" for d in range(1, 10))
        assert fmt.allowed_at(first) == numbers.DIGIT_TOKENS  # any number the format can write
        assert fmt.allowed_at(first, GROWTH) == numbers.DIGIT_TOKENS  # a growth's integer part may be 0
        assert all(fmt.allowed_at(p, numbers.Grammar()) == numbers.DIGIT_TOKENS
                   for p in range(numbers.TOKENS_PER_NUMBER) if p not in (0, first, fmt.exponent_position))
        # a metric's zero is clipped to the smallest value, so its labels obey its grammar
        tokens = fmt.encode(0.0, numbers.Grammar())
        assert fmt.decode(tokens) == numbers.MIN_POSITIVE and tokens[first] == "<1>"
        assert fmt.decode(fmt.encode(0.0)) == 0.0
        for value in (1e-10, 0.0123, 7.0, 4.2e9):
            assert fmt.encode(value, numbers.Grammar()) == fmt.encode(value)


SHIFTED = numbers.Grammar(offset=20.0, exponent=1)  # a growth as model v4 writes it


@pytest.mark.parametrize("value, tokens", [
    (0.17, ["<+>", "<2>", "<0>", "<1>", "<7>", "<E1>"]),
    (-0.5, ["<+>", "<1>", "<9>", "<5>", "<0>", "<E1>"]),
    (2.004, ["<+>", "<2>", "<2>", "<0>", "<0>", "<E1>"]),  # two decimals
    (-15.0, ["<+>", "<1>", "<0>", "<0>", "<0>", "<E1>"]),  # clipped to the decade: -10
    (95.0, ["<+>", "<9>", "<9>", "<9>", "<9>", "<E1>"]),  # and 79.99
])
def test_shifted_metric_writes_value_plus_offset_in_one_decade(value, tokens):
    assert numbers.P10.encode(value, SHIFTED) == tokens
    back = numbers.P10.decode_metrics(tokens, [SHIFTED])[0]
    assert back == pytest.approx(min(max(round(value, 2), -10.0), 79.99), abs=1e-9)


def test_shifted_grammar_fixes_the_exponent_and_keeps_the_first_digit_nonzero():
    for fmt in (numbers.P10, numbers.P10E):
        assert fmt.allowed_at(fmt.exponent_position, SHIFTED) == ("<E1>",)
        assert fmt.allowed_at(fmt.first_digit_position, SHIFTED) == numbers.NONZERO_DIGIT_TOKENS
        assert fmt.allowed_at(0, SHIFTED) == ("<+>",)
        tokens = fmt.encode(0.25, SHIFTED) + fmt.encode(1500.0, numbers.Grammar())
        assert fmt.decode_metrics(tokens, [SHIFTED, numbers.Grammar()]) == pytest.approx([0.25, 1500.0])
    assert numbers.Grammar.of({"offset": 20, "exponent": 1}) == SHIFTED


NARROW = numbers.Grammar(offset=2.0, exponent=0)  # model v4's growth since v4g


@pytest.mark.parametrize("value, tokens, back", [
    (0.17, ["<+>", "<2>", "<1>", "<7>", "<0>", "<E0>"], 0.17),
    (-0.25, ["<+>", "<1>", "<7>", "<5>", "<0>", "<E0>"], -0.25),
    (2.0, ["<+>", "<4>", "<0>", "<0>", "<0>", "<E0>"], 2.0),
    (-3.0, ["<+>", "<1>", "<0>", "<0>", "<0>", "<E0>"], -1.0),   # below the range: clipped to -1, sign stays +
    (9.0, ["<+>", "<9>", "<9>", "<9>", "<9>", "<E0>"], 7.999),
])
def test_narrow_shift_keeps_a_slope_within_its_decade(value, tokens, back):
    assert numbers.P10.encode(value, NARROW) == tokens
    assert numbers.P10.decode_metrics(tokens, [NARROW])[0] == pytest.approx(back, abs=1e-9)
