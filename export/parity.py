"""Parity: PyTorch constrained greedy decode vs the ONNX runtime's, token for token."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import numpy as np

from rlm_lsp import decode
from rlm_lsp.predictor import Predictor


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
    tokens = decode.constrained_decode(predictor.model.stepper(hidden, mask), start, predictor.allowed_ids)
    return [int(t) for t in tokens[0]]


def check_parity(checkpoint: Path, model_dir: Path, codes: Sequence[str]) -> dict:
    """Returns {'inputs': n, 'token_exact': k, 'mismatches': [...]}."""
    from transformers import T5ForConditionalGeneration

    model = T5ForConditionalGeneration.from_pretrained(checkpoint)
    predictor = Predictor.from_dir(model_dir, device="cpu", samples=1)
    from rlm_lsp.template import extra_fields

    # A template with extra fields (e.g. {device}) gets a fixed stand-in; parity is about the graphs.
    context = {name: "parity" for name in extra_fields(predictor.config.input_template)}
    language = predictor.config.languages[0]
    exact, mismatches = 0, []
    for code in codes:
        ids = predictor.token_ids(code, language, context)[: predictor.config.max_input_tokens]
        a = torch_greedy_tokens(model, ids, predictor.allowed_ids, predictor.config.decoder_start_token_id)
        b = onnx_greedy_tokens(predictor, ids)
        if a == b:
            exact += 1
        else:
            mismatches.append({"code": code[:80], "torch": a, "onnx": b})
    return {"inputs": len(codes), "token_exact": exact, "mismatches": mismatches[:5]}
