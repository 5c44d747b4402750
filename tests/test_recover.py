"""training.learning.recover: a shipped model directory gives back the checkpoint it was exported from."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from rlm_lsp.export.cli import SAMPLE_CODES, export
from rlm_lsp.runtime.predictor import Predictor
from training.learning.recover import dequantize_nbits, main, recover, trimmed_ids
from training.learning.rlm_model import load_checkpoint

GRAPHS = ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx")
MATMULS = ("q.weight", "k.weight", "v.weight", "o.weight", "wo.weight", "wi_0.weight", "wi_1.weight")


@pytest.fixture(scope="module")
def exports(tiny_checkpoint, tmp_path_factory):
    """(optimum fp32, optimum int8, fast fp32) model directories of the tiny checkpoint."""
    root = tmp_path_factory.mktemp("recover")
    export(tiny_checkpoint, root / "fast", int8=False, fp32_out=root / "fp32")
    export(tiny_checkpoint, root / "int8", int8=True, layout="optimum")
    return root / "fp32", root / "int8", root / "fast"


def _states(checkpoint):
    model, _, meta = load_checkpoint(checkpoint)
    return {k: v.numpy() for k, v in model.state_dict().items()}, meta


def _initializers(path):
    import onnx
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i) for i in onnx.load(str(path)).graph.initializer}


@pytest.mark.parametrize("which", [0, 2], ids=["optimum", "fast"])
def test_fp32_graphs_give_back_every_weight_exactly(tiny_checkpoint, exports, tmp_path, which):
    recover(exports[which], tmp_path / "ckpt")
    original, _ = _states(tiny_checkpoint)
    recovered, meta = _states(tmp_path / "ckpt")
    assert original.keys() == recovered.keys()
    head_ids = json.loads((exports[which] / "rlm_config.json").read_text())["logits_token_ids"]
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
    matmuls = [n for n in original if n.endswith(MATMULS)]
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


def test_fast_int8_graphs_give_back_every_weight_as_onnxruntime_multiplies_by_it(tiny_checkpoint, tiny_model_dir,
                                                                                 tmp_path):
    """rlm-export's default layout: 7-bit MatMulInteger weights, int8 encoder embedding rows, trimmed decoders."""
    summary = recover(tiny_model_dir, tmp_path / "ckpt")
    original, _ = _states(tiny_checkpoint)
    recovered, meta = _states(tmp_path / "ckpt")
    assert original.keys() == recovered.keys()
    config = json.loads((tiny_model_dir / "rlm_config.json").read_text())
    assert config["graph_layout"] == meta["recovered_from"]["graph_layout"] == summary["graph_layout"]
    # every weight matrix: the graph's codes times its column scales, exactly
    graphs = {"encoder.": _initializers(tiny_model_dir / GRAPHS[0]), "decoder.": _initializers(tiny_model_dir / GRAPHS[1])}
    read = set()
    for prefix, inits in graphs.items():
        for name, codes in inits.items():
            if name.startswith("rlm_q/") and name.endswith("/w"):
                node = name[len("rlm_q/"):-len("/w")].strip("/")  # "/decoder/block.0/layer.0/SelfAttention/q/MatMul"
                param = "encoder." + node if prefix == "encoder." else node
                param = param.removesuffix("/MatMul").replace("/", ".") + ".weight"
                expected = (codes.astype(np.float32) * inits[name + "_scale"]).T
                np.testing.assert_array_equal(recovered[param], expected, err_msg=param)
                read.add(param)
    matmuls = [n for n in original if n.endswith(MATMULS)]
    assert read == set(matmuls) and summary["int8_matmuls"] == len(matmuls)
    for name in matmuls:  # within half a 7-bit step of each output column (a torch row) of the original
        step = np.abs(original[name]).max(axis=1) / 63
        error = np.abs(recovered[name] - original[name]).max(axis=1)
        assert error.any() and (error <= step / 2 * (1 + 1e-5)).all(), name
    # the shared embedding: the decoders' fp32 rows as they are, the encoder's int8 rows elsewhere
    kept = sorted({*config["logits_token_ids"], config["decoder_start_token_id"]})
    shared, table = recovered["shared.weight"], original["shared.weight"]
    np.testing.assert_array_equal(shared[kept], table[kept])
    others = np.setdiff1d(np.arange(len(table)), kept)
    step = np.abs(table[others]).max(axis=1) / 127
    error = np.abs(shared[others] - table[others]).max(axis=1)
    assert error.any() and (error <= step / 2 * (1 + 1e-5)).all()
    codes, scale = graphs["encoder."]["rlm_emb/q"], graphs["encoder."]["rlm_emb/scale"]
    np.testing.assert_array_equal(shared[others], (codes.astype(np.float32) * scale)[others])
    assert summary["embedding_rows"] == {"int8_from_encoder": len(others), "fp32": len(kept),
                                         "of_them_from_decoder": len(kept)}
    for name in ("encoder.embed_tokens.weight", "decoder.embed_tokens.weight"):
        np.testing.assert_array_equal(recovered[name], shared)
    head_ids = config["logits_token_ids"]
    np.testing.assert_array_equal(recovered["lm_head.weight"][head_ids], original["lm_head.weight"][head_ids])
    for name in set(original) - set(matmuls) - {"lm_head.weight", "shared.weight", "encoder.embed_tokens.weight",
                                                "decoder.embed_tokens.weight"}:  # norms, position biases
        np.testing.assert_array_equal(recovered[name], original[name], err_msg=name)


def test_a_checkpoint_recovered_from_fast_int8_re_exports_to_the_same_model(tiny_model_dir, tmp_path):
    """Re-quantizing the recovered weights finds the same scales and codes: the re-export in the fast
    int8 layout holds the very initializers of the model it was recovered from, and predicts the same.

    (A fp32 export of the recovered checkpoint is not compared with the int8 model's predictions: the
    two differ by the int8 model's per-row activation rounding, which moved one of the tiny random
    model's eight sampled numbers by 74% when this was written, the original checkpoint's fp32 export
    likewise; the export below checks its own fp32 graphs against torch, `check_parity`.)"""
    recover(tiny_model_dir, tmp_path / "ckpt")
    export(tmp_path / "ckpt", tmp_path / "again", int8=True, fp32_out=tmp_path / "again-fp32")
    for graph in GRAPHS:
        before, after = _initializers(tiny_model_dir / graph), _initializers(tmp_path / "again" / graph)
        assert before.keys() == after.keys(), graph
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=f"{graph}: {name}")
    codes = SAMPLE_CODES[:4]
    before = Predictor.from_dir(tiny_model_dir, device="cpu").predict(codes)
    after = Predictor.from_dir(tmp_path / "again", device="cpu").predict(codes)
    for a, b in zip(before, after):
        assert {m: p.value for m, p in a.items()} == pytest.approx({m: p.value for m, p in b.items()}, rel=1e-6)


@pytest.mark.parametrize(("graph", "dropped", "named"), [
    (GRAPHS[0], ["rlm_q//block.0/layer.1/DenseReluDense/wo/MatMul/w_scale"], "encoder.block.0.layer.1.DenseReluDense.wo"),
    (GRAPHS[0], ["rlm_emb/q", "rlm_emb/scale"], "shared.weight"),
    # folded into the self-attention bias table: kept in the graph's metadata (fast_graphs.FOLDED_PREFIX)
    (GRAPHS[1], ["rlm_folded:decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"],
     "decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight"),
])
def test_a_fast_graph_without_a_weight_names_it(tiny_model_dir, tmp_path, graph, dropped, named):
    import onnx

    shutil.copytree(tiny_model_dir, tmp_path / "model")
    model = onnx.load(str(tmp_path / "model" / graph))
    keep = [i for i in model.graph.initializer if i.name not in dropped]
    meta = [p for p in model.metadata_props if p.key not in dropped]
    assert len(keep) + len(meta) == len(model.graph.initializer) + len(model.metadata_props) - len(dropped)
    del model.graph.initializer[:]
    model.graph.initializer.extend(keep)
    del model.metadata_props[:]
    model.metadata_props.extend(meta)
    onnx.save(model, str(tmp_path / "model" / graph))
    with pytest.raises(ValueError, match=named.replace(".", r"\.")):
        recover(tmp_path / "model", tmp_path / "ckpt")


def test_a_trimmed_embedding_gives_each_row_its_token_id():
    lookup = np.zeros(10, dtype=np.int64)
    lookup[[0, 6, 7]] = [0, 1, 2]  # kept ids 0, 6, 7; ids 1-5 and 8-9 map to row 0 too
    np.testing.assert_array_equal(trimmed_ids(lookup, 3, start_id=0), [0, 6, 7])
    with pytest.raises(ValueError, match="row 0"):
        trimmed_ids(lookup, 3, start_id=None)  # row 0 could be any id below 6
    lookup = np.zeros(10, dtype=np.int64)
    lookup[[0, 1, 5]] = [0, 1, 2]
    np.testing.assert_array_equal(trimmed_ids(lookup, 3, start_id=None), [0, 1, 5])  # only id 0 is below 1


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
