"""Session 42: a learned correction of the shipped memory growth on real functions, leave one
repository out (development only; every set here is spent).

    python experiments/time8/memory_learn.py MEM_TABLE.jsonl

Figures per way: 4-bucket accuracy / balanced / rho of the memory exponent (growth-dev's score.py).
"""
import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, "/work/shared/growth-dev/tools")
import score  # noqa: E402

CENTRE = np.array([0.0, 1.0, 2.0, 3.0])


def feats(r, kind):
    f = [r["shipped_memory"], r["analyzer_memory"] if r["analyzer_memory"] is not None else 1.0,
         float(r["nest"] or 0), float(bool(r["sure"]))] + (r["features"] or [0.0] * 17)
    return f + (r["counts"] if kind == "rich" else [])


def corrected(r, p, tau):
    b = score.bucket(r["shipped_memory"])
    if p[b] >= tau:
        return r["shipped_memory"]
    k = int(np.argmax(p))
    return r["shipped_memory"] if k == b else float(CENTRE[k])


def main(path, kinds=("small", "rich"), taus=(0.3, 0.4, 0.5)):
    R = [json.loads(x) for x in open(path) if json.loads(x)["memory"] is not None]
    by = defaultdict(list)
    for r in R:
        by[r["repo"]].append(r)
    line = [f"{repo[:6]} " + "{accuracy:.2f}/{balanced:.2f}/{rho:.2f}".format(
        **score.figures([r["memory"] for r in rs], [r["shipped_memory"] for r in rs])) for repo, rs in [*by.items(), ("ALL", R)]]
    print("shipped          " + "  ".join(line))
    for kind in kinds:
        P = {}
        for repo, test in by.items():
            train = [r for r in R if r["repo"] != repo]
            w = np.array([1.0 / len(by[r["repo"]]) for r in train]) * len(train)
            y = np.array([score.bucket(r["memory"]) for r in train])
            m = HistGradientBoostingClassifier(max_iter=120, learning_rate=0.06, max_leaf_nodes=7, min_samples_leaf=12,
                                               l2_regularization=1.0).fit(np.array([feats(r, kind) for r in train]), y,
                                                                          sample_weight=w)
            proba = np.zeros((len(test), 4))
            proba[:, m.classes_] = m.predict_proba(np.array([feats(r, kind) for r in test]))
            P.update({r["id"]: p for r, p in zip(test, proba)})
        for tau in taus:
            line = [f"{repo[:6]} " + "{accuracy:.2f}/{balanced:.2f}/{rho:.2f}".format(**score.figures(
                [r["memory"] for r in rs], [corrected(r, P[r["id"]], tau) for r in rs])) for repo, rs in [*by.items(), ("ALL", R)]]
            print(f"{kind:5s} tau {tau:.1f}    " + "  ".join(line))


if __name__ == "__main__":
    main(sys.argv[1])
