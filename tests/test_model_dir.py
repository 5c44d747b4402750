"""A missing, corrupt or mismatched model gives one clear error that names the file."""

import json

import pytest

from rlm_lsp import ModelConfig, ModelError, Predictor


def test_valid_dir_loads(tiny_model_dir):
    config = ModelConfig.load(tiny_model_dir)
    assert config.metric_names == ["memory", "latency"]
    assert config.max_input_tokens == 256
    assert config.metric("memory").unit == "bytes"
    assert config.training_data == {} or isinstance(config.training_data, dict)


def test_missing_directory(tmp_path):
    with pytest.raises(ModelError, match="model directory not found: .*nope"):
        Predictor.from_dir(tmp_path / "nope")


@pytest.mark.parametrize("name", ["encoder_model.onnx", "decoder_with_past_model.onnx", "tokenizer.json",
                                  "rlm_config.json"])
def test_missing_file_is_named(model_copy, name):
    (model_copy / name).unlink()
    with pytest.raises(ModelError, match=f"model file missing: .*{name}"):
        Predictor.from_dir(model_copy)


def test_corrupt_onnx_is_caught_by_hash(model_copy):
    path = model_copy / "decoder_model.onnx"
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="sha256 mismatch.*decoder_model.onnx"):
        Predictor.from_dir(model_copy)


def test_truncated_onnx_without_hash_check_still_gives_model_error(model_copy):
    (model_copy / "encoder_model.onnx").write_bytes(b"not a model")
    config = ModelConfig.load(model_copy, verify_hashes=False)
    with pytest.raises(ModelError, match="ONNX model cannot be loaded"):
        Predictor(config)


def test_invalid_json_config(model_copy):
    (model_copy / "rlm_config.json").write_text("{ nope")
    with pytest.raises(ModelError, match="not valid JSON: .*rlm_config.json"):
        Predictor.from_dir(model_copy)


def test_config_missing_key(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    del raw["number_tokens"]
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="rlm_config.json is invalid.*number_tokens"):
        Predictor.from_dir(model_copy)


def test_unsupported_number_format(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["number_format"]["mantissa_digits"] = 3
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="unsupported number_format"):
        Predictor.from_dir(model_copy)


def test_tokenizer_mismatch(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["number_tokens"]["<+>"] += 1
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="tokenizer does not match.*<\\+>"):
        Predictor.from_dir(model_copy)


def test_exported_decoders_have_a_number_only_head(tiny_model_dir):
    import onnxruntime as ort

    config = ModelConfig.load(tiny_model_dir)
    assert config.logits_token_ids == tuple(sorted(config.number_tokens.values()))
    for name in ("decoder_model.onnx", "decoder_with_past_model.onnx"):
        session = ort.InferenceSession(str(tiny_model_dir / name), providers=["CPUExecutionProvider"])
        (logits,) = [o for o in session.get_outputs() if o.name == "logits"]
        assert logits.shape[-1] == len(config.number_tokens) == 33


def test_logits_ids_must_cover_the_number_tokens(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["logits_token_ids"] = raw["logits_token_ids"][:-1]
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="logits_token_ids lacks number token ids"):
        ModelConfig.load(model_copy, verify_hashes=False)


def test_logits_width_must_match_the_config(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["logits_token_ids"] = raw["logits_token_ids"] + [max(raw["logits_token_ids"]) + 1]
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="34 logits_token_ids"):
        Predictor(ModelConfig.load(model_copy, verify_hashes=False))


def test_sampling_temperature_is_read_and_checked(model_copy, tiny_model_dir):
    assert ModelConfig.load(tiny_model_dir).temperature == 1.0  # the exporter's default
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["sampling_temperature"] = 1.25
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    assert ModelConfig.load(model_copy, verify_hashes=False).temperature == 1.25
    raw["sampling_temperature"] = 0
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="sampling_temperature 0.0 outside"):
        ModelConfig.load(model_copy, verify_hashes=False)


def test_exponent_first_models_decode_in_their_order(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["number_format"]["exponent_first"] = True
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    predictor = Predictor.from_dir(model_copy)
    assert predictor.config.number_format.exponent_first
    exp_ids = {predictor.config.number_tokens[t] for t in ("<E-10>", "<E0>", "<E10>")}
    assert exp_ids <= set(predictor.allowed_ids[1].tolist())  # the exponent follows the sign
    (result,) = predictor.predict(["def f(n):\n    return n * 2\n"])  # every output still parses
    assert all(p.low <= p.value <= p.high and p.value >= 0 for p in result.values())


def test_number_format_order_must_be_a_boolean(model_copy):
    raw = json.loads((model_copy / "rlm_config.json").read_text())
    raw["number_format"]["exponent_first"] = "yes"
    (model_copy / "rlm_config.json").write_text(json.dumps(raw))
    with pytest.raises(ModelError, match="exponent_first must be true or false"):
        Predictor.from_dir(model_copy)


def test_one_error_hierarchy_with_the_old_names_kept():
    """#26.5: every error is an RlmError, from one module; the old import paths give the same classes."""
    from rlm_lsp.export import onnx_export
    from rlm_lsp.gate import gate, git
    from rlm_lsp.networks import graph_text, nas
    from rlm_lsp.policy import project_config
    from rlm_lsp.runtime import errors, model_dir, predictor

    assert model_dir.ModelError is errors.ModelError is ModelError
    assert predictor.InputError is errors.InputError and graph_text.GraphError is errors.GraphError
    assert nas.UnknownDevice is errors.UnknownDevice and project_config.ConfigError is errors.ConfigError
    assert git.GitError is errors.GitError and onnx_export.ExportError is errors.ExportError
    assert issubclass(gate.ModelUnavailable, errors.ModelError)
    for name in errors.__all__:
        assert issubclass(getattr(errors, name), errors.RlmError), name
    for name in ("InputError", "FileProblem", "GraphError", "UnknownDevice"):  # `except ValueError` still catches
        assert issubclass(getattr(errors, name), ValueError)
    with pytest.raises(errors.RlmError, match="model directory not found"):
        model_dir.ModelConfig.load("/nonexistent/model")
