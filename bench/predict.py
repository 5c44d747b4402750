"""Per-prediction latency, stage by stage, against the machine's own matmul floor (issue 28).

    python bench/predict.py [--checkpoint DIR] [--repeats 30] [--eager] [--reference]

One checkpoint, exported twice (`rlm-export`): the fast layout (the default: int8 MatMulInteger
with per-row scales in the decoders and per-input ones in the encoder, shared cross-attention K/V,
trimmed embeddings) and the older optimum layout
(weight-only MatMulNBits, K/V copied per sample). One thread; a ~300-token function at N=16 samples
and N=1 (greedy), and a 1,024-token one at N=16 read whole (`CASES`); the runtimes run in turn on
the same input (interleaved) and each figure is the median of `--repeats`. For each: the end-to-end `predict()`, and its stages (preprocess, tokenize,
encoder, first decoder step, the KV-cached steps, numpy bookkeeping = the rest).

The floor: the model's matmul work (counted from the architecture and the input length) at the
peaks measured here, on one thread, of onnxruntime's int8 kernel (MatMulInteger, uint8 x int8,
cache-resident) and of its fp32 MatMul (for the attention products, which stay fp32).
`--eager` adds PyTorch eager with a KV cache on the same weights; `--reference` the reference
library's way (input padded to 512, no KV cache). Writes the `predict` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import add_write_flag, machine, publish  # noqa: E402

# This thread's CPU time, not wall time: with one intra-op thread onnxruntime runs on the calling
# thread, and on a shared machine wall time mostly measures the other jobs (`--clock wall` for it).
CLOCKS = {"cpu": time.thread_time, "wall": time.perf_counter}
CLOCK_WORDS = {"cpu": "the calling thread's CPU time (onnxruntime and PyTorch run on it)", "wall": "wall time"}
clock = time.thread_time
STAGES = ("preprocess", "tokenize", "encoder", "first step", "KV steps", "bookkeeping")
MODEL_STAGES = ("encoder", "first step", "KV steps")


def make_inputs(n: int, blocks: int = 5) -> list[str]:
    """n different functions of about 60 * blocks tokens (blocks=5: ~280 tokens)."""
    out = []
    for i in range(n):
        body = "".join(f"        total_{j} = sum(x * {j + i} for x in values if x % {j + 2} == 0)\n"
                       f"        seen_{j} = {{v: k for k, v in enumerate(values[:{j + i + 3}])}}\n"
                       for j in range(blocks))
        out.append(f"class Solution:\n    def solve_{i}(self, values: list[int]) -> int:\n{body}"
                   f"        return total_0 + len(seen_{i % blocks})\n")
    return out


# -- the work and the floor ---------------------------------------------------

def matmul_work(arch: dict, tokens: int, n: int, positions: int, head: int) -> dict[str, float]:
    """Multiply-adds x 2 of one prediction: {'int8': weight matmuls, 'fp32': attention products}.

    Encoder once per input over `tokens`; the first decoder step once per input (its cross K/V
    over `tokens` included); then `positions - 1` steps of `n` rows each."""
    d, inner = arch["d_model"], arch["num_heads"] * arch["d_kv"]
    ff = arch["d_ff"] * (2 if arch.get("is_gated_act", True) else 1) + arch["d_ff"]  # wi_0, wi_1, wo
    enc_w = arch["num_layers"] * tokens * (4 * d * inner + d * ff)
    enc_a = arch["num_layers"] * 2 * tokens * tokens * inner
    layers = arch["num_decoder_layers"]
    step_w = layers * (4 * d * inner + 2 * d * inner + d * ff) + d * head  # self q,k,v,o; cross q,o; ffn; head
    first_w = step_w + layers * 2 * tokens * d * inner  # cross k, v over the encoder output
    rows = n * (positions - 1)
    att = sum(layers * 2 * inner * (tokens + t + 1) for t in range(positions))  # cross + self, per row
    return {"int8": 2.0 * (enc_w + first_w + rows * step_w), "fp32": 2.0 * (enc_a + att * n)}


def measured_peaks(repeats: int = 30) -> dict[str, float]:
    """GOP/s of onnxruntime's int8 MatMulInteger and fp32 MatMul on one thread, operands in cache."""
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    m = k = n = 256
    rng = np.random.default_rng(0)
    out = {}
    for kind in ("int8", "fp32"):
        if kind == "int8":
            a = rng.integers(0, 255, (m, k)).astype(np.uint8)
            w = numpy_helper.from_array(rng.integers(-127, 127, (k, n)).astype(np.int8), "w")
            node = helper.make_node("MatMulInteger", ["a", "w"], ["y"])
            types = (TensorProto.UINT8, TensorProto.INT32)
        else:
            a = rng.standard_normal((m, k)).astype(np.float32)
            w = numpy_helper.from_array(rng.standard_normal((k, n)).astype(np.float32), "w")
            node = helper.make_node("MatMul", ["a", "w"], ["y"])
            types = (TensorProto.FLOAT, TensorProto.FLOAT)
        graph = helper.make_graph([node], "peak", [helper.make_tensor_value_info("a", types[0], [m, k])],
                                  [helper.make_tensor_value_info("y", types[1], [m, n])], [w])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
        model.ir_version = 8
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
        best = float("inf")
        for _ in range(repeats):  # the best of many: the peak, not the typical
            t = clock()
            for _ in range(20):
                session.run(None, {"a": a})
            best = min(best, (clock() - t) / 20)
        out[kind] = 2.0 * m * k * n / best / 1e9
    return out


# -- one prediction, stage by stage ------------------------------------------

def staged(predictor, code: str) -> dict[str, float]:
    """Milliseconds per stage of one uncached prediction, through the runtime's own objects."""
    from rlm_lsp.runtime import decode

    p = predictor
    t0 = clock()
    text = p.render(code)
    tp = clock()
    ids = p.tokenizer.encode(text).ids[: p.config.max_input_tokens]
    t1 = clock()
    x = np.array([ids], dtype=np.int64)
    mask = np.ones_like(x)
    hidden = p.model.encode(x, mask)
    t2 = clock()
    inner = p.model.stepper(hidden, mask, repeat=p.samples)
    spent: list[float] = []

    def step(tokens):
        s = clock()
        out = inner(tokens)
        spent.append(clock() - s)
        return out

    start = np.full(p.samples, p.config.decoder_start_token_id, dtype=np.int64)
    uniforms = p._shared_uniforms() if p.samples > 1 else None
    observe, expected = p._smoother.observer()
    tokens = decode.constrained_decode(step, start, p.allowed_ids, uniforms, temperature=p.config.temperature,
                                       merge_forced_start=p.model.merges_forced_start,
                                       merge_forced_later=p.model.merges_forced_later, observe=observe,
                                       feed_forced=p.config.number_format.feed_forced)
    values = p._reader.read(tokens)
    p._aggregate(values, p._smoother.smooth(values, tokens, expected))
    t3 = clock()
    ms = 1000.0
    return {"preprocess": (tp - t0) * ms, "tokenize": (t1 - tp) * ms, "encoder": (t2 - t1) * ms, "first step": spent[0] * ms,
            "KV steps": sum(spent[1:]) * ms, "bookkeeping": (t3 - t2 - sum(spent)) * ms}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, help="default: a random-weight checkpoint of size --size")
    parser.add_argument("--size", default="small")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--models", type=Path, help="reuse DIR/fast, DIR/optimum (and DIR/fp32) exported before (exported there when missing)")
    parser.add_argument("--clock", choices=CLOCKS, default="cpu",
                        help="cpu (default): this thread's CPU time; wall: elapsed time")
    parser.add_argument("--eager", action="store_true", help="also PyTorch eager with a KV cache")
    parser.add_argument("--reference", action="store_true", help="also the reference style (pad 512, no KV cache)")
    add_write_flag(parser)
    args = parser.parse_args(argv)
    global clock
    clock = CLOCKS[args.clock]

    from rlm_lsp import Predictor

    root = args.models or Path(tempfile.mkdtemp())
    checkpoint = args.checkpoint or (None if args.models else _random_checkpoint(root / "ckpt", args.size))
    if not (root / "fast").is_dir():  # --models DIR: exported there the first time, reused after
        from rlm_lsp.export.cli import export

        export(checkpoint, root / "fast", fp32_out=root / "fp32")
        export(checkpoint, root / "optimum", layout="optimum")
    runtimes = {"fast int8": root / "fast", "optimum int8": root / "optimum"}
    if (root / "fp32").is_dir():
        runtimes["optimum fp32"] = root / "fp32"
    loads = _load_times(runtimes, Predictor)
    colds = _cold_starts(runtimes)
    peaks = measured_peaks()
    rows, summary, stage_rows = [], {}, []
    for case in CASES:
        n, read = case.samples, case.read
        predictors = {name: _predictor(Predictor, d, n, read) for name, d in runtimes.items()}
        first = predictors["fast int8"]
        codes = make_inputs(args.repeats + 1, _blocks_for(first, case.tokens))
        arch = first.config.raw["architecture"] | _hf_extra(checkpoint)
        tokens = len(first.token_ids(codes[0])[: first.config.max_input_tokens])
        fed = [a for a in first.allowed_ids if first.config.number_format.feed_forced or len(a) > 1]  # P10S: chosen only
        work = matmul_work(arch, tokens, n, len(fed), len(first.config.logits_token_ids or ()) or 33)
        floor = (work["int8"] / peaks["int8"] + work["fp32"] / peaks["fp32"]) / 1e6  # ms
        timings = {name: [] for name in predictors}
        stages = {name: {s: [] for s in STAGES} for name in predictors}
        for runtime in predictors.values():
            runtime.predict([codes[-1]])  # warm-up
        extra = _torch_runners(checkpoint, first, n, args) if (args.eager or args.reference) and checkpoint else {}
        for name in extra:
            timings[name] = []
        for i in range(args.repeats):  # interleaved: every runtime on input i, then input i + 1
            for name, p in predictors.items():
                t = clock()
                p.predict([codes[i]])
                timings[name].append((clock() - t) * 1000)
                for stage, ms in staged(p, codes[i]).items():
                    stages[name][stage].append(ms)
            for name, run in extra.items():
                if i < max(3, args.repeats // 5) or name == "PyTorch eager":
                    t = clock()
                    run(first.token_ids(codes[i])[: first.config.max_input_tokens])
                    timings[name].append((clock() - t) * 1000)
        med = {name: statistics.median(t) for name, t in timings.items()}
        summary[case.key] = {"median": med, "floor": floor, "work": work, "tokens": tokens,
                             "model": {k: sum(statistics.median(stages[k][s]) for s in MODEL_STAGES) for k in predictors}}
        base = med["optimum int8"]
        for name, t in timings.items():
            model_ms = summary[case.key]["model"].get(name)
            rows.append(f"| {n} | {tokens} | {name} | {len(t)} | {med[name]:.1f} | {float(np.percentile(t, 95)):.1f} | "
                        f"{base / med[name]:.2f}× | " + (f"{model_ms:.1f} | {floor:.1f} | {model_ms / floor:.1f}× |"
                                                         if model_ms else "– | – | – |"))
        for name in predictors:
            cells = " | ".join(f"{statistics.median(stages[name][s]):.2f}" for s in STAGES)
            stage_rows.append(f"| {n} | {tokens} | {name} | {cells} |")
        print(f"N={n}, {tokens} tokens: " + ", ".join(f"{k} {v:.1f} ms" for k, v in med.items())
              + f"; floor {floor:.1f} ms", flush=True)
    md = _markdown(args, checkpoint, peaks, rows, stage_rows, summary, root, loads, colds)
    publish("predict", md, write=not args.no_write)
    return 0


class Case:
    """One row group: `samples` per prediction, inputs of at least `tokens` tokens (with this
    model's tokenizer), and `read`: tokens the model reads (None: its own `max_input_tokens`)."""

    def __init__(self, key: str, samples: int, tokens: int, read: int | None = None):
        self.key, self.samples, self.tokens, self.read = key, samples, tokens, read


# The three targets: N=16 and N=1 on a ~300-token function, and N=16 on a 1,024-token one
# read whole (the models here read 384 tokens at most, head and tail; the 1,024 row lifts that
# limit in the runtime to time the model on the whole input).
CASES = (Case("16", 16, 270), Case("1", 1, 270), Case("16 long", 16, 1024, read=1024))


def _blocks_for(predictor, tokens: int) -> int:
    """The fewest `make_inputs` blocks whose functions have at least `tokens` tokens."""
    for blocks in range(1, 200):
        if min(len(predictor.token_ids(code)) for code in make_inputs(3, blocks)) >= tokens:
            return blocks
    raise ValueError(f"no input of {tokens} tokens")


def _predictor(predictor_cls, path: Path, samples: int, read: int | None):
    from dataclasses import replace

    from rlm_lsp.runtime.model_dir import ModelConfig

    config = ModelConfig.load(path)
    if read is not None:
        config = replace(config, max_input_tokens=read)
    return predictor_cls(config, device="cpu", threads=1, samples=samples, cache_size=0)


def _cold_starts(runtimes: dict, repeats: int = 5) -> dict[str, float]:
    """{runtime: median ms of a whole `rlm predict --model DIR examples/demo.py` process, wall
    clock}: interpreter, imports, model load and three functions at N=16; runtimes interleaved."""
    import subprocess

    times: dict[str, list[float]] = {name: [] for name in runtimes}
    for _ in range(repeats):
        for name, path in runtimes.items():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", "predict", "--model", str(path),
                            str(ROOT / "examples" / "demo.py")], check=True, capture_output=True, cwd=ROOT)
            times[name].append((time.perf_counter() - t) * 1000)
    return {name: statistics.median(t) for name, t in times.items()}


def _load_times(runtimes: dict, predictor_cls, repeats: int = 5) -> dict[str, tuple[float, float]]:
    """{runtime: (median ms to load the model directory, wall clock; size in MB)}, loads interleaved."""
    times = {name: [] for name in runtimes}
    for _ in range(repeats):
        for name, path in runtimes.items():
            t = time.perf_counter()
            predictor_cls.from_dir(path, device="cpu", threads=1)
            times[name].append((time.perf_counter() - t) * 1000)
    size = {name: sum(f.stat().st_size for f in Path(path).iterdir() if f.is_file()) / 1e6
            for name, path in runtimes.items()}
    return {name: (statistics.median(t), size[name]) for name, t in times.items()}


def _markdown(args, checkpoint, peaks, rows, stage_rows, summary, root, loads, colds) -> str:
    import os

    load = os.getloadavg()[0]
    s16, s1, long = summary["16"], summary["1"], summary["16 long"]
    fast16, fast1, fast_long = (s["median"]["fast int8"] for s in (s16, s1, long))
    return (
        "## Prediction latency (`bench/predict.py`)\n\n"
        f"Command: `python bench/predict.py{' --checkpoint ' + str(checkpoint) if args.checkpoint else ''}"
        f"{' --models ' + str(root) if args.models else ''} --repeats {args.repeats}"
        f"{' --eager' if args.eager else ''}{' --reference' if args.reference else ''}"
        f"{' --clock wall' if args.clock == 'wall' else ''}`. "
        f"Machine: {machine()}, {os.cpu_count()} cores shared with other jobs (load average {load:.1f} at the end); "
        f"one thread everywhere; times are {CLOCK_WORDS[args.clock]}.\n"
        f"Inputs: different functions of {s16['tokens']} and {long['tokens']} tokens, no padding; runtimes "
        f"interleaved on the same input; medians of {args.repeats}; cache off. The {long['tokens']}-token row "
        "lifts the model's 384-token read limit (head and tail) so the model reads the whole input. "
        "Fast = `rlm-export CHECKPOINT OUT` (the default layout); optimum = `rlm-export --layout optimum` "
        "(the layout of the models shipped before). The PyTorch rows run the checkpoint itself (eager with a "
        "KV cache; the reference style: input padded to 512, no KV cache).\n\n"
        f"Measured single-thread peaks here: int8 MatMulInteger {peaks['int8']:.0f} GOP/s, fp32 MatMul "
        f"{peaks['fp32']:.0f} GFLOP/s. Matmul work of one prediction: N=16 {s16['work']['int8'] / 1e9:.2f} GOP int8 + "
        f"{s16['work']['fp32'] / 1e9:.2f} GFLOP fp32; N=1 {s1['work']['int8'] / 1e9:.2f} + {s1['work']['fp32'] / 1e9:.2f}; "
        f"N=16 at {long['tokens']} tokens {long['work']['int8'] / 1e9:.2f} + {long['work']['fp32'] / 1e9:.2f}. "
        "Floor = that work at those peaks. Model time = encoder + first step + KV steps.\n\n"
        "| N | tokens | runtime | runs | p50 ms | p95 ms | speed-up vs optimum int8 | model ms | floor ms | model / floor |\n"
        "|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        "Model directory size and load time (`Predictor.from_dir`, wall clock, median of 5): "
        + "; ".join(f"{name} {mb:.1f} MB, {ms:.0f} ms" for name, (ms, mb) in loads.items()) + ". "
        "Cold start of `rlm predict --model DIR examples/demo.py` (the whole process: interpreter, imports, "
        "load, three functions at N=16; wall clock, median of 5): "
        + "; ".join(f"{name} {ms:.0f} ms" for name, ms in colds.items()) + ".\n\n"
        "Stages (medians, ms):\n\n| N | tokens | runtime | " + " | ".join(STAGES) + " |\n|---|---|---|"
        + "---|" * len(STAGES) + "\n" + "\n".join(stage_rows) + "\n\n"
        f"Reading: the fast layout takes {fast16:.1f} ms at N=16 ({s16['median']['optimum int8'] / fast16:.2f}× the "
        f"optimum layout), {fast1:.1f} ms at N=1 and {fast_long:.1f} ms at N=16 on {long['tokens']} tokens; its model "
        f"time is {s16['model']['fast int8'] / s16['floor']:.1f}× the floor at N=16. On this shared 2-core machine every "
        "figure carries the load of other jobs; the ratios, taken in one interleaved run, are the reliable part.\n")


def _hf_extra(checkpoint: Path | None) -> dict:
    """d_kv, d_ff, gating: not in rlm_config.json's architecture summary, read from the checkpoint."""
    import json

    defaults = {"d_kv": 64, "d_ff": 1024, "is_gated_act": True}
    if checkpoint is None or not (checkpoint / "config.json").is_file():
        return defaults
    config = json.loads((checkpoint / "config.json").read_text())
    return {"d_kv": config["d_kv"], "d_ff": config["d_ff"],
            "is_gated_act": config.get("is_gated_act", "gated" in config.get("feed_forward_proj", ""))}


def _torch_runners(checkpoint: Path, predictor, n: int, args) -> dict:
    import torch
    from transformers import T5ForConditionalGeneration

    torch.set_num_threads(1)
    model = T5ForConditionalGeneration.from_pretrained(checkpoint).eval()
    allowed, start = predictor.allowed_ids, predictor.config.decoder_start_token_id
    out = {}
    if args.eager:
        out["PyTorch eager"] = lambda ids: torch_predict(model, ids, allowed, start, n, 0)
    if args.reference:
        out["PyTorch, reference style (pad 512, no KV cache)"] = (
            lambda ids: reference_style_predict(model, ids, allowed, start, n, 0, 512))
    return out


def torch_predict(model, ids: list[int], allowed, start_id: int, n: int, seed: int):
    import torch
    from transformers.modeling_outputs import BaseModelOutput

    with torch.no_grad():
        x = torch.tensor([ids])
        mask = torch.ones_like(x)
        hidden = model.get_encoder()(input_ids=x, attention_mask=mask).last_hidden_state
        enc = BaseModelOutput(last_hidden_state=hidden.repeat_interleave(n, 0))
        mask = mask.repeat_interleave(n, 0)
        token = torch.full((n, 1), start_id)
        past, rng = None, np.random.default_rng(seed)
        for choices in allowed:
            out = model(encoder_outputs=enc, attention_mask=mask, decoder_input_ids=token, past_key_values=past,
                        use_cache=True)
            past = out.past_key_values
            token = _pick(out.logits[:, -1], choices, n, rng)


def reference_style_predict(model, ids: list[int], allowed, start_id: int, n: int, seed: int, pad_to: int):
    """The PyTorch reference library's way: input padded to a fixed length, no KV cache (the decoder
    re-reads its whole prefix at every step); the encoder still runs once."""
    import torch
    from transformers.modeling_outputs import BaseModelOutput

    with torch.no_grad():
        x = torch.zeros((1, max(pad_to, len(ids))), dtype=torch.long)
        x[0, : len(ids)] = torch.tensor(ids)
        mask = (torch.arange(x.shape[1]) < len(ids)).long()[None]
        hidden = model.get_encoder()(input_ids=x, attention_mask=mask).last_hidden_state
        enc = BaseModelOutput(last_hidden_state=hidden.repeat_interleave(n, 0))
        mask = mask.repeat_interleave(n, 0)
        tokens, rng = torch.full((n, 1), start_id), np.random.default_rng(seed)
        for choices in allowed:
            out = model(encoder_outputs=enc, attention_mask=mask, decoder_input_ids=tokens, use_cache=False)
            tokens = torch.cat([tokens, _pick(out.logits[:, -1], choices, n, rng)], dim=1)


def _pick(logits, choices, n: int, rng):
    """(n, V) logits -> (n, 1) next tokens among `choices`: greedy for n=1, else one inverse-CDF draw per row."""
    import torch

    choices = torch.as_tensor(choices)
    logits = logits[:, choices]
    if n == 1:
        pick = logits.argmax(-1)
    else:
        probs = torch.softmax(logits.double(), -1).numpy()
        pick = torch.as_tensor((probs.cumsum(-1) < rng.random(n)[:, None]).sum(-1).clip(0, len(choices) - 1))
    return choices[pick][:, None]


def _random_checkpoint(path: Path, size: str) -> Path:
    import torch

    from tests.conftest import METRICS
    from training.learning import rlm_model

    torch.manual_seed(0)
    texts = [c.replace("values", f"v{i}") for i, c in enumerate(make_inputs(400))]
    tok = rlm_model.train_tokenizer(texts, vocab_size=8000)
    return rlm_model.save_checkpoint(rlm_model.build_model(tok, size), tok, path, rlm_model.default_meta(METRICS))


if __name__ == "__main__":
    raise SystemExit(main())
