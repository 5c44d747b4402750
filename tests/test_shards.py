"""training.learning.shards: a checkpoint survives the GPU machine's 16 MiB return limit (float16 shards, or
float32 ones that restore it exactly)."""

import json

import pytest

torch = pytest.importorskip("torch")


def _logits(ckpt):
    from training.learning.rlm_model import load_checkpoint

    model, tok, _ = load_checkpoint(ckpt)
    model.eval()
    ids = torch.tensor([tok.encode("def f(xs): return sorted(xs)").ids])
    dec = torch.zeros((1, 3), dtype=torch.long)
    with torch.no_grad():
        return model(input_ids=ids, decoder_input_ids=dec).logits


def test_pack_splits_under_limit_and_unpack_restores(tiny_checkpoint, tmp_path):
    from training.learning.shards import pack, unpack

    paths = pack(tiny_checkpoint, tmp_path / "out" / "ck", max_mb=0.05)
    assert len(paths) > 1, "a limit below the model size must give several shards"
    assert all(p.stat().st_size <= 0.05 * 2**20 + 64 * 1024 for p in paths)  # + safetensors header
    side = json.loads((tmp_path / "out" / "ck.json").read_text())
    assert side["shards"] == len(paths) and side["rlm_meta"]["model_version"].startswith("tiny-test")

    back = unpack(tmp_path / "out" / "ck", tmp_path / "back")
    a, b = _logits(tiny_checkpoint), _logits(back)
    assert a.shape == b.shape
    assert torch.allclose(a, b, atol=2e-2, rtol=1e-2)  # float16 weights: close, not equal
    assert (back / "tokenizer.json").read_text() == (tiny_checkpoint / "tokenizer.json").read_text()


def test_pack_refuses_a_checkpoint_without_embeddings(tmp_path):
    from safetensors.torch import save_file

    from training.learning.shards import pack

    (tmp_path / "ck").mkdir()
    save_file({"x": torch.zeros(2)}, str(tmp_path / "ck" / "model.safetensors"))
    with pytest.raises(SystemExit, match="shared.weight"):
        pack(tmp_path / "ck", tmp_path / "out")


def test_float32_shards_restore_the_weights_exactly(tiny_checkpoint, tmp_path):
    from training.learning.shards import pack, unpack

    paths = pack(tiny_checkpoint, tmp_path / "ck", max_mb=0.05, float32=True)
    assert len(paths) > 1
    back = unpack(tmp_path / "ck", tmp_path / "back")
    assert torch.equal(_logits(tiny_checkpoint), _logits(back))
