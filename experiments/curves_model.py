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
Session 34 (approach B): B1/B2 = A1/A2 + ``rlm_lsp.python.param_kinds`` (what n is: kinds inferred
from use, loops in powers of n); O2 = A2 + the ladder generator's own kinds (an oracle for the
record, never a candidate). Their features live in ``$RLM_GROWTH_CACHE/param_kinds.npz`` (built by
``cv`` on first use from the corpus code, as ``table`` reads it).
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

import numpy as np

from experiments.growth_model import _cache, _data, scores
from training.measuring.curve_fit import FLOORS, anchor, asymptotic
from training.measuring.curves_card import read_gz

N0 = 4.0  # log10 of the anchor's size
FIELDS = {"memory": "memory_bytes", "time": "latency_ms"}
FIGS = ("spearman", "acc", "mean_recall")
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
                t["anchor_" + m] = anchor(pts, t[m], FLOORS[field], 10 ** N0)
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


GEN_KINDS = ("ints", "str", "strs", "grid", "pairs", "nodes", "int")
AS_KIND = {"ints": "list", "pairs": "list", "strs": "list", "str": "string", "grid": "grid", "nodes": "node",
           "int": "integer"}  # the generator's kind -> param_kinds' (a list of words: its n is its characters)


def _oracle(pr, recipe):
    """The ladder generator's truth for a problem: (kinds per argument, indices of the scaled ones,
    the kind of the argument whose extent is n), or None where it scales nothing."""
    from training.measuring import ladders
    sc = ladders._scaler(pr, recipe)
    if not sc.ok:
        return None
    grows = [i for i, k in enumerate(sc.kinds) if k in ladders.SCALED or (k == "int" and sc.only_scalars)]
    scaled = set(grows) | set(sc.tied) | set(sc.node_count.values())
    args = sc.make(1000, (recipe.get("seeds") or [0])[0])
    ext = {i: ladders._extent(sc.kinds[i], args[i]["json"]) for i in grows if args and "json" in args[i]}
    return sc.kinds, scaled, sc.kinds[max(ext, key=ext.get)] if ext else None


def kinds_table(keys: list) -> tuple[np.ndarray, np.ndarray, dict]:
    """Per key: param_kinds' features of its canonical code (B) and the oracle's (the generator's
    kinds and scaled arguments in place of the inferred ones, a one-hot of the kind that is n, how
    many arguments are scaled); and, over scaled arguments, inferred kind against generator kind."""
    import ast

    from rlm_lsp.python import param_kinds, preprocess
    from training.measuring import build_dataset as bd
    from training.measuring import ladders
    recipes, wanted = ladders.large_recipes(), set(keys)
    b, o, agree = {}, {}, {}
    for pid, pr in bd.problems().items():
        progs = [p for p in pr.programs if p.key in wanted]
        truth = _oracle(pr, recipes.get(pid) or {}) if progs else None
        for p in progs:
            canon = preprocess.apply("canon_v1", p.code)
            r = param_kinds.read(canon)
            b[p.key] = r.features()
            hot = [0.0] * (len(GEN_KINDS) + 2)
            if truth is None:
                o[p.key] = r.features() + hot
                continue
            kinds, scaled, big = truth
            try:
                first = next((n.name for n in ast.walk(ast.parse(p.code)) if isinstance(n, ast.FunctionDef)), "")
            except (SyntaxError, ValueError):
                first = ""
            mapped = first == pr.entry and len(r.params) == len(kinds)
            if big in GEN_KINDS:
                hot[GEN_KINDS.index(big)] = 1.0
            hot[-2], hot[-1] = len(scaled), float(mapped)
            ro = param_kinds.read(canon, [AS_KIND.get(k, "list") for k in kinds], scaled) if mapped else r
            o[p.key] = ro.features() + hot
            for i in scaled if mapped else ():
                ok = r.params[i] == AS_KIND[kinds[i]] or (kinds[i] == "strs" and r.params[i] == "grid")
                agree.setdefault(kinds[i], [0, 0])[0] += ok
                agree[kinds[i]][1] += 1
    width = len(param_kinds.FEATURES)
    zb, zo = [0.0] * width, [0.0] * (width + len(GEN_KINDS) + 2)
    return np.array([b.get(k, zb) for k in keys]), np.array([o.get(k, zo) for k in keys]), agree


def _kinds_cached(keys: list):
    """``kinds_table`` through ``$RLM_GROWTH_CACHE/param_kinds.npz`` (built on first use)."""
    path = _cache() / "param_kinds.npz"
    if path.exists():
        z = np.load(path, allow_pickle=False)
        if z["keys"].tolist() == keys:
            return z["b"], z["o"], json.loads(str(z["agree"]))
    b, o, agree = kinds_table(keys)
    np.savez(path, keys=np.array(keys), b=b, o=o, agree=json.dumps(agree))
    return b, o, agree


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
    b, o, agree = _kinds_cached(keys)
    # B: what n is (session 34); O2, for the record only: the generator's truth (a user's code has none)
    views.update(B1=np.hstack([views["A1"], b]), B2=np.hstack([views["A2"], b]), O2=np.hstack([views["A2"], o]))
    return keys, T, views, agree


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


def _noise(groups, fn, n: int = 200) -> float:
    """Bootstrap SD of ``fn(rows)`` (a number or a list of them) over problems, a problem's rows together."""
    rng = np.random.default_rng(0)
    by = {}
    for r, g in enumerate(groups):
        by.setdefault(g, []).append(r)
    blocks = list(by.values())
    vals = [fn(np.concatenate([blocks[b] for b in rng.integers(0, len(blocks), len(blocks))])) for _ in range(n)]
    sd = np.nanstd(np.array(vals, dtype=float), axis=0)
    return [round(float(v), 3) for v in sd] if sd.ndim else round(float(sd), 3)


def _order(pts, pv) -> tuple[int, int]:
    """Pairs of a program's sizes whose measured costs differ by over 10%, and those the prediction orders right."""
    right = total = 0
    for u in range(len(pts)):
        for w in range(u + 1, len(pts)):
            mu, mw = pts[u][1], pts[w][1]
            if max(mu, mw) > 1.1 * min(mu, mw):
                total += 1
                right += (mu < mw) == (pv[u] < pv[w]) and pv[u] != pv[w]
    return right, total


def cmd_cv(a) -> int:
    keys, T, views, agree = _load()
    right, total = sum(v[0] for v in agree.values()), sum(v[1] for v in agree.values())
    report = {"kind_agreement": {"all": round(right / max(total, 1), 3), "args": total,
                                 **{k: round(v[0] / v[1], 3) for k, v in sorted(agree.items())}}}
    print("kind agreement over scaled arguments", json.dumps(report["kind_agreement"]), flush=True)
    train = [i for i, k in enumerate(keys) if not T[k]["validation"]]
    for m in ("memory", "time"):
        idx = [i for i in train if T[keys[i]].get(m) is not None]
        y = np.array([T[keys[i]][m] for i in idx])
        y_all = np.array([T[keys[i]][m + "_all"] if T[keys[i]][m + "_all"] is not None else T[keys[i]][m] for i in idx])
        groups = np.array([str(T[keys[i]]["problem_id"]) for i in idx])
        for name, x in views.items():
            p = _cv(x[idx], y, groups)
            sd = dict(zip(FIGS, _noise(groups, lambda r, y=y, p=p: [scores(y[r], p[r])[f] for f in FIGS])))
            report[f"growth/{m}/{name}"] = dict(scores(y, p), all_sizes=scores(y_all, p)["spearman"], sd=sd)
            print(m, name, json.dumps(report[f"growth/{m}/{name}"]), flush=True)
        # value at n: anchor trees + growth trees of the same view, over every (program, size) row
        aidx = [i for i in idx if "anchor_" + m in T[keys[i]]]
        ay = np.array([T[keys[i]]["anchor_" + m] for i in aidx])
        ag = np.array([str(T[keys[i]]["problem_id"]) for i in aidx])
        for name in [v for v in views if v != "baseline"]:
            anc = _cv(views[name][aidx], ay, ag)
            gro = _cv(views[name][aidx], np.array([T[keys[i]][m] for i in aidx]), ag)
            meas, pred, rows_of, orders = [], [], [], []
            for j, i in enumerate(aidx):
                pts = T[keys[i]]["points"][m]
                pv = [anc[j] + gro[j] * (math.log10(n) - N0) for n, _ in pts]
                rows_of.append(list(range(len(meas), len(meas) + len(pts))))
                meas += [v for _, v in pts]
                pred += pv
                orders.append(_order(pts, pv))
            meas, pred, orders = np.array(meas), np.array(pred), np.array(orders)

            def value(r, meas=meas, pred=pred, rows_of=rows_of):
                rr = [q for j in r for q in rows_of[j]]
                return _spearman(meas[rr], pred[rr])

            def order(r, orders=orders):
                return orders[r, 0].sum() / max(orders[r, 1].sum(), 1)
            everyone = np.arange(len(aidx))
            report[f"value_at_n/{m}/{name}"] = {
                "spearman": value(everyone), "order": round(float(order(everyone)), 3), "rows": len(meas),
                "anchor_spearman": _spearman(ay, anc),
                "sd": {"spearman": _noise(ag, value, 100), "order": _noise(ag, order, 100)}}
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
