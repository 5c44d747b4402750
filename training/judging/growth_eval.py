"""Judge a model directory's cost curves on validation problems (issue 48's table), beside the baseline.

    python -m training.judging.growth_eval [MODEL_DIR] [--json FILE] [--bootstrap 200]

Through `Predictor` (the shipped path: RLM value at the reference n, growth trees; or a model whose
RLM predicts the growth itself, `<metric>_growth`, and reads n: `rlm_lsp.runtime.template.n_field`;
or one that predicts it without reading n, its value at its reference n: the anchor recipe),
on programs of validation problems (`training.learning.dataset.is_validation`), never fitted on:

* growth: Spearman of predicted vs measured exponent, 4-bucket accuracy (< 0.5, 0.5-1.5,
  1.5-2.5, >= 2.5) and the mean of the per-bucket recalls; time from the cost curves, memory from
  the curves and (where a program has no curve) the memory ladders. The measured exponent is the
  **asymptotic** one (`--measured asymptotic`, the default since session 34: the slope over a
  program's three largest sizes, `curve_rows.program_growth`, what a model of the curves learns),
  the curve's own all-sizes exponent beside it (`growth_all/...`; `--measured all` swaps them);
* value at n (a model that reads n: predicted at each row's n; else moved there by its growth):
  Spearman over every (program, size) row of the curves, and the share of a program's
  size pairs ordered right (pairs whose measured values differ by more than 10%);
* scripts with their input's size (Kattis validation rows): the RLM's value moved to the input's
  bytes by the predicted growth, Spearman against measured memory and time (`exec_ms`);
* the baseline beside each: boosted trees on the counts alone (`code_features`), fitted on the
  same training rows as the growth trees (`training.learning.growth_trees.targets`), one bag.

Each figure's noise: the standard deviation over `--bootstrap` resamples of the validation problems.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from training.learning.growth_trees import DATA, METRICS, targets  # noqa: E402
from training.measuring.curve_fit import bucket  # noqa: E402
from training.measuring.curves_card import read_gz  # noqa: E402


def _spearman(a, b) -> float:
    from scipy.stats import spearmanr
    if len(a) < 3:
        return float("nan")
    return float(spearmanr(a, b)[0])


def growth_scores(y, p) -> dict:
    y, p = np.asarray(y, float), np.asarray(p, float)
    yb, pb = np.array([bucket(v) for v in y]), np.array([bucket(v) for v in p])
    recalls = [float((pb[yb == b] == b).mean()) for b in range(4) if (yb == b).sum() >= 3]
    return {"spearman": _spearman(y, p), "accuracy": float((yb == pb).mean()) if len(y) else float("nan"),
            "mean_recall": float(np.mean(recalls)) if recalls else float("nan"), "n": int(len(y)),
            "buckets": [int((yb == b).sum()) for b in range(4)]}


def order_share(groups: dict) -> float:
    """Of the size pairs within a program whose measured values differ by > 10%, the share the
    predictions order the same way."""
    right = total = 0
    for pts in groups.values():
        for i in range(len(pts)):
            for j in range(i + 1, len(pts)):
                (mi, pi), (mj, pj) = pts[i], pts[j]
                if max(mi, mj) <= 1.1 * min(mi, mj):
                    continue
                total += 1
                right += (mi < mj) == (pi < pj) and pi != pj
    return right / total if total else float("nan")


def _figure(by_problem: dict, fig: str):
    """fn(problems drawn) -> the growth figure `fig` over their (measured, predicted) pairs."""
    def fn(problems) -> float:
        pts = [pt for p in problems for pt in by_problem[p]]
        return growth_scores([m for m, _ in pts], [q for _, q in pts])[fig]
    return fn


def _boot(problems, fn, draws: int, seed: int = 0) -> float:
    """SD of `fn(subset of problems)` over bootstrap resamples of the problems."""
    rnd = np.random.default_rng(seed)
    uniq = sorted(set(problems))
    vals = []
    for _ in range(draws):
        pick = rnd.choice(len(uniq), size=len(uniq), replace=True)
        vals.append(fn([uniq[i] for i in pick]))
    vals = [v for v in vals if not math.isnan(v)]
    return float(np.std(vals)) if vals else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.judging.growth_eval", description=__doc__.split("\n")[0])
    ap.add_argument("model_dir", nargs="?", default=str(ROOT / "rlm_lsp" / "models" / "default"))
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--bootstrap", type=int, default=200)
    ap.add_argument("--no-scripts", action="store_true")
    ap.add_argument("--measured", choices=("asymptotic", "all"), default="asymptotic",
                    help="the measured exponent the growth figures judge against (the other is reported beside)")
    a = ap.parse_args(argv)
    from sklearn.ensemble import HistGradientBoostingRegressor

    from rlm_lsp.python import code_features
    from rlm_lsp.runtime.prediction import is_growth
    from rlm_lsp.runtime.predictor import Predictor
    from training.learning.dataset import is_validation
    from training.learning.growth_trees import SETTINGS
    from training.measuring import build_dataset as bd

    pr = Predictor.from_dir(a.model_dir, threads=1)
    if pr.growth is None and not any(is_growth(m) for m in pr.config.metric_names):
        print("growth_eval: %s predicts no growth (no growth trees, no _growth metrics)" % a.model_dir,
              file=sys.stderr)
        return 2
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    measured = {"all": targets(a.data), "asymptotic": asymptotic_targets(a.data)}
    keys = sorted(k for k, t in measured["all"].items() if k in code and is_validation(str(t["problem_id"])))
    preds = {k: pr.predict([code[k]])[0] for k in keys}
    report: dict = {"model_dir": a.model_dir, "programs": len(keys), "reads_n": pr.config.reads_n,
                    "measured": a.measured}
    features = {k: code_features.of(code[k], "canon_v1") for k in set(code) & set(measured["all"])}
    other = "all" if a.measured == "asymptotic" else "asymptotic"  # reported beside, as `growth_all/...`
    for kind, prefix in ((a.measured, "growth"), (other, "growth_all")):
        T = {k: t for k, t in measured[kind].items() if k in code}
        val = {k: T[k] for k in keys if k in T}
        train = {k: t for k, t in T.items() if not is_validation(str(t["problem_id"]))}
        # the baseline: boosted trees on the counts alone, same training rows, same measured exponent
        base = {}
        for metric in METRICS:
            ks = [k for k in train if train[k].get(metric) is not None]
            m = HistGradientBoostingRegressor(**SETTINGS, random_state=0).fit(
                np.array([features[k] for k in ks]), np.array([train[k][metric] for k in ks]))
            base[metric] = dict(zip(list(val), m.predict(np.array([features[k] for k in val]))))
        for metric in METRICS:
            ks = [k for k in val if val[k].get(metric) is not None]
            y = [val[k][metric] for k in ks]
            for name, pred in (("model", [preds[k][metric].growth for k in ks]),
                               ("baseline", [base[metric][k] for k in ks])):
                s = growth_scores(y, pred)
                by_problem: dict = {}
                for k, yy, pp in zip(ks, y, pred):
                    by_problem.setdefault(val[k]["problem_id"], []).append((yy, pp))
                for fig in ("spearman", "accuracy", "mean_recall"):
                    s[fig + "_sd"] = _boot(list(by_problem), _figure(by_problem, fig), a.bootstrap)
                report[f"{prefix}/{metric}/{name}"] = s

    # value at n over the curves' rows
    rows = [r for r in read_gz(a.data / "leetcode_curves.jsonl.gz")
            if r["status"] == "ok" and r["key"] in preds and r.get("input_size")]
    for metric, field in (("memory", "memory_bytes"), ("latency", "latency_ms")):
        pts = [(r["key"], r[field], value_at(pr, code[r["key"]], preds[r["key"]], metric, r["input_size"]))
               for r in rows if r.get(field) is not None]
        groups: dict = {}
        for k, m, p in pts:
            groups.setdefault(k, []).append((m, p))
        report[f"value_at_n/{metric}"] = {"spearman": _spearman([m for _, m, _ in pts], [p for _, _, p in pts]),
                                          "order": order_share(groups), "rows": len(pts), "programs": len(groups)}

    if not a.no_scripts:
        report.update(scripts(pr, a.data))
    print(json.dumps(report, indent=1))
    if a.json:
        a.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


def asymptotic_targets(data: Path = DATA) -> dict:
    """`targets` with each curve's exponents the asymptotic ones (`curve_rows.program_growth`: the
    slope over the three largest ok sizes, else the curve's own); memory ladders as they are."""
    from training.learning.curve_rows import FIELDS, _value, program_growth
    out = {k: dict(t) for k, t in targets(data).items()}
    sizes: dict = {}
    for r in read_gz(data / "leetcode_curves.jsonl.gz"):
        if r["status"] == "ok" and r.get("input_size") and r["key"] in out:
            sizes.setdefault(r["key"], {}).setdefault(float(r["input_size"]), []).append(r)
    for key, by_n in sizes.items():
        pts = {m: [(n, v) for n, rows in sorted(by_n.items()) if (v := _value(rows, f)) is not None]
               for m, f in FIELDS.items()}  # repeats at one size: their median, as the training rows
        g = program_growth(pts)
        out[key].update({m: g[m + "_growth"] for m in FIELDS if g.get(m + "_growth") is not None})
    return out


def value_at(pr, code: str, pred: dict, metric: str, n: float) -> float:
    """`metric`'s value at size `n`: a model that reads n is asked at n (the Predictor caches it);
    another's prediction `pred` (at its reference n: the growth trees', or an anchor model's own,
    `ModelConfig.n_for`) is moved there along its predicted growth."""
    from rlm_lsp.runtime.growth import at
    if pr.config.reads_n:
        return pr.predict([code], context={"n": n})[0][metric].value
    return at(pred[metric], n).value


def scripts(pr, data: Path) -> dict:
    """Kattis validation rows: the script's value moved to its input's bytes by its growth."""
    from training.judging.shaped_examples import program_codes
    rows = [r for r in read_gz(data / "kattis_v2.jsonl.gz") if r["status"] == "ok" and r.get("validation")]
    code = program_codes("kattis")
    out = {}
    cache = {}
    for metric, field in (("memory", "memory_bytes"), ("latency", "exec_ms")):
        ys, ps, bs = [], [], []
        for r in rows:
            c = code.get(r["key"])
            if c is None or r.get(field) is None or not r.get("input_bytes"):
                continue
            if r["key"] not in cache:
                cache[r["key"]] = pr.predict([c])[0]
            ys.append(r[field])
            ps.append(value_at(pr, c, cache[r["key"]], metric, max(1, r["input_bytes"])))
            bs.append(r["input_bytes"])
        out[f"scripts/{metric}"] = {"spearman": _spearman(ys, ps), "input_bytes_alone": _spearman(ys, bs),
                                    "rows": len(ys)}
    return out


if __name__ == "__main__":
    sys.exit(main())
