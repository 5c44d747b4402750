"""Per-prediction latency: ONNX fp32, ONNX int8 and PyTorch eager, same checkpoint, one thread.

    python bench/predict.py [--checkpoint DIR] [--repeats 30]

Inputs are ~300-token functions. N=1 is greedy; N=16 samples share one encoder pass.
PyTorch runs the same constrained decode two ways: with transformers' own KV cache and no
padding (the stronger baseline), and as the reference library does it (input padded to 512 or
2,048 tokens, no KV cache: the decoder re-reads its prefix at every step).
Writes the `predict` section of docs/benchmarks.md.
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

from bench.report import machine, write_section  # noqa: E402


def make_inputs(n: int) -> list[str]:
    out = []
    for i in range(n):
        body = "".join(f"        total_{j} = sum(x * {j + i} for x in values if x % {j + 2} == 0)\n"
                       f"        seen_{j} = {{v: k for k, v in enumerate(values[:{j + i + 3}])}}\n" for j in range(5))
        out.append(f"class Solution:\n    def solve_{i}(self, values: list[int]) -> int:\n{body}"
                   f"        return total_0 + len(seen_{i % 5})\n")
    return out


def torch_predict(model, ids: list[int], allowed, start_id: int, n: int, seed: int):
    import torch

    with torch.no_grad():
        x = torch.tensor([ids])
        mask = torch.ones_like(x)
        enc = model.get_encoder()(input_ids=x, attention_mask=mask)
        hidden = enc.last_hidden_state.repeat_interleave(n, 0)
        mask = mask.repeat_interleave(n, 0)
        from transformers.modeling_outputs import BaseModelOutput

        enc = BaseModelOutput(last_hidden_state=hidden)
        token = torch.full((n, 1), start_id)
        past, rng = None, np.random.default_rng(seed)
        for choices in allowed:
            out = model(encoder_outputs=enc, attention_mask=mask, decoder_input_ids=token, past_key_values=past,
                        use_cache=True)
            past = out.past_key_values
            token = _pick(out.logits[:, -1], choices, n, rng)


def reference_style_predict(model, ids: list[int], allowed, start_id: int, n: int, seed: int, pad_to: int):
    """How the PyTorch reference library decodes: input padded to a fixed length, no KV cache
    (the decoder re-reads its whole prefix at every step); the encoder still runs once."""
    import torch

    with torch.no_grad():
        x = torch.zeros((1, max(pad_to, len(ids))), dtype=torch.long)
        x[0, : len(ids)] = torch.tensor(ids)
        mask = (torch.arange(x.shape[1]) < len(ids)).long()[None]
        hidden = model.get_encoder()(input_ids=x, attention_mask=mask).last_hidden_state
        from transformers.modeling_outputs import BaseModelOutput

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


def time_it(fn, repeats: int) -> list[float]:
    fn()  # warm-up
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoint", type=Path, help="default: a random-weight checkpoint of the shipped size")
    parser.add_argument("--size", default="base")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args(argv)

    import torch
    from transformers import T5ForConditionalGeneration

    from rlm_lsp.export.cli import export
    from rlm_lsp import Predictor

    torch.set_num_threads(1)
    tmp = Path(tempfile.mkdtemp())
    checkpoint = args.checkpoint or _random_checkpoint(tmp / "ckpt", args.size)
    export(checkpoint, tmp / "int8", int8=True, fp32_out=tmp / "fp32")
    model = T5ForConditionalGeneration.from_pretrained(checkpoint).eval()
    codes = make_inputs(args.repeats + 1)
    rows, summary = [], {}
    for n in (1, 16):
        results = {}
        for name in ("fp32", "int8"):
            predictor = Predictor.from_dir(tmp / name, device="cpu", threads=1, samples=n, cache_size=0)
            ids_len = len(predictor.token_ids(codes[0]))
            it = iter(codes * 2)
            results[f"ONNX {name}"] = time_it(lambda: predictor.predict([next(it)]), args.repeats)
        allowed, start = predictor.allowed_ids, predictor.config.decoder_start_token_id
        token_lists = [predictor.token_ids(c) for c in codes]
        it = iter(token_lists * 2)
        results["PyTorch eager"] = time_it(lambda: torch_predict(model, next(it), allowed, start, n, 0), args.repeats)
        for pad in (512, 2048):
            it = iter(token_lists * 2)
            results[f"PyTorch, reference style (pad {pad}, no KV cache)"] = time_it(
                lambda: reference_style_predict(model, next(it), allowed, start, n, 0, pad),
                max(3, args.repeats // (3 if pad == 512 else 6)))
        base = statistics.median(results["PyTorch eager"])
        ref = statistics.median(results["PyTorch, reference style (pad 512, no KV cache)"])
        summary[n] = {name: statistics.median(times) for name, times in results.items()}
        for name, times in results.items():
            p50, p95 = statistics.median(times), float(np.percentile(times, 95))
            rows.append(f"| {n} | {name} | {len(times)} | {p50:.1f} | {p95:.1f} | {base / p50:.1f}× | {ref / p50:.1f}× |")
            print(f"N={n:2d} {name:44s} p50 {p50:8.1f} ms  p95 {p95:8.1f} ms  "
                  f"vs PyTorch eager {base / p50:5.1f}×  vs reference style 512 {ref / p50:5.1f}×")
    params = sum(p.numel() for p in model.parameters()) / 1e6
    md = (f"## Prediction latency (`bench/predict.py`)\n\n"
          f"Command: `python bench/predict.py{' --checkpoint ' + str(args.checkpoint) if args.checkpoint else ''}"
          f" --repeats {args.repeats}`. Machine: {machine()}, one thread everywhere.\n"
          f"Model: {params:.1f}M parameters ({'checkpoint ' + checkpoint.name if args.checkpoint else 'random weights, shipped architecture ' + args.size}); "
          f"inputs of {ids_len} tokens, no padding; {args.repeats} predictions each, after one warm-up; cache off.\n\n"
          "PyTorch eager uses transformers' KV cache and no padding (our strongest PyTorch baseline); "
          "the reference-style rows decode as the PyTorch reference library does (fixed padding, "
          "no KV cache) with fewer repeats, since they are slow.\n\n"
          "| samples N | runtime | runs | p50 ms | p95 ms | speed-up vs PyTorch eager | vs reference style, pad 512 |\n"
          "|---|---|---|---|---|---|---|\n"
          + "\n".join(rows) + "\n\n" + reading(summary))
    if not args.no_write:
        write_section("predict", md)
    return 0


def reading(summary: dict) -> str:
    """One paragraph on the N=16 ratios, from the medians just measured."""
    t = summary[16]
    int8 = t["ONNX int8"]
    eager = t["PyTorch eager"] / int8
    ref512 = t["PyTorch, reference style (pad 512, no KV cache)"] / int8
    ref2048 = t["PyTorch, reference style (pad 2048, no KV cache)"] / int8
    verdict = "meets" if eager >= 10 else "misses"
    return (f"Reading: at N=16, ONNX int8 is {eager:.1f}× faster than PyTorch eager with a KV cache, so it "
            f"{verdict} the 10× target against that baseline; against the same checkpoint decoded the "
            f"way the reference library does it, it is {ref512:.0f}× (padding 512) and {ref2048:.0f}× "
            f"(padding 2,048) faster. What the runtime saves: the encoder runs once per input, the first "
            f"decoder step once per input (not once per sample), the decoder reuses its KV cache, and its "
            f"head computes 33 number-token logits instead of the whole vocabulary.\n")


def _random_checkpoint(path: Path, size: str) -> Path:
    import torch

    from tests.conftest import METRICS
    from training import rlm_model

    torch.manual_seed(0)
    texts = [c.replace("values", f"v{i}") for i, c in enumerate(make_inputs(400))]
    tok = rlm_model.train_tokenizer(texts, vocab_size=8000)
    return rlm_model.save_checkpoint(rlm_model.build_model(tok, size), tok, path, rlm_model.default_meta(METRICS))


if __name__ == "__main__":
    raise SystemExit(main())
