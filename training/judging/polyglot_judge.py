"""A polyglot candidate judged per language beside a gradient-boosting baseline on the same code counts.

    python -m training.judging.evaluate DIR --polyglot-data D1 D2 ... --predictions cand.jsonl
    python -m training.judging.evaluate rlm_lsp/models/default --predictions default.jsonl
    python -m training.judging.polyglot_judge cand.jsonl --default default.jsonl --polyglot-data D1 D2 ... \\
        --json out.json

Per language and metric, on the validation rows (`dataset.split_by_problem`, one hash for every
language): the candidate's Spearman (from `evaluate --predictions`), two boosted-tree baselines on
`training.judging.code_counts` of the text the model reads (one pooled over the languages with the
language one-hot, one on the language's own training rows; `baseline.GBM`'s settings, log10 targets),
and the noise: the SD of each figure and of the paired differences over 1,000 bootstrap resamples of
the validation problems (a problem's rows together). Python's candidate is also set beside
`--default`'s predictions, paired. Prints one table and writes the figures as JSON.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence

import numpy as np

from training.judging.baseline import GBM
from training.judging.code_counts import LANGUAGES, counts
from training.learning import dataset

METRICS = ("memory", "latency")


def model_text(e: dataset.Example) -> str:
    """What the model reads of `e` (Python: canonical names, as the default; the others: normalised)."""
    if e.language == "python":
        from rlm_lsp.python import preprocess

        return preprocess.apply("canon_v1", e.code)
    return e.code


def feature_rows(examples: Sequence[dataset.Example]) -> np.ndarray:
    rows = []
    for e in examples:
        onehot = [float(e.language == lang) for lang in LANGUAGES]
        rows.append(counts(model_text(e), e.language) + onehot)
    return np.array(rows)


def gbm_predictions(train, val, metric: str, seed: int = 0) -> dict[str, np.ndarray]:
    """{"pooled": predictions for val, "own": per language fits} of log10(metric)."""
    from sklearn.ensemble import HistGradientBoostingRegressor

    x_train, x_val = feature_rows(train), feature_rows(val)
    y = np.array([math.log10(e.values[metric]) if e.values.get(metric) else np.nan for e in train])
    lang_train = np.array([e.language for e in train])
    lang_val = np.array([e.language for e in val])
    known = ~np.isnan(y)
    pooled = HistGradientBoostingRegressor(**GBM, random_state=seed).fit(x_train[known], y[known]).predict(x_val)
    own = np.full(len(val), np.nan)
    for lang in sorted(set(lang_val)):
        sel = known & (lang_train == lang)
        if sel.sum() < 20:
            continue
        fit = HistGradientBoostingRegressor(**GBM, random_state=seed).fit(x_train[sel], y[sel])
        own[lang_val == lang] = fit.predict(x_val[lang_val == lang])
    return {"pooled": pooled, "own": own}


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    from scipy.stats import rankdata

    if len(a) < 3:
        return float("nan")
    ra, rb = rankdata(a), rankdata(b)
    if ra.std() == 0 or rb.std() == 0:
        return 0.0
    return float(np.corrcoef(ra, rb)[0, 1])


def bootstrap(problems: np.ndarray, true: np.ndarray, preds: dict[str, np.ndarray], n: int = 1000,
              seed: int = 0) -> dict[str, np.ndarray]:
    """name -> n Spearmans of that prediction over resamples of the problems (rows of a problem together)."""
    rng = np.random.default_rng(seed)
    uniq = np.unique(problems)
    rows_of = {p: np.flatnonzero(problems == p) for p in uniq}
    out = {k: np.empty(n) for k in preds}
    for b in range(n):
        idx = np.concatenate([rows_of[p] for p in rng.choice(uniq, len(uniq), replace=True)])
        for k, v in preds.items():
            out[k][b] = spearman(true[idx], v[idx])
    return out


def judge(examples, candidate: dict, default: dict, n_boot: int = 1000) -> dict:
    train, val = dataset.split_by_problem(examples)
    val = [e for e in val if e.key in candidate]
    report: dict = {}
    for metric in METRICS:
        gbm = gbm_predictions(train, val, metric)
        for lang in LANGUAGES:
            idx = [i for i, e in enumerate(val) if e.language == lang and e.values.get(metric)]
            if not idx:
                continue
            true = np.array([val[i].values[metric] for i in idx])
            problems = np.array([val[i].problem_id for i in idx])
            preds = {"candidate": np.array([candidate[val[i].key][metric] for i in idx]),
                     "gbm_pooled": gbm["pooled"][idx], "gbm_own": gbm["own"][idx]}
            if lang == "python" and default:
                preds["default"] = np.array([default[val[i].key][metric] for i in idx])
            preds = {k: v for k, v in preds.items() if not np.isnan(v).any()}
            point = {k: spearman(true, v) for k, v in preds.items()}
            boot = bootstrap(problems, true, preds, n_boot)
            base = max((k for k in ("gbm_pooled", "gbm_own") if k in point), key=point.get)
            cell = {"n": len(idx), "problems": int(len(set(problems))), "baseline": base,
                    **{k: round(v, 4) for k, v in point.items()},
                    **{f"{k}_sd": round(float(np.nanstd(boot[k])), 4) for k in boot},
                    "minus_baseline": round(point["candidate"] - point[base], 4),
                    "minus_baseline_sd": round(float(np.nanstd(boot["candidate"] - boot[base])), 4)}
            if "default" in point:
                cell["minus_default"] = round(point["candidate"] - point["default"], 4)
                cell["minus_default_sd"] = round(float(np.nanstd(boot["candidate"] - boot["default"])), 4)
            report.setdefault(lang, {})[metric] = cell
    return report


def verdict(report: dict, bars=(("memory", 0.70), ("latency", 0.60)), margin=0.05, min_problems=30) -> dict:
    """The rule of experiments/log/11-2026-12-05-sessions-31-on.md ("One model for Python, C++, Java and Go"), per language: True, False, or a reason it cannot pass."""
    out = {}
    for lang in ("cpp", "go", "java"):
        cells = report.get(lang, {})
        if not cells or min(c["problems"] for c in cells.values()) < min_problems:
            out[lang] = "too few validation problems"
            continue
        out[lang] = all(cells[m]["candidate"] >= bar and cells[m]["minus_baseline"] >= margin
                        for m, bar in bars if m in cells)
    py = report.get("python", {})
    out["python"] = all(c["minus_default"] >= -2 * c["minus_default_sd"] for c in py.values()) if py else "no rows"
    out["adopted"] = all(v is True for v in out.values())
    return out


def read_predictions(path: str | None) -> dict:
    if not path:
        return {}
    out = {}
    for row in dataset.read_jsonl([path]):
        out[row["key"]] = {m: row[f"{m}_pred"] for m in METRICS}
    return out


def table(report: dict) -> str:
    lines = ["| language | metric | n (problems) | candidate ± sd | GBM pooled | GBM own | cand − best GBM ± sd "
             "| cand − default ± sd |", "|---|---|---|---|---|---|---|---|"]
    for lang in LANGUAGES:
        for metric, c in report.get(lang, {}).items():
            vs_default = (f"{c['minus_default']:+.3f} ± {c['minus_default_sd']:.3f}" if "minus_default" in c else "")
            lines.append(f"| {lang} | {metric} | {c['n']} ({c['problems']}) | {c['candidate']:.3f} ± "
                         f"{c['candidate_sd']:.3f} | {c.get('gbm_pooled', float('nan')):.3f} | "
                         f"{c.get('gbm_own', float('nan')):.3f} | {c['minus_baseline']:+.3f} ± "
                         f"{c['minus_baseline_sd']:.3f} | {vs_default} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.judging.polyglot_judge", description=__doc__.split("\n")[0])
    p.add_argument("candidate", help="evaluate --predictions of the candidate (.jsonl)")
    p.add_argument("--default", help="evaluate --predictions of the shipped default (Python rows)")
    p.add_argument("--data", nargs="+", default=["training/data/leetcode_v1.jsonl.gz"])
    p.add_argument("--corpus", default=dataset.DEFAULT_CORPUS)
    p.add_argument("--polyglot-data", nargs="*", default=[])
    p.add_argument("--bootstrap", type=int, default=1000)
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args(argv)
    from training.learning import polyglot_data

    examples = dataset.load_examples(args.data, args.corpus, tiers=["large"])
    examples += polyglot_data.load_examples(args.polyglot_data, corpus=args.corpus)
    report = judge(examples, read_predictions(args.candidate), read_predictions(args.default), args.bootstrap)
    result = {"figures": report, "verdict": verdict(report)}
    print(table(report))
    print(json.dumps(result["verdict"]))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
