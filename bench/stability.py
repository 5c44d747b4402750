"""How far a prediction moves under edits that do not change what a program does.

    python bench/stability.py [--model DIR] [--compare DIR ...] [--programs 300] [--no-write]

Programs: validation problems' programs (`training.learning.dataset.is_validation`, never trained on),
the first N by a hash of their key. Each rewrite of `bench/rewrites.py` (renames, reformatting,
type hints, docstrings, an unused assignment, a swap of two independent statements) is applied
to each program it applies to; the share of programs whose memory or latency prediction moves by
1.25× or more, and by 2× or more, is reported per model, side by side, in the `stability`
section of docs/benchmarks.md; and the share of programs whose rewrite `rlm gate` and the editor
would flag as a regression (`rlm_lsp.app.rules`: a change by canonical form, then a metric up by the
ratio with the confidence of its level), which is what a user of either sees.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

import rewrites  # noqa: E402
from report import add_write_flag, machine, progress, publish  # noqa: E402

from rlm_lsp.app import rules  # noqa: E402
from training.learning import dataset  # noqa: E402


def programs(n: int) -> list[str]:
    examples = dataset.load_examples(tiers=("large",))
    val = [e for e in examples if dataset.is_validation(e.problem_id, 0.1)]
    val.sort(key=lambda e: hashlib.sha256(e.key.encode()).hexdigest())
    return [e.code for e in val[:n]]


def variants(codes: list[str], seed: int = 0) -> dict[str, list[tuple[int, str]]]:
    """rewrite name -> (program index, rewritten code) for the programs it applies to."""
    rng = random.Random(seed)
    out: dict[str, list[tuple[int, str]]] = {name: [] for name in rewrites.REWRITES}
    for i, code in enumerate(progress(codes, desc="rewrite", unit="program")):
        for name, fn in rewrites.REWRITES.items():
            try:
                new = fn(code, rng)
            except (SyntaxError, ValueError, RecursionError):
                new = None
            if new is not None and new != code:
                out[name].append((i, new))
    return out


def _predict(predictor, codes: list[str], desc: str, chunk: int = 32) -> list[dict]:
    """predictor.predict in chunks, for the progress bar; a prediction does not depend on its batch."""
    starts = range(0, len(codes), chunk)
    return [p for start in progress(starts, desc=desc, total=len(starts), unit="batch")
            for p in predictor.predict(codes[start : start + chunk])]


def moved(predictor, codes, rewritten, label: str = "model") -> dict:
    """Per rewrite and metric, the share of programs whose prediction moves >= 1.25x and >= 2x;
    and per rewrite the share the regression rule flags (`gate`)."""
    base = _predict(predictor, codes, f"{label}: programs")
    flat = [code for pairs in rewritten.values() for _, code in pairs]
    preds = iter(_predict(predictor, flat, f"{label}: rewrites"))
    result = {}
    metrics = list(base[0]) if base else []  # as the runtime gives them: a growth is folded into its metric
    grows = [m for m in metrics if base[0][m].growth is not None]
    for name, pairs in rewritten.items():
        shifts = {m: [] for m in metrics}
        steps = {m: [] for m in grows}  # a growth exponent moves by a difference
        flagged = []
        for i, new in pairs:
            p = next(preds)
            flagged.append(rules.changed(codes[i], new) and any(
                rules.judge_metric(base[i][m], p[m], rules.DEFAULT_RATIO, rules.level_for(m, None, base[i][m], p[m])).regressed
                for m in metrics))  # a value up by the ratio, or a growth step, as the gate and the editor judge
            for m in shifts:
                a, b = base[i][m].value, p[m].value
                shifts[m].append(max(a, b) / min(a, b) if min(a, b) > 0 else (1.0 if a == b else float("inf")))
            for m in steps:
                steps[m].append(abs(p[m].growth - base[i][m].growth))
        result[name] = {"programs": len(pairs), "gate": _share(flagged, 0.5), **{
            m: {"1.25x": _share(s, 1.25), "2x": _share(s, 2.0)} for m, s in shifts.items()}, **{
            f"{m}_growth": {"0.25": _share(s, 0.25), "0.5": _share(s, 0.5)} for m, s in steps.items()}}
    return result


def _share(shifts: list[float], limit: float) -> float | None:
    return sum(s >= limit for s in shifts) / len(shifts) if shifts else None


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def markdown(results: dict[str, dict], n: int, seconds: float, command: str = "python bench/stability.py") -> str:
    names = list(results)
    lines = [
        "## Stability under neutral edits (`bench/stability.py`)",
        "",
        f"{n} validation programs (never trained on); for each semantics-preserving rewrite of `bench/rewrites.py` "
        "(renames found with the compiler's `symtable`, independent of `rlm_lsp/python/canonical.py`), the share of "
        "programs whose predicted memory / latency moves by ≥ 1.25× / ≥ 2×. Targets (issue 22): 0% for renames, "
        "reformatting, hints and docstrings; ≤ 5% at ≥ 2× for the inserted statement and the swap. "
        "*Flagged*: the share whose rewrite the gate and the editor would report as a regression (a change "
        "by canonical form, then a metric up by the ratio, 2×, with its confidence level). "
        f"Command: `{command}`. {machine()}; {seconds:.0f} s.",
        "",
        "| rewrite | programs | " + " | ".join(f"{m} memory ≥1.25× / ≥2× | {m} latency ≥1.25× / ≥2× | {m} flagged"
                                               for m in names) + " |",
        "|---|---|" + "---|---|---|" * len(names),
    ]
    first = results[names[0]]
    for rewrite in first:
        row = [rewrite, str(first[rewrite]["programs"])]
        for m in names:
            r = results[m][rewrite]
            for metric in ("memory", "latency"):
                row.append(f"{_pct(r[metric]['1.25x'])} / {_pct(r[metric]['2x'])}")
            row.append(_pct(r.get("gate")))
        lines.append("| " + " | ".join(row) + " |")
    growth = [(m, g) for m in names for g in results[m][next(iter(first))] if g.endswith("_growth")]
    if growth:  # models that predict growth: how far a rewrite moves the exponent
        lines += ["", "Growth exponents, share of programs whose predicted growth moves by ≥ 0.25 / ≥ 0.5:", "",
                  "| rewrite | " + " | ".join(f"{m} {g.replace('_', ' ')}" for m, g in growth) + " |",
                  "|---|" + "---|" * len(growth)]
        for rewrite in first:
            lines.append("| " + " | ".join([rewrite] + [
                f"{_pct(results[m][rewrite][g]['0.25'])} / {_pct(results[m][rewrite][g]['0.5'])}"
                for m, g in growth]) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=None, help="model directory (default: the shipped model)")
    p.add_argument("--compare", nargs="*", default=[], help="other model directories, side by side")
    p.add_argument("--programs", type=int, default=300)
    p.add_argument("--threads", type=int, default=1)
    add_write_flag(p)
    args = p.parse_args(argv)

    from rlm_lsp.runtime.model_dir import DEFAULT_DIR
    from rlm_lsp.runtime.predictor import Predictor

    start = time.perf_counter()
    codes = programs(args.programs)
    rewritten = variants(codes)
    results = {}
    for path in [args.model or str(DEFAULT_DIR), *args.compare]:
        predictor = Predictor.from_dir(path, device="cpu", threads=args.threads)
        label = f"`{predictor.config.model_version}` ({predictor.config.point_estimate})"
        if label in results:
            label += f" [{path}]"
        results[label] = moved(predictor, codes, rewritten, label)
        print(label, results[label], flush=True)
    given = argv if argv is not None else sys.argv[1:]
    command = " ".join(["python bench/stability.py", *(a for a in given if a != "--no-write")])
    text = markdown(results, len(codes), time.perf_counter() - start, command)
    publish("stability", text, write=not args.no_write)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
