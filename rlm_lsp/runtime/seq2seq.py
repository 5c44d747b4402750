"""The three ONNX graphs of an exported T5, driven as encoder + KV-cached decoder.

    encoder_model.onnx            input_ids, attention_mask -> last_hidden_state
    decoder_model.onnx            first step: logits + present.* (self and cross KV)
    decoder_with_past_model.onnx  later steps: past_key_values.* -> logits + present.*.decoder.*

The cross-attention keys and values come out of the first step and are reused
for every later step; only the self-attention cache grows.

Two graph layouts, told apart by the `rlm_graph_layout` metadata of decoder_with_past
(written by the exporter; old directories have none):

    optimum           every cache input has one row per sample (B*N): the first step's
                      cross-attention K/V are copied N times
    shared_cross_kv   the cross-attention K/V and encoder_attention_mask keep one row per
                      input (B); the graph treats an input's N sample queries as N query rows

Exported RLM decoders may have a number-only head (`logits_token_ids`): their logits
cover the 33 number tokens instead of the whole vocabulary, which is all constrained
decoding can pick. The step function puts them back at their token ids.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from rlm_lsp.runtime.model_dir import ModelError
from rlm_lsp.runtime.sessions import open_sessions

LAYOUT_KEY = "rlm_graph_layout"  # the exporter's rlm_lsp.export.fast_graphs.LAYOUT_KEY
# decoder_with_past metadata: "many" where a later step may take several tokens (forced tokens ride
# along with the token before them); fast-layout graphs exported before it take one.
PAST_STEP_TOKENS_KEY, MANY = "rlm_past_step_tokens", "many"
# decoder metadata: the decode positions its self-attention bias table covers
# (rlm_lsp.export.fast_graphs.self_bias_table); graphs without it rebuild the bias at any length.
SELF_BIAS_KEY = "rlm_self_bias_positions"
# encoder metadata: the input tokens its relative-position lookup covers
# (rlm_lsp.export.fast_graphs.encoder_bias_gather); graphs without it read any length.
ENCODER_BIAS_KEY = "rlm_encoder_bias_positions"
# encoder metadata: "per_input" where its int8 matmuls quantize their input with one scale per
# tensor (rlm_lsp.export.fast_graphs.per_input_scales); the runtime then encodes one input a
# call, without padding, so an input's scale, and its numbers, are its own whatever its batch.
ENCODER_SCALES_KEY, PER_INPUT = "rlm_encoder_scales", "per_input"
OPTIMUM, SHARED_CROSS_KV = "optimum", "shared_cross_kv"
LAYOUTS = (OPTIMUM, SHARED_CROSS_KV)


class Seq2Seq:
    def __init__(self, model_dir: Path, providers: list[str], threads: int = 1,
                 logits_token_ids: Sequence[int] | None = None):
        self.encoder, self.decoder, self.decoder_past = open_sessions(
            [model_dir / name for name in ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx")],
            providers, threads)
        _check_roles(model_dir, self.encoder, self.decoder, self.decoder_past)
        self.providers = self.encoder.get_providers()
        self._past_inputs = [i.name for i in self.decoder_past.get_inputs() if i.name.startswith("past_key_values.")]
        self._first_outputs = [o.name for o in self.decoder.get_outputs()]
        self._past_outputs = [o.name for o in self.decoder_past.get_outputs()]
        meta = self.decoder_past.get_modelmeta().custom_metadata_map
        self.layout = meta.get(LAYOUT_KEY, OPTIMUM)
        if self.layout not in LAYOUTS:
            raise ModelError(f"{model_dir / 'decoder_with_past_model.onnx'} has graph layout {self.layout!r}; "
                             f"this runtime knows {', '.join(LAYOUTS)}")
        # The first step (decoder_model.onnx) takes several tokens, so forced tokens can ride along
        # (`decode.constrained_decode(merge_forced_start=...)`); so do later steps where
        # decoder_with_past says so (`merge_forced_later`: same logits, bit for bit, one step fewer
        # per later nonnegative metric). Old directories keep one token a step, so their
        # predictions stay exactly what they were.
        covered = [int(m[SELF_BIAS_KEY]) for m in (self.decoder.get_modelmeta().custom_metadata_map, meta)
                   if SELF_BIAS_KEY in m]
        self.max_positions = min(covered) if covered else None  # None: no limit
        encoder_meta = self.encoder.get_modelmeta().custom_metadata_map
        self.max_input_tokens = int(encoder_meta[ENCODER_BIAS_KEY]) if ENCODER_BIAS_KEY in encoder_meta else None
        self.encodes_per_input = encoder_meta.get(ENCODER_SCALES_KEY) == PER_INPUT
        self.merges_forced_start = self.layout == SHARED_CROSS_KV
        self.merges_forced_later = self.merges_forced_start and meta.get(PAST_STEP_TOKENS_KEY) == MANY
        self._logits_ids = None if logits_token_ids is None else np.asarray(logits_token_ids, dtype=np.int64)
        self._vocab_width = 0 if self._logits_ids is None else int(self._logits_ids.max()) + 1
        if self._logits_ids is not None:
            for session, name in ((self.decoder, "decoder_model.onnx"), (self.decoder_past, "decoder_with_past_model.onnx")):
                width = next(o.shape[-1] for o in session.get_outputs() if o.name == "logits")
                if isinstance(width, int) and width != len(self._logits_ids):
                    raise ModelError(f"{model_dir / name} has {width} logits per step, but rlm_config.json "
                                     f"lists {len(self._logits_ids)} logits_token_ids")

    def encode(self, input_ids: np.ndarray, attention_mask: np.ndarray) -> np.ndarray:
        """(B, S) ids and mask -> (B, S, D) hidden states. A per-input encoder runs each input
        alone on its unpadded tokens (its mask must be a prefix of ones); padded positions get zeros."""
        lengths = attention_mask.sum(axis=1)
        if not self.encodes_per_input or not lengths.any() or len(input_ids) == 1 and attention_mask.all():
            (hidden,) = self.encoder.run(["last_hidden_state"], {"input_ids": input_ids, "attention_mask": attention_mask})
            return hidden
        rows = {}
        for i, length in enumerate(lengths):
            if not attention_mask[i, :length].all():
                raise ValueError("a per-input encoder takes inputs padded at the end only")
            if length:  # an empty row keeps zeros, as nothing attends to it
                feeds = {"input_ids": input_ids[i : i + 1, :length], "attention_mask": attention_mask[i : i + 1, :length]}
                rows[i] = self.encoder.run(["last_hidden_state"], feeds)[0][0]  # (length, D)
        first = next(iter(rows.values()))
        out = np.zeros((len(input_ids), input_ids.shape[1], first.shape[-1]), dtype=first.dtype)
        for i, row in rows.items():
            out[i, : len(row)] = row
        return out

    def stepper(self, hidden: np.ndarray, attention_mask: np.ndarray, repeat: int = 1):
        """A decode step function over fixed encoder outputs; it keeps the KV cache between calls.

        `hidden` (B, S, D) and `attention_mask` (B, S) are per input; the step function works on
        B * repeat rows (the samples of each input, adjacent). The first step is the same for every
        sample, so it runs on B rows and its logits and self-attention cache are repeated; the
        cross-attention keys and values are computed once per input, and in the shared_cross_kv
        layout also stored and read once per input.
        """
        cache: dict[str, np.ndarray] = {}
        shared = self.layout == SHARED_CROSS_KV
        mask_rows = attention_mask if shared else np.repeat(attention_mask, repeat, axis=0)  # (B, S) or (B*N, S)

        def step(input_ids: np.ndarray) -> np.ndarray:  # (B*N, T) -> (B*N, V); T > 1: forced tokens ride along
            if not cache:
                outputs = self.decoder.run(None, {
                    "input_ids": input_ids[::repeat],
                    "encoder_hidden_states": hidden,
                    "encoder_attention_mask": attention_mask,
                })
                names = self._first_outputs
                outputs = [value if shared and ".encoder." in name else np.repeat(value, repeat, axis=0)
                           for name, value in zip(names, outputs)]
            else:
                feeds = {"input_ids": input_ids, "encoder_attention_mask": mask_rows}
                feeds.update({name: cache[name.replace("past_key_values.", "present.")] for name in self._past_inputs})
                outputs = self.decoder_past.run(None, feeds)
                names = self._past_outputs
            for name, value in zip(names, outputs):
                if name.startswith("present."):
                    cache[name] = value
            logits = outputs[names.index("logits")][:, -1, :]
            if self._logits_ids is None:
                return logits
            full = np.full((logits.shape[0], self._vocab_width), -np.inf, dtype=logits.dtype)
            full[:, self._logits_ids] = logits
            return full

        return step


# The inputs that tell the three graphs apart: a file copied over another (its hash updated to
# match) loads fine and only fails at the first prediction, deep in onnxruntime.
_ROLES = {
    "encoder_model.onnx": ("input_ids", "attention_mask"),
    "decoder_model.onnx": ("input_ids", "encoder_hidden_states"),
    "decoder_with_past_model.onnx": ("input_ids", "past_key_values."),
}


def _check_roles(model_dir: Path, *graphs) -> None:
    for (name, needed), graph in zip(_ROLES.items(), graphs):
        inputs = [i.name for i in graph.get_inputs()]
        missing = [n for n in needed if not any(i == n or (n.endswith(".") and i.startswith(n)) for i in inputs)]
        if missing:
            raise ModelError(f"{model_dir / name} is not the {name.removesuffix('_model.onnx').replace('_', ' ')} "
                             f"graph: it lacks input {missing[0]!r} (inputs: {', '.join(inputs)})")
