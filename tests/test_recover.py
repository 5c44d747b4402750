"""training.recover: a shipped model directory gives back the checkpoint it was exported from."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rlm_lsp.export.cli import SAMPLE_CODES, export
from rlm_lsp.predictor import Predictor
from training.recover import dequantize_nbits, main, recover
from training.rlm_model import load_checkpoint


@pytest.fixture(scope="module")
def exports(tiny_checkpoint, tmp_path_factory):
    """(optimum fp32, optimum int8) model directories of the tiny checkpoint."""
    root = tmp_path_factory.mktemp("recover")
    export(tiny_checkpoint, root / "fast", int8=False, fp32_out=root / "fp32")
    export(tiny_checkpoint, root / "int8", int8=True, layout="optimum")
    return root / "fp32", root / "int8"


def _states(checkpoint):
    model, _, meta = load_checkpoint(checkpoint)
    return {k: v.numpy() for k, v in model.state_dict().items()}, meta


def test_fp32_graphs_give_back_every_weight_exactly(tiny_checkpoint, exports, tmp_path):
    recover(exports[0], tmp_path / "ckpt")
    original, _ = _states(tiny_checkpoint)
    recovered, meta = _states(tmp_path / "ckpt")
    assert original.keys() == recovered.keys()
    head_ids = json.loads((exports[0] / "rlm_config.json").read_text())["logits_token_ids"]
    for name, value in original.items():
        if name == "lm_head.weight":  # only the number rows were exported; the rest are zero
            np.testing.assert_array_equal(recovered[name][head_ids], value[head_ids])
            others = np.setdiff1d(np.arange(value.shape[0]), head_ids)
            assert not recovered[name][others].any()
        else:
            np.testing.assert_array_equal(recovered[name], value, err_msg=name)
    assert meta["recovered_from"]["precision"] == "fp32"
    assert meta["input_template"] and meta["metrics"][0]["name"] == "memory"


def test_int8_graphs_give_back_weights_within_half_a_quantization_step(tiny_checkpoint, exports, tmp_path):
    recover(exports[1], tmp_path / "ckpt")
    original, _ = _states(tiny_checkpoint)
    recovered, _ = _states(tmp_path / "ckpt")
    matmuls = [n for n in original if n.endswith(("q.weight", "k.weight", "v.weight", "o.weight", "wo.weight",
                                                   "wi_0.weight", "wi_1.weight"))]
    assert matmuls
    for name in matmuls:
        step = np.abs(original[name]).max() / 127  # blocks are scaled by their own max, so at most this
        error = np.abs(recovered[name] - original[name]).max()
        assert 0 < error <= step / 2 + 1e-6, name
    np.testing.assert_array_equal(recovered["shared.weight"], original["shared.weight"])


def test_a_recovered_checkpoint_re_exports_to_the_same_predictions(exports, tmp_path):
    recover(exports[0], tmp_path / "ckpt")
    export(tmp_path / "ckpt", tmp_path / "again", int8=False, layout="optimum")
    codes = SAMPLE_CODES[:4]
    before = Predictor.from_dir(exports[0], device="cpu").predict(codes)
    after = Predictor.from_dir(tmp_path / "again", device="cpu").predict(codes)
    for a, b in zip(before, after):
        assert {m: p.value for m, p in a.items()} == pytest.approx({m: p.value for m, p in b.items()}, rel=1e-4)


def test_dequantize_matches_the_matmulnbits_formula():
    codes = np.array([[[128, 130, 126, 255]]], dtype=np.uint8)  # one row, one block of 4
    weight = dequantize_nbits(codes, np.array([0.5], dtype=np.float32), 8, None)
    np.testing.assert_array_equal(weight, [[0.0, 1.0, -1.0, 63.5]])
    with pytest.raises(ValueError, match="4 bits"):
        dequantize_nbits(codes, np.array([0.5], dtype=np.float32), 4, None)


def test_a_directory_without_a_model_is_one_line_error(tmp_path, capsys):
    assert main([str(tmp_path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("recover: error:") and "\n" not in err
