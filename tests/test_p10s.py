"""P10S and a metric's `digits` (rlm_lsp.runtime.numbers): a growth written with two significant
digits, and a decoder that is never fed the tokens a grammar forces, so it decodes only the tokens it
chooses (#48's budget for the whole curve: bench/curve.py). Every number keeps its six positions, so
the reader, the smoother and the losses read them as before."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlm_lsp.runtime import decode, numbers
from tests.conftest import TOKENIZER_TEXTS

TOKENS = {t: i + 10 for i, t in enumerate(numbers.ALL_TOKENS)}
INV = {v: k for k, v in TOKENS.items()}
VOCAB = 50
VALUE = numbers.Grammar()  # bytes, milliseconds: <+> only, any exponent
GROWTH2 = numbers.Grammar(offset=2.0, exponent=0, digits=2)  # the anchor recipe's growth, a tenth a draw
CODE = "def pairs(xs):\n    return [(a, b) for a in xs for b in xs]\n"


def test_a_metric_of_two_digits_rounds_to_them_and_forces_the_rest():
    assert numbers.P10.encode(0.17, GROWTH2) == ["<+>", "<2>", "<2>", "<0>", "<0>", "<E0>"]  # 2.17 -> 2.2
    assert numbers.P10.decode_metrics(numbers.P10.encode(0.17, GROWTH2), [GROWTH2]) == [pytest.approx(0.2)]
    assert numbers.P10.encode(7.96, GROWTH2)[1:5] == ["<9>", "<9>", "<0>", "<0>"]  # clipped at 9.9, not 10
    assert numbers.P10.encode(1234.0, numbers.Grammar(digits=2)) == ["<+>", "<1>", "<2>", "<0>", "<0>", "<E3>"]
    assert numbers.P10.encode(9960.0, numbers.Grammar(digits=2)) == ["<+>", "<1>", "<0>", "<0>", "<0>", "<E4>"]
    assert [numbers.P10.allowed_at(p, GROWTH2) for p in (0, 3, 4, 5)] == [("<+>",), ("<0>",), ("<0>",), ("<E0>",)]
    assert numbers.P10.allowed_at(1, GROWTH2) == numbers.NONZERO_DIGIT_TOKENS
    assert numbers.Grammar.of({"offset": 2.0, "exponent": 0, "digits": 2}) == GROWTH2
    with pytest.raises(ValueError, match="digits must be 1 to 4"):
        numbers.Grammar(digits=5)


def test_p10s_names_itself_so_a_runtime_before_it_refuses_it():
    config = numbers.P10S.config()
    assert config["kind"] == "P10S" and "not fed" in config["value"]
    assert numbers.NumberFormat.from_config(config) == numbers.P10S
    assert numbers.format_of({"number_format": config}).name == "P10S"
    assert numbers.NumberFormat.from_config(numbers.P10.config()).feed_forced  # P10 is as it was
    with pytest.raises(ValueError, match="exponent last"):
        numbers.NumberFormat.from_config({**config, "exponent_first": True})


def _recording_step(prefer):
    """A step whose logits favour `prefer(call)`, recording the tokens fed at each call."""
    fed = []

    def step(last):
        fed.append(last.copy())
        logits = np.zeros((last.shape[0], VOCAB), dtype=np.float32)
        logits[:, prefer(len(fed) - 1)] = 5.0
        return logits

    return step, fed


def test_the_decoder_is_fed_only_what_it_chooses_and_the_output_keeps_every_position():
    allowed = decode.allowed_ids(TOKENS, [VALUE, GROWTH2], numbers.P10S)
    free = ["<3>", "<1>", "<4>", "<1>", "<E2>", "<2>", "<5>"]  # 314.1, then growth 2.5 - 2
    step, fed = _recording_step(lambda call: TOKENS[free[call]])
    out = decode.constrained_decode(step, np.array([1]), allowed, feed_forced=False)
    tokens = [INV[t] for t in out[0]]
    assert tokens == ["<+>", "<3>", "<1>", "<4>", "<1>", "<E2>", "<+>", "<2>", "<5>", "<0>", "<0>", "<E0>"]
    assert len(fed) == len(free)  # one step a chosen token; none for the six forced ones
    assert [INV.get(int(f[0, -1]), "start") for f in fed] == ["start"] + free[:-1]
    assert all(f.shape == (1, 1) for f in fed)
    reader = decode.NumberReader(TOKENS, [VALUE, GROWTH2], numbers.P10S)
    assert reader.read(out).tolist() == [[314.1, pytest.approx(0.5)]]
    # fed (P10), the same grammar takes a step for each forced token too (merged ones ride along)
    step, fed_all = _recording_step(lambda call: TOKENS[free[call]])
    decode.constrained_decode(step, np.array([1]), allowed, merge_forced_start=True, merge_forced_later=True)
    assert sum(f.shape[1] for f in fed_all) > len(free)


def test_teacher_forcing_feeds_a_p10s_decoder_only_the_positions_it_chooses():
    import torch

    from training.learning import rlm_model, teacher_forcing

    torch.manual_seed(0)
    tok = rlm_model.train_tokenizer(TOKENIZER_TEXTS * 20, vocab_size=400)
    model = rlm_model.build_model(tok, "tiny").eval()
    grammars = [VALUE, GROWTH2]
    assert teacher_forcing.fed_positions(grammars, numbers.P10) is None
    fed = teacher_forcing.fed_positions(grammars, numbers.P10S)
    assert fed == [False, True, True, True, True, True, False, True, True, False, False, False]
    labels = torch.tensor([rlm_model.target_ids(tok, [314.1, 0.5], numbers.P10S, grammars)])
    ids = torch.tensor([tok.encode("def f(): pass").ids])
    mask = torch.ones_like(ids)
    with torch.no_grad():
        full = teacher_forcing.logits(model, labels, fed, input_ids=ids, attention_mask=mask)
        keep = torch.tensor(fed)
        direct = model(input_ids=ids, attention_mask=mask, decoder_input_ids=model._shift_right(labels[:, keep])).logits
    assert full.shape == (1, 12, direct.shape[-1])
    assert torch.equal(full[:, keep], direct) and not full[:, ~keep].any()
    assert (teacher_forcing.ignore_unfed(labels, fed)[0, ~keep] == -100).all()
    with pytest.raises(ValueError, match="every row must carry every metric"):
        teacher_forcing.logits(model, labels[:, :6], fed, input_ids=ids, attention_mask=mask)


def test_a_p10s_model_trains_exports_and_predicts_growth_in_tenths(tmp_path):
    from rlm_lsp.export.cli import export
    from rlm_lsp.runtime.predictor import Predictor
    from training.learning import train

    common = ["--synthetic", "32", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8", "--eval-every", "2",
              "--no-progress", "--eval-max", "8", "--epochs", "1", "--max-steps", "2"]
    plain = train.train(common + ["--out", str(tmp_path / "p10")])
    best = train.train(common + ["--out", str(tmp_path / "s"), "--init-from", str(plain), "--number-format", "P10S"])
    assert json.loads((best / "rlm_meta.json").read_text())["number_format"]["kind"] == "P10S"
    export(best, tmp_path / "model", int8=False)
    p = Predictor.from_dir(tmp_path / "model", samples=4)
    assert p.config.number_format == numbers.P10S
    calls = []
    stepper = p.model.stepper

    def counting(*a, **k):
        step = stepper(*a, **k)
        return lambda tokens: calls.append(tokens.shape[1]) or step(tokens)

    p.model.stepper = counting
    got = p.predict([CODE])[0]
    assert set(got) == {"memory", "latency"} and all(q.value > 0 for q in got.values())
    assert calls == [1] * 10  # memory and latency: 4 digits and an exponent each; their <+> never fed


def test_growth_written_in_two_digits_reaches_the_runtime_as_tenths(tmp_path):
    import torch

    from rlm_lsp.export.cli import export
    from rlm_lsp.runtime.predictor import Predictor
    from training.judging.shaped_examples import V4_METRICS
    from training.learning import rlm_model
    from training.learning.train_data import TEMPLATES

    torch.manual_seed(0)
    tok = rlm_model.train_tokenizer(TOKENIZER_TEXTS * 20, vocab_size=400)
    metrics = [dict(m, digits=2) if m["name"].endswith("_growth") else m for m in V4_METRICS]
    meta = rlm_model.default_meta(metrics, max_input_tokens=256, model_version="tiny-p10s",
                                  input_template=TEMPLATES["shaped"], reference_n=10_000,
                                  number_format=numbers.P10S.config())
    export(rlm_model.save_checkpoint(rlm_model.build_model(tok, "tiny"), tok, tmp_path / "ckpt", meta),
           tmp_path / "model", int8=False)
    p = Predictor.from_dir(tmp_path / "model", samples=8)
    draws = [g for q in p.predict([CODE])[0].values() for g in q.growth_samples]
    assert len(draws) == 16 and all(abs(g * 10 - round(g * 10)) < 1e-9 for g in draws)  # a tenth at a time
