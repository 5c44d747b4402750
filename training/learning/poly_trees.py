"""Trees for C++, Java and Go values (issue 63, item 2): counts + the cost analyzer against counts alone.

    python -m training.learning.poly_trees --out experiments/poly_trees/result.json [--ship rlm_lsp/models/default]

Per language (cpp, java, go) and metric (memory, latency): gradient-boosted trees
(`training.judging.baseline.GBM`: 300 iterations, rate 0.05, 31 leaves, seed 0; not tuned) on log10 of
the measured rung-1 value (`training.learning.polyglot_data`), fitted on the training problems only
(`dataset.split_by_problem`). **Candidate**: the polyglot code counts of the normalised text
(`rlm_lsp.polyglot.counts`) + the language's cost analyzer's `Summary.features()` of the problem's entry
(LeetCode's method name; the last function where it is not found) + whether the analyzer read it.
**Baseline**: the same trees on the counts alone. Both rows are `rlm_lsp.runtime.language_trees.row`,
what the runtime computes. Judged once on the validation problems: Spearman ρ, paired bootstrap SD over
problems (1,000 resamples). The rule (experiments/log/15-2026-12-07-session-40.md, "#63 item 2"): the
candidate ships for a language when its mean ρ over the two metrics is above the baseline's and neither
metric is below the baseline's by more than 1 SD; otherwise the counts trees ship.

`--ship DIR`: writes the chosen trees (as fitted here, training problems only) to DIR/poly_trees.npz and
the `language_trees` entry of DIR/rlm_config.json (loaded, that key set, written back: nothing else
changes), with each language's p10/p90 spread: the 10th and 90th percentiles of log10(measured /
estimate) out of fold (5 folds by problem, training problems only).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

import rlm_lsp  # noqa: F401 - registers the readers
from rlm_lsp.polyglot.counts import NAMES
from rlm_lsp.runtime import language_trees, readers
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file
from training.judging.baseline import GBM
from training.judging.polyglot_judge import bootstrap, spearman
from training.learning import dataset, polyglot_data

LANGUAGES = ("cpp", "java", "go")
METRICS = ("memory", "latency")
DATA = {lang: f"training/data/leetcode_{lang}.jsonl.gz" for lang in LANGUAGES}


def entries() -> dict[str, str]:
    from training.measuring import leetcode_ladders

    return {str(pid): p.entry for pid, p in leetcode_ladders.problems().items() if getattr(p, "entry", None)}


def table(examples, entry_of: dict[str, str]) -> np.ndarray:
    return np.array([language_trees.row(e.code, e.language, entry_of.get(e.problem_id), True) for e in examples])


def fit(x: np.ndarray, y: np.ndarray, seed: int = 0):
    from sklearn.ensemble import HistGradientBoostingRegressor

    return HistGradientBoostingRegressor(**GBM, random_state=seed).fit(x, y)


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int = 5) -> np.ndarray:
    from sklearn.model_selection import GroupKFold

    pred = np.empty(len(y))
    for tr, te in GroupKFold(n_splits=folds).split(x, y, groups):
        pred[te] = fit(x[tr], y[tr]).predict(x[te])
    return pred


def judge_language(train, val, x_train, x_val, n_counts: int, n_boot: int) -> dict:
    cells, models = {}, {}
    for metric in METRICS:
        tr = [i for i, e in enumerate(train) if e.values.get(metric)]
        va = [i for i, e in enumerate(val) if e.values.get(metric)]
        y = np.log10([train[i].values[metric] for i in tr])
        true = np.array([val[i].values[metric] for i in va])
        problems = np.array([val[i].problem_id for i in va])
        cand = fit(x_train[tr], y)
        base = fit(x_train[tr][:, :n_counts], y)
        preds = {"candidate": cand.predict(x_val[va]), "baseline": base.predict(x_val[va][:, :n_counts])}
        boot = bootstrap(problems, true, preds, n_boot)
        point = {k: spearman(true, v) for k, v in preds.items()}
        cells[metric] = {"train_rows": len(tr), "val_rows": len(va), "val_problems": int(len(set(problems))),
                         **{k: round(v, 4) for k, v in point.items()},
                         **{f"{k}_sd": round(float(np.nanstd(boot[k])), 4) for k in boot},
                         "difference": round(point["candidate"] - point["baseline"], 4),
                         "difference_sd": round(float(np.nanstd(boot["candidate"] - boot["baseline"])), 4)}
        models[metric] = {"candidate": cand, "baseline": base, "tr": tr, "va": va, "y": y, "true": true,
                          "preds": preds}
    return {"cells": cells, "models": models}


def decide(cells: dict) -> bool:
    mean = {k: np.mean([cells[m][k] for m in METRICS]) for k in ("candidate", "baseline")}
    return bool(mean["candidate"] > mean["baseline"] and
                all(cells[m]["difference"] >= -cells[m]["difference_sd"] for m in METRICS))


def ship(model_dir: Path, chosen: dict, spreads: dict, about: dict) -> Path:
    from training.judging.feature_trees import arrays

    path = model_dir / language_trees.FILE_NAME
    flat = {f"{lang}.{m}/{k}": v for lang, (_, models) in chosen.items() for m, model in models.items()
            for k, v in arrays(model).items()}
    np.savez_compressed(path, **flat)  # type: ignore[arg-type]
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw[language_trees.KEY] = {
        "file": language_trees.FILE_NAME, "sha256": sha256_file(path), "counts": list(NAMES),
        "cost": list(readers.reader().cost_feature_names),
        "languages": {lang: {"features": features, "spread": spreads[lang]} for lang, (features, _) in chosen.items()},
        **about}
    config_path.write_text(json.dumps(raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.learning.poly_trees", description=__doc__.split("\n")[0])
    p.add_argument("--out", default="experiments/poly_trees/result.json")
    p.add_argument("--ship", metavar="MODEL_DIR", help="write the chosen trees and the config entry here")
    p.add_argument("--bootstrap", type=int, default=1000)
    args = p.parse_args(argv)
    stats: dict = {}
    examples = polyglot_data.load_examples([DATA[lang] for lang in LANGUAGES], stats=stats)
    entry_of = entries()
    train_all, val_all = dataset.split_by_problem(examples)
    n_counts = len(NAMES)
    result: dict = {"data": stats, "gbm": GBM, "languages": {}}
    chosen, spreads = {}, {}
    for lang in LANGUAGES:
        train = [e for e in train_all if e.language == lang]
        val = [e for e in val_all if e.language == lang]
        x_train, x_val = table(train, entry_of), table(val, entry_of)
        read = float(np.mean(np.concatenate([x_train[:, -1], x_val[:, -1]])))
        judged = judge_language(train, val, x_train, x_val, n_counts, args.bootstrap)
        adopted = decide(judged["cells"])
        features = "counts+cost" if adopted else "counts"
        groups = np.array([e.problem_id for e in train])
        spread, coverage = {}, {}
        for m, mm in judged["models"].items():
            cols = slice(None) if adopted else slice(0, n_counts)
            oof = out_of_fold(x_train[mm["tr"]][:, cols], mm["y"], groups[mm["tr"]])
            lo, hi = np.percentile(mm["y"] - oof, [10, 90])
            spread[m] = [round(float(lo), 4), round(float(hi), 4)]
            miss = np.log10(mm["true"]) - mm["preds"]["candidate" if adopted else "baseline"]
            coverage[m] = round(float(np.mean((miss >= lo) & (miss <= hi))), 3)
        spreads[lang] = spread
        chosen[lang] = (features, {m: mm["candidate" if adopted else "baseline"] for m, mm in judged["models"].items()})
        result["languages"][lang] = {"figures": judged["cells"], "adopted": adopted, "ships": features,
                                     "analyzer_read_share": round(read, 3), "spread_log10": spread,
                                     "val_p10_p90_coverage": coverage,
                                     "train_programs": len(train), "val_programs": len(val)}
        print(lang, json.dumps(result["languages"][lang]), flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    if args.ship:
        about = {"rule": "experiments/log/15-2026-12-07-session-40.md, '#63 item 2'",
                 "fitted_on": "LeetCode C++/Java/Go programs' rung-1 values, training problems only "
                              "(" + ", ".join(f"{k} {v['train_programs']}" for k, v in result["languages"].items()) + ")"}
        path = ship(Path(args.ship), chosen, spreads, about)
        print(f"{path}: {path.stat().st_size / 1e3:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
