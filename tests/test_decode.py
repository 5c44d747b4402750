"""The decode loop, driven by fake logits: no model needed."""

import numpy as np

from rlm_lsp.runtime import decode, numbers

TOKENS = {t: i + 10 for i, t in enumerate(numbers.ALL_TOKENS)}  # ids 10..42 in a 50-token vocab
VOCAB = 50


POSITIVE = numbers.Grammar()  # bytes, milliseconds: <+> only
SIGNED = numbers.Grammar(nonnegative=False)


def fake_step(prefer):
    """A step function whose logits favour token id `prefer(position)`, and log what it saw."""
    seen = []

    def step(last):
        assert last.shape[1] == 1
        seen.append(last[:, 0].copy())
        logits = np.zeros((last.shape[0], VOCAB), dtype=np.float32)
        logits[:, 0] = 100.0  # a forbidden token with the highest logit: must never win
        logits[:, prefer(len(seen) - 1)] = 5.0
        return logits

    return step, seen


def test_greedy_obeys_grammar_and_picks_best_allowed():
    allowed = decode.allowed_ids(TOKENS, [SIGNED])
    want = ["<->", "<4>", "<2>", "<0>", "<7>", "<E3>"]
    step, seen = fake_step(lambda pos: TOKENS[want[pos]])
    out = decode.constrained_decode(step, np.array([1, 1]), allowed)
    assert out.shape == (2, 6)
    inv = {v: k for k, v in TOKENS.items()}
    assert [inv[t] for t in out[0]] == want
    assert numbers.decode([inv[t] for t in out[1]]) == -4207.0
    assert list(seen[0]) == [1, 1]  # the start token feeds the first step
    assert list(seen[1]) == [TOKENS["<->"]] * 2  # then the chosen token feeds the next


def test_nonnegative_metric_only_takes_plus():
    allowed = decode.allowed_ids(TOKENS, [POSITIVE, POSITIVE])
    step, _ = fake_step(lambda pos: TOKENS["<->"] if pos % 6 == 0 else TOKENS["<5>"])
    out = decode.constrained_decode(step, np.array([1]), allowed)
    assert out.shape == (1, 12)
    assert out[0, 0] == TOKENS["<+>"] and out[0, 6] == TOKENS["<+>"]


def test_every_sampled_output_parses_and_is_reproducible():
    allowed = decode.allowed_ids(TOKENS, [POSITIVE, SIGNED])
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(8, 12, VOCAB)) * 3

    def run(u):
        calls = iter(range(12))

        def step(last):
            return noise[:, next(calls), :]

        return decode.constrained_decode(step, np.zeros(8, dtype=np.int64), allowed, uniforms=u)

    u = np.random.default_rng(1).random((8, 12))
    a, b = run(u), run(u)
    assert (a == b).all()
    inv = {v: k for k, v in TOKENS.items()}
    for row in a:
        values = numbers.decode_many([inv[t] for t in row])
        assert values[0] >= 0
    assert len({tuple(r) for r in a}) > 1  # rows differ: it really samples


def test_sampling_follows_the_softmax():
    allowed = [np.array([3, 4])]
    logits = np.zeros((20000, VOCAB))
    logits[:, 3], logits[:, 4] = 0.0, np.log(3.0)  # p(4) = 0.75
    u = np.random.default_rng(2).random((20000, 1))
    out = decode.constrained_decode(lambda last: logits, np.zeros(20000), allowed, uniforms=u)
    assert abs((out[:, 0] == 4).mean() - 0.75) < 0.02


def test_exponent_first_grammar_puts_the_exponent_second():
    allowed = decode.allowed_ids(TOKENS, [POSITIVE, SIGNED], numbers.P10E)
    assert len(allowed) == 12
    assert [TOKENS[t] for t in numbers.EXP_TOKENS] == allowed[1].tolist() == allowed[7].tolist()
    assert allowed[0].tolist() == [TOKENS["<+>"]]  # nonnegative first metric
    assert allowed[6].tolist() == [TOKENS["<+>"], TOKENS["<->"]]
    want = ["<+>", "<E-2>", "<3>", "<0>", "<0>", "<5>"]
    step, _ = fake_step(lambda pos: TOKENS[want[pos % 6]])
    out = decode.constrained_decode(step, np.array([1]), allowed)
    inv = {v: k for k, v in TOKENS.items()}
    assert numbers.P10E.decode_many([inv[t] for t in out[0]]) == [0.03005, 0.03005]


def test_fixed_point_metric_takes_only_e0_and_a_forced_last_token_costs_no_step():
    growth = numbers.Grammar(nonnegative=False, fixed_point=True)
    allowed = decode.allowed_ids(TOKENS, [POSITIVE, growth], numbers.P10)
    assert allowed[5].tolist() == [TOKENS[t] for t in numbers.EXP_TOKENS]  # the first metric's exponent is free
    assert allowed[11].tolist() == [TOKENS["<E0>"]]
    want = ["<+>", "<1>", "<0>", "<0>", "<0>", "<E2>", "<->", "<1>", "<5>", "<0>", "<0>", "<E7>"]
    step, seen = fake_step(lambda pos: TOKENS[want[pos]])  # prefers E7 at the end: the grammar says no
    out = decode.constrained_decode(step, np.array([1]), allowed)
    inv = {v: k for k, v in TOKENS.items()}
    assert numbers.decode_many([inv[t] for t in out[0]]) == [100.0, -1.5]
    assert len(seen) == 11  # 12 positions, the forced <E0> last: no logits needed for it
    assert allowed[6].tolist() == [TOKENS["<+>"], TOKENS["<->"]]  # a growth takes either sign


def test_a_temperature_per_position_applies_where_it_is_given():
    """A metric's own temperature (a growth's) changes its positions only."""
    allowed = [np.array([3, 4]), np.array([3, 4])]
    logits = np.zeros((20000, VOCAB))
    logits[:, 3], logits[:, 4] = 0.0, np.log(3.0)  # p(4) = 0.75 at temperature 1
    u = np.random.default_rng(2).random((20000, 2))
    same = decode.constrained_decode(lambda last: logits, np.zeros(20000), allowed, uniforms=u, temperature=1.0)
    listed = decode.constrained_decode(lambda last: logits, np.zeros(20000), allowed, uniforms=u,
                                       temperature=[1.0, 1.0])
    assert (same == listed).all()
    out = decode.constrained_decode(lambda last: logits, np.zeros(20000), allowed, uniforms=u, temperature=[1.0, 0.5])
    assert (out[:, 0] == same[:, 0]).all()
    assert abs((out[:, 1] == 4).mean() - 0.9) < 0.02  # 3^2 : 1 at temperature 0.5


def _exponent_step(exponent_logits: dict[str, float]):
    """Logits that favour <+> <3> <1> <4> <1> and put `exponent_logits` on the exponent tokens."""
    want = ["<+>", "<3>", "<1>", "<4>", "<1>"]
    calls = []

    def step(last):
        pos = sum(t.shape[1] for t in calls)
        calls.append(last)
        logits = np.full((last.shape[0], VOCAB), -50.0)
        if pos < len(want):
            logits[:, TOKENS[want[pos]]] = 10.0
        else:
            for token, logit in exponent_logits.items():
                logits[:, TOKENS[token]] = logit
        return logits

    return step


def test_the_smoother_puts_each_exponent_at_its_expectation():
    """Half the mass on <E2>, half on <E4>: every sample reads 3.141 x 10^3 smoothed, whichever
    decade it drew; the draws themselves are unchanged."""
    allowed = decode.allowed_ids(TOKENS, [POSITIVE])
    smoother = decode.ExponentSmoother(allowed, {v: k for k, v in TOKENS.items()}, [POSITIVE])
    assert list(smoother.positions) == [5]
    observe, expected = smoother.observer()
    u = np.array([[0.5] * 5 + [0.25], [0.5] * 5 + [0.75]])  # one draw below the middle, one above
    out = decode.constrained_decode(_exponent_step({"<E2>": 0.0, "<E4>": 0.0}), np.array([1, 1]), allowed,
                                    u, observe=observe)
    inv = {v: k for k, v in TOKENS.items()}
    values = np.array([[numbers.decode([inv[t] for t in row])] for row in out])
    assert values[:, 0].tolist() == [314.1, 31410.0]
    np.testing.assert_allclose(expected[5], [3.0, 3.0])
    np.testing.assert_allclose(smoother.smooth(values, out, expected)[:, 0], [3141.0, 3141.0])
    np.testing.assert_allclose(values[:, 0], [314.1, 31410.0])  # not modified in place


def test_the_smoother_leaves_a_fixed_exponent_and_takes_an_offset_off():
    fixed = numbers.Grammar(offset=2.0, exponent=0)
    allowed = decode.allowed_ids(TOKENS, [fixed, POSITIVE])
    smoother = decode.ExponentSmoother(allowed, {v: k for k, v in TOKENS.items()}, [fixed, POSITIVE])
    assert list(smoother.positions) == [11]  # only the free exponent, of the second metric
    tokens = np.array([[TOKENS[t] for t in ["<+>", "<2>", "<5>", "<0>", "<0>", "<E0>",
                                            "<+>", "<1>", "<0>", "<0>", "<0>", "<E1>"]]])
    values = np.array([[0.5, 10.0]])
    smooth = smoother.smooth(values, tokens, {11: np.array([1.5])})
    np.testing.assert_allclose(smooth, [[0.5, 10.0 ** 1.5]])


def test_the_observer_sees_the_logits_at_the_sampling_temperature():
    allowed = decode.allowed_ids(TOKENS, [POSITIVE])
    seen = {}
    decode.constrained_decode(_exponent_step({"<E2>": 1.0, "<E4>": 0.0}), np.array([1]), allowed,
                              np.full((1, 6), 0.5), temperature=0.5,
                              observe=lambda pos, logits: seen.update({pos: logits}))
    ids = list(allowed[5])
    p = decode.softmax(seen[5])[0]
    assert abs(p.sum() - 1.0) < 1e-12
    np.testing.assert_allclose(p[ids.index(TOKENS["<E2>"])] / p[ids.index(TOKENS["<E4>"])], np.exp(2.0))


def test_the_reader_gives_the_floats_decode_metrics_gives_for_every_grammar_and_order():
    id_to_token = {i: t for t, i in TOKENS.items()}
    rng = np.random.default_rng(0)
    growth = numbers.Grammar(offset=2.0, exponent=0)
    fixed = numbers.Grammar(nonnegative=False, fixed_point=True)
    for number_format in (numbers.P10, numbers.P10E):
        for grammars in ([POSITIVE, SIGNED], [fixed, growth], [SIGNED]):
            allowed = decode.allowed_ids(TOKENS, grammars, number_format)
            tokens = np.stack([rng.choice(ids, 5000) for ids in allowed], axis=1)
            want = np.array([number_format.decode_metrics([id_to_token[t] for t in row], grammars) for row in tokens])
            got = decode.NumberReader(TOKENS, grammars, number_format).read(tokens)
            assert got.dtype == np.float64 and got.shape == want.shape
            assert np.array_equal(got.view(np.int64), want.view(np.int64))  # to the bit, -0.0 included
