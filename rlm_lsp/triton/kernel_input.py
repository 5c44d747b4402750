"""The Triton kernel family's input renderer: the text the kernel model reads, next to the code.

    kernel source -> kernel_text (the @triton.jit kernels and their launchers, comments dropped)
    GPU name      -> gpu_text ('NVIDIA H100 80GB HBM3' -> 'H100')
    shape hint    -> parse_shape_hint / shape_text (the work-size line) -> model_context (template fields)

A kernel's latency depends on the problem it is launched on at least as much as on its source, so
the model reads the GPU and a work-size line beside the code. The trainer (training/triton/) renders
its rows with these same functions, so training and runtime read the same input. The model that
runs on them is `rlm_lsp.triton.kernels.KernelModel`.
"""

from __future__ import annotations

import ast
import io
import math
import re
import textwrap
import tokenize
from collections.abc import Mapping, Sequence

LANGUAGE = "triton"
METRIC = "kernel_latency"
# The template a model was trained with is in its rlm_config.json `input_template`; the runtime
# renders whichever one it asks for (`model_context`).
# - v4 (TEMPLATE_V4): v3 plus a count of what the kernel does, `<ops> jit 1 load 2 ... lines 7`
#   ({kops}, derived from the code by rlm_lsp.runtime.template, `code_census.kernel_census`).
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
    code = code.replace("\r\n", "\n").replace("\r", "\n").replace("\t", "    ")  # line ends as ast counts them
    lines = code.split("\n")
    drop: set[int] = set()
    try:
        tree = ast.parse(code)
        for node in ast.walk(tree):
            body = getattr(node, "body", None)
            first = body[0] if isinstance(body, list) and body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                drop.update(range(first.lineno - 1, first.end_lineno or first.lineno))
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
    source = source.replace("\r\n", "\n").replace("\r", "\n")  # a lone \r ends a line for ast too
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
    return textwrap.dedent(text)
