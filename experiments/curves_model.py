"""Cost-curve model, the changed approach (issue 48, session 33): asymptotic targets and anchors.

    python -m experiments.curves_model table     # features, encoder view, targets -> $RLM_GROWTH_CACHE/curves_table.npz
    python -m experiments.curves_model cv        # 5-fold by problem on training problems only

Targets per program (numbers from ``training/data``, no code):

* growth: the **asymptotic exponent**, the least-squares slope of log cost on log n over the
  program's three largest ``ok`` sizes, where they span at least 4x and all three are above the
  noise floor (``curve_fit.FLOORS``); else the curve's own exponent; memory ladders (L/16..L,
  three sizes, already the top of the range) as they are where a program has no curve;
* anchor: the log10 value at n0 = 10^4 on the program's asymptotic line, i.e. the mean over its
  ok rows of log10 v - g (log10 n - 4), so value(n) = anchor x (n / n0) ** growth;
* scripts (Kattis): every ok (program, input) row, log10 value against log10 input bytes.

Candidates: A1 = the runtime's growth features (counts + loop nests of the canonical code);
A2 = A1 + the encoder's mean state on 16 principal axes + the RLM's two log10 estimates; the
baseline = boosted trees on ``code_features`` counts alone. See experiments/log (session 33).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from experiments.growth_model import _cache, _data, scores
from training.measuring.curve_fit import FLOORS, asymptotic
from training.measuring.curves_card import read_gz

N0 = 4.0  # log10 of the anchor's size
FIELDS = {"memory": "memory_bytes", "time": "latency_ms"}
SETTINGS = {"max_iter": 200, "learning_rate": 0.06, "max_leaf_nodes": 15, "min_samples_leaf": 20}


def curve_targets(data: Path | None = None) -> dict:
    """key -> {problem_id, memory, time (asymptotic exponents), memory_all, time_all (the curve's
    own), anchor_memory, anchor_time, points: {metric: [(n, v)]}}."""
    data = data or _data()
    rows: dict = {}
    for r in read_gz(data / "leetcode_curves.jsonl.gz"):
        if r["status"] == "ok" and r.get("input_size"):
            rows.setdefault(r["key"], []).append(r)
    out: dict = {}
    for g in read_gz(data / "leetcode_v2.growth.jsonl.gz"):
        if g.get("growth_memory") is not None:
            out[g["key"]] = {"problem_id": g["problem_id"], "memory": g["growth_memory"],
                             "memory_all": g["growth_memory"], "time": None, "time_all": None}
    for g in read_gz(data / "leetcode_curves.growth.jsonl.gz"):
        t = {"problem_id": g["problem_id"], "points": {}}
        for m, field in FIELDS.items():
            pts = [(float(r["input_size"]), float(r[field])) for r in rows.get(g["key"], []) if r.get(field)]
            own = g.get(f"{m}_exponent")
            a = asymptotic(pts, FLOORS[field])
            t[m] = a if a is not None else own
            t[m + "_all"] = own
            t["points"][m] = pts
            if t[m] is not None and pts:
                t["anchor_" + m] = float(np.mean([math.log10(max(v, FLOORS[field])) - t[m] * (math.log10(n) - N0)
                                                  for n, v in pts]))
        out[g["key"]] = t
    return out


def cmd_table(a) -> int:
    from rlm_lsp.python import code_features
    from rlm_lsp.runtime.growth import features
    from training.learning.dataset import is_validation
    from training.learning.growth_trees import encoder_view
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for pr in bd.problems().values() for p in pr.programs}
    T = {k: t for k, t in curve_targets().items() if k in code}
    keys = sorted(T)
    rows = [{"key": k} for k in keys]
    x = np.array([features(code[k], "canon_v1") for k in keys])
    c = np.array([code_features.of(code[k], "canon_v1") for k in keys])
    pooled, est = encoder_view(_data().parents[1] / "rlm_lsp" / "models" / "default", rows, code, _cache() / "embed.npz")
    np.savez(_cache() / "curves_table.npz", keys=np.array(keys), x=x, counts=c, pooled=pooled, est=est)
    (_cache() / "curves_targets.json").write_text(json.dumps(
        {k: dict(T[k], validation=is_validation(str(T[k]["problem_id"]))) for k in keys}))
    print("programs", len(keys))
    return 0


def _pca(pooled: np.ndarray, k: int) -> np.ndarray:
    mean = pooled.mean(axis=0)
    _, _, vt = np.linalg.svd(pooled - mean, full_matrices=False)
    return (pooled - mean) @ vt[:k].T


def _load():
    z = np.load(_cache() / "curves_table.npz")
    T = json.loads((_cache() / "curves_targets.json").read_text())
    keys = z["keys"].tolist()
    views = {"baseline": z["counts"], "A1": z["x"],
             "A2": np.hstack([z["x"], _pca(z["pooled"], 16), z["est"]])}
    return keys, T, views, z["est"]


def _cv(x, y, groups, **kw) -> np.ndarray:
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold
    pred = np.zeros(len(y))
    for tr, te in GroupKFold(5).split(x, y, groups):
        pred[te] = HistGradientBoostingRegressor(**SETTINGS, random_state=0, **kw).fit(x[tr], y[tr]).predict(x[te])
    return pred


def _spearman(a, b) -> float:
    from scipy.stats import spearmanr
    return round(float(spearmanr(a, b)[0]), 3)


def cmd_cv(a) -> int:
    keys, T, views, est = _load()
    train = [i for i, k in enumerate(keys) if not T[k]["validation"]]
    report = {}
    for m in ("memory", "time"):
        idx = [i for i in train if T[keys[i]].get(m) is not None]
        y = np.array([T[keys[i]][m] for i in idx])
        y_all = np.array([T[keys[i]][m + "_all"] if T[keys[i]][m + "_all"] is not None else T[keys[i]][m] for i in idx])
        groups = np.array([str(T[keys[i]]["problem_id"]) for i in idx])
        for name, x in views.items():
            p = _cv(x[idx], y, groups)
            report[f"growth/{m}/{name}"] = dict(scores(y, p), all_sizes=scores(y_all, p)["spearman"])
            print(m, name, json.dumps(report[f"growth/{m}/{name}"]), flush=True)
        # value at n: anchor trees + growth (A2's), over every (program, size) row
        aidx = [i for i in idx if "anchor_" + m in T[keys[i]]]
        ay = np.array([T[keys[i]]["anchor_" + m] for i in aidx])
        ag = np.array([str(T[keys[i]]["problem_id"]) for i in aidx])
        for name in ("A1", "A2"):
            anc = _cv(views[name][aidx], ay, ag)
            gro = _cv(views[name][aidx], np.array([T[keys[i]][m] for i in aidx]), ag)
            meas, pred, order_r, order_t = [], [], 0, 0
            for j, i in enumerate(aidx):
                pts = T[keys[i]]["points"][m]
                pv = [anc[j] + gro[j] * (math.log10(n) - N0) for n, _ in pts]
                meas += [v for _, v in pts]
                pred += pv
                for u in range(len(pts)):
                    for w in range(u + 1, len(pts)):
                        mu, mw = pts[u][1], pts[w][1]
                        if max(mu, mw) > 1.1 * min(mu, mw):
                            order_t += 1
                            order_r += (mu < mw) == (pv[u] < pv[w]) and pv[u] != pv[w]
            report[f"value_at_n/{m}/{name}"] = {"spearman": _spearman(meas, pred), "order": round(order_r / order_t, 3),
                                                "rows": len(meas), "anchor_spearman": _spearman(ay, anc)}
            print(m, "value", name, json.dumps(report[f"value_at_n/{m}/{name}"]), flush=True)
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


def cmd_scripts(a) -> int:
    """Scripts' own anchor (the pre-registered part of session 33's approach): boosted trees on the
    script's growth features, the RLM's two estimates and log10(input bytes), monotone in the bytes,
    5-fold by problem over the Kattis training rows; beside the input's bytes alone."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.model_selection import GroupKFold

    from rlm_lsp.runtime.growth import features
    from rlm_lsp.runtime.predictor import Predictor
    from training.judging.shaped_examples import program_codes
    rows = [r for r in read_gz(_data() / "kattis_v2.jsonl.gz")
            if r["status"] == "ok" and not r.get("validation") and r.get("input_bytes")]
    code = program_codes("kattis")
    rows = [r for r in rows if r["key"] in code]
    keys = sorted({r["key"] for r in rows})
    pr = Predictor.default(threads=1)
    view = {}
    for k in keys:
        p = pr.predict([code[k]])[0]
        view[k] = list(features(code[k], "canon_v1")) + [math.log10(max(p[m].value, 1e-12)) for m in ("memory", "latency")]
    report = {"programs": len(keys)}
    for metric, field in (("memory", "memory_bytes"), ("time", "exec_ms")):
        rs = [r for r in rows if r.get(field)]
        b = np.array([math.log10(r["input_bytes"]) for r in rs])
        x = np.hstack([np.array([view[r["key"]] for r in rs]), b[:, None]])
        y = np.array([math.log10(max(r[field], 1e-6)) for r in rs])
        groups = np.array([str(r["problem_id"]) for r in rs])
        mono = [0] * (x.shape[1] - 1) + [1]
        pred = np.zeros(len(y))
        for tr, te in GroupKFold(5).split(x, y, groups):
            m = HistGradientBoostingRegressor(**SETTINGS, random_state=0, monotonic_cst=mono)
            pred[te] = m.fit(x[tr], y[tr]).predict(x[te])
        report[metric] = {"rows": len(rs), "anchor": _spearman(y, pred), "input_bytes_alone": _spearman(y, b)}
        print(metric, json.dumps(report[metric]), flush=True)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m experiments.curves_model")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("table")
    c = sub.add_parser("cv")
    c.add_argument("--json")
    sub.add_parser("scripts")
    a = ap.parse_args(argv)
    return {"table": cmd_table, "cv": cmd_cv, "scripts": cmd_scripts}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
