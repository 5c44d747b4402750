"""Parity: PyTorch constrained greedy decode vs the ONNX runtime's, token for token."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from rlm_lsp.runtime import decode
from rlm_lsp.runtime.prediction import is_growth, metric_prediction
from rlm_lsp.runtime.predictor import Predictor


def torch_greedy_tokens(model, token_ids: list[int], allowed: Sequence[np.ndarray], start_id: int) -> list[int]:
    """Constrained greedy decode in PyTorch with its own KV cache, one input at a time."""
    import torch

    model.eval()
    with torch.no_grad():
        ids = torch.tensor([token_ids])
        mask = torch.ones_like(ids)
        encoder_outputs = model.get_encoder()(input_ids=ids, attention_mask=mask)
        past = None
        token = torch.tensor([[start_id]])
        out = []
        for choices in allowed:
            result = model(encoder_outputs=encoder_outputs, attention_mask=mask, decoder_input_ids=token,
                           past_key_values=past, use_cache=True)
            past = result.past_key_values
            logits = result.logits[0, -1, torch.as_tensor(choices)]
            best = int(choices[int(logits.argmax())])
            out.append(best)
            token = torch.tensor([[best]])
    return out


def onnx_greedy_tokens(predictor: Predictor, token_ids: list[int]) -> list[int]:
    ids = np.array([token_ids], dtype=np.int64)
    mask = np.ones_like(ids)
    hidden = predictor.model.encode(ids, mask)
    start = np.array([predictor.config.decoder_start_token_id], dtype=np.int64)
    tokens = decode.constrained_decode(predictor.model.stepper(hidden, mask), start, predictor.allowed_ids,
                                       merge_forced_start=predictor.model.merges_forced_start,
                                       merge_forced_later=predictor.model.merges_forced_later)
    return [int(t) for t in tokens[0]]


Sample = str | tuple[str, Mapping[str, str] | None]


def sample_inputs(predictor: Predictor, samples: Sequence[Sample]) -> list[list[int]]:
    """Parity samples -> encoder token ids. A sample is a code string, or (code, context) for a
    template with extra fields ({device}, {gpu}, {work}...). A plain string under such a template
    gets a fixed stand-in word in each field: parity is about the graphs, not the input's meaning."""
    from rlm_lsp.runtime.template import extra_fields

    stand_in = {name: "parity" for name in extra_fields(predictor.config.input_template)}
    language = predictor.config.languages[0]
    out = []
    for sample in samples:
        code, context = (sample, None) if isinstance(sample, str) else sample
        ids = predictor.token_ids(code, language, dict(context) if context else stand_in)
        out.append(ids[: predictor.config.max_input_tokens])
    return out


def check_parity(checkpoint: Path, model_dir: Path, samples: Sequence[Sample]) -> dict:
    """PyTorch vs ONNX constrained greedy decode. Returns {'inputs': n, 'token_exact': k, 'mismatches': [...]}."""
    from transformers import T5ForConditionalGeneration

    model = T5ForConditionalGeneration.from_pretrained(checkpoint)
    predictor = Predictor.from_dir(model_dir, device="cpu", samples=1)
    exact, mismatches = 0, []
    for sample, ids in zip(samples, sample_inputs(predictor, samples)):
        a = torch_greedy_tokens(model, ids, predictor.allowed_ids, predictor.config.decoder_start_token_id)
        b = onnx_greedy_tokens(predictor, ids)
        if a == b:
            exact += 1
        else:
            code = sample if isinstance(sample, str) else sample[0]
            mismatches.append({"code": code[:80], "torch": a, "onnx": b})
    return {"inputs": len(samples), "token_exact": exact, "mismatches": mismatches[:5]}


def onnx_agreement(reference_dir: Path, model_dir: Path, samples: Sequence[Sample]) -> dict:
    """Two exports of one checkpoint (fp32 and int8): on how many samples their greedy decodes agree."""
    a, b = (Predictor.from_dir(d, device="cpu", samples=1) for d in (reference_dir, model_dir))
    same = sum(onnx_greedy_tokens(a, ids) == onnx_greedy_tokens(b, ids) for ids in sample_inputs(a, samples))
    return {"inputs": len(samples), "token_exact": int(same)}


KL_BUDGET = 0.01  # mean KL(reference || model) per decoding position, nats
# Median |log10(model / reference)| of the point estimate at N=16. One of 16 samples moving by one
# exponent moves the geometric mean by 1/16 decade (0.0625), and any perturbation moves a few samples
# lying on a token boundary, so the budget allows about one such move on the median input.
SHIFT_BUDGET = 0.1


def fidelity(reference_dir: Path, model_dir: Path, samples: Sequence[Sample], n: int = 16) -> dict:
    """How far `model_dir` (int8) strays from `reference_dir` (fp32) on the parity samples.

    KL: at each position of the reference's greedy decode (both models fed the same tokens), the
    KL divergence of the model's distribution over the allowed tokens from the reference's.
    Value shift: |log10| of the ratio of the point estimates at `n` samples, per metric (a growth
    exponent, `<base>_growth`: the absolute difference of the two growths, same budget).
    """
    ref, new = (Predictor.from_dir(d, device="cpu", samples=n, cache_size=0) for d in (reference_dir, model_dir))
    kls = []
    for ids in sample_inputs(ref, samples):
        path = onnx_greedy_tokens(ref, ids)
        a, b = (_forced_log_probs(p, ids, path) for p in (ref, new))
        kls += [float(np.sum(np.exp(x) * (x - y))) for x, y in zip(a, b)]
    codes = [s if isinstance(s, str) else s[0] for s in samples]
    context = next((dict(s[1]) for s in samples if not isinstance(s, str) and s[1]), None)
    from rlm_lsp.runtime.template import extra_fields

    context = context or {name: "parity" for name in extra_fields(ref.config.input_template)} or None
    before, after = ref.predict(codes, context=context), new.predict(codes, context=context)
    shift = {}
    for metric in ref.config.metric_names:
        pairs = [(metric_prediction(x, metric).value, metric_prediction(y, metric).value) for x, y in zip(before, after)]
        if is_growth(metric):  # an exponent moves by a difference
            logs = [abs((b or 0.0) - (a or 0.0)) for a, b in pairs]
        else:
            logs = [abs(np.log10(max(b, 1e-30) / max(a, 1e-30))) for a, b in pairs]
        shift[metric] = {"median": float(np.median(logs)), "max": float(np.max(logs))}
    kl_mean = float(np.mean(kls))
    within = kl_mean <= KL_BUDGET and all(s["median"] <= SHIFT_BUDGET for s in shift.values())
    return {"inputs": len(codes), "kl_mean": kl_mean, "kl_max": float(np.max(kls)), "kl_budget": KL_BUDGET,
            "log10_shift": shift, "shift_budget": SHIFT_BUDGET, "samples": n, "within_budget": bool(within)}


def _forced_log_probs(predictor: Predictor, token_ids: list[int], path: list[int]) -> list[np.ndarray]:
    """Log-probabilities over the allowed tokens at each position, feeding `path`."""
    ids = np.array([token_ids], dtype=np.int64)
    mask = np.ones_like(ids)
    step = predictor.model.stepper(predictor.model.encode(ids, mask), mask)
    token, out = predictor.config.decoder_start_token_id, []
    for allowed, chosen in zip(predictor.allowed_ids, path):
        logits = step(np.array([[token]], dtype=np.int64))[0, allowed].astype(np.float64)
        out.append(logits - np.logaddexp.reduce(logits))
        token = chosen
    return out
