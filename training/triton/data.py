"""Kernel latency rows from /work/shared/corpora/triton (built at train time; no corpus code is committed).

Row = {id, source, op, family, gpu, shape, dtype, mode, ms, code, work_log2, feats...}

- TritonBench channel G (`perf_measurements.jsonl.gz`, code_kind "triton"): real Triton operators
  from GitHub, timed with triton.testing.do_bench over the perf script's input sweep. The GPU is not
  recorded; SOURCES.md infers an A100 80GB from peak GB/s and TFLOPS, so these rows get gpu "A100"
  (and source "tritonbench" so they can be reported apart from Liger's real A100 rows).
- TritonBench channel T rows are dropped: they time the *PyTorch reference* (torch code, no
  @triton.jit), so their code is not what the editor shows for a kernel, and their latency is that
  of cuBLAS/ATen, not of any Triton source in the row.
- Liger-Kernel `all_benchmark_data.csv`: metric_name == "speed", kernel_provider liger*, with the
  kernel's Triton source from kernel_sources.jsonl.gz via kernel_name_to_files.json (backend
  "triton" files with @triton.jit). Kernels without such a file (fused_moe, kto_loss, distill_cosine,
  the chunked-loss cpo/orpo/simpo: torch code) are dropped. Caveat: sources are today's HEAD,
  numbers come from older releases.
- Liger work size (`liger_work`): "dims" (what models up to v3 were trained on) multiplies every
  named dim of the row, so embedding counts V*B*T*D and rope num_q_heads*num_kv_heads;
  "tensors" renders the shapes of the tensors the benchmark script builds
  (`training.triton.liger_shapes`), so the work is the largest tensor's element count, as for
  TritonBench rows and a shape hint given as tensor shapes.

Families (the validation split unit) merge names that share an operator across sources and
variants: cross_entropy1/2, megatron_cross_entropy and fused_linear_cross_entropy are all
"cross_entropy"; every attention variant is "attention"; see FAMILY_RULES.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from rlm_lsp.triton.kernels import gpu_text, kernel_text, shape_text
from training.triton.liger_shapes import tensor_shapes

CORPUS = Path("/work/shared/corpora/triton")

# (regex on the op / kernel name, family); first match wins.
FAMILY_RULES = (
    (r"cross_entropy|ce_loss|\bce\b", "cross_entropy"),
    (r"jsd|kl_?div|tvd|distill", "divergence_loss"),
    (r"grpo|orpo|cpo|simpo|kto|dpo", "preference_loss"),
    (r"rms", "rms_norm"),
    (r"layer_?norm|group_norm|\bln\b|norm", "norm"),
    (r"rope|rotary|sin_cos|sph_harmonics", "rope"),
    (r"^(add_|vector_add|triton_mul|relu|sin|pow_|isfinite|masked_add|mul_)", "elementwise"),
    (r"swiglu|geglu|glu|relu_squared|activation|gelu|silu", "activation"),
    (r"softmax|sparsemax", "softmax"),
    (r"embedding", "embedding"),
    (r"retention|gla\b|gla_|delta|hgrn|rwkv|linear_attn|recurrent|ssm|mamba|gated|chunk", "linear_attention"),
    (r"attn|attention|flash|decode|context_", "attention"),
    (r"matmul|gemm|bmm|mm_|_mm|matvec|vecmat|mult|lora|bgmv|sgmv", "matmul"),
    (r"quant|dequant|fp8|f8|fp4|int4|int8|bf16", "quantization"),
    (r"cumsum|scan|reduce|sum|max|argmax|mean", "reduction"),
    (r"copy|index|gather|scatter|cache|select|cat|transpose|permute", "memory_movement"),
    (r"dropout|rand", "random"),
    (r"adam|sgd|optim|lion", "optimizer"),
)


def family_of(name: str) -> str:
    low = name.lower()
    for pattern, family in FAMILY_RULES:
        if re.search(pattern, low):
            return family
    return re.sub(r"[_\d]+$", "", re.sub(r"(_triton|_kernel|_fwd|_bwd|_ops?)+$", "", low)) or low


def split_of(family: str, test_families: set[str]) -> str:
    return "test" if family in test_families else "train"


# Held-out families: chosen by a seeded hash over the family list (choose_test_families), so the
# split does not move when rows are added to a family. ~20% of rows.
TEST_FAMILIES_SEED = "triton-v1"
# Validation families (`val_frac` > 0): carved the same way out of the training families, with
# their own seed, so that steps and options can be chosen without looking at the test families.
VAL_FAMILIES_SEED = "triton-val-v1"


def choose_families(rows: list[dict], frac: float, seed: str) -> set[str]:
    """Families in seeded hash order until they hold `frac` of the rows, skipping giants (> 12%)."""
    counts = Counter(r["family"] for r in rows)
    order = sorted(counts, key=lambda f: hashlib.sha256(f"{seed}:{f}".encode()).hexdigest())
    chosen, total = set(), sum(counts.values())
    for fam in order:
        if sum(counts[f] for f in chosen) >= frac * total:
            break
        if counts[fam] > 0.12 * total:  # never hold out one giant family alone
            continue
        chosen.add(fam)
    return chosen


def choose_test_families(rows: list[dict], frac: float = 0.2) -> set[str]:
    return choose_families(rows, frac, TEST_FAMILIES_SEED)


_DTYPE = re.compile(r"torch\.(float16|bfloat16|float32|float8\w*|int8|half|float)\b")
_DTYPE_SHORT = {"float16": "fp16", "half": "fp16", "bfloat16": "bf16", "float32": "fp32", "float": "fp32",
                "int8": "int8"}


def _dtype_from_text(text: str) -> str | None:
    found = Counter(_DTYPE_SHORT.get(m, m if not m.startswith("float8") else "fp8") for m in _DTYPE.findall(text or ""))
    return found.most_common(1)[0][0] if found else None


def _num_from_size(size) -> list:
    """TritonBench input_size entries: shape lists, scalars, or nested odd things -> lists/scalars."""
    out = []
    for s in size if isinstance(size, list) else [size]:
        if isinstance(s, list) and all(isinstance(d, (int, float)) for d in s):
            out.append(s)
        elif isinstance(s, (int, float)) and not isinstance(s, bool):
            out.append(s)
    return out


def tritonbench_rows(corpus: Path = CORPUS) -> list[dict]:
    rows = []
    with gzip.open(corpus / "tritonbench" / "perf_measurements.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            r = json.loads(line)
            if r["channel"] != "G" or not r.get("ms") or r["ms"] <= 0:
                continue
            shapes = _num_from_size(r["input_size"])
            dtype = _dtype_from_text(r.get("perf_script_code", ""))
            ms = float(r["ms"])
            gbs, tflops = r.get("GB/s"), r.get("TFLOPS")
            # the perf script's byte and FLOP formulas, recovered from its derived rates
            bytes_ = gbs * 1e9 * ms / 1e3 if gbs else None
            flops = tflops * 1e12 * ms / 1e3 if tflops else None
            rows.append({
                "id": f"tb:{r['op']}:{r['measurement_index']}",
                "source": "tritonbench", "op": r["op"], "family": family_of(r["op"]),
                "gpu_name": "A100 (inferred)", "gpu": "A100",
                "shape": shape_text(shapes=shapes, dtype=dtype),
                "dtype": dtype, "mode": "forward", "shapes": shapes,
                "ms": ms, "bytes": bytes_, "flops": flops,
                "code": r["code"], "input_size": r["input_size"],
            })
    return rows


def remeasured_rows(rows: list[dict], paths: Sequence[str | Path]) -> tuple[list[dict], dict]:
    """TritonBench operators re-timed on another GPU (`training.triton.tritonbench time`), joined
    onto the A100 row of the same op and input size: same code, shape line, family and split, with
    the new GPU and ms. Returns (rows, counts). Rows that match nothing are counted, not kept (an
    input that failed upstream, or a perf script that changed)."""
    base: dict[tuple, list[dict]] = {}
    for r in rows:
        if r["source"] == "tritonbench":
            base.setdefault((r["op"], json.dumps(r["input_size"])), []).append(r)
    out, counts, used = [], Counter(), Counter()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                t = json.loads(line)
                if t.get("marker") or t.get("status") != "ok":
                    continue
                key = (t["op"], json.dumps(t["input_size"]))
                matches = base.get(key, [])
                k = used[(key, t["gpu"])]
                if k >= len(matches):
                    counts["unmatched"] += 1
                    continue
                used[(key, t["gpu"])] += 1
                b = matches[k]
                gpu = gpu_text(t["gpu"])
                out.append({**b, "id": f"{b['id']}@{gpu}", "source": "tritonbench-retimed", "gpu": gpu,
                            "gpu_name": t["gpu"], "ms": float(t["ms"])})
                counts["joined"] += 1
    return out, dict(counts)


LIGER_WORK = ("dims", "tensors")


def liger_rows(corpus: Path = CORPUS, liger_work: str = "dims") -> list[dict]:
    if liger_work not in LIGER_WORK:
        raise ValueError(f"liger_work must be one of {LIGER_WORK}, not {liger_work!r}")
    base = corpus / "liger_kernel"
    sources = {}
    with gzip.open(base / "kernel_sources.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            s = json.loads(line)
            sources[s["path"]] = s
    mapping = json.loads((base / "kernel_name_to_files.json").read_text())

    def source_for(kernel: str) -> tuple[str, str] | None:
        files = [f for f in mapping.get(kernel, {}).get("source_files", [])
                 if f in sources and sources[f]["backend"] == "triton" and sources[f]["has_triton_jit"]]
        if not files:
            return None
        files.sort(key=lambda f: (Path(f).stem != kernel, len(f)))
        return files[0], sources[files[0]]["text"]

    rows = []
    with open(base / "all_benchmark_data.csv", newline="", encoding="utf-8") as fh:
        for i, r in enumerate(csv.DictReader(fh)):
            if r["metric_name"] != "speed" or not r["kernel_provider"].startswith("liger"):
                continue
            src = source_for(r["kernel_name"])
            try:
                ms = float(r["y_value_50"])
                x = float(r["x_value"])
            except ValueError:
                continue
            if src is None or not ms > 0:
                continue
            try:
                extra = json.loads(r["extra_benchmark_config_str"] or "{}")
            except json.JSONDecodeError:
                extra = {}
            dims = {r["x_name"]: x}
            for k, v in extra.items():
                if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in dims:
                    dims[k] = v
            dtype = _dtype_from_text(json.dumps(extra)) or None
            mode = r["kernel_operation_mode"] or "forward"
            shapes = None
            if liger_work == "tensors":
                shapes = tensor_shapes(r["kernel_name"], dims)
                if not shapes:
                    raise ValueError(f"no tensor shapes for Liger kernel {r['kernel_name']!r}: "
                                     "add it to training/triton/liger_shapes.py")
            path, text = src
            rows.append({
                "id": f"liger:{i}",
                "source": "liger", "op": r["kernel_name"], "provider": r["kernel_provider"],
                "family": family_of(Path(path).stem if Path(path).stem != "experimental" else r["kernel_name"]),
                "gpu_name": r["gpu_name"], "gpu": gpu_text(r["gpu_name"]),
                "shape": (shape_text(shapes=shapes, dtype=dtype, mode=mode) if shapes
                          else shape_text(dims=dims, dtype=dtype, mode=mode)),
                "dtype": dtype, "mode": mode, "dims": dims, "shapes": shapes,
                "ms": ms, "bytes": None, "flops": None,
                "code": text, "source_file": path, "liger_version": r["liger_version"],
            })
    return rows


def load_rows(corpus: Path = CORPUS, max_code_chars: int = 4000, liger_work: str = "dims",
              val_frac: float = 0.0, extra_times: Sequence[str | Path] = ()) -> list[dict]:
    """All rows with `split` set: "test" (held-out families), "val" (with `val_frac` > 0: about that
    share of the training rows, whole families) or "train". `extra_times`: TritonBench re-timings
    on other GPUs (`remeasured_rows`), added after the split is chosen, so they never move it."""
    rows = tritonbench_rows(corpus) + liger_rows(corpus, liger_work)
    cache: dict[str, str] = {}
    for r in rows:
        key = hashlib.sha1(r["code"].encode()).hexdigest()
        if key not in cache:
            cache[key] = kernel_text(r["code"], max_chars=max_code_chars)
        r["text"] = cache[key]
        r["work_log2"] = float(re.search(r"work 2\^(\d+)", r["shape"]).group(1))
    test = choose_test_families(rows)
    for r in rows:
        r["split"] = split_of(r["family"], test)
    if val_frac > 0:
        val = choose_families([r for r in rows if r["split"] == "train"], val_frac, VAL_FAMILIES_SEED)
        for r in rows:
            if r["family"] in val:
                r["split"] = "val"
    if extra_times:
        rows = rows + remeasured_rows(rows, extra_times)[0]
    return rows


def unlabelled_texts(corpus: Path = CORPUS, limit: int = 3000) -> list[str]:
    """Extra Triton code for the tokenizer only: flash-linear-attention sources and the
    TritonBench LLM generations (no labels, never used as training rows)."""
    texts = []
    with gzip.open(corpus / "flash_linear_attention" / "triton_sources.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            texts.append(kernel_text(json.loads(line)["text"], max_chars=6000))
    for path in sorted((corpus / "tritonbench" / "llm_generated").rglob("*.jsonl.gz"))[:6]:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                pred = json.loads(line).get("predict") or ""
                m = re.search(r"```(?:python)?\n(.*?)```", pred, re.S)
                if m:
                    texts.append(kernel_text(m.group(1), max_chars=6000))
                if len(texts) >= limit:
                    return texts
    return texts


def manifest(rows: list[dict]) -> list[dict]:
    """Ids + numbers only (what may be committed): no code."""
    keep = ("id", "source", "op", "family", "split", "gpu", "gpu_name", "shape", "mode", "ms")
    return [{k: r.get(k) for k in keep} for r in rows]


def summary(rows: list[dict]) -> dict:
    out = {"rows": len(rows)}
    for key in ("source", "split", "gpu", "family"):
        out[key] = dict(Counter(r[key] for r in rows).most_common())
    out["test_families"] = sorted({r["family"] for r in rows if r["split"] == "test"})
    out["ms_range"] = [min(r["ms"] for r in rows), max(r["ms"] for r in rows)]
    return out


def main() -> None:
    import argparse

    p = argparse.ArgumentParser(description="Build (in memory) and summarise the kernel latency rows")
    p.add_argument("--manifest", type=Path, help="write ids + numbers (no code) as .jsonl.gz")
    p.add_argument("--liger-work", default="dims", choices=LIGER_WORK, help="how a Liger row's work size is counted")
    p.add_argument("--val-frac", type=float, default=0.0, help="validation families, as the trainer's --val-frac")
    args = p.parse_args()
    rows = load_rows(liger_work=args.liger_work, val_frac=args.val_frac)
    print(json.dumps(summary(rows), indent=1))
    if args.manifest:
        with gzip.open(args.manifest, "wt", encoding="utf-8") as fh:
            for m in manifest(rows):
                fh.write(json.dumps(m) + "\n")


if __name__ == "__main__":
    main()
