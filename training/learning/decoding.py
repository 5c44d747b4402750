"""Decode a PyTorch checkpoint with the runtime's decoder, so training scores what ships.

    values, smooth = sample_values(model, tok, input_ids, grammars_of(meta), samples=16,
                                   number_format=fmt, smooth=True)       # (inputs, samples, metrics) x 2
    point = point_values(values, "log_mean_rb", smooth=smooth)          # (inputs, metrics)

The decode loop, the allowed token ids, the shared stratified draws and the point estimate are
`rlm_lsp`'s own (`decode.constrained_decode`, `decode.allowed_ids`, the `Predictor`'s shared
uniforms, `decode.ExponentSmoother`, `predictor.point_estimate`); only the step function is torch: it runs the T5 decoder
one token at a time with its KV cache, where the runtime runs the exported ONNX decoders. So a
checkpoint is chosen by the decoder the editor and the gate use: non-negative metrics take the
`<+>` sign only, every input gets the same draws, and `samples <= 1` is greedy, as in
`Predictor(samples=1)`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rlm_lsp.runtime import decode, numbers
from rlm_lsp.runtime.predictor import GROWTH_POINT_ESTIMATE, point_estimate

# What `rlm-export` writes into rlm_config.json when not told otherwise (`--point-estimate`,
# `--temperature`): a checkpoint is scored as its default export will predict.
DEFAULT_POINT_ESTIMATE = "log_mean_rb"
DEFAULT_TEMPERATURE = 1.0


def shared_uniforms(samples: int, positions: int, seed: int = 0) -> np.ndarray:
    """The (samples, positions) stratified draws a `Predictor(samples=..., seed=...)` gives every
    input: the runtime's own function."""
    return decode.stratified_uniforms(int(seed), samples, positions)


def allowed_ids(tok, grammars: Sequence[numbers.Grammar], number_format: numbers.NumberFormat) -> list[np.ndarray]:
    """The runtime's allowed ids per decoding position, from the tokenizer's number tokens."""
    return decode.allowed_ids({t: tok.token_to_id(t) for t in numbers.ALL_TOKENS}, grammars, number_format)


def grammars_of(meta: dict) -> list[numbers.Grammar]:
    """Per metric of a checkpoint's meta, its number grammar as rlm_config will carry it (a bare
    metric name: nonnegative, not fixed point)."""
    return [numbers.Grammar.of(m if isinstance(m, dict) else {}) for m in meta["metrics"]]


def torch_step(model, enc, mask):
    """A `decode.StepFn` over fixed encoder states (B, S, D): the T5 decoder on the tokens of each
    call (the start token and any forced ones first, then one at a time), keeping its KV cache
    (cross-attention keys and values are projected once)."""
    import torch

    past = None

    def step(tokens: np.ndarray) -> np.ndarray:  # (B, T) int64 -> (B, V) float32, after the last of T
        nonlocal past
        ids = torch.from_numpy(np.ascontiguousarray(tokens, dtype=np.int64)).to(enc.device)
        res = model(encoder_outputs=(enc,), attention_mask=mask, decoder_input_ids=ids,
                    past_key_values=past, use_cache=True)
        past = res.past_key_values
        return res.logits[:, -1, :].float().cpu().numpy()

    return step


def decode_encoded(model, enc, mask, allowed: Sequence[np.ndarray], uniforms: np.ndarray | None,
                   temperature: float = DEFAULT_TEMPERATURE, observe: decode.Observer | None = None,
                   number_format: numbers.NumberFormat = numbers.P10) -> np.ndarray:
    """Token ids (B*R, P) for encoder states already repeated R times per input (rows of one input
    adjacent); `uniforms` (B*R, P) or None for greedy; `observe` as `decode.constrained_decode`'s;
    `number_format`: whether the forced tokens are fed (P10S: not)."""
    rows = enc.shape[0]
    start = np.full(rows, model.config.decoder_start_token_id, dtype=np.int64)
    return decode.constrained_decode(torch_step(model, enc, mask), start, allowed, uniforms, temperature,
                                     merge_forced_start=True,  # the forced <+> rides with the start token
                                     observe=observe, feed_forced=number_format.feed_forced)



def sample_values(model, tok, input_ids: Sequence[Sequence[int]], grammars: Sequence[numbers.Grammar],
                  samples: int = 0, number_format: numbers.NumberFormat = numbers.P10,
                  temperature: float = DEFAULT_TEMPERATURE, seed: int = 0, batch_size: int = 32,
                  device=None, smooth: bool = False):
    """Constrained decode of each input, as `Predictor.sample_values` does it: (N, max(samples, 1), M)
    floats, in input order; `samples <= 1` is greedy. `smooth`: also the same values smoothed
    (`decode.ExponentSmoother`, as `Prediction.smooth_samples`), as a second array."""
    import torch

    device = device or next(model.parameters()).device
    reps = max(int(samples), 1)
    allowed = allowed_ids(tok, grammars, number_format)
    draws = shared_uniforms(reps, len(allowed), seed) if reps > 1 else None
    id_to_token = {tok.token_to_id(t): t for t in numbers.ALL_TOKENS}
    pad_id = tok.token_to_id("<pad>")
    order = sorted(range(len(input_ids)), key=lambda i: len(input_ids[i]))
    out = np.zeros((len(input_ids), reps, len(grammars)))
    smoothed = np.zeros_like(out)
    smooth_by = decode.ExponentSmoother(allowed, id_to_token, grammars, number_format)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            width = max(len(input_ids[i]) for i in chunk)
            ids = torch.full((len(chunk), width), pad_id, dtype=torch.long)
            mask = torch.zeros((len(chunk), width), dtype=torch.long)
            for r, i in enumerate(chunk):
                ids[r, : len(input_ids[i])] = torch.tensor(list(input_ids[i]), dtype=torch.long)
                mask[r, : len(input_ids[i])] = 1
            ids, mask = ids.to(device), mask.to(device)
            enc = model.get_encoder()(input_ids=ids, attention_mask=mask).last_hidden_state
            uniforms = None if draws is None else np.tile(draws, (len(chunk), 1))  # (B*R, P)
            observe, expected = smooth_by.observer()
            toks = decode_encoded(model, enc.repeat_interleave(reps, dim=0), mask.repeat_interleave(reps, dim=0),
                                  allowed, uniforms, temperature, observe, number_format)
            values = np.array([number_format.decode_metrics([id_to_token[t] for t in seq], grammars)
                               for seq in toks.tolist()]).reshape(len(toks), len(grammars))
            even = smooth_by.smooth(values, toks, expected)
            for r in range(len(toks)):
                out[chunk[r // reps], r % reps, :] = values[r]
                smoothed[chunk[r // reps], r % reps, :] = even[r]
    model.train(was_training)
    return (out, smoothed) if smooth else out


def point_values(values: np.ndarray, kind: str = DEFAULT_POINT_ESTIMATE,
                 linear: Sequence[bool] | None = None, smooth: np.ndarray | None = None) -> np.ndarray:
    """(N, S, M) samples -> (N, M) point estimates, `rlm_lsp.runtime.predictor.point_estimate` of each;
    metrics flagged in `linear` (growth exponents, which may be <= 0) get the runtime's growth
    estimate (`GROWTH_POINT_ESTIMATE`, the median). `smooth`: `sample_values(smooth=True)`'s
    second array, which "log_mean_rb" reads (without it, it is "log_mean")."""
    linear = list(linear or [False] * values.shape[2])
    return np.array([[point_estimate(values[i, :, k], GROWTH_POINT_ESTIMATE if linear[k] else kind,
                                     None if smooth is None else smooth[i, :, k])
                      for k in range(values.shape[2])]
                     for i in range(values.shape[0])]).reshape(values.shape[0], values.shape[2])
