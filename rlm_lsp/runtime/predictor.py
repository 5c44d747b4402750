"""Predictor: code in, Prediction per metric out. The model of the "function" family
(`rlm_lsp.runtime.model`), and the engine the kernel and network families run on.

    code -> preprocess -> template -> tokens (head and tail when too long) -> encoder (once per batch,
         or once per input where its int8 scales are per input)
         -> constrained decode (N samples share the encoder output) -> P10 tokens
         -> floats -> point estimate (median or geometric mean) and p10..p90 -> Prediction
         (a `<base>_growth` metric folded into its base metric's Prediction: `fold_growth`)

Results are cached by a hash of (model, language, code), so unchanged
functions never run the model twice. Inputs are batched by length with no
padding to a fixed size. Sampling draws are fixed (the same stratified draws
for every input, unless `shared_draws=False`), so the same input always gives
the same numbers, whatever else is in its batch.
"""

from __future__ import annotations

import dataclasses
import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from rlm_lsp.runtime import cost_growth, decode, feature_trees, growth, language_trees, readers, sessions, template
from rlm_lsp.runtime.errors import InputError, ModelError
from rlm_lsp.runtime.feature_trees import FeatureCheck
from rlm_lsp.runtime.model_dir import DEFAULT_DIR, ModelConfig
from rlm_lsp.runtime.prediction import GROWTH_UNIT, Prediction, fold_growth, with_n
from rlm_lsp.runtime.seq2seq import Seq2Seq

__all__ = ["InputError", "ModelError", "Prediction", "Predictor", "fold_growth", "head_and_tail", "point_estimate"]

HEAD_SHARE = 2 / 3  # of a too-long input's token budget, the share kept from its start
ELISION = "\n...\n"  # stands where a too-long input was cut: Python's own "code left out"


def head_and_tail(ids: Sequence[int], limit: int, marker: Sequence[int] = ()) -> list[int]:
    """The tokens the model reads of an input that is `len(ids)` tokens long: all of them when they
    fit in `limit`; else the first `HEAD_SHARE` of the budget, `marker` (the tokens of `ELISION`),
    and the last tokens, the final `</s>` included, `limit` in all.

    Why the head and the tail: the head holds the template (metrics, language, size line) and the
    function's signature and set-up, the tail its last loop and what it returns; the middle of a
    long function is most often more of the same. The cut is by token count only, so the same
    input is always read the same way."""
    if len(ids) <= limit:
        return list(ids)
    marker = list(marker) if len(marker) < limit // 4 else []
    budget = limit - len(marker)
    head = int(budget * HEAD_SHARE)
    return list(ids[:head]) + marker + list(ids[len(ids) - (budget - head):])


def point_estimate(samples: np.ndarray, kind: str, smooth: np.ndarray | None = None,
                   bounds: tuple[float, float] | None = None) -> float:
    """The number a hint shows and the gate compares, from one metric's (N,) samples.

    "log_mean": the geometric mean, exp(mean(log x)) over positive samples. A sample moving
    between modes moves it by 1/N of the gap in log space, where the median can jump the whole
    gap. "log_mean_rb": the geometric mean of `smooth`, the samples with each one's exponent
    replaced by its expectation under the decoder (`Prediction.smooth_samples`): the same
    quantity as "log_mean" with the decade's sampling noise taken out (Rao-Blackwell), so it
    moves less again; without `smooth`, "log_mean". "median": the middle sample (models exported
    before the choice was recorded; and a growth exponent's, `GROWTH_POINT_ESTIMATE`, whatever
    the model's choice). `bounds`: the samples' p10 and p90 where the caller has them already."""
    if kind in ("log_mean", "log_mean_rb") and np.all(samples > 0):
        use = samples
        if kind == "log_mean_rb" and smooth is not None and len(smooth) == len(samples) and np.all(smooth > 0):
            use = smooth
        logs = np.log(use)
        low, high = np.percentile(samples, [10, 90]) if bounds is None else bounds  # kept inside the interval the hover shows
        return float(np.clip(np.exp(np.mean(logs)), low, high))
    return float(np.median(samples))  # also a log_mean with a zero or negative sample


# A growth exponent's point estimate: the median of its samples, whatever the model's choice for
# values. An exponent may be zero or negative, where a log mean means nothing; and the plain mean of
# samples spread over flat and ~n lands between the two (~√n), in neither class. Chosen on
# validation (experiments/log/07-2026-12-01-sessions-16-19.md, session 19: v4g's class accuracy
# 22% -> 32%, Spearman 0.490 -> 0.493).
GROWTH_POINT_ESTIMATE = "median"


class Predictor:
    def __init__(self, config: ModelConfig, device: str = "auto", threads: int = 1,
                 samples: int = 16, seed: int = 0, cache_size: int = 4096, batch_size: int = 8,
                 shared_draws: bool = True):
        """`shared_draws` (default): every input gets the same sampling draws (common random
        numbers), so two versions of a function differ only where the model's distributions
        differ, and the editor's hint and the gate's number for a function agree. It ranks as well
        as independent draws (validation Spearman 0.691/0.485 vs 0.688/0.481 memory/latency, mean
        of 4 seeds). False: each input's draws are seeded by its content."""
        self.config = config
        self.shared_draws = bool(shared_draws)
        self._shared: np.ndarray | None = None  # shared draws, drawn on first use
        self.samples = max(1, int(samples))
        self.seed = int(seed)
        self.batch_size = max(1, int(batch_size))
        try:
            self.tokenizer = Tokenizer.from_file(str(config.path / "tokenizer.json"))
        except Exception as exc:  # noqa: BLE001 - tokenizers raises plain Exception
            raise ModelError(f"tokenizer cannot be read: {config.path / 'tokenizer.json'}: {exc}") from None
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        vocab = self.tokenizer.get_vocab_size()
        for key in ("decoder_start_token_id", "pad_token_id"):  # an id past the vocabulary stops onnxruntime
            token_id = config.raw.get(key, 0)
            if not 0 <= token_id < vocab:
                raise ModelError(f"{key} {token_id} is not a token id of {config.path / 'tokenizer.json'} "
                                 f"(0..{vocab - 1}): {config.path / 'rlm_config.json'}")
        for token, token_id in config.number_tokens.items():
            if self.tokenizer.token_to_id(token) != token_id:
                raise ModelError(f"tokenizer does not match rlm_config.json number token {token}: "
                                 f"{config.path / 'tokenizer.json'}")
        try:
            providers = sessions.providers_for(device, config.path / "encoder_model.onnx")
            self.model = Seq2Seq(config.path, providers, threads, config.logits_token_ids)
        except ModelError:
            raise
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own hierarchy
            raise ModelError(f"ONNX model cannot be loaded from {config.path}: {exc}") from None
        self._eos = self.tokenizer.token_to_id("</s>")
        self._elision = self.tokenizer.encode(ELISION, add_special_tokens=False).ids
        self._pad = config.raw.get("pad_token_id", 0)
        self._grammars = [m.grammar for m in config.metrics]
        self._allowed = decode.allowed_ids(config.number_tokens, self._grammars, config.number_format)
        if self.model.max_positions is not None and len(self._allowed) > self.model.max_positions:
            raise ModelError(f"{config.path}: the decoders cover {self.model.max_positions} positions, but "
                             f"{len(config.metrics)} metrics need {len(self._allowed)}; export the model again")
        if self.model.max_input_tokens is not None and config.max_input_tokens > self.model.max_input_tokens:
            raise ModelError(f"{config.path}: the encoder reads at most {self.model.max_input_tokens} tokens, "
                             f"but max_input_tokens is {config.max_input_tokens}; export the model again")
        self._temperatures = config.position_temperatures()  # one per position of self._allowed
        self._id_to_token = {v: k for k, v in config.number_tokens.items()}
        self._reader = decode.NumberReader(config.number_tokens, self._grammars, config.number_format)
        self._smoother = decode.ExponentSmoother(self._allowed, self._id_to_token, self._grammars,
                                                 config.number_format)
        self.trees, self._checks = feature_trees.of_config(config)
        self.growth = growth.of_config(config)
        self.language_trees = language_trees.of_config(config)
        self._cache: OrderedDict[str, dict[str, Prediction]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()  # onnxruntime sessions are thread-safe; the cache is not

    @classmethod
    def from_dir(cls, path: str | Path, **kwargs) -> Predictor:
        return cls(ModelConfig.load(path), **kwargs)

    @classmethod
    def default(cls, **kwargs) -> Predictor:
        if not (DEFAULT_DIR / "rlm_config.json").is_file():
            raise ModelError(f"no shipped default model at {DEFAULT_DIR}; pass a model directory")
        return cls.from_dir(DEFAULT_DIR, **kwargs)

    @property
    def allowed_ids(self) -> list:
        """The token ids constrained decoding may pick at each position (six per metric)."""
        return list(self._allowed)

    @property
    def device(self) -> str:
        return "cuda" if "CUDAExecutionProvider" in self.model.providers else "cpu"

    # -- inputs ---------------------------------------------------------------

    def render(self, code: str, language: str = "python", context: Mapping[str, str] | None = None) -> str:
        """The text the model reads (before the head-and-tail cut by tokens). Code over
        `long_input.MAX_CHARS` is cut to its head and tail before a normaliser runs (its size
        field, where the template has one, still counts the whole code's lines). `context`'s
        `readers.OUTSIDE` (the names of the code's file) goes to the code reader, not the template."""
        context = dict(context or {})
        outside = context.pop(readers.OUTSIDE, "") or ""
        context.pop(readers.ENTRY, None)  # the growth's, not the template's
        context.pop(readers.HELPERS, None)
        if self.config.reads_n:  # a model that reads n: the reference n unless one is stated
            context.setdefault("n", str(self.config.reference_n))
            try:
                template.n_field(context["n"])
            except ValueError as exc:
                raise InputError(str(exc)) from None
        own = readers.own_normaliser(language)
        if own is not None:  # C++, Java, Go: their own normaliser, whatever the Python preprocessing is
            return template.render(self.config.input_template, self.config.metric_names, language, own(code), **context)
        reader = readers.reader()
        if self.config.preprocess != "none":
            kept = reader.cut(code)
            if kept is not code and "{size}" in self.config.input_template:
                context.setdefault("size", template.size_bucket(code))
            code = kept
        code = reader.normalise(self.config.preprocess, code, outside)
        return template.render(self.config.input_template, self.config.metric_names, language, code, **context)

    def token_ids(self, code: str, language: str = "python", context: Mapping[str, str] | None = None) -> list[int]:
        return self.tokenizer.encode(self.render(code, language, context)).ids

    def read_limit(self, code: str, language: str = "python",
                   context: Mapping[str, str] | None = None) -> tuple[int, int] | None:
        """(tokens the model reads, tokens the input has) when `code` is longer than the model's
        input and only its head and tail are read (`head_and_tail`); None when it fits."""
        n, limit = len(self.token_ids(code, language, context)), self.config.max_input_tokens
        return (limit, n) if n > limit else None

    def check(self, code: str, language: str = "python") -> None:
        """Raise InputError when `code` cannot be scored at all (the CLI's --jsonl uses this).
        A long input is scored, never refused: the model reads its head and tail."""
        if not isinstance(code, str) or not code.strip():
            raise InputError("empty code")
        if language not in self.config.languages:
            raise InputError(f"unknown language {language!r}: the model {self.config.model_version} reads "
                             f"{', '.join(self.config.languages)} only; use a model whose rlm_config.json "
                             f"\"languages\" include {language!r}")

    # -- prediction -----------------------------------------------------------

    def predict(self, codes: Sequence[str], language: str = "python", metrics: Sequence[str] | None = None,
                context: Mapping[str, str] | Sequence[Mapping[str, str] | None] | None = None) -> list[dict[str, Prediction]]:
        """One dict {metric: Prediction} per code, in input order. An input longer than the model's
        `max_input_tokens` is read by its head and tail (`head_and_tail`): its Predictions say
        `truncated=True`. `Prediction.tokens` is the input's whole length. `context` fills extra
        template fields (a device, a GPU, the size n) for models whose template has them: one mapping
        for every code, or a sequence of one per code (one code at several n: a curve, `at_n.curve`).
        """
        contexts = [context] * len(codes) if context is None or isinstance(context, Mapping) else list(context)
        for code in codes:
            self.check(code, language)
        texts = [self.render(code, language, c) for code, c in zip(codes, contexts, strict=True)]
        entries = [str((c or {}).get(readers.ENTRY) or "") for c in contexts]
        helpers = [str((c or {}).get(readers.HELPERS) or "") for c in contexts]
        keys = [self._key(text + ("\0entry=" + e if e else "") + ("\0helpers=" + h if h else ""))
                for text, e, h in zip(texts, entries, helpers)]
        with self._lock:
            known = {k: self._cache[k] for k in keys if k in self._cache}
        todo = {k: t for k, t in zip(keys, texts) if k not in known}
        if todo:  # each Prediction says the n it is for: the n read, or an anchor model's reference n
            of = {k: (code, self.config.n_for(c), (c or {}).get(readers.OUTSIDE, ""), e, h)
                  for k, code, c, e, h in zip(keys, codes, contexts, entries, helpers)}
            lt = self.language_trees  # C++, Java, Go by trees where the model ships them, else the network
            ran, pooled = lt.run({k: of[k] for k in todo}, language) if lt and lt.reads(language) else self._run(list(todo.items()))
            known.update({k: with_n(self._with_checks(p, of[k][0], pooled[k], language, *of[k][2:]), of[k][1])
                          for k, p in ran.items()})
        with self._lock:
            for key in keys:
                self._cache[key] = known[key]
                self._cache.move_to_end(key)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return [{m: p for m, p in known[k].items() if metrics is None or m in metrics} for k in keys]

    def _with_checks(self, predictions: dict[str, Prediction], code: str, pooled: np.ndarray | None = None,
                     language: str = "python", outside: str = "", entry: str = "",
                     helpers: str = "") -> dict[str, Prediction]:
        """Each metric the feature trees cover carries their (lazy) second opinion on `code`; each
        metric the growth trees cover, its growth and the size its value is for (`rlm_lsp.runtime.growth`;
        `pooled`: the encoder's mean state of the input, for growth trees that read it). A language read by
        its own normaliser gets neither tree (both count the code reader's, Python's, features); its
        growth comes from its own cost front end where it has one and the model a `growth_analyzer`.
        `outside`: the code's file names (`readers.OUTSIDE`), so the trees read what the model read."""
        if readers.own_normaliser(language) is not None:
            if readers.own_cost(language) is not None and isinstance(self.growth, cost_growth.CostGrowth):
                return self.growth.fold(predictions, code, pooled, outside, entry, helpers, language=language)
            return predictions
        if self.growth is not None:
            predictions = self.growth.fold(predictions, code, pooled, outside, entry, helpers)
        if self.trees is None:
            return predictions
        return {m: dataclasses.replace(p, features=FeatureCheck(self.trees, code, m, *self._checks[m], outside=outside))
                if m in self._checks else p for m, p in predictions.items()}

    def cached(self, code: str, language: str = "python",
               context: Mapping[str, str] | None = None) -> dict[str, Prediction] | None:
        with self._lock:
            return self._cache.get(self._key(self.render(code, language, context)))

    def _key(self, text: str) -> str:
        """Cache key of a rendered input: two codes the model reads alike (a rename under canonical
        names, a reformat) share one entry and are predicted once."""
        draws = "shared" if self.shared_draws else "own"
        temperature = ",".join(map(str, dict.fromkeys(self._temperatures)))  # "1.0", or "1.0,0.6" with a growth's own
        key = (f"{self.config.model_version}\0{temperature}\0{self.config.point_estimate}\0{self.samples}"
               f"\0{self.seed}\0{draws}\0{text}")
        return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()

    def sample_values(self, codes: Sequence[str], language: str = "python",
                      context: Mapping[str, str] | None = None) -> np.ndarray:
        """The raw sampled values behind `predict`, shape (codes, samples, metrics), in input
        order and uncached: for pooling several models' samples (ensembles, diagnostics)."""
        for code in codes:
            self.check(code, language)
        texts = [self.render(code, language, context) for code in codes]
        keys = [self._key(text) for text in texts]
        drawn = self._sample(self._encode(list(zip(keys, texts))))
        return np.stack([drawn[k][0] for k in keys])

    def pooled_states(self, codes: Sequence[str], language: str = "python") -> np.ndarray:
        """(codes, D): the encoder's last hidden state averaged over each input's tokens, in input
        order (what growth trees that read the encoder take; `training.learning.growth_trees`)."""
        out = []
        for _key, ids, _ in self._encode([(str(i), self.render(c, language)) for i, c in enumerate(codes)]):
            x = np.array([ids], dtype=np.int64)
            out.append(self.model.encode(x, np.ones_like(x))[0].mean(axis=0))  # (S, D) -> (D,)
        return np.array(out, dtype=np.float64)

    def _run(self, items: list[tuple[str, str]]) -> tuple[dict[str, dict[str, Prediction]], dict[str, np.ndarray]]:
        """Predictions per key, and the encoder's mean state per key."""
        encoded = self._encode(items)
        lengths = {key: n for key, _, n in encoded}
        limit = self.config.max_input_tokens
        drawn = self._sample(encoded)
        return ({key: self._aggregate(values, smooth, lengths[key], lengths[key] > limit)
                 for key, (values, smooth, _) in drawn.items()}, {key: d[2] for key, d in drawn.items()})

    def _encode(self, items: list[tuple[str, str]]) -> list[tuple[str, list[int], int]]:
        """(key, rendered input) pairs -> (key, the token ids the model reads, the input's length)."""
        limit = self.config.max_input_tokens
        out = []
        for key, text in items:
            ids = self.tokenizer.encode(text).ids
            out.append((key, head_and_tail(ids, limit, self._elision), len(ids)))
        return out

    def _sample(self, encoded: list[tuple[str, list[int], int]]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """`_encode`'s triples -> {key: ((N, M) sampled values, (N, M) the same smoothed, (D,) the
        encoder's mean state)}."""
        by_length = sorted(((key, ids) for key, ids, _ in encoded), key=lambda item: len(item[1]))
        results = {}
        for start in range(0, len(by_length), self.batch_size):
            batch = by_length[start : start + self.batch_size]
            values, smooth, pooled = self._decode_batch([ids for _, ids in batch], [key for key, _ in batch])
            for i, (key, _) in enumerate(batch):
                results[key] = (values[i], smooth[i], pooled[i])
        return results

    def _decode_batch(self, batch_ids: list[list[int]], keys: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Returns sampled values, shape (B, N, M): batch, samples, metrics; the same values
        smoothed (`decode.ExponentSmoother`); and the encoder's state averaged over each input's
        tokens, (B, D)."""
        width = max(len(ids) for ids in batch_ids)
        input_ids = np.full((len(batch_ids), width), self._pad, dtype=np.int64)
        mask = np.zeros((len(batch_ids), width), dtype=np.int64)
        for i, ids in enumerate(batch_ids):
            input_ids[i, : len(ids)] = ids
            mask[i, : len(ids)] = 1
        hidden = self.model.encode(input_ids, mask)  # (B, S, D)
        pooled = ((hidden * mask[:, :, None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)  # (B, D), for trees
                  if self.growth is not None and self.growth.spec.encoder else np.zeros((len(batch_ids), 0)))
        n = self.samples
        start = np.full(len(batch_ids) * n, self.config.decoder_start_token_id, dtype=np.int64)  # (B*N,)
        uniforms = None
        if n > 1:
            if self.shared_draws:
                uniforms = np.tile(self._shared_uniforms(), (len(keys), 1))  # (B*N, P)
            else:
                uniforms = np.concatenate([self._uniforms(key, n) for key in keys])
        step = self.model.stepper(hidden, mask, repeat=n)
        observe, expected = self._smoother.observer()
        tokens = decode.constrained_decode(step, start, self._allowed, uniforms,  # (B*N, P)
                                            temperature=self._temperatures,
                                            merge_forced_start=self.model.merges_forced_start,
                                            merge_forced_later=self.model.merges_forced_later,
                                            observe=observe, feed_forced=self.config.number_format.feed_forced)
        values = self._reader.read(tokens)  # (B*N, M)
        smooth = self._smoother.smooth(values, tokens, expected)
        shape = (len(batch_ids), n, len(self.config.metrics))
        return values.reshape(shape), smooth.reshape(shape), pooled.astype(np.float64)

    def _shared_uniforms(self) -> np.ndarray:
        """The (N, P) draws every input shares: computed once per Predictor."""
        if self._shared is None:
            self._shared = self._uniforms("", self.samples)
        return self._shared

    def _uniforms(self, key: str, n: int) -> np.ndarray:
        """(N, P) stratified uniforms for one input's N samples (`decode.stratified_uniforms`):
        the shared draws, or the input's own ones seeded by its cache key."""
        positions = len(self._allowed)
        laid_out = max(positions, self.config.draw_positions or 0)  # a model with metrics cut keeps its draws
        draws = decode.stratified_uniforms(self.seed, n, laid_out, None if self.shared_draws else key)
        return draws[:, :positions]

    def _aggregate(self, samples: np.ndarray, smooth: np.ndarray, tokens: int = 0,
                   truncated: bool = False) -> dict[str, Prediction]:
        """(N, M) sampled values and the same smoothed -> point estimate and p10..p90 per metric. A
        `<base>_growth` metric is folded into its base metric's Prediction (`fold_growth`)."""
        out = {}
        lows, highs = np.percentile(samples, [10, 90], axis=0)  # (M,) each: every metric's in one call
        for j, spec in enumerate(self.config.metrics):
            col = samples[:, j]
            low, high = float(lows[j]), float(highs[j])
            kind = GROWTH_POINT_ESTIMATE if spec.unit == GROWTH_UNIT else self.config.point_estimate
            value = point_estimate(col, kind, smooth[:, j], (low, high))
            out[spec.name] = Prediction(spec.name, value, low, high, spec.unit, tuple(col.tolist()),
                                        truncated=truncated, tokens=tokens, smooth_samples=tuple(smooth[:, j].tolist()))
        return fold_growth(out)

