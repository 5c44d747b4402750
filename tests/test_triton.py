"""Triton kernel latency: timing script (dry modes), input text helpers, the shipped kernel model."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from rlm_lsp.python import snippets
from rlm_lsp.triton import kernels
from training.triton import time_kernels

KERNEL_FILE = '''\
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    # one block per program
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, stride, n_cols, BLOCK: tl.constexpr):
    """Row softmax."""
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    tl.store(out_ptr + row * stride + cols, num / tl.sum(num, axis=0), mask=cols < n_cols)


def add(x, y):
    out = torch.empty_like(x)
    n = out.numel()
    grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
    add_kernel[grid](x, y, out, n, BLOCK_SIZE=1024)
    return out
'''


# -- timing script ---------------------------------------------------------------------------

def test_time_launch_adaptive_window_fake_clock():
    fake = time_kernels.FakeClock(seed=1)
    res = time_kernels.time_launch(fake.launch_for(1 << 20), fake.clock(), window_s=1.0, min_iters=20, trials=5)
    expected_ms = (5e-6 + (1 << 20) * 1e-9) * 1e3
    assert abs(res["ms"] - expected_ms) / expected_ms < 0.05
    assert res["iters"] >= 20 and res["iters"] * res["ms"] / 1e3 >= 0.95  # >= ~1 s per trial
    assert len(res["trials_ms"]) == 5 and res["compile_s"] >= 0.5
    tiny = time_kernels.time_launch(fake.launch_for(1), fake.clock(), window_s=1e-6)
    assert tiny["iters"] == 20  # never fewer than 20 iterations


def test_time_kernels_fake_appends_and_resumes(tmp_path):
    out = tmp_path / "times.jsonl"
    argv = ["--out", str(out), "--dry", "fake", "--kernels", "vector_add", "--sizes", "1024", "1048576"]
    first = time_kernels.run(time_kernels.parse_args(argv))
    assert len(first) == 2
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["key"] for r in rows] == ["vector_add:1024:fake", "vector_add:1048576:fake"]
    assert rows[0]["ms"] < rows[1]["ms"]
    assert time_kernels.run(time_kernels.parse_args(argv)) == []  # resumed: nothing new
    with open(out, "a") as fh:  # a crash mid-write leaves a cut line; the rest still counts
        fh.write('{"key": "vector_add:4096:fa')
    more = time_kernels.run(time_kernels.parse_args(argv[:-2] + ["1024", "4096"]))
    assert [r["key"] for r in more] == ["vector_add:4096:fake"]


@pytest.mark.skipif(importlib.util.find_spec("triton") is None, reason="triton not installed (CPU interpreter)")
def test_time_kernels_interpreter(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = tmp_path / "t.jsonl"
    rows = time_kernels.run(time_kernels.parse_args(
        ["--out", str(out), "--dry", "interpret", "--kernels", "vector_add", "--sizes", "4096",
         "--window-s", "0.01", "--min-iters", "20", "--trials", "2", "--warmup", "1"]))
    assert rows and rows[0]["ms"] > 0 and rows[0]["iters"] >= 20


# -- input text ------------------------------------------------------------------------------

def test_kernel_text_keeps_kernels_and_launcher_drops_comments():
    text = kernels.kernel_text(KERNEL_FILE)
    assert text.startswith("@triton.jit\ndef add_kernel")
    assert "def add(x, y)" in text and "softmax_kernel" in text
    assert "# one block" not in text and "Row softmax" not in text and "import torch" not in text


def test_shape_and_gpu_text():
    assert kernels.gpu_text("NVIDIA H100 80GB HBM3") == "H100"
    assert kernels.gpu_text("NVIDIA H100 PCIe") == "H100-PCIe"
    assert kernels.gpu_text("NVIDIA A100-SXM4-80GB") == "A100"
    assert kernels.shape_text(dims={"B": 8, "T": 2048, "V": 4096}, mode="forward") == \
        "B=8 T=2048 V=4096 | work 2^26 | forward"
    assert kernels.shape_text(shapes=[[4096, 4096], [4096], 3]) == "[4096,4096] [4096] 3 | work 2^24"
    assert kernels.parse_shape_hint("B=8 T=2048") == "B=8 T=2048 | work 2^14"
    assert kernels.parse_shape_hint("4096x4096") == "[4096,4096] | work 2^24"
    assert kernels.parse_shape_hint(1 << 20) == "n=1048576 | work 2^20"


def test_model_fields_work_bucket_token():
    assert kernels.model_fields("[16] [16] [16] [16] 1e-05 | work 2^4 | fp32") == \
        {"work": "<W4>", "shape": "[16] [16] [16] [16] | fp32"}
    assert kernels.model_fields("N=16384 M=4096 eps=1e-06 | work 2^26 | fp32 | backward") == \
        {"work": "<W26>", "shape": "N=16384 M=4096 | fp32 | backward"}
    assert kernels.model_fields("[256,8] [256] 0.125 | work 2^11 | fp16") == {"work": "<W11>", "shape": "[256,8] [256] | fp16"}
    assert kernels.model_fields("n=1 | work 2^99")["work"] == f"<W{kernels.WORK_MAX}>"  # clamped
    v2 = kernels.model_context(kernels.TEMPLATE_V2, "A100", "n=1048576 | work 2^20 | backward")
    assert v2 == {"gpu": "A100", "work": "<W20>", "shape": "n=1048576 | backward"}
    v1 = kernels.model_context(kernels.TEMPLATE_V1, "A100", "n=1048576 | work 2^20")
    assert v1 == {"gpu": "A100", "shape": "n=1048576 | work 2^20"}  # the first model's rendering


def test_model_fields_mode_token():
    """Template v3: the launch mode is one token and leaves the shape; no mode named -> forward."""
    assert kernels.model_fields("B=8 T=2048 | work 2^14 | bf16 | backward", with_mode=True) == \
        {"work": "<W14>", "mode": "<bwd>", "shape": "B=8 T=2048 | bf16"}
    assert kernels.model_fields("B=8 | work 2^3 | full", with_mode=True)["mode"] == "<fwdbwd>"
    v3 = kernels.model_context(kernels.TEMPLATE, "H100", "n=1048576 | work 2^20")
    assert v3 == {"gpu": "H100", "work": "<W20>", "mode": "<fwd>", "shape": "n=1048576"}
    assert set(kernels.MODE_TOKENS) == {"forward", "backward", "full"}


def test_family_split_is_by_family():
    data = pytest.importorskip("training.triton.data")
    if not (data.CORPUS / "tritonbench" / "perf_measurements.jsonl.gz").is_file():
        pytest.skip("triton corpus absent")
    rows = data.load_rows()
    train = {r["family"] for r in rows if r["split"] == "train"}
    test = {r["family"] for r in rows if r["split"] == "test"}
    assert test and train and not (train & test)
    assert all(r["source"] in {"tritonbench", "liger"} for r in rows)  # no T (PyTorch reference) rows
    assert data.family_of("megatron_cross_entropy") == data.family_of("cross_entropy2") == "cross_entropy"



def test_liger_tensor_shapes_follow_the_benchmark_scripts():
    from training.triton.liger_shapes import tensor_shapes

    rope = {"H": 512, "seq_len": 2048, "num_q_heads": 32, "num_kv_heads": 8}
    assert tensor_shapes("rope", rope)[:2] == [[1, 32, 2048, 16], [1, 8, 2048, 16]]  # head_dim = H // nq
    # embedding: indices (B, T) and the table (V, D), not V*B*T*D
    assert tensor_shapes("embedding", {"V": 1024, "B": 32, "T": 512, "D": 768}) == [[32, 512], [1024, 768]]
    assert kernels.shape_text(shapes=tensor_shapes("softmax", {"N": 128, "M": 2048})) == "[2048,128] | work 2^18"
    assert tensor_shapes("no_such_kernel", {"N": 1}) is None


def test_liger_work_tensors_keeps_rows_and_split():
    data = pytest.importorskip("training.triton.data")
    if not (data.CORPUS / "liger_kernel" / "all_benchmark_data.csv").is_file():
        pytest.skip("triton corpus absent")
    with pytest.raises(ValueError, match="liger_work"):
        data.liger_rows(liger_work="flops")
    old, new = data.load_rows(), data.load_rows(liger_work="tensors")
    assert [(r["id"], r["split"], r["ms"]) for r in old] == [(r["id"], r["split"], r["ms"]) for r in new]
    liger = [(a, b) for a, b in zip(old, new) if b["source"] == "liger"]
    assert liger and all(b["shapes"] for _, b in liger)  # every Liger kernel of the table has its tensors
    emb = next((a, b) for a, b in liger if a["op"] == "embedding")
    assert emb[1]["work_log2"] < emb[0]["work_log2"]  # V*B*T*D was counted as work before
    tb = [(a, b) for a, b in zip(old, new) if a["source"] == "tritonbench"]
    assert all(a["shape"] == b["shape"] for a, b in tb)  # TritonBench rows do not change


def test_evaluator_rebuilds_the_rows_a_model_was_trained_on(tmp_path):
    evaluate = pytest.importorskip("training.triton.evaluate")
    # no rlm_config.json (or a model from before these fields): the old rows, no validation families
    assert evaluate.trained_rows(tmp_path) == {"liger_work": "dims", "val_frac": 0.0}
    (tmp_path / "rlm_config.json").write_text(json.dumps({"training_data": {"liger_work": "tensors", "val_frac": 0.15}}))
    assert evaluate.trained_rows(tmp_path) == {"liger_work": "tensors", "val_frac": 0.15}


def test_validation_families_come_out_of_training_families():
    data = pytest.importorskip("training.triton.data")
    if not (data.CORPUS / "tritonbench" / "perf_measurements.jsonl.gz").is_file():
        pytest.skip("triton corpus absent")
    plain, carved = data.load_rows(), data.load_rows(val_frac=0.15)
    fams = {split: {r["family"] for r in carved if r["split"] == split} for split in ("train", "val", "test")}
    assert fams["val"] and not (fams["val"] & fams["train"]) and not (fams["val"] & fams["test"])
    assert fams["test"] == {r["family"] for r in plain if r["split"] == "test"}  # the test split does not move
    val_rows = sum(r["split"] == "val" for r in carved)
    assert 0.1 <= val_rows / sum(r["split"] != "test" for r in plain) <= 0.3


# -- the shipped kernel model ----------------------------------------------------------------

needs_model = pytest.mark.skipif(not kernels.KernelModel.available(), reason="no shipped kernel model")


@needs_model
def test_shipped_kernel_model_predicts_a_file_of_kernels():
    model = kernels.KernelModel.load()
    assert model.predictor.config.metric_names == ["kernel_latency"]
    assert model.default_gpu == model.predictor.config.training_data["default_gpu"]
    snips = snippets.extract(KERNEL_FILE)
    preds = model.predict_kernels(snips)
    assert len(preds) == len([s for s in snips if s.kind == "triton_kernel"]) == 2  # add_kernel, softmax_kernel
    for p in preds:
        assert p.metric == "kernel_latency" and p.unit == "ms" and p.value > 0 and p.low <= p.value <= p.high
        assert p.gpu == model.default_gpu and p.shape_assumed and p.shape == model.default_shape
    hinted = model.predict_kernels(snips, gpu="NVIDIA H100 80GB HBM3", shape_hint={"n": 1 << 26})
    assert hinted[0].gpu == "H100" and not hinted[0].shape_assumed and "work 2^26" in hinted[0].shape
    assert model.predict_kernels(snips) == preds  # deterministic
    if "{work}" in model.predictor.config.input_template:  # v2: the work size is one token, and it matters
        tokens = model.predictor.tokenizer.encode(model.predictor.render(
            kernels.kernel_text(snips[0].code), kernels.LANGUAGE, model.inputs({"gpu": "A100", "shape": preds[0].shape})
        )).tokens
        assert "<W20>" in tokens and "work" not in "".join(tokens[:12])
        small = model.predict_kernels(snips[:1], shape_hint={"n": 1 << 12})[0].value
        large = model.predict_kernels(snips[:1], shape_hint={"n": 1 << 30})[0].value
        assert large > small
    size = sum(f.stat().st_size for f in Path(kernels.MODEL_DIR).iterdir())
    assert size < 10 * 1024 * 1024


@needs_model
def test_router_sends_kernels_to_the_kernel_model(tiny_model_dir):
    from rlm_lsp.runtime.model import Model, Router
    from rlm_lsp.runtime.predictor import Predictor

    base = Predictor.from_dir(tiny_model_dir, device="cpu", samples=4)
    both = kernels.with_kernels(base, gpu="RTX 4090")
    assert isinstance(both, Router) and not hasattr(type(both), "__getattr__")
    assert all(isinstance(m, Model) for m in (both, base, both.model("kernel")))
    assert both.device == base.device and both.model("function") is base
    assert both.config.metric_names == ["memory", "latency", "kernel_latency"]
    assert "RTX4090" in both.config.metric("kernel_latency").definition
    assert "assuming work size" in both.config.metric("kernel_latency").definition
    snips = snippets.extract(KERNEL_FILE)
    codes = [s.code for s in snips]  # add_kernel, softmax_kernel, add
    out = both.predict(codes)
    assert set(out[0]) == set(out[1]) == {"kernel_latency"} and set(out[2]) == {"memory", "latency"}
    only = both.predict(codes, metrics=["kernel_latency"])
    assert only[0] == out[0] and only[2] == {}
    assert both.context["gpu_note"] == "" and "Note:" not in both.config.metric("kernel_latency").definition
    new = kernels.with_kernels(base, gpu="NVIDIA H200")  # a GPU the model never saw: said, not hidden
    assert new.context["gpu"] == "H200" and "not among the GPUs the model was trained on" in new.context["gpu_note"]
    assert "A100" in new.context["gpu_note"] and new.context["gpu_note"] in new.config.metric("kernel_latency").definition
    assert both.read_limit(codes[0]) is None and both.read_limit(codes[2]) == base.read_limit(codes[2])
    assert both.cached(codes[0]) == out[0] and both.cached(codes[2]) == out[2]
    assert out[0]["kernel_latency"].gpu == "RTX4090" and out[0]["kernel_latency"].shape_assumed
    alone = kernels.with_kernels(None)  # no Python model: kernels still predicted
    assert alone.predict(codes)[2] == {} and "kernel_latency" in alone.predict(codes)[0]
    assert alone.config.languages == ("python", "triton")


def test_work_line_projection_keeps_size_order():
    """training.triton.train --work-line: the <W k> rows end on one straight line, in size order."""
    torch = pytest.importorskip("torch")
    train = pytest.importorskip("training.triton.train")

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(60, 8)

        def get_input_embeddings(self):
            return self.emb

    model, ids = Model(), torch.arange(5, 54)
    other = model.emb.weight[:5].detach().clone()
    train.project_work_line(model, ids)
    rows = model.emb.weight[ids].detach()
    steps = rows[1:] - rows[:-1]
    assert torch.allclose(steps, steps[0].expand_as(steps), atol=1e-5)  # equal steps: a line
    assert torch.equal(model.emb.weight[:5].detach(), other)  # other tokens untouched


def test_export_parity_samples_carry_the_kernel_context():
    """rlm_lsp.export.parity renders (code, context) samples through the model's template, so the Triton
    exporter's parity inputs hold real work tokens; a plain string gets the stand-in word."""
    from rlm_lsp.export.parity import sample_inputs
    from rlm_lsp.runtime.predictor import Predictor

    pred = Predictor.from_dir(kernels.MODEL_DIR, device="cpu", samples=1)
    ctx = kernels.model_context(pred.config.input_template, "A100", kernels.parse_shape_hint(1 << 20))
    with_ctx, plain = sample_inputs(pred, [(KERNEL_FILE, ctx), KERNEL_FILE])
    assert pred.tokenizer.token_to_id("<W20>") in with_ctx
    assert pred.tokenizer.token_to_id("<W20>") not in plain
    assert "parity" in pred.tokenizer.decode(plain)


def test_kernel_census_counts_the_whole_kernel():
    """Template v4's {kops} line: counts over the whole kernel text, so what the 192-token cut
    drops is still summarised; derived at render time, the caller gives only GPU and shape."""
    from rlm_lsp.python.code_census import kernel_census
    from rlm_lsp.runtime.template import extra_fields, render

    code = ("@triton.jit\ndef k(x, y, n, BLOCK: tl.constexpr):\n    pid = tl.program_id(0)\n"
            "    acc = tl.zeros((BLOCK,), tl.float32)\n    for i in range(0, n, BLOCK):\n"
            "        acc += tl.exp(tl.load(x + i))\n    tl.store(y + pid, tl.sum(acc, 0))\n")
    assert kernel_census(code) == "jit 1 load 1 store 1 loop 1 exp 1 reduce 1 grid 1 lines 6"
    assert kernel_census("") == "lines 0"
    assert kernel_census("tl.load(p)\n" * 500).startswith("load 99 ")  # capped
    assert "kops" not in extra_fields(kernels.TEMPLATE_V4)
    ctx = kernels.model_context(kernels.TEMPLATE_V4, "H100", "[4096] | work 2^12 | fp32")
    text = render(kernels.TEMPLATE_V4, [kernels.METRIC], kernels.LANGUAGE, code, **ctx)
    assert text.startswith("<metrics> kernel_latency <lang> triton <W12> <fwd> <gpu> H100 <shape> [4096] | fp32 "
                           "<ops> jit 1 load 1 store 1 loop 1 exp 1 reduce 1 grid 1 lines 6 <code>\n@triton.jit")


def test_kernel_model_targets_are_multiplied_back_to_ms():
    """A model trained with `--target per-work` predicts ms per 2^20 elements of work, one with
    `--target roofline` ms over c0 + c1 * 2^k; every path that hands out a kernel number
    (predict_codes, predict_kernels, the routing predictor, its cache) gives ms."""
    import dataclasses

    from rlm_lsp.runtime.model_dir import MetricSpec
    from rlm_lsp.runtime.predictor import Prediction

    @dataclasses.dataclass(frozen=True)
    class Config:  # the fields KernelModel and the Router read
        training_data: dict
        input_template: str = kernels.TEMPLATE_V4
        metrics: tuple = (MetricSpec("kernel_latency", "ms", "d"),)
        languages: tuple = (kernels.LANGUAGE,)
        model_version: str = "stub"

        @property
        def metric_names(self):
            return [m.name for m in self.metrics]

        def metric(self, name):
            return self.metrics[0]

    class Stub:  # the predictor: always "2.0 per 2^20 work", whatever the input
        def __init__(self, target, **extra):
            self.config = Config({"target": target, "default_gpu": "A100", "default_shape": "n=1048576 | work 2^20",
                                  **extra})
            self.seen = {}

        def predict(self, texts, language, context):
            out = [{"kernel_latency": Prediction("kernel_latency", 2.0, 1.0, 4.0, "ms")} for _ in texts]
            self.seen.update({(t, context["work"]): o for t, o in zip(texts, out)})
            return out

        def cached(self, text, language, context):
            return self.seen.get((text, context["work"]))

    assert kernels.work_scale("n=4096 | work 2^12 | fp32") == 2.0 ** -8
    assert kernels.work_scale("no work part") == 1.0  # the bucket of an unknown size is <W20>
    per_work = kernels.KernelModel(Stub(kernels.PER_WORK))
    plain = kernels.KernelModel(Stub("ms"))
    snips = snippets.extract(KERNEL_FILE)
    for shape, k in [({"n": 1 << 12}, 12), ({"n": 1 << 26}, 26), (None, 20)]:
        scaled, f = per_work.predict_kernels(snips, shape_hint=shape)[0], 2.0 ** (k - 20)
        assert (scaled.value, scaled.low, scaled.high) == (2.0 * f, 1.0 * f, 4.0 * f)
        assert plain.predict_kernels(snips, shape_hint=shape)[0].value == 2.0
        assert per_work.predict_codes([snips[0].code], shape_hint=shape)[0].value == scaled.value
    from rlm_lsp.runtime.model import Router

    routed = Router({"kernel": per_work.with_target(shape_hint={"n": 1 << 24})})
    first = routed.predict([snips[0].code])[0]["kernel_latency"]
    assert first.value == 2.0 * 16 and routed.cached(snips[0].code)["kernel_latency"] == first
    small = {"gpu": "A100", "shape": "n=4096 | work 2^12 | fp32"}  # one context per code: each its own
    each = routed.predict([snips[0].code] * 3, context=[small, None, small])
    assert each == [routed.predict([snips[0].code], context=small)[0], {"kernel_latency": first}] + \
        [routed.predict([snips[0].code], context=small)[0]]
    assert each[0]["kernel_latency"].value == 2.0 * 2.0 ** -8

    curve = {"c0_ms": 0.02, "c1_ms": 1e-8}
    roofline = kernels.KernelModel(Stub(kernels.ROOFLINE, roofline=curve))
    for k in (10, 20, 30):
        got = roofline.predict_kernels(snips, shape_hint={"n": 1 << k})[0]
        assert got.value == pytest.approx(2.0 * (0.02 + 1e-8 * 2 ** k))
    assert kernels.roofline_ms(curve, "n=8 | work 2^3") == pytest.approx(0.02 + 8e-8)
    with pytest.raises(kernels.ModelError, match="target"):  # a newer model's target: a clear error
        kernels.KernelModel(Stub("ms_per_flop"))
    with pytest.raises(kernels.ModelError, match="c0_ms"):
        kernels.KernelModel(Stub(kernels.ROOFLINE))


def test_fit_roofline_recovers_a_known_curve():
    """training.triton.train --target roofline: the curve c0 + c1 * 2^k fitted to rows that lie on
    one comes back, and the runtime's roofline_ms reads it for any shape line."""
    train = pytest.importorskip("training.triton.train")
    rows = [{"shape": f"n={2 ** k} | work 2^{k} | fp32", "ms": (0.02 + 3e-8 * 2 ** k) * jitter}
            for k in range(8, 31) for jitter in (0.97, 1.0, 1.03)]
    curve = train.fit_roofline(rows)
    assert curve["c0_ms"] == pytest.approx(0.02, rel=0.05) and curve["c1_ms"] == pytest.approx(3e-8, rel=0.05)
    assert curve["rows"] == len(rows)
    assert kernels.roofline_ms(curve, "n=1 | work 2^0") == pytest.approx(curve["c0_ms"] + curve["c1_ms"])
