"""Statistics of the measurement dataset for the dataset card.

    python -m training.measuring.dataset_stats [--json] [PATH ...]

Default input: training/data/leetcode_v1.jsonl.gz plus any newer rows in
training/work/measure/leetcode_v1.jsonl (deduplicated on (key, tier)).
"""
from __future__ import annotations

import argparse
import collections
import json
import math
import sys
from pathlib import Path

from training.measuring import build_dataset  # where the rows are and how to read them (it never imports us)


def _q(xs, q):
    xs = sorted(xs)
    if not xs:
        return None
    i = (len(xs) - 1) * q
    lo, hi = math.floor(i), math.ceil(i)
    return xs[lo] + (xs[hi] - xs[lo]) * (i - lo)


def dist(xs):
    xs = [x for x in xs if x is not None]
    if not xs:
        return {"n": 0}
    return {"n": len(xs), "min": min(xs), "p10": _q(xs, 0.1), "median": _q(xs, 0.5), "p90": _q(xs, 0.9),
            "max": max(xs)}


def load(paths=None):
    paths = [Path(p) for p in paths] if paths else [build_dataset.data_path(), build_dataset.work_rows_path()]
    seen, rows = set(), []
    for p in paths:
        for r in build_dataset.read_rows(p):
            k = (r["key"], r["tier"])
            if k not in seen:
                seen.add(k)
                rows.append(r)
    return rows


def compute(rows) -> dict:
    out = {"rows": len(rows)}
    tiers = sorted({r["tier"] for r in rows})
    out["status"] = {t: dict(collections.Counter(r["status"] for r in rows if r["tier"] == t)) for t in tiers}
    out["status_share"] = {t: {s: round(c / sum(v.values()), 4) for s, c in v.items()}
                           for t, v in out["status"].items()}
    ok = [r for r in rows if r["status"] == "ok"]
    out["ok_total"] = len(ok)
    out["ok_by_tier"] = dict(collections.Counter(r["tier"] for r in ok))
    out["problems_with_ok"] = len({r["problem_id"] for r in ok})
    out["problems_with_ok_by_tier"] = {t: len({r["problem_id"] for r in ok if r["tier"] == t}) for t in tiers}
    out["programs_with_ok"] = len({r["key"] for r in ok})
    out["problems_attempted"] = len({r["problem_id"] for r in rows})
    out["ok_by_source"] = {t: dict(collections.Counter(r["source"] for r in ok if r["tier"] == t)) for t in tiers}
    out["status_by_source"] = {}
    for t in tiers:
        for src in sorted({r["source"] for r in rows}):
            c = collections.Counter(r["status"] for r in rows if r["tier"] == t and r["source"] == src)
            out["status_by_source"]["%s/%s" % (t, src)] = dict(c)
    out["memory_bytes"] = {t: dist([r["memory_bytes"] for r in ok if r["tier"] == t]) for t in tiers}
    out["latency_ms"] = {t: dist([r["latency_ms"] for r in ok if r["tier"] == t]) for t in tiers}
    out["cpu_ms"] = {t: dist([r["cpu_ms"] for r in ok if r["tier"] == t]) for t in tiers}
    out["rss_kb"] = {t: dist([r["rss_kb"] for r in ok if r["tier"] == t]) for t in tiers}
    out["memory_p90_over_p10"] = {}
    out["latency_p90_over_p10"] = {}
    for t in tiers:
        d = out["memory_bytes"][t]
        if d.get("n"):
            out["memory_p90_over_p10"][t] = round(d["p90"] / max(1, d["p10"]), 2)
        d = out["latency_ms"][t]
        if d.get("n"):
            out["latency_p90_over_p10"][t] = round(d["p90"] / max(1e-9, d["p10"]), 2)
    # spread within problems (problems with >= 2 ok programs in the tier)
    within = {}
    for t in tiers:
        by = collections.defaultdict(list)
        for r in ok:
            if r["tier"] == t:
                by[r["problem_id"]].append(r)
        multi = {p: v for p, v in by.items() if len(v) >= 2}
        mem_ratio = [max(x["memory_bytes"] for x in v) / max(1, min(x["memory_bytes"] for x in v)) for v in multi.values()]
        lat_ratio = [max(x["latency_ms"] for x in v) / max(1e-6, min(x["latency_ms"] for x in v)) for v in multi.values()]
        within[t] = {
            "problems_with_2plus_ok": len(multi),
            "programs_in_them": sum(len(v) for v in multi.values()),
            "mem_max_over_min": dist(mem_ratio),
            "share_mem_ratio_ge_1.1": round(sum(x >= 1.1 for x in mem_ratio) / len(mem_ratio), 3) if mem_ratio else None,
            "share_mem_ratio_ge_2": round(sum(x >= 2 for x in mem_ratio) / len(mem_ratio), 3) if mem_ratio else None,
            "lat_max_over_min": dist(lat_ratio),
            "share_lat_ratio_ge_2": round(sum(x >= 2 for x in lat_ratio) / len(lat_ratio), 3) if lat_ratio else None,
        }
    out["within_problem"] = within
    return out


def _fmt(v):
    if v is None:
        return "-"
    if isinstance(v, float):
        if v == 0:
            return "0"
        if abs(v) >= 1000 or abs(v) < 0.01:
            return "%.3g" % v
        return "%.3f" % v if abs(v) < 10 else "%.1f" % v
    return str(v)


def markdown(s: dict) -> str:
    L = []
    L.append("| | rows | ok | wrong | error | timeout | memout |")
    L.append("|---|---|---|---|---|---|---|")
    for t, c in s["status"].items():
        n = sum(c.values())
        L.append("| %s | %d | %s |" % (t, n, " | ".join("%d (%.1f%%)" % (c.get(k, 0), 100 * c.get(k, 0) / n)
                                                     for k in ("ok", "wrong", "error", "timeout", "memout"))))
    L.append("")
    L.append("Successful (`ok`) measurements: **%d** (%s) over **%d problems** (%s); %d distinct programs."
             % (s["ok_total"], ", ".join("%s %d" % kv for kv in sorted(s["ok_by_tier"].items())),
                s["problems_with_ok"], ", ".join("%s %d" % kv for kv in sorted(s["problems_with_ok_by_tier"].items())),
                s["programs_with_ok"]))
    L.append("")
    L.append("| metric (ok rows) | tier | n | min | p10 | median | p90 | max | p90/p10 |")
    L.append("|---|---|---|---|---|---|---|---|---|")
    for m in ("memory_bytes", "latency_ms", "cpu_ms", "rss_kb"):
        for t, d in s[m].items():
            if not d.get("n"):
                continue
            ratio = d["p90"] / d["p10"] if d["p10"] else None
            L.append("| %s | %s | %d | %s | %s | %s | %s | %s | %s |" % (
                m, t, d["n"], _fmt(d["min"]), _fmt(d["p10"]), _fmt(d["median"]), _fmt(d["p90"]), _fmt(d["max"]),
                _fmt(ratio)))
    L.append("")
    L.append("Spread within problems (problems with >= 2 `ok` programs in the tier; ratio = max/min over the "
             "problem's programs):")
    L.append("")
    L.append("| tier | problems | programs | memory ratio median | p90 | share >= 1.1 | share >= 2 | latency ratio median | p90 | share >= 2 |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for t, w in s["within_problem"].items():
        if not w["problems_with_2plus_ok"]:
            continue
        L.append("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            t, w["problems_with_2plus_ok"], w["programs_in_them"], _fmt(w["mem_max_over_min"]["median"]),
            _fmt(w["mem_max_over_min"]["p90"]), w["share_mem_ratio_ge_1.1"], w["share_mem_ratio_ge_2"],
            _fmt(w["lat_max_over_min"]["median"]), _fmt(w["lat_max_over_min"]["p90"]), w["share_lat_ratio_ge_2"]))
    L.append("")
    L.append("Status by tier/source:")
    L.append("")
    L.append("| tier/source | ok | wrong | error | timeout | memout |")
    L.append("|---|---|---|---|---|---|")
    for k, c in s["status_by_source"].items():
        if c:
            L.append("| %s | %s |" % (k, " | ".join(str(c.get(x, 0)) for x in ("ok", "wrong", "error", "timeout", "memout"))))
    return "\n".join(L) + "\n"


def _replace_block(text: str, name: str, body: str) -> str:
    start, end = "<!-- %s -->" % name, "<!-- /%s -->" % name
    if start not in text:
        return text
    head, rest = text.split(start, 1)
    tail = rest.split(end, 1)[1] if end in rest else rest
    return head + start + "\n" + body.rstrip() + "\n" + end + tail


def update_card(s: dict, card: Path) -> None:
    """Rewrite the NUMBERS / MACHINE / REMEASURE blocks of the dataset card."""
    text = card.read_text()
    counts = "## Numbers (generated by `python -m training.measuring.dataset_stats --card`)\n\n" + markdown(s)
    text = _replace_block(text, "NUMBERS", counts)
    meta_p = build_dataset.DATA / f"{build_dataset.NAME}.meta.json"
    if meta_p.exists():
        meta = json.loads(meta_p.read_text())
        m = meta["machine"]
        text = _replace_block(text, "MACHINE", (
            "CPU `%s` (/proc/cpuinfo model name), %s vCPUs, shared (see Caveats); %s %s on %s; "
            "network namespace available: %s. Exported %s, %d rows."
            % (m["cpu_model"], m["cpu_count"], m["python_impl"], m["python"], m["platform"],
               m["network_namespace"], meta["exported_at"], meta["rows"])))
    rm = build_dataset.DATA / "remeasure_large.json"
    if rm.exists():
        r = json.loads(rm.read_text())["summary"]
        text = _replace_block(text, "REMEASURE", (
            "Random sample of %d `ok` programs of the `%s` tier (seed %d, from %d), re-measured on %s with "
            "the same protocol, on the same (shared) machine:\n\n"
            "| check | result |\n|---|---|\n"
            "| second run ok | %d / %d |\n"
            "| memory identical | %.1f%% |\n"
            "| memory within 1%% | %.1f%% |\n"
            "| memory Spearman | %s |\n"
            "| **latency Spearman** | **%s** |\n"
            "| CPU-time Spearman | %s |\n"
            "| latency median abs. relative difference | %s |\n"
            % (r["sampled"], r["tier"], r["seed"], r["population"], r["at"], r["remeasured_ok"], r["sampled"],
               100 * (r["memory_exact_share"] or 0), 100 * (r["memory_within_1pct_share"] or 0),
               r["memory_spearman"], r["latency_spearman"], r["cpu_spearman"],
               r["latency_median_abs_rel_diff"])))
    card.write_text(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--card", action="store_true", help="rewrite the number blocks of training/data/README.md")
    a = ap.parse_args(argv)
    s = compute(load(a.paths or None))
    if a.card:
        update_card(s, build_dataset.DATA / "README.md")
        return 0
    if a.json:
        print(json.dumps(s, indent=1))
    else:
        sys.stdout.write(markdown(s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
