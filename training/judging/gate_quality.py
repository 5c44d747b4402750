"""How well rlm-gate flags real regressions: recall and false-alarm rate on measured pairs.

    python -m training.judging.gate_quality [--model DIR] [--data 'training/data/*.jsonl*'] [--tier large]
                                    [--ratio 2.0] [--min-gap 2.0] [--structure s1] [--json out.json] [--markdown out.md]

Pairs: two measured solutions (status ok) of the same *validation* problem (the split of
`training.learning.dataset.is_validation`, never seen in training) whose measured metric differs by
`--min-gap` (2×) or more. Going from the cheaper to the costlier one is a real regression;
the reverse is a real improvement. For each pair the gate's own rule is applied to the
model's predictions of the two programs: flagged when predicted new/old >= `--ratio` (the
gate's default, 2.0) with the metric's confidence, and, where the model ships feature trees
(`rlm_lsp.runtime.feature_trees`), the trees agree (`--no-trees`: the rule without them). Per metric:

- recall: regressions flagged / regressions;
- false-alarm rate: improvements flagged / improvements (the reverse direction);
- with 95% Wilson intervals, since pairs are few;
- also: near-equal pairs (measured within 1.25×) flagged in either direction, the noise a
  team would see on rewrites that change nothing;
- and seed noise: each program predicted again with another sampling seed, the share whose
  two predictions differ by the gate ratio or more. The predictor draws its samples from a
  seed derived from the code, so any edit re-rolls them: this is how often sampling alone
  would trip the gate with `--independent-draws` (the gate's default shares the draws of old
  and new code, which removes this noise; 0% with greedy decoding, `--samples 1`).

The unit is the whole measured program (what the measurement is of); the gate applies the
same rule to each changed function. Needs the trained model; nothing here runs user code.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import itertools
import json
import math
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.policy import rules, structural  # noqa: E402
from rlm_lsp.policy.rules import growth  # noqa: E402
from training.learning import dataset  # noqa: E402

NEAR_EQUAL = 1.25


def pairs_by_metric(examples, metric: str, min_gap: float):
    """(cheap, costly, measured ratio) for every same-problem pair differing >= min_gap; and
    near-equal pairs (within NEAR_EQUAL), as (a, b, ratio)."""
    by_problem = defaultdict(list)
    for ex in examples:
        value = ex.values.get(metric)
        if value is not None and value > 0:
            by_problem[ex.problem_id].append(ex)
    far, near = [], []
    for pid in sorted(by_problem):
        group = sorted(by_problem[pid], key=lambda e: e.key)
        for a, b in itertools.combinations(group, 2):
            if a.code == b.code:
                continue
            va, vb = a.values[metric], b.values[metric]
            cheap, costly = (a, b) if va <= vb else (b, a)
            ratio = max(va, vb) / min(va, vb)
            if ratio >= min_gap:
                far.append((cheap, costly, ratio))
            elif ratio < NEAR_EQUAL:
                near.append((a, b, ratio))
    return far, near


def evaluate(examples, predictions, metric: str, gate_ratio: float, min_gap: float,
             level: float = rules.CONFIDENCE, structure: str | None = None) -> dict:
    """The gate's rule (`rlm_lsp.policy.rules.judge`: over the ratio and at least `level` of the paired
    draws over it; `level` 0 is the plain ratio of the point estimates; the model's feature trees
    have their say where the predictions carry them, unless `--no-trees` took them off) on every pair;
    with `structure` ("s0", "s1"), rule S too (`rlm_lsp.policy.structural`, on the programs' codes)."""
    far, near = pairs_by_metric(examples, metric, min_gap)

    def flags(a, b) -> bool:
        old, new = predictions[a.key][metric], predictions[b.key][metric]
        read = structural.judge(a.code, b.code, metric, old, new, structure)
        return rules.judge(old, new, gate_ratio, level).regressed or bool(read is not None and read.regressed)

    flagged_up = [flags(cheap, costly) for cheap, costly, _ in far]
    flagged_down = [flags(costly, cheap) for cheap, costly, _ in far]
    flagged_near = [flags(a, b) or flags(b, a) for a, b, _ in near]
    big = [(c, d) for c, d, r in far if r >= 2 * min_gap]
    return {
        "metric": metric,
        "level": level,
        "pairs": len(far),
        "problems": len({c.problem_id for c, _, _ in far}),
        "recall": _rate(flagged_up),
        "recall_ci95": _wilson(flagged_up),
        "false_alarm_rate": _rate(flagged_down),
        "false_alarm_ci95": _wilson(flagged_down),
        "recall_at_double_gap": _rate([flags(c, d) for c, d in big]),
        "double_gap_pairs": len(big),
        "near_equal_pairs": len(near),
        "near_equal_flag_rate": _rate(flagged_near),
    }


NEAR_GROWTH = 0.25  # measured growth exponents this close: no step


def growth_pairs(examples, metric: str, step: float):
    """(flatter, steeper, measured difference) for same-problem pairs whose measured `metric`
    (a `<base>_growth` exponent) differs by `step` or more; near pairs (< NEAR_GROWTH apart)."""
    by_problem = defaultdict(list)
    for ex in examples:
        if ex.values.get(metric) is not None:
            by_problem[ex.problem_id].append(ex)
    far, near = [], []
    for pid in sorted(by_problem):
        for a, b in itertools.combinations(sorted(by_problem[pid], key=lambda e: e.key), 2):
            if a.code == b.code:
                continue
            flat, steep = sorted((a, b), key=lambda e: e.values[metric])
            gap = steep.values[metric] - flat.values[metric]
            if gap >= step:
                far.append((flat, steep, gap))
            elif gap < NEAR_GROWTH:
                near.append((a, b, gap))
    return far, near


def evaluate_growth(examples, predictions, base: str, step: float = rules.GROWTH_STEP,
                    level: float = rules.CONFIDENCE) -> dict:
    """The gate's growth rule (`rules.judge_growth`) on pairs measured a growth step apart."""
    far, near = growth_pairs(examples, base + "_growth", step)

    def flags(a, b) -> bool:
        verdict = rules.judge_growth(predictions[a.key][base], predictions[b.key][base], step, level)
        return bool(verdict and verdict.regressed)

    up = [flags(flat, steep) for flat, steep, _ in far]
    down = [flags(steep, flat) for flat, steep, _ in far]
    close = [flags(a, b) or flags(b, a) for a, b, _ in near]
    return {"metric": base + "_growth", "step": step, "level": level, "pairs": len(far),
            "problems": len({a.problem_id for a, _, _ in far}),
            "recall": _rate(up), "recall_ci95": _wilson(up),
            "false_alarm_rate": _rate(down), "false_alarm_ci95": _wilson(down),
            "near_equal_pairs": len(near), "near_equal_flag_rate": _rate(close)}


LEVELS = [0.0] + [round(0.5 + 0.05 * i, 2) for i in range(10)]  # the plain ratio, then 0.50 ... 0.95


def half(problem_id: str) -> str:
    """"A" or "B": a fixed split of the validation problems, for calibrating on one half."""
    return "AB"[hashlib.sha256(problem_id.encode()).digest()[0] % 2]


def calibrate(val, predictions, metrics, ratio: float, min_gap: float, near_max: float,
              false_alarm_max: dict[str, float]) -> dict:
    """The smallest level at which, on half A, near-equal pairs are flagged at most `near_max` and
    false alarms at most `false_alarm_max[metric]` for every metric; its figures on B and on all."""
    a = [e for e in val if half(e.problem_id) == "A"]
    b = [e for e in val if half(e.problem_id) == "B"]
    table, chosen = [], None
    for level in LEVELS:
        on_a = [evaluate(a, predictions, m, ratio, min_gap, level) for m in metrics]
        ok = all((r["near_equal_flag_rate"] or 0) <= near_max
                 and (r["false_alarm_rate"] or 0) <= false_alarm_max.get(r["metric"], 1.0) for r in on_a)
        table.append({"level": level, "ok": ok, "A": on_a})
        if ok and chosen is None:
            chosen = level
    level = chosen if chosen is not None else LEVELS[-1]
    return {
        "chosen": chosen, "level": level, "table": table,
        "B": [evaluate(b, predictions, m, ratio, min_gap, level) for m in metrics],
        "all": [evaluate(val, predictions, m, ratio, min_gap, level) for m in metrics],
        "plain_ratio_all": [evaluate(val, predictions, m, ratio, min_gap, 0.0) for m in metrics],
    }


def calibrate_per_metric(val, predictions, metrics, ratio: float, min_gap: float, near_max: float,
                         false_alarm_max: dict[str, float]) -> dict:
    """`calibrate` for each metric alone: its own smallest level that meets its limits on half A."""
    each = {m: calibrate(val, predictions, [m], ratio, min_gap, near_max, false_alarm_max) for m in metrics}
    return {"levels": {m: c["level"] for m, c in each.items()}, "chosen": {m: c["chosen"] for m, c in each.items()},
            "B": [c["B"][0] for c in each.values()], "all": [c["all"][0] for c in each.values()],
            "plain_ratio_all": [c["plain_ratio_all"][0] for c in each.values()],
            "table": {m: c["table"] for m, c in each.items()}}


def reseeded(predictor, model: str | None, threads: int, samples: int | None):
    """The same model with sampling seed 1 (the gate uses seed 0)."""
    from rlm_lsp.runtime.predictor import Predictor

    kwargs = {"device": "cpu", "threads": threads, "seed": 1}
    if samples is not None:
        kwargs["samples"] = samples
    return Predictor.default(**kwargs) if model is None else Predictor.from_dir(model, **kwargs)


def markdown(results: list[dict], meta: dict) -> str:
    lines = [
        f"Gate quality on validation problems (model `{meta['model_version']}`, tier `{meta['tier']}`, "
        f"gate ratio {meta['ratio']}×, {meta.get('samples', '?')} samples"
        f"{', shared draws' if meta.get('common_draws') else ', independent draws'}, "
        f"pairs measured ≥ {meta['min_gap']}× apart; "
        f"`python -m training.judging.gate_quality`):",
        "",
        f"| metric | pairs | problems | recall (regressions flagged) | false alarms (improvements flagged) "
        f"| recall, pairs ≥ {2 * meta['min_gap']:g}× apart | near-equal pairs (< {NEAR_EQUAL}×) flagged "
        f"| same program, other seed, flagged |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['metric']} | {r['pairs']} | {r['problems']} | {_pct(r['recall'])} {_ci(r['recall_ci95'])} "
            f"| {_pct(r['false_alarm_rate'])} {_ci(r['false_alarm_ci95'])} "
            f"| {_pct(r['recall_at_double_gap'])} ({r['double_gap_pairs']}) "
            f"| {_pct(r['near_equal_flag_rate'])} ({r['near_equal_pairs']}) "
            f"| {_pct(r.get('seed_noise_flag_rate'))} |"
        )
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.judging.gate_quality", description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the shipped model)")
    p.add_argument("--data", default=dataset.DEFAULT_DATA, help="measurement files (glob)")
    p.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    p.add_argument("--tier", default="large", help="input-size tier of the measurements to pair")
    p.add_argument("--val-fraction", type=float, default=0.1, help="as in training (dataset.is_validation)")
    p.add_argument("--ratio", type=float, default=2.0, help="the gate's ratio")
    p.add_argument("--min-gap", type=float, default=2.0, help="measured difference that makes a real change")
    p.add_argument("--metrics", default="memory,latency")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--limit", type=int, default=None, help="at most this many validation programs (a quick look)")
    p.add_argument("--no-noise", action="store_true", help="skip the second-seed pass")
    p.add_argument("--independent-draws", action="store_true", help="as `rlm gate --independent-draws`")
    p.add_argument("--level", type=float, default=None,
                   help="confidence level of the rule (0: the plain ratio of the point estimates; "
                        "default: each metric's own, rules.level_for)")
    p.add_argument("--no-trees", action="store_true",
                   help="judge without the model's feature trees (rlm_lsp.runtime.feature_trees), as models without them are")
    p.add_argument("--calibrate", action="store_true",
                   help="choose the level on half A of the validation problems, report it on half B")
    p.add_argument("--per-metric", action="store_true", help="--calibrate: a level for each metric alone")
    p.add_argument("--near-max", type=float, default=0.10, help="--calibrate: near-equal pairs flagged at most")
    p.add_argument("--false-alarm-max", default="memory=0.14,latency=0.18",
                   help="--calibrate: false alarms at most, per metric")
    p.add_argument("--growth", action="store_true",
                   help="the growth rule instead: model v4's functions (training.judging.shaped_examples) with a measured "
                        "growth, paired by a step of rules.GROWTH_STEP; needs a model that predicts growth")
    p.add_argument("--structure", choices=structural.VARIANTS,
                   help="also the rule with S (rlm_lsp.policy.structural) beside it, on the same predictions")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--markdown", help="write the model-card table here")
    args = p.parse_args(argv)
    if args.growth:
        return growth_main(args)

    from rlm_lsp.gate.gate import load_predictor

    examples = dataset.load_examples(args.data, args.corpus, tiers=(args.tier,))
    val = [e for e in examples if dataset.is_validation(e.problem_id, args.val_fraction)]
    val.sort(key=lambda e: (e.problem_id, e.key))
    if args.limit:
        val = val[: args.limit]
    if not val:
        print(f"no validation examples in {args.data} (tier {args.tier})", file=sys.stderr)
        return 1
    predictor = load_predictor(args.model, args.threads, args.samples, "cpu", not args.independent_draws)
    metrics = [m for m in args.metrics.split(",") if m in predictor.config.metric_names]
    start = time.perf_counter()
    codes = [e.code for e in val]
    preds = predictor.predict(codes, language="python", metrics=metrics)
    predictions = {e.key: pr for e, pr in zip(val, preds, strict=True)}
    elapsed = time.perf_counter() - start
    if args.no_trees:  # the rule without the model's feature trees (their second opinion)
        predictions = {k: {m: dataclasses.replace(pr, features=None) for m, pr in d.items()} for k, d in predictions.items()}
    sample = next(iter(predictions.values()), {})
    results = [evaluate(val, predictions, m, args.ratio, args.min_gap, rules.level_for(m, args.level, sample.get(m)))
               for m in metrics]
    calibration = None
    if args.calibrate:
        limits = {k: float(v) for k, v in (item.split("=") for item in args.false_alarm_max.split(",") if item)}
        how = calibrate_per_metric if args.per_metric else calibrate
        calibration = how(val, predictions, metrics, args.ratio, args.min_gap, args.near_max, limits)
        results = calibration["all"]
    if not args.no_noise and args.independent_draws:  # with shared draws, old and new never differ by seed
        other = reseeded(predictor, args.model, args.threads, args.samples).predict(codes, metrics=metrics)
        for r in results:
            m = r["metric"]
            flips = [max(growth(a[m].value, b[m].value), growth(b[m].value, a[m].value)) >= args.ratio
                     for a, b in zip(preds, other, strict=True)]  # fmt: skip
            r["seed_noise_flag_rate"] = _rate(flips)
    meta = {
        "model_version": predictor.config.model_version,
        "tier": args.tier,
        "ratio": args.ratio,
        "min_gap": args.min_gap,
        "validation_programs": len(val),
        "validation_problems": len({e.problem_id for e in val}),
        "predict_seconds": round(elapsed, 1),
        "samples": predictor.samples,
        "common_draws": not args.independent_draws,
        "feature_trees": any(pr.features is not None for d in predictions.values() for pr in d.values()),
    }
    meta["level"] = {r["metric"]: r["level"] for r in results}  # each metric's own unless --level set one
    out = {"meta": meta, "results": results}
    if calibration is not None:
        out["calibration"] = calibration
        if args.per_metric:
            for m, table in calibration["table"].items():
                print(calibration_markdown({"table": table, "chosen": calibration["chosen"][m], **{
                    split: [r for r in calibration[split] if r["metric"] == m]
                    for split in ("B", "all", "plain_ratio_all")}}))
        else:
            print(calibration_markdown(calibration))
    if args.structure:  # the same pairs and predictions, rule S beside today's rule
        out["structure"] = [evaluate(val, predictions, r["metric"], args.ratio, args.min_gap, r["level"], args.structure)
                            for r in results]
    text = json.dumps(out, indent=2)
    print(text)
    table = markdown(results, meta) + (f"\nWith rule {args.structure.upper()}:\n\n" + markdown(out["structure"], meta)
                                       if args.structure else "")
    print(table)
    if args.json:
        Path(args.json).write_text(text + "\n")
    if args.markdown:
        Path(args.markdown).write_text(table)
    return 0


def growth_main(args) -> int:
    from rlm_lsp.gate.gate import load_predictor
    from training.judging import shaped_examples as v4_data

    val = [e for e in v4_data.load_v4_examples() if e.extra.get("shape") == "function"
           and e.extra.get("validation", dataset.is_validation(e.problem_id))]
    val = sorted(val, key=lambda e: (e.problem_id, e.key))[: args.limit or None]
    predictor = load_predictor(args.model, args.threads, args.samples, "cpu", True)
    bases = [m for m in args.metrics.split(",") if m + "_growth" in predictor.config.metric_names]
    if not bases:
        print(f"{predictor.config.model_version} predicts no growth of {args.metrics}", file=sys.stderr)
        return 1
    preds = predictor.predict([e.code for e in val], language="python", metrics=bases)
    predictions = {e.key: pr for e, pr in zip(val, preds, strict=True)}
    results = [evaluate_growth(val, predictions, b, rules.GROWTH_STEP, level)
               for b in bases for level in (0.0, rules.CONFIDENCE)]
    out = {"meta": {"model_version": predictor.config.model_version, "validation_programs": len(val),
                    "step": rules.GROWTH_STEP}, "results": results}
    text = json.dumps(out, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


def calibration_markdown(c: dict) -> str:
    lines = [f"Confidence level chosen on half A: {c['chosen']} (rule: near-equal flagged and false alarms at "
             "most their limits on every metric); figures at that level (`plain_ratio_all`: level 0, the point "
             "estimates, with the model's feature trees unless `--no-trees`):", "",
             "| split | metric | pairs | recall | false alarms | near-equal flagged |", "|---|---|---|---|---|---|"]
    for split in ("B", "all", "plain_ratio_all"):
        for r in c[split]:
            lines.append(f"| {split} | {r['metric']} | {r['pairs']} | {_pct(r['recall'])} | "
                         f"{_pct(r['false_alarm_rate'])} | {_pct(r['near_equal_flag_rate'])} ({r['near_equal_pairs']}) |")
    lines += ["", "| level | A: " + " | A: ".join(f"{r['metric']} recall / false / near" for r in c["table"][0]["A"])
              + " |", "|---|" + "---|" * len(c["table"][0]["A"])]
    for row in c["table"]:
        lines.append(f"| {row['level']}{' ✓' if row['ok'] else ''} | " + " | ".join(
            f"{_pct(r['recall'])} / {_pct(r['false_alarm_rate'])} / {_pct(r['near_equal_flag_rate'])}"
            for r in row["A"]) + " |")
    return "\n".join(lines) + "\n"


def _rate(flags: list[bool]) -> float | None:
    return sum(flags) / len(flags) if flags else None


def _wilson(flags: list[bool], z: float = 1.96) -> list[float] | None:
    """95% Wilson score interval of a rate: honest for small counts and rates near 0 or 1."""
    n = len(flags)
    if n == 0:
        return None
    p = sum(flags) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return [max(0.0, centre - half), min(1.0, centre + half)]


def _ci(interval: list[float] | None) -> str:
    return "" if interval is None else f"({100 * interval[0]:.0f}–{100 * interval[1]:.0f}%)"


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


if __name__ == "__main__":
    raise SystemExit(main())
