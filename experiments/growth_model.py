"""Growth model feasibility (issue 48): predict a function's measured growth exponent from its text.

    python -m experiments.growth_model table          # builds /work/growth-cache/table.jsonl (features + targets)
    python -m experiments.growth_model cv              # 5-fold by problem on training problems, every candidate

Targets: ``memory`` exponents from the memory ladders (``leetcode_v2.growth``: 1/16, 1/4, 1 of L)
and, where measured, both metrics' exponents from the cost curves (``leetcode_curves.growth``;
those override the ladders' memory exponent).  Features: the counts of ``rlm_lsp.python.code_features``
(the gate's trees' counts: the baseline) and the loop nests of ``rlm_lsp.python.loop_nests``.  The table
holds no code (it stays in the cache folder, outside the project, anyway).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from pathlib import Path

import numpy as np

CACHE = "/work/growth-cache"  # RLM_GROWTH_CACHE overrides it (`_cache`)


def _data() -> Path:
    return Path(__file__).resolve().parents[1] / "training" / "data"


def _cache() -> Path:
    return Path(os.environ.get("RLM_GROWTH_CACHE", CACHE))


def _read(path):
    if not Path(path).exists():
        return []
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def targets(curves_growth: Path) -> dict:
    out = {}
    for g in _read(_data() / "leetcode_v2.growth.jsonl.gz"):
        if g.get("growth_memory") is not None:
            out[g["key"]] = {"problem_id": g["problem_id"], "memory": g["growth_memory"], "time": None,
                             "from": "ladder"}
    for g in _read(curves_growth):
        out[g["key"]] = {"problem_id": g["problem_id"], "memory": g.get("memory_exponent"),
                         "time": g.get("time_exponent"), "from": "curves", "time_r2": g.get("time_r2"),
                         "memory_r2": g.get("memory_r2")}
    return out


def features(code: str) -> dict:
    from rlm_lsp.python import code_features, loop_nests, preprocess
    canon = preprocess.apply("canon_v1", code)
    return {"counts": code_features.features(canon), "nests": loop_nests.read(canon).features()}


def cmd_table(a) -> int:
    from training.measuring import build_dataset as bd
    P = bd.problems()
    code = {p.key: p.code for pr in P.values() for p in pr.programs}
    T = targets(Path(a.curves))
    _cache().mkdir(parents=True, exist_ok=True)
    n = 0
    with open(_cache() / "table.jsonl", "w") as f:
        for key, t in T.items():
            if key not in code:
                continue
            f.write(json.dumps(dict(t, key=key, **features(code[key]))) + "\n")
            n += 1
    print("rows", n)
    return 0


def cmd_embed(a) -> int:
    """The shipped model's view of every table row: the encoder's mean-pooled last hidden state and
    its own point estimates (log10 memory, log10 latency), in table order -> embed.npz."""
    from rlm_lsp.runtime.predictor import Predictor, head_and_tail
    from training.measuring import build_dataset as bd
    P = bd.problems()
    code = {p.key: p.code for pr in P.values() for p in pr.programs}
    rows = [json.loads(line) for line in open(_cache() / "table.jsonl")]
    pr = Predictor.default(threads=1)
    embs, preds = [], []
    for i, r in enumerate(rows):
        text = pr.render(code[r["key"]])
        ids = head_and_tail(pr.tokenizer.encode(text).ids, pr.config.max_input_tokens, pr._elision)
        x = np.array([ids], dtype=np.int64)
        h = pr.model.encode(x, np.ones_like(x))[0]  # (S, D)
        embs.append(h.mean(axis=0))
        p = pr.predict([code[r["key"]]])[0]
        preds.append([np.log10(max(p["memory"].value, 1e-9)), np.log10(max(p["latency"].value, 1e-9))])
        if i % 500 == 0:
            print(i, flush=True)
    np.savez(_cache() / "embed.npz", keys=np.array([r["key"] for r in rows]), emb=np.array(embs, dtype=np.float32),
             pred=np.array(preds, dtype=np.float32))
    return 0


def _load():
    rows = [json.loads(line) for line in open(_cache() / "table.jsonl")]
    from training.learning.dataset import is_validation
    for r in rows:
        r["validation"] = is_validation(str(r["problem_id"]))
    return rows


def bucket(x):
    return 0 if x < 0.5 else 1 if x < 1.5 else 2 if x < 2.5 else 3


def scores(y, p) -> dict:
    from scipy.stats import spearmanr
    yb, pb = np.array([bucket(v) for v in y]), np.array([bucket(v) for v in p])
    recalls = [float((pb[yb == b] == b).mean()) for b in range(4) if (yb == b).sum() >= 5]
    return {"spearman": round(float(spearmanr(y, p)[0]), 3), "acc": round(float((yb == pb).mean()), 3),
            "mean_recall": round(float(np.mean(recalls)), 3), "n": len(y),
            "buckets": [int((yb == b).sum()) for b in range(4)]}


def _embeddings(rs, pca: int):
    """(rows, pca + 2): the encoder state reduced by PCA (fitted on all training rows: no labels
    used) and the shipped model's two estimates; None before `embed` ran."""
    path = _cache() / "embed.npz"
    if not path.exists():
        return None
    z = np.load(path)
    index = {k: i for i, k in enumerate(z["keys"].tolist())}
    idx = [index.get(r["key"], 0) for r in rs]  # a row added after `embed` ran gets row 0's (a handful)
    e = z["emb"][idx]
    e = e - e.mean(axis=0)
    _, _, vt = np.linalg.svd(e, full_matrices=False)
    return np.hstack([e @ vt[:pca].T, z["pred"][idx]])


def cmd_cv(a) -> int:
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold
    rows = [r for r in _load() if not r["validation"]]
    for metric in ("memory", "time"):
        rs = [r for r in rows if r.get(metric) is not None]
        if len(rs) < 100:
            print(metric, "too few rows", len(rs))
            continue
        y = np.array([r[metric] for r in rs])
        groups = np.array([r["problem_id"] for r in rs])
        emb = _embeddings(rs, a.pca)
        cands = (("counts", ("counts",)), ("nests", ("nests",)), ("counts+nests", ("counts", "nests")),
                 ("counts+nests+emb", ("counts", "nests", "emb")))
        for name, cols in cands:
            if a.only and name not in a.only.split(","):
                continue
            if "emb" in cols and emb is None:
                continue
            x = np.array([sum((r[c] for c in cols if c != "emb"), []) for r in rs])
            if "emb" in cols:
                x = np.hstack([x, emb])
            for setting, kw in (("big", dict(max_iter=300, learning_rate=0.05, max_leaf_nodes=31)),
                                ("small", dict(max_iter=120, learning_rate=0.08, max_leaf_nodes=15, min_samples_leaf=20))):
                if a.settings and setting not in a.settings.split(","):
                    continue
                for weighted in (False, True):
                    pred = np.zeros(len(y))
                    yb = np.array([bucket(v) for v in y])
                    freq = np.bincount(yb, minlength=4) / len(yb)
                    w = 1.0 / np.sqrt(freq[yb]) if weighted else None
                    for tr, te in GroupKFold(5).split(x, y, groups):
                        m = HistGradientBoostingRegressor(**kw, random_state=0, loss=a.loss)
                        m.fit(x[tr], y[tr], sample_weight=None if w is None else w[tr])
                        pred[te] = m.predict(x[te])
                    print(metric, name, setting, "weighted" if weighted else "plain", json.dumps(scores(y, pred)), flush=True)
        static = np.array([r["nests"][0 if metric == "time" else 3] for r in rs])  # time_depth / mem_depth
        print(metric, "static depth alone", json.dumps(scores(y, static)))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("table")
    t.add_argument("--curves", default=str(_data() / "leetcode_curves.growth.jsonl.gz"))
    sub.add_parser("embed")
    c = sub.add_parser("cv")
    c.add_argument("--loss", default="squared_error")
    c.add_argument("--pca", type=int, default=16)
    c.add_argument("--settings", default="")
    c.add_argument("--only", default="")
    a = ap.parse_args(argv)
    return {"table": cmd_table, "cv": cmd_cv, "embed": cmd_embed}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
