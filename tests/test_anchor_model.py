"""A model of the anchor recipe (issue 48): it predicts growth, names a reference n and never reads n
(its template has no `{n}`). Its numbers are for that n, and every surface moves them from there
along the predicted growth (`rlm_lsp.runtime.growth.at`)."""

import json
import math

import pytest

from tests.conftest import TOKENIZER_TEXTS

CODE = "def pairs(xs):\n    return [(a, b) for a in xs for b in xs]\n"
REFERENCE = 10_000


@pytest.fixture(scope="module")
def anchor_model(tmp_path_factory):
    """A tiny random model with memory, latency and their _growth, the shaped template (no {n}) and
    reference_n, as `train --anchor-data` saves it."""
    import torch

    from rlm_lsp.export.cli import export
    from training.judging.shaped_examples import V4_METRICS
    from training.learning import rlm_model
    from training.learning.train_data import TEMPLATES

    tmp = tmp_path_factory.mktemp("anchor")
    torch.manual_seed(0)
    tok = rlm_model.train_tokenizer(TOKENIZER_TEXTS * 20, vocab_size=400)
    meta = rlm_model.default_meta(list(V4_METRICS), max_input_tokens=256, model_version="tiny-anchor",
                                  input_template=TEMPLATES["shaped"], reference_n=REFERENCE)
    ckpt = rlm_model.save_checkpoint(rlm_model.build_model(tok, "tiny"), tok, tmp / "ckpt", meta)
    export(ckpt, tmp / "model", int8=False)
    return tmp / "model"


def test_its_predictions_are_for_its_reference_n_whatever_n_is_stated(anchor_model):
    from rlm_lsp.runtime.predictor import Predictor

    p = Predictor.from_dir(anchor_model, samples=4)
    assert not p.config.reads_n and p.config.n_for({"n": 5}) == REFERENCE
    assert p.render(CODE, context={"n": 10 ** 6}) == p.render(CODE)  # n never reaches its input
    got = p.predict([CODE])[0]
    assert set(got) == {"memory", "latency"}
    assert {q.n for q in got.values()} == {float(REFERENCE)} and all(q.growth is not None for q in got.values())


def test_a_model_with_a_reference_n_and_no_growth_says_no_n(model_copy):
    from rlm_lsp.runtime.predictor import Predictor

    path = model_copy / "rlm_config.json"
    config = json.loads(path.read_text())
    path.write_text(json.dumps({**config, "reference_n": REFERENCE}))
    p = Predictor.from_dir(model_copy, samples=2)
    assert p.config.n_for() is None and p.predict([CODE])[0]["memory"].n is None  # nothing to move it by


def test_rlm_predict_at_n_moves_it_along_its_growth(anchor_model, tmp_path, capsys):
    from rlm_lsp.app import cli

    path = tmp_path / "prog.py"
    path.write_text(CODE)
    assert cli.main(["predict", str(path), "--model", str(anchor_model), "--json"]) == 0
    at_reference = json.loads(capsys.readouterr().out)[0]
    assert cli.main(["predict", str(path), "--model", str(anchor_model), "--n", "1e6", "--json"]) == 0
    at_million = json.loads(capsys.readouterr().out)[0]
    for metric in ("memory", "latency"):
        ref, moved = at_reference[metric], at_million[metric]
        assert ref["n"] == REFERENCE and moved["n"] == 1e6
        assert moved["growth"] == ref["growth"]
        assert moved["value"] == pytest.approx(ref["value"] * 100 ** ref["growth"], rel=1e-6)


def test_growth_eval_moves_its_value_to_each_rows_n(anchor_model):
    from rlm_lsp.runtime.predictor import Predictor
    from training.judging.growth_eval import value_at

    p = Predictor.from_dir(anchor_model, samples=4)
    pred = p.predict([CODE])[0]
    g = pred["latency"].growth
    assert value_at(p, CODE, pred, "latency", 100) == pytest.approx(pred["latency"].value * 0.01 ** g)
    assert math.isfinite(value_at(p, CODE, pred, "memory", 1e6))
