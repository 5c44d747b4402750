"""The figures of the data v2 dataset card (``training/data/README.md``, "Data v2"), from the packed files.

    python -m training.measuring.data_card stats [--json training/data/v2_card.json]    # markdown tables on stdout
    nice -n 19 python -m training.measuring.data_card remeasure [--n 200] [--seed 0]     # -> training/data/remeasure_v2.json
    taskset -c 1 python -m training.measuring.data_card remeasure --latency              # -> remeasure_v2_latency.json

``stats`` reads ``training/data/<source>_v2.jsonl.gz`` (+ growth, + the variant pairs) and prints, per
source and shape: counts, status shares, spreads (memory quantiles), within-problem spreads (programs
of one problem on one input), the growth distribution, the pairs per mutation kind, and how far the
data is from the issue's targets.  ``remeasure`` re-runs the memory run of a random sample of ``ok``
rows (uniform over the packed rows of all sources but the variants, seeded) on the same inputs, with
the same protocol, and says how many give the identical ``memory_bytes``.  With ``--latency`` it samples
the rows measured with timing instead and runs them again with timing (on a core of its own: the
figures are only as quiet as the machine), and gives the rank correlation of the two runs' process
wall times (``latency_ms``) and in-process times (``exec_ms``), and their median relative difference.
"""
from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
from collections import Counter, defaultdict
from datetime import datetime, timezone

from training.measuring import workfiles

ROW_SOURCES = ("kattis", "euler", "rosetta", "leetcode")
TARGETS = {"ok_measurements": 50_000, "programs": 15_000, "problems": 4_000, "families": 4,
           "real_input_ok": 10_000, "real_input_problems": 300, "programs_3_sizes": 5_000,
           "variant_pairs": 5_000, "pairs_per_kind": 300}


def q(xs, p):
    """The p-quantile (nearest rank) of a non-empty list."""
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(math.ceil(p * len(xs))) - 1))]


def load(source: str) -> list:
    return list(workfiles.read_rows(workfiles.data_path(source)))


def _gz_rows(path) -> list:
    import gzip
    if not path.exists():
        return []
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def source_stats(rows: list) -> dict:
    ok = [r for r in rows if r["status"] == "ok"]
    st = Counter(r["status"] for r in rows)
    mem = [r["memory_bytes"] for r in ok if r.get("memory_bytes")]
    out = {"rows": len(rows), "ok": len(ok), "programs_ok": len({r["key"] for r in ok}),
           "problems_ok": len({str(r["problem_id"]) for r in ok}),
           "status_share": {k: round(v / len(rows), 3) for k, v in sorted(st.items())} if rows else {}}
    if mem:
        out["memory_p10_p50_p90"] = [q(mem, .1), q(mem, .5), q(mem, .9)]
        out["memory_log10_p90_over_p10"] = round(math.log10(q(mem, .9) / max(1, q(mem, .1))), 2)
    groups = defaultdict(list)  # programs of one problem on one input (scripts: the problem)
    for r in ok:
        if r.get("memory_bytes"):
            groups[(str(r["problem_id"]), r["input_id"])].append(r["memory_bytes"])
    spans = [math.log10(max(v) / max(1, min(v))) for v in groups.values() if len(v) >= 2]
    if spans:
        out["within_problem"] = {"groups": len(spans), "log10_max_over_min_p50": round(q(spans, .5), 2),
                                 "log10_max_over_min_p90": round(q(spans, .9), 2)}
    return out


def growth_stats(g: list, min_ratio: float = 10.0) -> dict:
    wide = [x for x in g if x["max_bytes"] >= min_ratio * max(1, x["min_bytes"]) and x["growth_memory"] is not None]
    out = {"programs_3_sizes": len(g), "programs_ratio_ge_%g" % min_ratio: len(wide)}
    if wide:
        gm = [x["growth_memory"] for x in wide]
        bins = Counter("<0.25" if s < .25 else "0.25-0.75" if s < .75 else "0.75-1.25" if s < 1.25
                       else "1.25-1.75" if s < 1.75 else ">=1.75" for s in gm)
        out["growth_memory_p10_p50_p90"] = [round(q(gm, p), 2) for p in (.1, .5, .9)]
        out["growth_memory_bins"] = {k: bins.get(k, 0) for k in ("<0.25", "0.25-0.75", "0.75-1.25", "1.25-1.75",
                                                                  ">=1.75")}
    return out


def pair_stats(pairs: list) -> dict:
    by = defaultdict(list)
    for p in pairs:
        by[p["mutation"]].append(p)
    out = {}
    for kind in sorted(by):
        ps = by[kind]
        good = [p for p in ps if p["same_output"] and p["status_parent"] == p["status_variant"] == "ok"]
        ratio = [p["memory_variant"] / max(1, p["memory_parent"]) for p in good]
        out[kind] = {"pairs": len(ps), "valid": len(good),
                     "output_differs": sum(1 for p in ps if p["status_parent"] == p["status_variant"] == "ok"
                                           and not p["same_output"]),
                     "variant_failed": sum(1 for p in ps if p["status_parent"] == "ok" and p["status_variant"] != "ok"),
                     "memory_ratio_p50": round(statistics.median(ratio), 3) if ratio else None,
                     "memory_up_5pct_share": round(sum(r > 1.05 for r in ratio) / len(ratio), 3) if ratio else None,
                     "memory_identical_share": round(sum(r == 1 for r in ratio) / len(ratio), 3) if ratio else None,
                     "sources": dict(Counter(p["source"] for p in good))}
    return out


def stats() -> dict:
    out = {"at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "sources": {}, "growth": {}}
    every = []
    for s in ROW_SOURCES:
        rows = load(s)
        every += rows
        for shape in sorted({r.get("shape") for r in rows}):
            out["sources"]["%s/%s" % (s, shape)] = source_stats([r for r in rows if r.get("shape") == shape])
        out["growth"][s] = growth_stats(_gz_rows(workfiles.growth_path(s)))
    vrows = load("variants")
    pairs = _gz_rows(workfiles.pairs_path())
    out["variants"] = {"rows": len(vrows), "status": dict(Counter(r["status"] for r in vrows)),
                       "kinds": pair_stats(pairs)}
    v1 = _gz_rows(workfiles.DATA / "leetcode_v1.jsonl.gz")
    ok = [r for r in every if r["status"] == "ok"]
    ok_v1 = [r for r in v1 if r["status"] == "ok"]
    real = [r for r in ok if r["source"] == "kattis"]  # stdin programs on the packages' real test inputs
    fam = {r["source"] for r in ok} | ({"leetcode"} if ok_v1 else set())
    kinds = out["variants"]["kinds"]
    valid = sum(k["valid"] for k in kinds.values())
    out["targets"] = {
        "ok_measurements": [len(ok) + len(ok_v1), TARGETS["ok_measurements"], "v2 %d + v1 %d" % (len(ok), len(ok_v1))],
        "programs": [len({r["key"] for r in ok} | {r["key"] for r in ok_v1}), TARGETS["programs"]],
        "problems": [len({(r["source"], str(r["problem_id"])) for r in ok}
                         | {("leetcode", str(r["problem_id"])) for r in ok_v1}), TARGETS["problems"]],
        "families": [len(fam), TARGETS["families"], sorted(fam)],
        "real_input_ok": [len(real), TARGETS["real_input_ok"]],
        "real_input_problems": [len({r["problem_id"] for r in real}), TARGETS["real_input_problems"]],
        "programs_3_sizes": [sum(g["programs_3_sizes"] for g in out["growth"].values()), TARGETS["programs_3_sizes"]],
        "variant_pairs": [valid, TARGETS["variant_pairs"]],
        "kinds_with_300_pairs": [sum(k["valid"] >= TARGETS["pairs_per_kind"] for k in kinds.values()), 9],
    }
    return out


def markdown(s: dict) -> str:
    lines = ["| source / shape | rows | ok | programs | problems | status shares | memory p10 / p50 / p90 (B) | "
             "within-problem log10(max/min) p50 / p90 (groups) |", "|---|---|---|---|---|---|---|---|"]
    for name, x in s["sources"].items():
        shares = ", ".join("%s %.0f%%" % (k, 100 * v) for k, v in x["status_share"].items())
        m = " / ".join(f"{v:,}" for v in x.get("memory_p10_p50_p90", []))
        w = x.get("within_problem")
        ws = "%.2f / %.2f (%d)" % (w["log10_max_over_min_p50"], w["log10_max_over_min_p90"], w["groups"]) if w else "–"
        lines.append("| %s | %d | %d | %d | %d | %s | %s | %s |" % (name, x["rows"], x["ok"], x["programs_ok"],
                                                                   x["problems_ok"], shares, m, ws))
    lines += ["", "| source | programs at ≥ 3 sizes | size ratio ≥ 10 | growth_memory p10 / p50 / p90 | "
              "bins <0.25 / 0.25–0.75 / 0.75–1.25 / 1.25–1.75 / ≥1.75 |", "|---|---|---|---|---|"]
    for name, g in s["growth"].items():
        if not g["programs_3_sizes"]:
            continue
        p = " / ".join(str(v) for v in g.get("growth_memory_p10_p50_p90", [])) or "–"
        b = " / ".join(str(v) for v in g.get("growth_memory_bins", {}).values()) or "–"
        lines.append("| %s | %d | %d | %s | %s |" % (name, g["programs_3_sizes"], g["programs_ratio_ge_10"], p, b))
    lines += ["", "| kind | pairs | valid (both ok, same output) | output differs | variant failed | "
              "memory variant/parent p50 | memory up > 5% | identical | valid by source |",
              "|---|---|---|---|---|---|---|---|---|"]
    for kind, k in s["variants"]["kinds"].items():
        lines.append("| %s | %d | %d | %d | %d | %s | %s | %s | %s |" % (
            kind, k["pairs"], k["valid"], k["output_differs"], k["variant_failed"], k["memory_ratio_p50"],
            k["memory_up_5pct_share"], k["memory_identical_share"],
            ", ".join("%s %d" % kv for kv in sorted(k["sources"].items()))))
    lines += ["", "| target (issue 24) | now | goal |", "|---|---|---|"]
    for name, t in s["targets"].items():
        lines.append("| %s | %s | %s |" % (name, f"{t[0]:,}" + (" (%s)" % t[2] if len(t) > 2 else ""),
                                          f"{t[1]:,}"))
    return "\n".join(lines)


# ----------------------------------------------------------------- re-measurement

def remeasure(n: int = 200, seed: int = 0, corpus=None, latency: bool = False) -> dict:
    from training.measuring import execute, sources
    from training.measuring import leetcode_ladders as leetcode
    from training.measuring.harness import machine_info
    rows = [r for s in ROW_SOURCES for r in load(s) if r["status"] == "ok" and r.get("memory_bytes") is not None
            and (not latency or (not r.get("memory_only") and r.get("latency_ms") is not None))]
    rows.sort(key=lambda r: (r["source"], r["key"], r["input_id"]))
    sample = random.Random(seed).sample(rows, min(n, len(rows)))
    want = defaultdict(set)
    for r in sample:
        want[r["source"]].add((r["key"], r["input_id"]))
    tasks = {}
    for s, ids in want.items():
        ts = leetcode.ladder_tasks() if s == "leetcode" else sources.tasks(s, corpus, 1000)
        tasks.update({(t["row"]["key"], t["row"]["input_id"]): t for t in ts
                      if (t["row"]["key"], t["row"]["input_id"]) in ids})
    info = machine_info()
    res = []
    for r in sample:
        t = tasks.get((r["key"], r["input_id"]))
        if t is None:
            res.append({"key": r["key"], "input_id": r["input_id"], "status": "task not found"})
            continue
        opts = {"time_limit": r.get("time_limit_s") or 10.0, "memory_mb": r.get("memory_limit_mb") or 2048,
                "repeats": 3 if latency else 0, "memory_only": not latency,  # 3: measure_v2 run's default
                "python": r.get("python"),
                "machine": {k: info[k] for k in ("cpu_model", "cpu_count", "platform")}}
        m = leetcode.measure(t, opts) if t.get("shape") == "function" else execute.measure(t, opts)
        res.append({"source": r["source"], "key": r["key"], "input_id": r["input_id"], "status": m["status"],
                    "memory_1": r["memory_bytes"], "memory_2": m.get("memory_bytes"),
                    "machine_1": (r.get("machine") or {}).get("cpu_model"), "machine_2": info["cpu_model"],
                    **({f"{k}_{i}": x.get(k) for k in ("latency_ms", "exec_ms") for i, x in ((1, r), (2, m))}
                       if latency else {})})
    both = [x for x in res if x.get("memory_2") is not None]
    exact = [x for x in both if x["memory_1"] == x["memory_2"]]
    summary = {"sampled": len(sample), "population": len(rows), "seed": seed, "remeasured": len(both),
               "by_source": dict(Counter(r["source"] for r in sample)),
               "second_run_status": dict(Counter(x["status"] for x in res)),
               "memory_identical": len(exact), "memory_identical_share": round(len(exact) / len(both), 4) if both else None,
               "memory_within_1pct": sum(abs(x["memory_1"] - x["memory_2"]) <= 0.01 * max(1, x["memory_1"]) for x in both),
               "latency": _latency_agreement(both) if latency else
               "not compared: the rows are memory-only (latency waits for a quiet machine)",
               "at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    out = {"summary": summary, "differing": [x for x in both if x["memory_1"] != x["memory_2"]],
           "not_remeasured": [x for x in res if x.get("memory_2") is None]}
    if latency:
        out["rows"] = both
    name = "remeasure_v2_latency.json" if latency else "remeasure_v2.json"
    (workfiles.DATA / name).write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    return summary


def _latency_agreement(both: list[dict]) -> dict:
    """Per timing (process wall, in-process): pairs, Spearman of run 1 against run 2, median |2/1 - 1|."""
    from training.judging.evaluate import spearman

    out = {}
    for k in ("latency_ms", "exec_ms"):
        xy = [(x[f"{k}_1"], x[f"{k}_2"]) for x in both if x.get(f"{k}_1") and x.get(f"{k}_2")]
        out[k] = {"pairs": len(xy),
                  "spearman": round(spearman([a for a, _ in xy], [b for _, b in xy]), 4) if len(xy) > 2 else None,
                  "median_abs_rel_diff": round(statistics.median(abs(b / a - 1) for a, b in xy), 4) if xy else None}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.data_card", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    st = sub.add_parser("stats")
    st.add_argument("--json", default=None, help="also write the figures as JSON here")
    rm = sub.add_parser("remeasure")
    rm.add_argument("--n", type=int, default=200)
    rm.add_argument("--seed", type=int, default=0)
    rm.add_argument("--latency", action="store_true", help="rows measured with timing, run again with timing")
    a = ap.parse_args(argv)
    if a.cmd == "stats":
        s = stats()
        if a.json:
            with open(a.json, "w") as f:
                json.dump(s, f, indent=1, sort_keys=True)
                f.write("\n")
        print(markdown(s))
    else:
        print(json.dumps(remeasure(a.n, a.seed, latency=a.latency), indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
