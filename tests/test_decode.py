"""The decode loop, driven by fake logits: no model needed."""

import numpy as np

from rlm_lsp import decode, numbers

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
