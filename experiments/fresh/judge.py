"""The single look of time-v4's rule (experiments/log/14-*.md, session 39) on growth-fresh.

    python experiments/fresh/judge.py ROWS.jsonl MEASURED.jsonl --candidate DIR [--json OUT]

ROWS: the built rows (with code); MEASURED: `rows.py measure`'s output. Rows are dropped by
growth-dev's rules; each is predicted once through the shipped path (`rlm predict --jsonl`, at the
middle of its sizes, entry = its function), by the shipped model and by the candidate's directory.
Figures per metric: 4-bucket accuracy, balanced accuracy, Spearman rho (growth-dev's score.py);
noise: the SD of candidate - baseline over 1,000 paired bootstrap resamples of functions.
"""
import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, "/work/shared/growth-dev/tools")
import score  # noqa: E402

RLM = str(Path(__file__).resolve().parents[2] / ".venv" / "bin" / "rlm")


def kept(measured: dict) -> tuple[bool, str]:
    if "error" in measured:
        return False, f"not measured: {measured['error']}"
    if len(measured["sizes"]) < 5:
        return False, "fewer than 5 sizes"
    for m in ("time", "memory"):
        if measured[f"{m}_class"] == "undetermined":
            return False, f"{m} undetermined"
    if measured["r2_time"] is not None and measured["r2_time"] < 0.9:
        return False, f"time R² {measured['r2_time']}"
    return True, ""


SHIPPED_ROOT = None  # --shipped-root: the shipped model and code of another checkout (a git worktree)


def _cmd(model: str | None) -> tuple[list, dict]:
    """`rlm predict --jsonl -` for `model` and how to run it; None: the shipped one (of `SHIPPED_ROOT`
    where given: run there, so `-m rlm_lsp` imports that checkout's code)."""
    if model is None and SHIPPED_ROOT:
        import os
        return [sys.executable, "-m", "rlm_lsp", "predict", "--jsonl", "-"], {
            "env": {**os.environ, "PYTHONPATH": SHIPPED_ROOT}, "cwd": SHIPPED_ROOT}
    return [RLM, "predict", "--jsonl", "-"] + (["--model", model] if model else []), {}


def predict(rows: list[dict], model: str | None) -> dict:
    lines = [json.dumps({"id": r["id"], "code": r["code"], "language": "python",
                         "n": r["sizes"][len(r["sizes"]) // 2], "entry": r["function"]}) for r in rows]
    cmd, how = _cmd(model)
    out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True, **how)
    return {p.get("id"): p for p in map(json.loads, filter(str.strip, out.stdout.splitlines()))}


def along_n(rows: list[dict], model: str | None) -> dict:
    """(id, n) -> {metric: value} for every measured size of every row."""
    lines = [json.dumps({"id": f"{r['id']}@{n}", "code": r["code"], "language": "python", "n": n,
                         "entry": r["function"]}) for r in rows for n in r["sizes"]]
    cmd, how = _cmd(model)
    out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, check=True, **how)
    return {p["id"]: {m: (p.get(m) or {}).get("value") for m in ("latency", "memory")}
            for p in map(json.loads, filter(str.strip, out.stdout.splitlines()))}


def values_rho(rows, preds, metric, draws=1000):
    """rho over (function, n) rows of predicted vs measured, and the bootstrap over functions."""
    key = "time_ms" if metric == "latency" else "memory_bytes"

    def rho(idx):
        y, p = [], []
        for i in idx:
            r = rows[i]
            for n, v in zip(r["sizes"], r[key], strict=True):
                got = preds.get(f"{r['id']}@{n}", {}).get(metric)
                if got is not None:  # a row the model could not score (its "error") is left out
                    y.append(v)
                    p.append(got)
        return score.spearman(y, p)

    rnd = np.random.default_rng(0)
    return rho(range(len(rows))), [rho(rnd.integers(0, len(rows), len(rows))) for _ in range(draws)]


def paired_sd(y, a, b, key, draws=1000):
    rnd = np.random.default_rng(0)
    out = []
    for _ in range(draws):
        i = rnd.integers(0, len(y), len(y))
        yy = [y[k] for k in i]
        fa = score.figures(yy, [a[k] for k in i])[key]
        fb = score.figures(yy, [b[k] for k in i])[key]
        out.append(fa - fb)
    return float(np.std(out))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("measured")
    ap.add_argument("--candidate", required=True)
    ap.add_argument("--own-n", help="the candidate with own_n: judged on the values along n")
    ap.add_argument("--json")
    ap.add_argument("--shipped-root", help="a checkout whose code and default model are 'shipped' (session 40)")
    a = ap.parse_args()
    global SHIPPED_ROOT
    SHIPPED_ROOT = a.shipped_root
    meas = {m["id"]: m for m in map(json.loads, filter(str.strip, open(a.measured)))}
    rows, dropped = [], {}
    for r in map(json.loads, filter(str.strip, open(a.rows))):
        if r["id"] not in meas:
            continue
        ok, why = kept(meas[r["id"]])
        if ok:
            rows.append({**r, **meas[r["id"]]})
        else:
            dropped[r["id"]] = why
    print(f"{len(rows)} rows kept, {len(dropped)} dropped")
    shipped, cand = predict(rows, None), predict(rows, a.candidate)
    report = {"rows": len(rows), "dropped": dropped}
    for metric, key in (("latency", "time_exponent"), ("memory", "memory_exponent")):
        y = [r[key] for r in rows]
        preds = {"candidate": [score.growth_of(cand.get(r["id"]), metric) for r in rows],
                 "shipped": [score.growth_of(shipped.get(r["id"]), metric) for r in rows],
                 "always linear": [1.0] * len(rows),
                 "loop depth": [score.loop_depth(r["code"], r["function"]) for r in rows]}
        figs = {name: score.figures(y, p) for name, p in preds.items()}
        diffs = {}
        for base in ("always linear", "loop depth", "shipped"):
            for fig in ("accuracy", "balanced", "rho"):
                if fig == "rho" and base == "always linear" or base == "shipped" and \
                        not any(x is not None for x in preds["shipped"]):
                    continue
                d = figs["candidate"][fig] - figs[base][fig]
                diffs[f"{fig} - {base}"] = {"diff": round(d, 4), "paired_sd": round(
                    paired_sd(y, preds["candidate"], preds[base], fig), 4)}
        report[metric] = {"figures": {k: {f: v for f, v in f_.items() if f != "confusion"} | {"confusion": f_["confusion"]}
                                      for k, f_ in figs.items()}, "differences": diffs}
        print(f"== {metric} ({len(rows)} functions)")
        for name, f in figs.items():
            score.show(f"  {name:13s}", f)
        for k, v in diffs.items():
            print(f"  {k:28s} {v['diff']:+.3f} ± {v['paired_sd']:.3f}")
    if a.own_n:
        models = {"shipped": None, "candidate": a.candidate, "candidate + own_n": a.own_n}
        along = {k: along_n(rows, m) for k, m in models.items()}
        report["values_along_n"] = {}
        for metric in ("latency", "memory"):
            got = {k: values_rho(rows, v, metric) for k, v in along.items()}
            d = np.array(got["candidate + own_n"][1]) - np.array(got["candidate"][1])
            ds = np.array(got["candidate + own_n"][1]) - np.array(got["shipped"][1])
            report["values_along_n"][metric] = {k: round(v[0], 4) for k, v in got.items()} | {
                "own_n - candidate": round(got["candidate + own_n"][0] - got["candidate"][0], 4),
                "paired_sd": round(float(np.std(d)), 4),
                "own_n - shipped": round(got["candidate + own_n"][0] - got["shipped"][0], 4),
                "paired_sd_vs_shipped": round(float(np.std(ds)), 4)}
            print(f"== {metric} values along n:", report["values_along_n"][metric])
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
