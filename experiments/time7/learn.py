"""Session 41: a learned correction of the analyzer's time reading on real functions, leave one
repository out (development only; every set here is spent for the analyzer family).

    python experiments/time7/learn.py TABLE.jsonl

Each way gives a time exponent per function; figures are 4-bucket accuracy / balanced / rho.
"""
import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

sys.path.insert(0, "/work/shared/growth-dev/tools")
import score  # noqa: E402

CENTRE = np.array([0.0, 1.0, 2.0, 3.0])


def an(r):
    return r["analyzer"] if r["analyzer"] is not None else 1.0


def feats(r, kind):
    if kind == "ship":  # what the runtime computes: the summary's features, its nest, how sure
        return (r["features"] or [an(r)] + [0.0] * 16) + [float(r["nest"] or 0), float(bool(r["sure"]))]
    f = [an(r), float(r["nest"] or 0), float(r["loop_depth"]), float(bool(r["sure"]))]
    f += r["features"] or [0.0] * 17
    if kind == "rich":
        f += r["counts"]
    return f


def classifier():
    return HistGradientBoostingClassifier(max_iter=120, learning_rate=0.06, max_leaf_nodes=7,
                                          min_samples_leaf=12, l2_regularization=1.0)


def agreed(r, p, tau):
    """`exponent`, except that a sure reading whose bucket is the loop nest's as written stands."""
    if r["sure"] and r["nest"] and score.bucket(an(r)) == score.bucket(r["nest"]):
        return an(r)
    return exponent(r, p, tau)


def exponent(r, p, tau):
    """The analyzer's exponent where the trees give its bucket at least `tau`, else linear's or the
    trees' best bucket's centre."""
    b = score.bucket(an(r))
    if p[b] >= tau:
        return an(r)
    k = int(np.argmax(p))
    return an(r) if k == b else float(CENTRE[k])


def main(path, taus=(0.3, 0.4), ways=None, kinds=("small", "rich")):
    ways = ways or {"gate": exponent, "agree": agreed}
    R = [json.loads(x) for x in open(path)]
    by = defaultdict(list)
    for r in R:
        by[r["repo"]].append(r)
    for kind in kinds:
        P = {}
        for repo, test in by.items():
            train = [r for r in R if r["repo"] != repo]
            w = np.array([1.0 / len(by[r["repo"]]) for r in train]) * len(train)
            y = np.array([score.bucket(r["time"]) for r in train])
            m = classifier().fit(np.array([feats(r, kind) for r in train]), y, sample_weight=w)
            proba = np.zeros((len(test), 4))
            proba[:, m.classes_] = m.predict_proba(np.array([feats(r, kind) for r in test]))
            for r, p in zip(test, proba):
                P[r["id"]] = p
        for tau in taus:
            for name, way in ways.items():
                line = []
                for repo, rs in [*by.items(), ("ALL", R)]:
                    f = score.figures([r["time"] for r in rs], [way(r, P[r["id"]], tau) for r in rs])
                    line.append(f"{repo[:6]} {f['accuracy']:.2f}/{f['balanced']:.2f}/{f['rho']:.2f}")
                print(f"{kind:5s} {name:4s} tau {tau:.1f}  " + "  ".join(line))


if __name__ == "__main__":
    main(sys.argv[1], kinds=tuple(sys.argv[2].split(",")) if len(sys.argv) > 2 else ("small", "rich"))
