"""How far a prediction moves under edits that do not change what a program does.

    python bench/stability.py [--model DIR] [--compare DIR ...] [--programs 300] [--no-write]

Programs: validation problems' programs (`training.learning.dataset.is_validation`, never trained on),
the first N by a hash of their key. Each rewrite of `bench/rewrites.py` (renames, reformatting,
type hints, docstrings, an unused assignment, a swap of two independent statements) is applied
to each program it applies to (and `rewrites.CALLER_ALONE`: every function renamed, and a function
that calls another read alone, with its file's names, as the editor, `rlm predict` and the gate
read one function); the share of programs whose memory or latency prediction moves by
1.25× or more, and by 2× or more, is reported per model, side by side, in the `stability`
section of docs/benchmarks.md; and the share of programs whose rewrite `rlm gate` and the editor
would flag as a regression (`rlm_lsp.policy.rules`: a change by canonical form, then a metric up by the
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

from rlm_lsp.policy import rules  # noqa: E402
from rlm_lsp.python import outside  # noqa: E402
from training.learning import dataset  # noqa: E402


def programs(n: int) -> list[str]:
    examples = dataset.load_examples(tiers=("large",))
    val = [e for e in examples if dataset.is_validation(e.problem_id, 0.1)]
    val.sort(key=lambda e: hashlib.sha256(e.key.encode()).hexdigest())
    return [e.code for e in val[:n]]


def variants(codes: list[str], seed: int = 0) -> dict[str, list[tuple[int, str]]]:
    """rewrite name -> (program index, rewritten code) for the programs it applies to; for
    `rewrites.CALLER_ALONE`, (program index, (the caller's snippet before, after))."""
    rng, alone = random.Random(seed), random.Random(seed + 1)  # its own draws: the other rows' names stay
    out: dict[str, list[tuple[int, str]]] = {name: [] for name in rewrites.REWRITES}
    for i, code in enumerate(progress(codes, desc="rewrite", unit="program")):
        for name, fn in rewrites.REWRITES.items():
            try:
                new = fn(code, rng)
            except (SyntaxError, ValueError, RecursionError):
                new = None
            if new is not None and new != code:
                out[name].append((i, new))
        try:
            pair = rewrites.caller_alone(code, alone)
        except (SyntaxError, ValueError, RecursionError):
            pair = None
        if pair is not None and pair[0].code != pair[1].code:
            out.setdefault(rewrites.CALLER_ALONE, []).append((i, pair))
    out.setdefault(rewrites.CALLER_ALONE, [])
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
    flat = [code for name, pairs in rewritten.items() if name != rewrites.CALLER_ALONE for _, code in pairs]
    preds = iter(_predict(predictor, flat, f"{label}: rewrites"))
    result = {}
    for name, pairs in rewritten.items():
        if name == rewrites.CALLER_ALONE:
            result[name] = _shares(*_callers_alone(predictor, pairs, label))
            continue
        found = [(codes[i], new, base[i], next(preds), frozenset(), frozenset()) for i, new in pairs]
        result[name] = _shares(found, len(pairs))
    return result


def _callers_alone(predictor, pairs, label: str) -> tuple[list, int]:
    """`_shares`' rows for `rewrites.caller_alone`'s (before, after) snippets, each read with its file's names."""
    snips = [s for _, pair in pairs for s in pair]
    got = predictor.predict([s.code for s in snips], context=[s.context() for s in snips]) if snips else []
    names = [frozenset(outside.kinds_for(s.outside, s.code)) for s in snips]
    rows = [(snips[k].code, snips[k + 1].code, got[k], got[k + 1], names[k], names[k + 1])
            for k in range(0, len(snips), 2)]
    print(f"{label}: {len(rows)} callers read alone", flush=True)
    return rows, len(rows)


def _shares(found: list, programs: int) -> dict:
    """Of (old code, new code, old prediction, new prediction, old names, new names) rows: per metric
    the share whose value moves >= 1.25x and >= 2x (a growth: by >= 0.25 and 0.5), and the share
    the regression rule flags (`gate`)."""
    metrics = list(found[0][2]) if found else []  # as the runtime gives them: a growth is folded into its metric
    shifts: dict[str, list] = {m: [] for m in metrics}
    steps: dict[str, list] = {m: [] for m in metrics if found[0][2][m].growth is not None}  # moved by a difference
    flagged = []
    for old, new, b, p, old_names, new_names in found:
        flagged.append(rules.changed(old, new, old_names, new_names) and any(
            rules.judge_metric(b[m], p[m], rules.DEFAULT_RATIO, rules.level_for(m, None, b[m], p[m])).regressed
            for m in metrics))  # a value up by the ratio, or a growth step, as the gate and the editor judge
        for m in shifts:
            x, y = b[m].value, p[m].value
            shifts[m].append(max(x, y) / min(x, y) if min(x, y) > 0 else (1.0 if x == y else float("inf")))
        for m in steps:
            steps[m].append(abs(p[m].growth - b[m].growth))
    return {"programs": programs, "gate": _share(flagged, 0.5), **{
        m: {"1.25x": _share(v, 1.25), "2x": _share(v, 2.0)} for m, v in shifts.items()}, **{
        f"{m}_growth": {"0.25": _share(v, 0.25), "0.5": _share(v, 0.5)} for m, v in steps.items()}}


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
