"""Leave one repository out: a small learned mix of the analyzer's time reading and the loop depth,
fitted on the other repositories' real functions (session 40, development only).

    python experiments/time6/loro.py TABLE.jsonl
"""
import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from sklearn.linear_model import Ridge

sys.path.insert(0, "/work/shared/growth-dev/tools")
import score  # noqa: E402


def feats(r, kind):
    an, ld = r["analyzer"], r["loop_depth"]
    base = [an, ld, float(r["sure"]), min(an, ld), max(an, ld)]
    if kind == "rich":
        base += r["features"]
    return base


def main(path):
    R = [json.loads(x) for x in open(path)]
    by = defaultdict(list)
    for r in R:
        by[r["repo"]].append(r)
    for kind, model in (("ridge", lambda: Ridge(1.0)), ("gbm", lambda: HistGradientBoostingRegressor(
            max_iter=80, learning_rate=0.08, max_leaf_nodes=7, min_samples_leaf=15)),
                        ("gbm-rich", lambda: HistGradientBoostingRegressor(
                            max_iter=80, learning_rate=0.08, max_leaf_nodes=7, min_samples_leaf=15))):
        fk = "rich" if kind.endswith("rich") else "small"
        allp, ally = [], []
        for repo, test in by.items():
            train = [r for r in R if r["repo"] != repo]
            w = np.array([1.0 / len(by[r["repo"]]) for r in train])
            m = model()
            m.fit(np.array([feats(r, fk) for r in train]), np.array([r["time"] for r in train]), sample_weight=w * len(train))
            p = m.predict(np.array([feats(r, fk) for r in test]))
            f = score.figures([r["time"] for r in test], list(p))
            print(f"{kind:9s} {repo[:26]:26s} {f['accuracy']:.2f}/{f['balanced']:.2f}/{f['rho']:.3f}")
            allp += list(p)
            ally += [r["time"] for r in test]
            if kind == "ridge":
                print("          coef", np.round(m.coef_, 3), round(float(m.intercept_), 3))
        f = score.figures(ally, allp)
        print(f"{kind:9s} {'ALL':26s} {f['accuracy']:.2f}/{f['balanced']:.2f}/{f['rho']:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
