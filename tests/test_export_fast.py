"""The fast export layout (issue 28): exact rewrites stay exact, int8 stays within its budget,
and old model directories keep loading with the layout they were exported with."""

from __future__ import annotations

import json

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from rlm_lsp.export import fast_graphs
from rlm_lsp.export.cli import SAMPLE_CODES, export
from rlm_lsp.runtime.model_dir import DEFAULT_DIR, ModelError, sha256_file
from rlm_lsp.runtime.predictor import Predictor
from rlm_lsp.runtime.seq2seq import ENCODER_SCALES_KEY, OPTIMUM, PER_INPUT, SHARED_CROSS_KV

CODES = SAMPLE_CODES[:5]


@pytest.fixture(scope="module")
def fp32_pair(tiny_checkpoint, tmp_path_factory):
    """(fast-layout fp32, optimum-layout fp32) of one checkpoint, from one export."""
    root = tmp_path_factory.mktemp("fast")
    export(tiny_checkpoint, root / "fast", int8=False, fp32_out=root / "optimum")
    return root / "fast", root / "optimum"


@pytest.fixture(scope="module")
def legacy_int8(tiny_checkpoint, tmp_path_factory):
    out = tmp_path_factory.mktemp("legacy") / "model"
    export(tiny_checkpoint, out, int8=True, layout="optimum")
    return out


def test_fast_layout_in_fp32_gives_byte_identical_samples(fp32_pair):
    fast, optimum = (Predictor.from_dir(d, samples=8, cache_size=0) for d in fp32_pair)
    assert (fast.model.layout, optimum.model.layout) == (SHARED_CROSS_KV, OPTIMUM)
    assert np.array_equal(fast.sample_values(CODES), optimum.sample_values(CODES))
    greedy = [Predictor.from_dir(d, samples=1, cache_size=0) for d in fp32_pair]
    assert np.array_equal(greedy[0].sample_values(CODES), greedy[1].sample_values(CODES))


def test_default_export_is_the_fast_layout_and_reports_its_budget(tiny_model_dir):
    report = json.loads((tiny_model_dir / "export_report.json").read_text())
    config = json.loads((tiny_model_dir / "rlm_config.json").read_text())
    assert report["layout"] == "fast" and config["graph_layout"] == SHARED_CROSS_KV
    assert report["parity"]["token_exact"] == report["parity"]["inputs"]  # fp32 ONNX vs PyTorch
    fidelity = report["fidelity"]
    assert fidelity["inputs"] == len(SAMPLE_CODES) and fidelity["kl_mean"] >= 0
    assert fidelity["within_budget"] == (fidelity["kl_mean"] <= fidelity["kl_budget"] and all(
        s["median"] <= fidelity["shift_budget"] for s in fidelity["log10_shift"].values()))
    # Not asserted within budget: random tiny weights give near-flat distributions whose sampled
    # values swing; the real checkpoint's figures are in docs/benchmarks.md.
    assert 0 <= fidelity["kl_mean"] <= fidelity["kl_max"] < 1.0
    encoder = onnx.load(str(tiny_model_dir / "encoder_model.onnx"))
    ops = {n.op_type for n in encoder.graph.node}
    # The encoder's matmuls quantize one input's activations with one scale (per_input_scales), so
    # the runtime encodes one input a call (its metadata says so); the decoders quantize per row.
    assert {"DynamicQuantizeLinear", "MatMulIntegerToFloat"} <= ops and not ops & {"MatMulInteger", "MatMulNBits"}
    assert {p.key: p.value for p in encoder.metadata_props}[ENCODER_SCALES_KEY] == PER_INPUT
    assert Predictor.from_dir(tiny_model_dir).model.encodes_per_input
    assert not any(n.op_type == "MatMul" and n.input[1] in {i.name for i in encoder.graph.initializer}
                   for n in encoder.graph.node), "every weight MatMul runs in int8"
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        assert "MatMulInteger" in {n.op_type for n in onnx.load(str(tiny_model_dir / name)).graph.node}
    vocab = config["architecture"]["vocab_size"]
    tables = [i for i in encoder.graph.initializer if len(i.dims) == 2 and i.dims[0] == vocab and i.dims[1] > 1]
    assert [i.data_type for i in tables] == [onnx.TensorProto.INT8], "the token embedding, and only it, in int8 rows"
    position = [i for i in encoder.graph.initializer if i.name == "rlm_pos/by_head"]
    assert [i.data_type for i in position] == [onnx.TensorProto.FLOAT], "the position bias stays fp32"


def test_decoder_embeddings_keep_only_the_ids_they_are_fed(tiny_model_dir):
    config = json.loads((tiny_model_dir / "rlm_config.json").read_text())
    fed = set(config["logits_token_ids"]) | {config["decoder_start_token_id"]}
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        graph = onnx.load(str(tiny_model_dir / name)).graph
        tables = [i for i in graph.initializer if len(i.dims) == 2 and i.dims[1] == config["architecture"]["d_model"]
                  and i.dims[0] < config["architecture"]["vocab_size"] and i.data_type == onnx.TensorProto.FLOAT]
        assert any(t.dims[0] == len(fed) for t in tables), name


def _ids():
    rng = np.random.default_rng(0)
    ids = rng.integers(5, 300, size=(4, 40)).astype(np.int64)
    ids[2] = ids[0]
    ids[1, :] = 7  # a degenerate neighbour (one token repeated)
    return ids


def test_int8_matmuls_are_row_independent(fp32_pair):
    """The per-row activation scales (what the decoders keep): a row's output is bit-equal alone and
    in any batch. Checked on the encoder of the fp32 fast layout made int8 by `int8_matmuls` alone."""
    model = onnx.load(str(fp32_pair[0] / "encoder_model.onnx"))
    fast_graphs.int8_matmuls(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    ids = _ids()
    hidden = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids)})[0]
    for row in range(4):
        alone = session.run(None, {"input_ids": ids[row:row + 1], "attention_mask": np.ones_like(ids[:1])})[0]
        assert np.array_equal(alone[0], hidden[row])
    assert np.array_equal(hidden[0], hidden[2])


def test_a_per_input_encoder_is_run_one_input_a_call(tiny_model_dir):
    """The shipped encoder's scales are per tensor (`per_input_scales`): run as one padded batch, an
    input's numbers would depend on its neighbours; the runtime encodes each input alone instead,
    so a row's hidden states are bit-equal alone and in any padded batch."""
    model = Predictor.from_dir(tiny_model_dir).model
    ids = _ids()
    mask = np.ones_like(ids)
    mask[1, 25:] = mask[3, 10:] = 0  # two shorter inputs, padded at the end
    ids[mask == 0] = 0
    batched = model.encode(ids, mask)
    for row in range(4):
        length = int(mask[row].sum())
        alone = model.encode(ids[row:row + 1, :length], mask[row:row + 1, :length])
        assert np.array_equal(alone[0], batched[row, :length])
        assert not batched[row, length:].any()
    assert np.array_equal(batched[0], batched[2])
    empty = mask.copy()
    empty[1] = 0  # a row with no tokens keeps zeros; the others do not move
    with_empty = model.encode(ids, empty)
    assert not with_empty[1].any() and np.array_equal(with_empty[[0, 2, 3]], batched[[0, 2, 3]])
    graph = model.encoder.run(None, {"input_ids": ids, "attention_mask": mask})[0]  # the graph on the whole batch
    assert not np.array_equal(graph[0], batched[0]), "per-tensor scales: the batch would move the numbers"
    with pytest.raises(ValueError, match="padded at the end"):
        model.encode(ids[:1], np.array([[0] + [1] * 39]))


def test_old_layout_directories_load_and_predict(legacy_int8):
    predictor = Predictor.from_dir(legacy_int8, samples=4, cache_size=0)
    assert predictor.model.layout == OPTIMUM
    values = predictor.sample_values(CODES)
    assert values.shape == (len(CODES), 4, 2) and np.all(np.isfinite(values))
    if (DEFAULT_DIR / "rlm_config.json").is_file():  # the shipped default: the layout its config names
        config = json.loads((DEFAULT_DIR / "rlm_config.json").read_text())
        assert Predictor.default(samples=1).model.layout == config.get("graph_layout", OPTIMUM)


def _edit_graph(model_dir, name: str, change) -> None:
    """`change(model)` on one graph of a model directory, saved with its hash in rlm_config.json."""
    path = model_dir / name
    model = onnx.load(str(path))
    change(model)
    onnx.save(model, str(path))
    config = json.loads((model_dir / "rlm_config.json").read_text())
    config["files"][name] = sha256_file(path)
    (model_dir / "rlm_config.json").write_text(json.dumps(config))


def test_an_unknown_layout_is_refused_with_the_file_named(model_copy):
    _edit_graph(model_copy, "decoder_with_past_model.onnx", lambda m: fast_graphs.set_layout(m, "from_the_future"))
    with pytest.raises(ModelError, match="from_the_future.*decoder_with_past_model.onnx|decoder_with_past_model.onnx.*from_the_future"):
        Predictor.from_dir(model_copy)


def test_self_attention_bias_table_is_exact_and_small(fp32_pair):
    """The decoders read their self-attention bias from a table: far fewer nodes than optimum's
    graphs, and every output the same floats for any batch, past length and new tokens."""
    fast_dir, optimum_dir = fp32_pair
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        original = onnx.load(str(optimum_dir / name))
        rewritten = fast_graphs.self_bias_table(onnx.load(str(optimum_dir / name)), positions=16)
        assert len(rewritten.graph.node) < len(original.graph.node) - 40, name
        assert not {"Range", "ScatterND", "Log"} & {n.op_type for n in rewritten.graph.node}, name
        meta = dict((p.key, p.value) for p in rewritten.metadata_props)
        assert meta[fast_graphs.SELF_BIAS_KEY] == "16"
        sessions = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                    for m in (original, rewritten)]
        rng = np.random.default_rng(0)
        for batch, past, new in ((1, 0, 1), (3, 0, 2), (2, 4, 1), (4, 9, 3), (1, 14, 2)):
            if past and "with_past" not in name:
                continue
            feeds = {}
            for inp in sessions[0].get_inputs():
                shape = {"input_ids": [batch, new], "encoder_attention_mask": [batch, 5],
                         "encoder_hidden_states": [batch, 5, inp.shape[-1]]}.get(inp.name)
                if shape is None:  # past_key_values.*: (batch, heads, length, head_dim)
                    shape = [batch, inp.shape[1], past if ".decoder." in inp.name else 5, inp.shape[3]]
                if inp.name == "input_ids":
                    feeds[inp.name] = rng.integers(6, 30, shape).astype(np.int64)
                elif inp.name == "encoder_attention_mask":
                    feeds[inp.name] = np.ones(shape, dtype=np.int64)
                else:
                    feeds[inp.name] = rng.standard_normal(shape).astype(np.float32)
            want, got = (s.run(None, feeds) for s in sessions)
            assert all(np.array_equal(a, b) for a, b in zip(want, got)), (name, batch, past, new)
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):  # the export applies it
        meta = dict((p.key, p.value) for p in onnx.load(str(fast_dir / name)).metadata_props)
        assert meta[fast_graphs.SELF_BIAS_KEY] == str(fast_graphs.SELF_BIAS_POSITIONS)


def test_encoder_position_bias_by_distance_is_exact(fp32_pair):
    """The encoder's position bias gathered by distance: no bucket arithmetic left, and the same
    hidden states as optimum's graph for any batch and length (past the 512 positions the table
    was read at, where the buckets have saturated)."""
    fast_dir, optimum_dir = fp32_pair
    original = onnx.load(str(optimum_dir / "encoder_model.onnx"))
    rewritten = fast_graphs.encoder_bias_gather(onnx.load(str(optimum_dir / "encoder_model.onnx")), positions=1024)
    assert not {"Log", "Where", "Range"} & {n.op_type for n in rewritten.graph.node}
    sessions = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                for m in (original, rewritten)]
    rng = np.random.default_rng(0)
    for batch, length in ((1, 1), (2, 9), (1, 300), (1, 700)):
        feeds = {"input_ids": rng.integers(5, 60, (batch, length)).astype(np.int64),
                 "attention_mask": np.ones((batch, length), dtype=np.int64)}
        feeds["attention_mask"][-1, length // 2:] = 0  # padding: the mask path is untouched
        want, got = (s.run(None, feeds)[0] for s in sessions)
        assert np.array_equal(want, got), (batch, length)
    meta = dict((p.key, p.value) for p in onnx.load(str(fast_dir / "encoder_model.onnx")).metadata_props)
    assert meta[fast_graphs.ENCODER_BIAS_KEY] == str(fast_graphs.ENCODER_BIAS_POSITIONS)



def test_the_encoder_bias_is_not_sliced_again_and_the_floats_stay(fp32_pair):
    """T5's slice of the position bias to its last S query rows is gone from the encoder (it was
    all of them), with the same hidden states as optimum's graph at any batch, length and mask."""
    fast_dir, optimum_dir = fp32_pair
    original = onnx.load(str(optimum_dir / "encoder_model.onnx"))
    rewritten = fast_graphs.encoder_bias_unsliced(
        fast_graphs.encoder_bias_gather(onnx.load(str(optimum_dir / "encoder_model.onnx")), positions=1024))

    def slices(model):
        return sum(n.op_type == "Slice" and "SelfAttention" in n.name for n in model.graph.node)

    assert slices(rewritten) == slices(original) - 1
    sessions = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                for m in (original, rewritten)]
    rng = np.random.default_rng(1)
    for batch, length in ((1, 1), (3, 17), (1, 700)):
        feeds = {"input_ids": rng.integers(5, 60, (batch, length)).astype(np.int64),
                 "attention_mask": np.ones((batch, length), dtype=np.int64)}
        feeds["attention_mask"][0, length // 3 + 1:] = 0
        want, got = (s.run(None, feeds)[0] for s in sessions)
        assert np.array_equal(want, got), (batch, length)
    meta = dict((p.key, p.value) for p in onnx.load(str(fast_dir / "encoder_model.onnx")).metadata_props)
    assert fast_graphs.ENCODER_UNSLICED_KEY in meta  # the export applies it

def test_the_encoder_bias_from_one_run_of_its_table_keeps_the_floats(fp32_pair):
    """The Toeplitz layout of the position bias (Tile, Slice, Reshape; no Gather, no Transpose)
    gives optimum's hidden states to the bit at any batch, length and mask, up to the last
    length the table covers."""
    fast_dir, optimum_dir = fp32_pair
    original = onnx.load(str(optimum_dir / "encoder_model.onnx"))
    rewritten = fast_graphs.encoder_bias_toeplitz(fast_graphs.encoder_bias_unsliced(
        fast_graphs.encoder_bias_gather(onnx.load(str(optimum_dir / "encoder_model.onnx")), positions=600)))
    assert not any(n.op_type in ("Gather", "Transpose") and "rlm_pos" in " ".join(n.input) for n in rewritten.graph.node)
    sessions = [ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
                for m in (original, rewritten)]
    rng = np.random.default_rng(2)
    for batch, length in ((1, 1), (1, 2), (3, 17), (1, 599), (1, 600)):
        feeds = {"input_ids": rng.integers(5, 60, (batch, length)).astype(np.int64),
                 "attention_mask": np.ones((batch, length), dtype=np.int64)}
        feeds["attention_mask"][-1, length // 2 + 1:] = 0
        want, got = (s.run(None, feeds)[0] for s in sessions)
        assert np.array_equal(want, got), (batch, length)
    meta = dict((p.key, p.value) for p in onnx.load(str(fast_dir / "encoder_model.onnx")).metadata_props)
    assert fast_graphs.ENCODER_TOEPLITZ_KEY in meta  # the export applies it


def test_a_read_longer_than_the_encoder_table_is_refused(model_copy):
    _edit_graph(model_copy, "encoder_model.onnx", lambda m: fast_graphs._set_meta(m, fast_graphs.ENCODER_BIAS_KEY, "100"))
    with pytest.raises(ModelError, match="reads at most 100 tokens"):
        Predictor.from_dir(model_copy)


def test_a_decode_longer_than_the_bias_table_is_refused(model_copy):
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        _edit_graph(model_copy, name, lambda m: fast_graphs._set_meta(m, fast_graphs.SELF_BIAS_KEY, "5"))
    with pytest.raises(ModelError, match="cover 5 positions"):
        Predictor.from_dir(model_copy)


def test_upgrade_brings_an_older_directory_to_the_bias_tables_with_the_same_samples(legacy_int8, tmp_path):
    import shutil

    from rlm_lsp.export import upgrade

    model = tmp_path / "model"
    shutil.copytree(legacy_int8, model)
    before = Predictor.from_dir(model, samples=8, cache_size=0).sample_values(CODES)
    assert upgrade.main([str(model)]) == 0
    after = Predictor.from_dir(model, samples=8, cache_size=0)
    assert after.model.max_positions == fast_graphs.SELF_BIAS_POSITIONS
    assert after.model.max_input_tokens == fast_graphs.ENCODER_BIAS_POSITIONS
    assert np.array_equal(before, after.sample_values(CODES))
    report = json.loads((model / "export_report.json").read_text())
    assert report["upgrades"][-1]["rewrites"] == ["encoder_bias_gather", "encoder_bias_toeplitz",
                                                  "encoder_bias_unsliced", "self_bias_table"]
    assert upgrade.upgrade(model) == []  # a second run changes nothing


def _per_row_copy(tiny_model_dir, fp32_pair, tmp_path):
    """The tiny model as rlm-export wrote it before session 26: its encoder quantized per row."""
    import shutil

    model = tmp_path / "model"
    shutil.copytree(tiny_model_dir, model)
    encoder = onnx.load(str(fp32_pair[0] / "encoder_model.onnx"))  # the same checkpoint's fast fp32 encoder
    fast_graphs.quantize_embedding(encoder)
    fast_graphs.int8_matmuls(encoder)  # what build_fast wrote for an int8 encoder before per_input_scales
    onnx.save(fast_graphs.pre_optimize(encoder), str(model / "encoder_model.onnx"))
    config = json.loads((model / "rlm_config.json").read_text())
    config["files"]["encoder_model.onnx"] = sha256_file(model / "encoder_model.onnx")
    (model / "rlm_config.json").write_text(json.dumps(config))
    return model


def test_upgrade_gives_a_per_row_encoder_its_per_input_scales_only_when_asked(tiny_model_dir, fp32_pair, tmp_path, capsys):
    """A fast int8 directory from before session 26 (its encoder quantized per row) gets the
    per-input encoder with --per-input-encoder, and the report says how far its numbers moved."""

    from rlm_lsp.export import upgrade

    model = _per_row_copy(tiny_model_dir, fp32_pair, tmp_path)
    assert not Predictor.from_dir(model).model.encodes_per_input
    assert upgrade.upgrade(model) == []  # not exact: never without being asked

    assert upgrade.main([str(model), "--per-input-encoder"]) == 0
    assert capsys.readouterr().out.strip().endswith("encoder_model.onnx")
    after = Predictor.from_dir(model, samples=8, cache_size=0)
    assert after.model.encodes_per_input and after.sample_values(CODES).shape == (len(CODES), 8, 2)
    entry = json.loads((model / "export_report.json").read_text())["upgrades"][-1]
    assert entry["rewrites"] == ["per_input_scales"]
    assert entry["fidelity_against_before"]["inputs"] == len(SAMPLE_CODES)
    assert upgrade.upgrade(model, per_input_encoder=True) == []  # a second run changes nothing


def test_an_upgrade_outside_the_fidelity_budget_leaves_every_file_as_it_was(tiny_model_dir, fp32_pair, tmp_path,
                                                                            monkeypatch, capsys):

    from rlm_lsp.export import parity, upgrade

    model = _per_row_copy(tiny_model_dir, fp32_pair, tmp_path)
    files = {p.name: p.read_bytes() for p in model.iterdir()}
    far = {"kl_mean": 0.5, "kl_budget": 0.01, "log10_shift": {"memory": {"median": 0.4}}, "shift_budget": 0.1,
           "within_budget": False}
    monkeypatch.setattr(parity, "fidelity", lambda *a, **k: far)
    assert upgrade.main([str(model), "--per-input-encoder"]) == 2
    err = capsys.readouterr().err.strip()
    assert "outside the exporter's fidelity budget" in err and "left as it was" in err and len(err.splitlines()) == 1
    assert {p.name: p.read_bytes() for p in model.iterdir()} == files
    assert not Predictor.from_dir(model).model.encodes_per_input  # and it loads


def test_upgrade_refuses_the_per_input_encoder_for_an_old_layout_in_one_line(legacy_int8, tmp_path, capsys):
    import shutil

    from rlm_lsp.export import upgrade

    model = tmp_path / "model"
    shutil.copytree(legacy_int8, model)
    files = {p.name: p.read_bytes() for p in model.iterdir()}
    assert upgrade.main([str(model), "--per-input-encoder"]) == 2
    err = capsys.readouterr().err.strip()
    assert "needs a fast int8 encoder" in err and len(err.splitlines()) == 1
    assert {p.name: p.read_bytes() for p in model.iterdir()} == files  # nothing written


def test_layout_option_is_checked(tiny_checkpoint, tmp_path):
    from rlm_lsp.export.onnx_export import ExportError

    with pytest.raises(ExportError, match="--layout"):
        export(tiny_checkpoint, tmp_path / "never", layout="merged")
    assert not (tmp_path / "never").exists()


def test_export_stage_bar_is_silent_off_a_terminal(capsys):
    """rlm-export shows its stages with an ETA on a terminal only; in CI and logs it says nothing."""
    from rlm_lsp.export.cli import _stages

    bar = _stages(3)
    assert bar.disable  # pytest's captured stderr is not a terminal
    bar.set_description("optimum export (fp32)")
    bar.update()
    bar.close()
    assert capsys.readouterr().err == ""


def test_reexport_keeps_the_model_card(tmp_path, monkeypatch):
    """A model directory's MODEL_CARD.md is written by hand; exporting into the directory again
    replaces the model files and keeps the card."""
    from rlm_lsp.export import cli

    out = tmp_path / "model"
    out.mkdir()
    (out / cli.CARD).write_text("# card\n")
    (out / "stale.onnx").write_text("old")

    def fake_export(checkpoint, fp32):
        fp32.mkdir(parents=True)

    monkeypatch.setattr(cli, "check_checkpoint", lambda checkpoint: {})
    monkeypatch.setattr(cli, "export_fp32", fake_export)
    monkeypatch.setattr(cli, "head_token_ids", lambda checkpoint: [1, 2])
    monkeypatch.setattr(cli, "narrow_head", lambda fp32, ids: None)
    monkeypatch.setattr(cli, "write_model_config", lambda d, *a: (d / "rlm_config.json").write_text("{}"))
    monkeypatch.setattr("rlm_lsp.export.parity.check_parity", lambda *a: {"inputs": 0, "token_exact": 0})
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "model.safetensors").write_bytes(b"w")
    cli.export(ckpt, out, int8=False, layout="optimum", model_version="t")
    assert (out / cli.CARD).read_text() == "# card\n"
    assert not (out / "stale.onnx").exists() and (out / "rlm_config.json").exists()


def test_fast_graphs_are_saved_optimised_and_smaller_than_the_old_ones(tiny_model_dir, legacy_int8):
    """Load time goes with node count: the fast layout's graphs are saved after onnxruntime's basic
    optimisations (doing them again changes nothing) and have fewer nodes than the old layout's."""
    for name in ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx"):
        model = onnx.load(str(tiny_model_dir / name))
        old = onnx.load(str(legacy_int8 / name))
        again = fast_graphs.pre_optimize(model)
        assert len(again.graph.node) == len(model.graph.node), name
        assert len(model.graph.node) < len(old.graph.node), name
        assert not any(n.op_type == "Constant" for n in model.graph.node), name
        # Standard ONNX, but for the encoder's fused int8 matmuls (`per_input_scales`): onnxruntime's
        # own com.microsoft.MatMulIntegerToFloat, the one contrib op, in the one runtime we ship.
        contrib = {n.op_type for n in model.graph.node if n.domain == "com.microsoft"}
        assert contrib == ({"MatMulIntegerToFloat"} if name == "encoder_model.onnx" else set()), name
        meta = dict((p.key, p.value) for p in model.metadata_props)
        assert meta[fast_graphs.LAYOUT_KEY] == SHARED_CROSS_KV
        if name == "decoder_with_past_model.onnx":  # later steps take forced tokens along
            assert meta[fast_graphs.PAST_STEP_TOKENS_KEY] == fast_graphs.MANY


def test_int8_matmul_rewrite_is_lean_and_keeps_rows_apart():
    """Four nodes per matmul and six per quantized input, any leading shape, rows independent."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(rng.standard_normal((16, n)).astype(np.float32), f"w{n}") for n in (8, 24)]
    nodes = [helper.make_node("MatMul", ["x", w.name], [f"y{i}"]) for i, w in enumerate(weights)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 16])],
                              [helper.make_tensor_value_info(f"y{i}", TensorProto.FLOAT, None) for i in range(2)],
                              weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 8
    fast_graphs.int8_matmuls(model)
    assert len(model.graph.node) == 6 + 4 * 2
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = rng.standard_normal((3, 5, 16)).astype(np.float32)
    x[1] *= 1000.0  # a loud neighbour
    x[2, 2] = 0.0  # an all-zero row
    y0, y1 = session.run(None, {"x": x})
    assert y0.shape == (3, 5, 8) and y1.shape == (3, 5, 24)
    assert np.all(y0[2, 2] == 0) and np.all(np.isfinite(y1))
    alone = session.run(None, {"x": x[:1]})
    assert np.array_equal(alone[0][0], y0[0]) and np.array_equal(alone[1][0], y1[0])
    exact = x.astype(np.float64) @ numpy_helper.to_array(weights[1])
    w = numpy_helper.to_array(weights[1])
    bound = np.linalg.norm(x, axis=-1, keepdims=True) * np.linalg.norm(w, axis=0)  # |x_row . w_col| at most
    assert np.all(np.abs(y1 - exact) <= 0.02 * bound)  # int8 error, relative to each row's own scale
    # The same integers as exact arithmetic: no int16 saturation in onnxruntime's AVX2 kernel
    # (7-bit weights), so every CPU gives these bits.
    scale = np.maximum(np.abs(x).max(axis=-1, keepdims=True), np.float32(1e-30)) * np.float32(1 / 127)
    codes = np.round(x / scale).astype(np.int64)
    col = np.maximum(np.abs(w).max(axis=0), 1e-30) / 63.0
    wq = np.round(w / col).astype(np.int64)
    assert np.abs(wq).max() == 63
    ints = (codes @ wq).astype(np.float32)
    assert np.array_equal(y1, ints * scale * col.astype(np.float32))


def test_sessions_open_in_order_with_their_own_graphs(tiny_model_dir):
    from rlm_lsp.runtime.sessions import open_sessions

    names = ["decoder_with_past_model.onnx", "encoder_model.onnx", "decoder_model.onnx"]
    sessions = open_sessions([tiny_model_dir / n for n in names], ["CPUExecutionProvider"])
    firsts = [{i.name for i in s.get_inputs()} for s in sessions]
    assert "past_key_values.0.decoder.key" in firsts[0] and firsts[1] == {"input_ids", "attention_mask"}
    assert "encoder_hidden_states" in firsts[2]


def test_decoders_keep_only_their_number_head_in_fp32(tiny_model_dir):
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        graph = onnx.load(str(tiny_model_dir / name)).graph
        weights = {i.name for i in graph.initializer}
        fp32 = [n for n in graph.node if n.op_type == "MatMul" and n.input[1] in weights]
        assert [n.output[0] for n in fp32] == ["logits"], name
        assert any(n.op_type == "MatMulInteger" for n in graph.node), name


def test_cutting_a_trailing_metric_leaves_the_others_numbers_unchanged(tiny_model_dir, model_copy):
    """`rlm-export --metrics memory` ships a prefix of the metrics: the model still reads the names
    it was trained with, and the kept metric's samples are the full model's, to the bit."""
    from rlm_lsp.export.config import keep_leading_metrics

    config = keep_leading_metrics(model_copy, ["memory"])
    assert [m["name"] for m in config["metrics"]] == ["memory"]
    assert config["cut_metrics"] == ["latency"]
    assert "{metrics}" not in config["input_template"] and "memory latency" in config["input_template"]
    code = "def f(n):\n    return [i * i for i in range(n)]\n"
    full, cut = (Predictor.from_dir(d, cache_size=0).predict([code])[0] for d in (tiny_model_dir, model_copy))
    assert list(cut) == ["memory"]
    assert cut["memory"].samples == full["memory"].samples and cut["memory"].value == full["memory"].value


def test_only_a_leading_part_of_the_metrics_can_be_kept(tiny_checkpoint, model_copy, tmp_path):
    from rlm_lsp.export.config import keep_leading_metrics
    from rlm_lsp.export.onnx_export import ExportError

    with pytest.raises(ValueError, match="leading part"):
        keep_leading_metrics(model_copy, ["latency"])
    with pytest.raises(ExportError, match="--metrics latency: must be a leading part of the checkpoint's memory,latency"):
        export(tiny_checkpoint, tmp_path / "never", metrics=["latency"])
    assert not (tmp_path / "never").exists()


def test_upgrade_of_a_missing_directory_says_so_in_one_line(tmp_path, capsys):
    from rlm_lsp.export import upgrade

    assert upgrade.main([str(tmp_path / "nope")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("upgrade: ") and "not found" in err and len(err.splitlines()) == 1
