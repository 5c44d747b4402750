"""A broken rlm_config.json gets one line naming the key, never a traceback or a silent change
(issue #52, items 9 and 11): each case through `rlm predict --model DIR`."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from rlm_lsp.app import cli
from rlm_lsp.runtime.model_dir import DEFAULT_DIR


def model_dir(tmp_path: Path) -> Path:
    """The shipped model's files linked, its config copied (to be broken)."""
    out = tmp_path / "model"
    out.mkdir()
    for src in DEFAULT_DIR.iterdir():
        if src.name == "rlm_config.json":
            shutil.copy(src, out / src.name)
        else:
            (out / src.name).symlink_to(src)
    return out


def predict(tmp_path: Path, model: Path, capsys) -> tuple[int, str, str]:
    code = tmp_path / "a.py"
    code.write_text("def f(n):\n    return [0] * n\n", encoding="utf-8")
    rc = cli.main(["predict", "--model", str(model), str(code)])
    out, err = capsys.readouterr()
    return rc, out, err


BROKEN = {
    "files": ("abc", "files: expected an object, got 'abc'"),
    "number_format": ("P10", "number_format: expected an object, got 'P10'"),
    "number_tokens": ([], "number_tokens: expected an object, got []"),
    "pad_token_id": ("z", "pad_token_id: expected a whole number of at least 0, got 'z'"),
    "languages": ("python", "languages: expected a non-empty list"),
    "max_input_tokens": (0, "max_input_tokens: expected a whole number of at least 1, got 0"),
    "decoder_start_token_id": (1e9, "decoder_start_token_id: expected a whole number of at least 0, got 1000000000.0"),
    "input_template": (123, "input_template: expected a non-empty string, got 123"),
}
MORE = [
    ("languages", [], "languages: expected a non-empty list"),
    ("languages", [1], "languages: expected a non-empty list"),
    ("max_input_tokens", -1, "max_input_tokens: expected a whole number of at least 1, got -1"),
    ("max_input_tokens", True, "max_input_tokens: expected a whole number of at least 1, got True"),
    ("input_template", "", "input_template: expected a non-empty string, got ''"),
    ("input_template", "<code> {cod}", "input_template: has no {code} placeholder"),
    ("input_template", "<code> {code", "input_template: not a format string"),
    ("input_template", "{0} {code}", "input_template: placeholder {0} is not a name"),
    ("decoder_start_token_id", 10**9, "decoder_start_token_id 1000000000 is not a token id of"),
    ("pad_token_id", 10**9, "pad_token_id 1000000000 is not a token id of"),
    ("files", {"encoder_model.onnx": 1}, "files['encoder_model.onnx']: expected a sha256"),
    ("metrics", [{"name": "memory"}], "metrics[0].unit: expected a string, got None"),
    ("model_version", None, "model_version: expected a non-empty string, got None"),
]
CASES = [(key, value, words) for key, (value, words) in BROKEN.items()] + MORE


@pytest.mark.parametrize(("key", "value", "words"), CASES, ids=[f"{k}={v!r}" for k, v, _ in CASES])
def test_a_wrong_config_value_is_one_line_naming_the_key(tmp_path, capsys, key, value, words):
    model = model_dir(tmp_path)
    raw = json.loads((model / "rlm_config.json").read_text(encoding="utf-8"))
    raw[key] = value
    (model / "rlm_config.json").write_text(json.dumps(raw), encoding="utf-8")
    rc, out, err = predict(tmp_path, model, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("rlm: model error: ") and words in err, err


def test_the_unbroken_copy_predicts(tmp_path, capsys):
    rc, out, err = predict(tmp_path, model_dir(tmp_path), capsys)
    assert rc == 0 and "f" in out and err == ""


@pytest.mark.parametrize(("victim", "donor", "words"), [
    ("encoder_model.onnx", "decoder_model.onnx", "encoder_model.onnx is not the encoder graph: it lacks input "
                                                 "'attention_mask'"),
    ("decoder_model.onnx", "encoder_model.onnx", "decoder_model.onnx is not the decoder graph: it lacks input "
                                                 "'encoder_hidden_states'"),
    ("decoder_with_past_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx is not the decoder with "
                                                           "past graph: it lacks input 'past_key_values.'"),
])
def test_a_graph_swapped_for_another_with_its_hash_updated_is_named(tmp_path, capsys, victim, donor, words):
    model = model_dir(tmp_path)
    (model / victim).unlink()
    shutil.copy(DEFAULT_DIR / donor, model / victim)
    raw = json.loads((model / "rlm_config.json").read_text(encoding="utf-8"))
    raw["files"][victim] = hashlib.sha256((model / victim).read_bytes()).hexdigest()
    (model / "rlm_config.json").write_text(json.dumps(raw), encoding="utf-8")
    rc, out, err = predict(tmp_path, model, capsys)
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and words in err, err
