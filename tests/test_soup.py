"""training.learning.soup: the mean of several checkpoints' weights."""

from __future__ import annotations

import json

import pytest
import torch

from training.learning.rlm_model import load_checkpoint, save_checkpoint
from training.learning.soup import main, soup


def _perturbed(tiny_checkpoint, out, scale: float):
    model, tok, meta = load_checkpoint(tiny_checkpoint)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(scale)
    save_checkpoint(model, tok, out, meta)
    return out


def test_the_soup_is_the_mean_of_its_ingredients(tiny_checkpoint, tmp_path):
    a = _perturbed(tiny_checkpoint, tmp_path / "a", 0.01)
    b = _perturbed(tiny_checkpoint, tmp_path / "b", -0.03)
    summary = soup([a, b], tmp_path / "soup")
    assert summary["ingredients"] == 2
    base = load_checkpoint(tiny_checkpoint)[0].state_dict()
    mixed, _, meta = load_checkpoint(tmp_path / "soup")
    for name, value in mixed.state_dict().items():
        # tied weights (the shared embedding) are the same tensor, perturbed once per ingredient
        torch.testing.assert_close(value, base[name] - 0.01, atol=1e-6, rtol=0)
    assert meta["soup"] == [str(a), str(b)]
    assert (tmp_path / "soup" / "tokenizer.json").is_file()


def test_a_soup_refuses_other_metrics_and_says_so(tiny_checkpoint, tmp_path, capsys):
    model, tok, meta = load_checkpoint(tiny_checkpoint)
    save_checkpoint(model, tok, tmp_path / "other", {**meta, "metrics": ["memory"]})
    assert main([str(tmp_path / "out"), str(tiny_checkpoint), str(tmp_path / "other")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("soup: error:") and "metrics" in err and len(err.splitlines()) == 1
    with pytest.raises(ValueError, match="at least two"):
        soup([tiny_checkpoint], tmp_path / "one")


def test_the_cli_writes_a_checkpoint_training_reads(tiny_checkpoint, tmp_path, capsys):
    assert main([str(tmp_path / "out"), str(tiny_checkpoint), str(tiny_checkpoint)]) == 0
    assert json.loads(capsys.readouterr().out)["tensors"] > 0
    model, _, _ = load_checkpoint(tmp_path / "out")
    base = load_checkpoint(tiny_checkpoint)[0].state_dict()
    for name, value in model.state_dict().items():
        torch.testing.assert_close(value, base[name])


def test_another_preprocess_mixes_only_when_asked_and_keeps_the_first(tiny_checkpoint, tmp_path, capsys):
    model, tok, meta = load_checkpoint(tiny_checkpoint)
    save_checkpoint(model, tok, tmp_path / "canon", {**meta, "preprocess": "canon_v1"})
    args = [str(tmp_path / "canon"), str(tiny_checkpoint)]
    assert main([str(tmp_path / "out"), *args]) == 2
    assert "--any-preprocess" in capsys.readouterr().err
    assert main([str(tmp_path / "out"), *args, "--any-preprocess"]) == 0
    assert load_checkpoint(tmp_path / "out")[2]["preprocess"] == "canon_v1"
