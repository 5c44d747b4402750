"""Looks 2 and 3 (rule in experiments/log/14-*.md): cost-analyzer-v2 (v3 with `--growth-dev`), the mean of the analyzer and trees fitted
on the training curves (`training.learning.cost_trees`), on growth-dev's check half and on the LeetCode
validation problems, beside always linear and the loop depth, with bootstrap SDs.

    python experiments/cost/look2.py --json experiments/cost/look2.json
"""
import argparse
import ast
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, "/work/shared/growth-dev/tools")
from experiments.cost.dev import half  # noqa: E402
from experiments.cost.leetcode import figures, spearman  # noqa: E402
from rlm_lsp.python.cost_front import entry_of  # noqa: E402
from training.learning import cost_trees  # noqa: E402


def boot_groups(groups, fn, draws=200):
    rnd = np.random.default_rng(0)
    out = []
    for _ in range(draws):
        pick = [groups[i] for i in rnd.integers(0, len(groups), len(groups))]
        out.append(fn([a for g in pick for a, _ in g], [b for g in pick for _, b in g]))
    return float(np.nanstd(out))


def judge(groups):
    y = [a for g in groups for a, _ in g]
    p = [b for g in groups for _, b in g]
    f = figures(y, p)
    f["accuracy_sd"] = boot_groups(groups, lambda a, b: figures(a, b)["accuracy"])
    f["balanced_sd"] = boot_groups(groups, lambda a, b: figures(a, b)["balanced"])
    f["rho_sd"] = boot_groups(groups, lambda a, b: spearman(a, b)) if len(set(p)) > 1 else 0.0
    return {k: round(v, 4) for k, v in f.items()}


def main():
    import score  # growth-dev's tools
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--growth-dev", help="also fit the trees on growth-dev's dev half (candidate 3)")
    a = ap.parse_args()
    keys, x, y = cost_trees.training_table()
    models = cost_trees.fit(x, y, cost_trees.growth_dev_table(a.growth_dev) if a.growth_dev else None)
    report = {}

    def candidate(code, entry, metric):
        r = cost_trees.row(code, entry)
        if r is None:
            return 1.0
        return (1 - cost_trees.BLEND) * r[0 if metric == "latency" else 1] + \
            cost_trees.BLEND * float(models[metric].predict(np.array([r]))[0])

    gd = [json.loads(x_) for x_ in open("/work/gd/out.jsonl")]
    gd = [r for r in gd if half(r["id"]) == "check"]
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    T = asymptotic_targets()
    val = sorted(k for k, t in T.items() if k in code and is_validation(str(t["problem_id"])))

    def depth(c, entry=None):
        try:
            e = entry_of(ast.parse(c), entry)
            return score.loop_depth(c, e.name) if e is not None else 1.0
        except Exception:  # noqa: BLE001
            return 1.0

    for metric, field in (("latency", "time_exponent"), ("memory", "memory_exponent")):
        for name, fn in (("candidate", lambda c, e, m=metric: candidate(c, e, m)), ("always_linear", lambda c, e: 1.0),
                         ("loop_depth", depth)):
            g1 = [[(r[field], fn(r["code"], r["function"]))] for r in gd]
            by: dict = {}
            for k in val:
                if T[k].get(metric) is not None:
                    by.setdefault(T[k]["problem_id"], []).append((T[k][metric], fn(code[k], None)))
            report[f"growth-dev-check/{metric}/{name}"] = judge(g1)
            report[f"validation/{metric}/{name}"] = judge(list(by.values()))
            for s in ("growth-dev-check", "validation"):
                print(s, metric, name, json.dumps(report[f"{s}/{metric}/{name}"]))
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
