"""Growth by retrieval (issue 48, session 35, approach C): a program's growth from its nearest neighbours.

    python -m experiments.growth_retrieval [--json out.json]   # 5-fold by problem on training problems only

A problem's programs agree on their time exponent (the curves card: median spread 0.06), so the
growth is mostly the problem's; a new problem's programs may resemble other problems' programs
where their counts do not. Views, all on the same folds (``GroupKFold(5)`` by problem, as
``experiments.curves_model``):

* C1: the similarity-weighted mean asymptotic exponent of the K nearest training programs of
  other problems (cosine over TF-IDF of the canonical code's tokens, unigrams and bigrams);
  a test fold's programs look only into the training folds, a training fold's programs into the
  training folds less their own problem (so the trees of C2 learn from neighbours as a new
  problem will have them);
* C2: boosted trees on B2's view (``experiments.curves_model``) plus C1's mean and top similarity;
* beside them the counts baseline and B2 (same settings), and, for the record only, the mean of the
  same problem's other programs (what knowing the problem would give; a user's new code has none).

Targets and scores as ``experiments.curves_model`` (asymptotic exponents; ``growth_model.scores``:
Spearman, four-bucket accuracy and mean recall), bootstrap SDs over problems. Reads the cache that
``python -m experiments.curves_model table`` writes; computes nothing at import.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

K = 10
FIGS = ("spearman", "acc", "mean_recall")


def canonical_texts(keys: list) -> list[str]:
    from rlm_lsp.python import preprocess
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for pr in bd.problems().values() for p in pr.programs}
    return [preprocess.apply("canon_v1", code[k]) for k in keys]


def neighbours(texts: list[str], y: np.ndarray, groups: np.ndarray, pool: np.ndarray, ask: np.ndarray,
               k: int = K) -> np.ndarray:
    """(len(ask), 2): for each asked row, the similarity-weighted mean of ``y`` over its ``k`` most
    similar rows of ``pool`` outside its own group, and the top similarity."""
    from sklearn.feature_extraction.text import TfidfVectorizer
    vec = TfidfVectorizer(token_pattern=r"[A-Za-z_]\w*|\d+|[^\s\w]", ngram_range=(1, 2), min_df=2,
                          sublinear_tf=True)
    P = vec.fit_transform([texts[i] for i in pool])
    A = vec.transform([texts[i] for i in ask])
    out = np.zeros((len(ask), 2))
    for s in range(0, len(ask), 512):
        sim = (A[s:s + 512] @ P.T).toarray()
        same = groups[ask[s:s + 512]][:, None] == groups[pool][None, :]
        sim[same] = -1.0
        top = np.argsort(-sim, axis=1)[:, :k]
        for r, cols in enumerate(top):
            w = np.clip(sim[r, cols], 1e-6, None)
            out[s + r] = (float(np.dot(w, y[pool][cols]) / w.sum()), float(sim[r, cols[0]]))
    return out


def main(argv=None) -> int:
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold

    from experiments.curves_model import SETTINGS, _load, _noise
    from experiments.growth_model import scores
    ap = argparse.ArgumentParser(prog="python -m experiments.growth_retrieval")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    keys, T, views, _ = _load()
    train = [i for i, k in enumerate(keys) if not T[k]["validation"]]
    texts_all = canonical_texts([keys[i] for i in train])
    report: dict = {}
    for m in ("memory", "time"):
        sel = [j for j, i in enumerate(train) if T[keys[i]].get(m) is not None]
        idx = [train[j] for j in sel]
        texts = [texts_all[j] for j in sel]
        y = np.array([T[keys[i]][m] for i in idx])
        groups = np.array([str(T[keys[i]]["problem_id"]) for i in idx])
        preds = {name: np.zeros(len(y)) for name in ("baseline", "B2", "C1", "C2")}
        for tr, te in GroupKFold(5).split(y, y, groups):
            knn_te = neighbours(texts, y, groups, tr, te)
            knn_tr = neighbours(texts, y, groups, tr, tr)
            preds["C1"][te] = knn_te[:, 0]
            for name, extra in (("baseline", None), ("B2", None), ("C2", (knn_tr, knn_te))):
                x = views["baseline" if name == "baseline" else "B2"][idx]
                xtr, xte = (x[tr], x[te]) if extra is None else (np.hstack([x[tr], extra[0]]),
                                                                   np.hstack([x[te], extra[1]]))
                model = HistGradientBoostingRegressor(**SETTINGS, random_state=0)
                preds[name][te] = model.fit(xtr, y[tr]).predict(xte)
        same = np.zeros(len(y))  # the record: the same problem's other programs
        for g in set(groups):
            rows = np.flatnonzero(groups == g)
            for r in rows:
                others = [q for q in rows if q != r]
                same[r] = y[others].mean() if others else np.nan
        has = ~np.isnan(same)
        preds["same_problem_oracle"] = same
        for name, p in preds.items():
            rows = has if name == "same_problem_oracle" else np.ones(len(y), bool)
            yy, pp, gg = y[rows], p[rows], groups[rows]
            sd = dict(zip(FIGS, _noise(gg, lambda r, yy=yy, pp=pp: [scores(yy[r], pp[r])[f] for f in FIGS])))
            report[f"{m}/{name}"] = dict(scores(yy, pp), sd=sd)
            print(m, name, json.dumps(report[f"{m}/{name}"]), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
