"""Triton kernel latency: the second shipped model (`rlm_lsp/models/triton/`).

    source file -> snippets.extract -> the @triton.jit kernels (Snippet.kind == "triton_kernel")
                -> kernel_text (comments and docstrings dropped)
                -> Predictor(models/triton).predict(language="triton", context={gpu, shape})
                -> KernelPrediction(metric "kernel_latency", ms, gpu, shape assumption)

The model reads the GPU name and a work-size line next to the code, because a kernel's
latency depends on the problem it is launched on at least as much as on its source.
In the editor the size is rarely known, so `predict_kernels` uses the caller's
`shape_hint` when given and otherwise the model's default shape (from its training data,
stored in rlm_config.json `training_data.default_shape`), and returns which one it used so a
hover can say "on A100, assuming n=1048576".

The text helpers here (`kernel_text`, `shape_text`, `gpu_text`) are also what the trainer
(training/triton/) uses, so training and runtime render the same input.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import math
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from rlm_lsp.model_dir import ModelError

MODEL_DIR = Path(__file__).parent / "models" / "triton"
LANGUAGE = "triton"
METRIC = "kernel_latency"
# The template a model was trained with is in its rlm_config.json `input_template`; the runtime
# renders whichever one it asks for (`model_context`).
# - v4 (TEMPLATE_V4): v3 plus a count of what the kernel does, `<ops> jit 1 load 2 ... lines 7`
#   ({kops}, derived from the code by rlm_lsp.template, `code_census.kernel_census`).
# - v3 (TEMPLATE): the work size as one bucket token `<W20>` ({work}), then the launch mode as one
#   token `<fwd>` / `<bwd>` / `<fwdbwd>` ({mode}: Liger's forward / backward / full; `<fwd>` when the
#   shape line names none), and {shape} is the rest of the shape line (`model_fields`).
# - v2 (TEMPLATE_V2, the 2026-11-29 model): {work} only; the mode stays a word inside {shape}.
# - v1 (TEMPLATE_V1, the first model): "| work 2^20 |" inside {shape}.
TEMPLATE = "<metrics> {metrics} <lang> {language} {work} {mode} <gpu> {gpu} <shape> {shape} <code>\n{code}"
TEMPLATE_V4 = ("<metrics> {metrics} <lang> {language} {work} {mode} <gpu> {gpu} <shape> {shape} "
               "<ops> {kops} <code>\n{code}")
TEMPLATE_V2 = "<metrics> {metrics} <lang> {language} {work} <gpu> {gpu} <shape> {shape} <code>\n{code}"
TEMPLATE_V1 = "<metrics> {metrics} <lang> {language} <gpu> {gpu} <shape> {shape} <code>\n{code}"
WORK_MIN, WORK_MAX = 0, 48
WORK_TOKENS = [f"<W{k}>" for k in range(WORK_MIN, WORK_MAX + 1)]  # one tokenizer token each
MODE_TOKENS = {"forward": "<fwd>", "backward": "<bwd>", "full": "<fwdbwd>"}  # one tokenizer token each
FALLBACK_GPU = "A100"
FALLBACK_SHAPE = "n=1048576"

# -- GPU names -----------------------------------------------------------------------------

_GPU_ALIASES = (  # (pattern, short name); first match wins
    (r"h100.*pcie", "H100-PCIe"),
    (r"h100", "H100"),
    (r"h200", "H200"),
    (r"a100", "A100"),
    (r"b200", "B200"),
    (r"4090", "RTX4090"),
    (r"3090", "RTX3090"),
    (r"a6000", "A6000"),
    (r"l40", "L40S"),
    (r"v100", "V100"),
    (r"t4\b", "T4"),
)


def gpu_text(name: str | None) -> str:
    """'NVIDIA H100 80GB HBM3' -> 'H100'; unknown names are kept, squeezed to one word."""
    if not name:
        return FALLBACK_GPU
    low = name.lower()
    for pattern, short in _GPU_ALIASES:
        if re.search(pattern, low):
            return short
    return re.sub(r"\s+", "-", name.strip().replace("NVIDIA ", ""))[:24]


# -- work size -----------------------------------------------------------------------------

def _work_log2(numel: float) -> str:
    return f"2^{int(round(math.log2(numel)))}" if numel and numel > 0 else "2^0"


def shape_text(dims: Mapping[str, float] | None = None, shapes: Sequence | None = None,
               dtype: str | None = None, mode: str | None = None) -> str:
    """The work-size line the model reads, e.g. `B=8 T=2048 V=4096 | work 2^26 | bf16 | forward`.

    `dims`: named sizes (Liger-style sweeps); `shapes`: one shape list or scalar per argument
    (TritonBench-style); work = product of the named dims, or the largest tensor's element count.
    """
    parts: list[str] = []
    work = 0.0
    if dims:
        nums = {k: v for k, v in dims.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        parts.append(" ".join(f"{k}={_num(v)}" for k, v in list(nums.items())[:8]))
        work = math.prod(max(float(v), 1.0) for v in nums.values()) if nums else 0.0
    if shapes is not None:
        tensors = [s for s in shapes if isinstance(s, (list, tuple))]
        scalars = [s for s in shapes if isinstance(s, (int, float)) and not isinstance(s, bool)]
        text = " ".join("[" + ",".join(_num(d) for d in s) + "]" for s in tensors[:4])
        if scalars:
            text += " " + " ".join(_num(s) for s in scalars[:4])
        parts.append(text.strip())
        numels = [math.prod(max(float(d), 1.0) for d in s) for s in tensors if s]
        work = max(work, max(numels, default=0.0))
        if not numels and scalars:
            work = max(work, math.prod(max(float(s), 1.0) for s in scalars))
    parts.append(f"work {_work_log2(work)}")
    if dtype:
        parts.append(dtype)
    if mode:
        parts.append(mode)
    return " | ".join(p for p in parts if p)


def _num(v) -> str:
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


_WORK = re.compile(r"\s*\|?\s*\bwork 2\^(-?\d+)\s*")
_SMALL_FLOAT = re.compile(r"(?<!\S)(?:\w+=)?(?:0?\.\d+|\d(?:\.\d+)?e-\d+)(?!\S)")


def work_token(shape: str) -> str:
    """The work-size bucket of a shape line as one token: '... | work 2^12 | fp32' -> '<W12>'."""
    m = _WORK.search(shape or "")
    k = int(m.group(1)) if m else 20
    return f"<W{min(max(k, WORK_MIN), WORK_MAX)}>"


# What a kernel model's number is (its training_data "target"): the latency in ms (the default),
# ms per 2^20 elements of work (PER_WORK), or ms over a fitted latency curve of the work size,
# c0 + c1 * 2^k ms (ROOFLINE; training_data "roofline" holds c0_ms and c1_ms). `target_scale`
# turns the number into ms.
PER_WORK = "ms_per_2^20_work"
ROOFLINE = "ms_over_roofline"
TARGETS = ("ms", PER_WORK, ROOFLINE)


def work_bucket(shape: str) -> int:
    """k of the shape line's work bucket <W k>."""
    return int(work_token(shape)[2:-1])


def work_scale(shape: str) -> float:
    """2^(k - 20) for the shape line's work bucket <W k>: per-2^20-work -> ms."""
    return 2.0 ** (work_bucket(shape) - 20)


def roofline_ms(curve: Mapping[str, float], shape: str) -> float:
    """The curve's latency for the shape line's work bucket: c0 + c1 * 2^k ms."""
    return float(curve["c0_ms"]) + float(curve["c1_ms"]) * 2.0 ** work_bucket(shape)


def _valid_curve(curve) -> bool:
    try:
        c0, c1 = float(curve["c0_ms"]), float(curve["c1_ms"])
    except (KeyError, TypeError, ValueError):
        return False
    return c0 >= 0 and c1 >= 0 and c0 + c1 > 0


def target_scale(training_data: Mapping, shape: str) -> float:
    """The factor that turns a kernel model's number into ms, for this shape line."""
    target = training_data.get("target", "ms")
    if target == PER_WORK:
        return work_scale(shape)
    if target == ROOFLINE:
        return roofline_ms(training_data["roofline"], shape)
    return 1.0


def model_fields(shape: str, with_mode: bool = False) -> dict[str, str]:
    """A shape line (`shape_text`) -> the template's {work} and {shape}: the work bucket as one
    token, and the line without its `work 2^k` part and without floats under 1 (eps=1e-06, 0.125:
    they never change the work size). `with_mode` (template v3): the launch mode also becomes one
    token, {mode}, and leaves {shape}.

    '[4096] [4096] 1e-05 | work 2^12 | fp32' -> {'work': '<W12>', 'shape': '[4096] [4096] | fp32'}
    'B=8 | work 2^3 | bf16 | backward', with_mode -> {'work': '<W3>', 'mode': '<bwd>', 'shape': 'B=8 | bf16'}"""
    rest = _WORK.sub(" | ", shape or "")
    parts = [" ".join(_SMALL_FLOAT.sub(" ", p).split()) for p in rest.split("|")]
    parts = [p for p in parts if p]
    fields = {"work": work_token(shape)}
    if with_mode:
        modes = [p for p in parts if p in MODE_TOKENS]
        fields["mode"] = MODE_TOKENS[modes[-1] if modes else "forward"]
        parts = [p for p in parts if p not in MODE_TOKENS]
    return {**fields, "shape": " | ".join(parts) or "-"}


def model_context(template: str, gpu: str, shape: str) -> dict[str, str]:
    """The template fields for a model: v3 templates ({work} and {mode}) and v2 ({work}) get
    `model_fields(shape)`, v1 templates the shape line as it is."""
    if "{work}" in template:
        return {"gpu": gpu, **model_fields(shape, with_mode="{mode}" in template)}
    return {"gpu": gpu, "shape": shape}


def parse_shape_hint(hint) -> str:
    """A user's shape hint -> the model's shape line. Accepts a dict of named sizes
    ({"B": 8, "T": 2048}), a list of shapes ([[4096, 4096], [4096]]), a plain number (n elements),
    or a string: 'B=8 T=2048', '4096x4096', '1048576'. An already-rendered line passes through."""
    if isinstance(hint, Mapping):
        return shape_text(dims=dict(hint))
    if isinstance(hint, (int, float)):
        return shape_text(dims={"n": hint})
    if isinstance(hint, (list, tuple)):
        if all(isinstance(d, (int, float)) for d in hint):
            return shape_text(shapes=[list(hint)])
        return shape_text(shapes=list(hint))
    text = str(hint).strip()
    if "| work " in text:
        return text
    named = dict(re.findall(r"(\w+)\s*=\s*(\d+)", text))
    if named:
        return shape_text(dims={k: int(v) for k, v in named.items()})
    dims = [int(d) for d in re.findall(r"\d+", text)]
    if dims:
        return shape_text(shapes=[dims])
    return shape_text(dims={"n": 1 << 20})


# -- source --------------------------------------------------------------------------------

def strip_comments(code: str) -> str:
    """Drops comments, docstrings and blank lines; keeps everything else byte for byte."""
    code = code.replace("\r\n", "\n").replace("\t", "    ")
    lines = code.split("\n")
    drop: set[int] = set()
    try:
        tree = ast.parse(code)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                    and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                drop.update(range(body[0].lineno - 1, body[0].end_lineno))
    except (SyntaxError, ValueError, RecursionError):
        pass
    cuts: dict[int, int] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                cuts[row - 1] = min(col, cuts.get(row - 1, col))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        cuts = {i: line.index("#") for i, line in enumerate(lines) if line.lstrip().startswith("#")}
    out = []
    for i, line in enumerate(lines):
        if i in drop:
            continue
        if i in cuts:
            line = line[: cuts[i]]
        line = line.rstrip()
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n"


def _is_triton_decorator(dec: ast.expr) -> bool:
    text = ast.unparse(dec.func if isinstance(dec, ast.Call) else dec)
    return text.startswith("triton.") or text in {"jit", "autotune", "heuristics"} or text.startswith("tl.")


def kernel_text(source: str, max_chars: int = 4000) -> str:
    """A file (or one kernel) -> the text the model reads: the @triton.jit kernels first,
    then the functions that launch them (`kernel[grid](...)`), comments dropped, truncated.
    Source that does not parse, or has no kernel, is returned comment-stripped."""
    source = source.replace("\r\n", "\n")
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return strip_comments(source)[:max_chars]
    lines = source.split("\n")
    kernels, launchers = [], []
    names: set[str] = set()
    defs = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for node in defs:
        if any(_is_triton_decorator(d) for d in node.decorator_list):
            kernels.append(node)
            names.add(node.name)
    if not kernels:
        return strip_comments(source)[:max_chars]
    for node in defs:
        if node in kernels:
            continue
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Subscript) \
                    and isinstance(sub.func.value, ast.Name) and sub.func.value.id in names:
                launchers.append(node)
                break
    chunks = []
    for node in kernels + launchers:
        start = min([d.lineno for d in node.decorator_list] + [node.lineno]) - 1
        text = "\n".join(lines[start: node.end_lineno])
        chunks.append(strip_comments(_dedent(text)))
    return "".join(chunks)[:max_chars]


def _dedent(text: str) -> str:
    import textwrap
    return textwrap.dedent(text)


# -- runtime -------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelPrediction:
    qualname: str
    name: str
    metric: str  # "kernel_latency"
    value: float  # ms, median of the samples
    low: float
    high: float
    unit: str  # "ms"
    gpu: str  # the GPU the number is for
    shape: str  # the work-size line the model was given
    shape_assumed: bool  # True when no shape hint was given and the default was used
    line: int  # 0-based line of the kernel's name


class KernelModel:
    """The kernel latency model. `KernelModel.load()` reads rlm_lsp/models/triton."""

    def __init__(self, predictor):
        self.predictor = predictor
        data = predictor.config.training_data or {}
        self.default_gpu = str(data.get("default_gpu") or FALLBACK_GPU)
        self.default_shape = str(data.get("default_shape") or shape_text(dims={"n": 1 << 20}))
        self.training_data = data
        self.known_gpus = tuple(data.get("gpus") or ())  # most rows first
        where, target = getattr(predictor.config, "path", "kernel model"), data.get("target", "ms")
        if target not in TARGETS:
            raise ModelError(f"{where}: the model's target {target!r} is not one this runtime knows "
                             f"({', '.join(TARGETS)}); update rlm-lsp")
        if target == ROOFLINE and not _valid_curve(data.get("roofline")):
            raise ModelError(f"{where}: target {ROOFLINE} needs training_data.roofline with c0_ms and c1_ms >= 0")

    @classmethod
    def load(cls, model_dir: str | Path | None = None, **kwargs) -> "KernelModel":
        from rlm_lsp.predictor import Predictor

        path = Path(model_dir) if model_dir else MODEL_DIR
        if not (path / "rlm_config.json").is_file():
            raise ModelError(f"no kernel latency model at {path}")
        kwargs.setdefault("device", "cpu")
        predictor = Predictor.from_dir(path, **kwargs)
        if LANGUAGE not in predictor.config.languages:
            raise ModelError(f"{path} is not a kernel model (languages {list(predictor.config.languages)})")
        return cls(predictor)

    @staticmethod
    def available(model_dir: str | Path | None = None) -> bool:
        return ((Path(model_dir) if model_dir else MODEL_DIR) / "rlm_config.json").is_file()

    def context(self, gpu: str | None = None, shape_hint=None) -> tuple[dict[str, str], bool]:
        """({gpu, shape}: the GPU name and the human shape line, as shown in a hover; assumed)."""
        assumed = shape_hint is None or shape_hint == ""
        shape = self.default_shape if assumed else parse_shape_hint(shape_hint)
        return {"gpu": gpu_text(gpu) if gpu else self.default_gpu, "shape": shape}, assumed

    def gpu_note(self, gpu: str) -> str:
        """'' for a GPU of the training data, else a note that says the model does not know it."""
        if not self.known_gpus or gpu in self.known_gpus:
            return ""
        return f"{gpu} is not among the GPUs the model was trained on ({', '.join(self.known_gpus)})"

    def inputs(self, ctx: Mapping[str, str]) -> dict[str, str]:
        """`context()`'s {gpu, shape} -> the template fields this model reads (`model_context`)."""
        return model_context(self.predictor.config.input_template, ctx["gpu"], ctx["shape"])

    def predict_texts(self, texts: Sequence[str], ctx: Mapping[str, str]) -> list:
        """Kernel texts (`kernel_text`) on one {gpu, shape} -> one Prediction in ms per text: the
        model's number times `target_scale` (1 for a model that predicts ms)."""
        results = self.predictor.predict(list(texts), language=LANGUAGE, context=self.inputs(ctx))
        return [self._in_ms(r[METRIC], ctx) for r in results]

    def cached_text(self, text: str, ctx: Mapping[str, str]):
        """`predict_texts`' Prediction for one text when it is in the predictor's cache, else None."""
        hit = self.predictor.cached(text, LANGUAGE, self.inputs(ctx))
        return None if hit is None else self._in_ms(hit[METRIC], ctx)

    def _in_ms(self, p, ctx: Mapping[str, str]):
        f = target_scale(self.training_data, ctx["shape"])
        return p if f == 1.0 else dataclasses.replace(p, value=p.value * f, low=p.low * f, high=p.high * f)

    def predict_codes(self, codes: Sequence[str], gpu: str | None = None, shape_hint=None) -> list:
        """Raw kernel sources (a kernel, or a file of them) -> one Prediction per code."""
        ctx, _ = self.context(gpu, shape_hint)
        return self.predict_texts([kernel_text(c) for c in codes], ctx)

    def predict_kernels(self, snippets: Sequence, gpu: str | None = None,
                        shape_hint=None) -> list[KernelPrediction]:
        """Snippets (rlm_lsp.snippets.Snippet) -> a KernelPrediction per `triton_kernel` snippet.
        Other snippets are skipped. `gpu`: any name ('NVIDIA H100 80GB HBM3', 'h100'), default the
        model's `default_gpu`; `shape_hint`: see `parse_shape_hint`, default the model's default shape."""
        kernels = [s for s in snippets if getattr(s, "kind", "") == "triton_kernel"]
        if not kernels:
            return []
        ctx, assumed = self.context(gpu, shape_hint)
        results = self.predict_texts([kernel_text(k.code) for k in kernels], ctx)
        return [KernelPrediction(s.qualname, s.name, METRIC, p.value, p.low, p.high, p.unit,
                                 ctx["gpu"], ctx["shape"], assumed, s.name_line)
                for s, p in zip(kernels, results)]

    def predict_source(self, source: str, gpu: str | None = None, shape_hint=None) -> list[KernelPrediction]:
        from rlm_lsp import snippets

        return self.predict_kernels(snippets.extract(source), gpu, shape_hint)


def predict_kernels(snippets: Sequence, gpu: str | None = None, shape_hint=None,
                    model_dir: str | Path | None = None) -> list[KernelPrediction]:
    """Convenience: load the shipped kernel model once per call site and predict."""
    return _cached_model(str(model_dir) if model_dir else "").predict_kernels(snippets, gpu, shape_hint)


_MODELS: dict[str, KernelModel] = {}


def _cached_model(key: str) -> KernelModel:
    if key not in _MODELS:
        _MODELS[key] = KernelModel.load(key or None)
    return _MODELS[key]


# -- one predictor for functions and kernels ------------------------------------------------

_KERNEL_DECORATOR = re.compile(r"^[ \t]*@(?:triton\.)?(?:jit|autotune|heuristics)\b", re.M)


def is_kernel_code(code: str) -> bool:
    """True for the code of a @triton.jit (autotune, heuristics) function, as Snippet.code has it."""
    return bool(_KERNEL_DECORATOR.search(code))


class KernelAwarePredictor:
    """The shipped Python model and the kernel model behind one Predictor-like object.

    `predict(codes, ...)` sends @triton.jit codes (`is_kernel_code`) to the kernel model, with the
    GPU and shape assumption of this object, and every other code to `base`; results come back in
    input order, a kernel's dict holding `kernel_latency` only. `config.metrics` is the base model's
    metrics plus `kernel_latency`, whose definition names the GPU and the shape assumption (the
    hover shows metric definitions). `base` may be None (kernel model only: other codes get {}).
    Everything else (`cached`, `_cache`, `device`, ...) is the base predictor's.
    """

    def __init__(self, base, kernel_model: KernelModel, gpu: str | None = None, shape_hint=None):
        from rlm_lsp.model_dir import MetricSpec

        self.base = base
        self.kernel_model = kernel_model
        ctx, assumed = kernel_model.context(gpu, shape_hint)
        self.gpu, self.shape, self.shape_assumed = ctx["gpu"], ctx["shape"], assumed
        kspec = kernel_model.predictor.config.metric(METRIC)
        self.gpu_note = kernel_model.gpu_note(self.gpu)
        note = (f"{kspec.definition}. Predicted for GPU {self.gpu} (setting rlm.gpu), "
                f"{'assuming' if assumed else 'for'} work size {self.shape}"
                + (f". Note: {self.gpu_note}" if self.gpu_note else ""))
        spec = MetricSpec(METRIC, kspec.unit, note, kspec.nonnegative)
        kcfg = kernel_model.predictor.config
        if base is not None:
            bcfg = base.config
            metrics = tuple(m for m in bcfg.metrics if m.name != METRIC) + (spec,)
            self.config = dataclasses.replace(
                bcfg, metrics=metrics, model_version=f"{bcfg.model_version}+{kcfg.model_version}",
                languages=tuple(dict.fromkeys(bcfg.languages + (LANGUAGE,))))
        else:
            self.config = dataclasses.replace(kcfg, metrics=(spec,), languages=("python", LANGUAGE))

    def __getattr__(self, name):
        base = self.__dict__.get("base")
        if base is None:
            return getattr(self.__dict__["kernel_model"].predictor, name)
        return getattr(base, name)

    @property
    def context(self) -> dict:
        return {"gpu": self.gpu, "shape": self.shape, "shape_assumed": self.shape_assumed, "gpu_note": self.gpu_note}

    def check(self, code: str, language: str = "python") -> None:
        if self.base is not None and not is_kernel_code(code):
            self.base.check(code, language)
        elif not isinstance(code, str) or not code.strip():
            from rlm_lsp.predictor import InputError

            raise InputError("empty code")

    def predict(self, codes: Sequence[str], language: str = "python", metrics: Sequence[str] | None = None,
                context: dict | None = None) -> list[dict]:
        codes = list(codes)
        out: list[dict] = [{} for _ in codes]
        kidx = [i for i, c in enumerate(codes) if is_kernel_code(c)]
        fidx = [i for i, c in enumerate(codes) if i not in set(kidx)]
        if kidx and (metrics is None or METRIC in metrics):
            res = self.kernel_model.predict_texts([kernel_text(codes[i]) for i in kidx],
                                                  {"gpu": self.gpu, "shape": self.shape})
            for i, p in zip(kidx, res):
                out[i] = {METRIC: p}
        fmetrics = None if metrics is None else [m for m in metrics if m != METRIC]
        if fidx and self.base is not None and (fmetrics is None or fmetrics):
            res = self.base.predict([codes[i] for i in fidx], language=language, metrics=fmetrics,
                                    **({"context": context} if context else {}))
            for i, r in zip(fidx, res):
                out[i] = dict(r)
        return out

    def read_limit(self, code: str, language: str = "python") -> tuple[int, int] | None:
        """`Predictor.read_limit` for Python code; None for kernels, whose text `kernel_text` cuts."""
        if is_kernel_code(code) or self.base is None:
            return None
        return self.base.read_limit(code, language)

    def cached(self, code: str, language: str = "python", context=None):
        if is_kernel_code(code):
            hit = self.kernel_model.cached_text(kernel_text(code), {"gpu": self.gpu, "shape": self.shape})
            return None if hit is None else {METRIC: hit}
        return self.base.cached(code, language, context) if self.base is not None else None


def with_kernels(base, gpu: str | None = None, shape_hint=None, model_dir: str | Path | None = None):
    """`base` (a Predictor, or None) plus the shipped kernel model when there is one; `base` unchanged
    when there is no kernel model or when `base` already predicts kernel_latency (a joint model).
    Loads the kernel model with the base predictor's device/threads/samples/seed when it can."""
    if base is not None and METRIC in base.config.metric_names:
        return base
    if not KernelModel.available(model_dir):
        if base is None:
            raise ModelError(f"no kernel latency model at {Path(model_dir) if model_dir else MODEL_DIR}")
        return base
    kw = {}
    if base is not None:
        kw = {"samples": getattr(base, "samples", 16), "seed": getattr(base, "seed", 0)}
    return KernelAwarePredictor(base, KernelModel.load(model_dir, **kw), gpu, shape_hint)
