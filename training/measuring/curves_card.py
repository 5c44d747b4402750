"""The cost curves' data card (issue 47): figures of `leetcode_curves*.jsonl.gz`, written into
training/data/README.md between `<!-- CURVES -->` and `<!-- /CURVES -->`.

    python -m training.measuring.curves_card            # print the section
    python -m training.measuring.curves_card --write    # and write it into the README

Counts per status and rung, programs and problems with five sizes or more, the span of their sizes,
the classes of both metrics (`training.measuring.curve_fit`), the share of fits with R² >= 0.9, and
how much exponents spread within a problem (programs of one problem solve the same task).
"""
from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from training.measuring.curve_fit import CLASSES, class_rose
from training.measuring.packing import curve_pair_sizes

DATA = Path(__file__).resolve().parents[1] / "data"
README = DATA / "README.md"
START, END = "<!-- CURVES -->", "<!-- /CURVES -->"


def read_gz(path: Path) -> list:
    """The rows of a packed .jsonl.gz file; [] when it does not exist."""
    if not path.exists():
        return []
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f]


def section(data: Path = DATA) -> str:
    rows = read_gz(data / "leetcode_curves.jsonl.gz")
    fits = read_gz(data / "leetcode_curves.growth.jsonl.gz")
    if not rows:
        return "No cost curves packed yet."
    status = Counter(r["status"] for r in rows)
    ok = [r for r in rows if r["status"] == "ok"]
    rung_ok = Counter(r["rung"] for r in ok)
    five = [g for g in fits if g["n_sizes"] >= 5]
    wide = [g for g in five if g["span"] >= 64]
    lines = [
        f"Packed {len(rows)} rows of {len({r['key'] for r in rows})} programs: "
        + ", ".join(f"{k} {v}" for k, v in status.most_common()) + ".",
        "",
        "| | programs | problems |",
        "|---|---|---|",
        f"| fitted (3+ sizes) | {len(fits)} | {len({g['problem_id'] for g in fits})} |",
        f"| 5+ sizes | {len(five)} | {len({g['problem_id'] for g in five})} |",
        f"| 5+ sizes spanning 64x or more | {len(wide)} | {len({g['problem_id'] for g in wide})} |",
        f"| 5+ sizes, validation problems | {sum(bool(g.get('validation')) for g in five)} | "
        f"{len({g['problem_id'] for g in five if g.get('validation')})} |",
        "",
        "`ok` rows per rung: " + ", ".join(f"{k} {rung_ok[k]}" for k in ("1/64", "1/16", "1/4", "1/2", "1", "4")) + ".",
        "",
        "Classes of the programs with 5+ sizes (`training/measuring/curve_fit.py`):",
        "",
        "| metric | " + " | ".join(CLASSES) + " | R² ≥ 0.9 | exponent median | p10 | p90 |",
        "|---|" + "---|" * (len(CLASSES) + 4),
    ]
    for metric in ("time", "memory"):
        cls = Counter(g.get(f"{metric}_class") for g in five)
        ex = [g[f"{metric}_exponent"] for g in five if g.get(f"{metric}_exponent") is not None]
        r2 = [g[f"{metric}_r2"] for g in five if g.get(f"{metric}_r2") is not None]
        q = statistics.quantiles(ex, n=10) if len(ex) >= 10 else [float("nan")] * 9
        lines.append(f"| {metric} | " + " | ".join(str(cls.get(c, 0)) for c in CLASSES)
                     + f" | {sum(x >= 0.9 for x in r2) / max(1, len(r2)):.0%} | "
                     f"{statistics.median(ex) if ex else float('nan'):.2f} | {q[0]:.2f} | {q[-1]:.2f} |")
    lines += ["", "Spread within a problem (problems with 2+ programs of 5+ sizes; max - min exponent):", "",
              "| metric | problems | median | p90 | share under 0.3 |", "|---|---|---|---|---|"]
    for metric in ("time", "memory"):
        by: dict = {}
        for g in five:
            if g.get(f"{metric}_exponent") is not None:
                by.setdefault(g["problem_id"], []).append(g[f"{metric}_exponent"])
        spread = [max(v) - min(v) for v in by.values() if len(v) >= 2]
        if len(spread) >= 10:
            lines.append(f"| {metric} | {len(spread)} | {statistics.median(spread):.2f} | "
                         f"{statistics.quantiles(spread, n=10)[-1]:.2f} | "
                         f"{sum(s < 0.3 for s in spread) / len(spread):.0%} |")
        else:
            lines.append(f"| {metric} | {len(spread)} | - | - | - |")
    lines += remeasure_lines(data, ok)
    lines += kattis_lines(data)
    lines += variant_lines(data, fits)
    machines = Counter(r.get("machine", {}).get("cpu_model") for r in ok)
    lines += ["", "Machines: " + ", ".join(f"{k} ({v} rows)" for k, v in machines.items()) + "."]
    return "\n".join(lines)


def kattis_lines(data: Path) -> list[str]:
    """Kattis programs on every input of their package (issue 47): rows against the tasks, where the
    corpus is there to count the tasks (every input with an answer, not a link blob, up to 1 MiB)."""
    rows = read_gz(data / "kattis_v2.jsonl.gz")
    if not rows:
        return []
    programs = {r["key"] for r in rows}
    inputs = {(r["problem_id"], r["input_id"]) for r in rows}
    ok = sum(r["status"] == "ok" for r in rows)
    line = (f"Kattis (`kattis_v2.jsonl.gz`, n = the input's bytes): {len(rows)} rows, {ok} ok, {len(programs)} programs "
            f"on {len(inputs)} distinct inputs")
    try:
        from training.measuring.sources import CORPUS, kattis_tasks
        tasks = kattis_tasks(Path(CORPUS), 1 << 40)
    except (OSError, ValueError):
        return ["", line + "."]
    done = {(r["key"], r["input_id"]) for r in rows}
    left = sum((t["row"]["key"], t["row"]["input_id"]) not in done for t in tasks)
    return ["", line + f": every program on every input of its package, {len(tasks) - left} of {len(tasks)} tasks measured "
                       "(`streams run --source kattis --inputs-per-problem 100000`)."]


def remeasure_lines(data: Path, ok: list) -> list[str]:
    """The re-measurement checks (`remeasure_curves*.json`, one column each, oldest first), and whether
    any ran on another day than the rows it re-measured (issue 47 asks for one that did)."""
    runs = sorted((json.loads(p.read_text())["summary"] for p in data.glob("remeasure_curves*.json")),
                  key=lambda r: r["when"])
    if not runs:
        return []
    days = sorted({str(r.get("measured_at", ""))[:10] for r in ok} - {""})
    other = [r for r in runs if r["when"][:10] not in days]
    cells = {"programs (rows ok again)": lambda r: f"{r['programs']} ({r['rows_again_ok']})",
             "time (CPU, min of 3) Spearman": lambda r: f"{r['latency_spearman']}",
             "fitted time exponents within 0.15": lambda r: f"{r['time_exponent_within_0.15']:.1%}",
             "memory Spearman / identical": lambda r: f"{r['memory_spearman']} / {r['memory_identical']:.0%}"}
    targets = {"time (CPU, min of 3) Spearman": "0.95", "fitted time exponents within 0.15": "90%"}
    return ["", "Re-measurements (`python -m training.measuring.curves_remeasure --seed K`: random programs with "
                "5+ sizes, every rung measured again and compared with its packed row):", "",
            "| check | " + " | ".join(r["when"] for r in runs) + " | target |",
            "|---|" + "---|" * len(runs) + "---|",
            *(f"| {name} | " + " | ".join(cell(r) for r in runs) + f" | {targets.get(name, '-')} |"
              for name, cell in cells.items()),
            "", (f"{len(other)} of them on another day than the rows' measurement." if other else
                 f"The rows were measured on {', '.join(days)}, and every check ran on that day too; the issue "
                 "asks for one on another day.")]


def variant_lines(data: Path, parent_fits: list | None = None) -> list[str]:
    """Variants at their parents' sizes (issue 47: 3,000 pairs, time and memory). A pair here is one
    variant program beside its parent, both with an ok curve of 3+ sizes on the same inputs (the
    stricter count), the (variant, size) rows with both sides ok beside it."""
    rows = read_gz(data / "leetcode_variant_curves.pairs.jsonl.gz")
    if not rows:
        return []
    both = [r for r in rows if r["status_parent"] == r["status_variant"] == "ok"]
    curves = curve_pair_sizes(both)
    fitted = {g["key"]: g for g in read_gz(data / "leetcode_variant_curves.growth.jsonl.gz")}
    if parent_fits is None:  # the section passes the fits it read already
        parent_fits = read_gz(data / "leetcode_curves.growth.jsonl.gz")
    parents = {g["key"]: g for g in parent_fits}
    rose = Counter()
    for parent, key, _ in curves:
        v, p = fitted.get(key), parents.get(parent)
        for metric in ("time", "memory"):
            rose[metric] += bool(v and p and class_rose(v.get(f"{metric}_class"), p.get(f"{metric}_class")))
    kinds = Counter(k for _, _, k in curves)
    return ["", f"Variants at their parents' sizes (`leetcode_variant_curves.pairs.jsonl.gz`, time and memory): "
                f"**{len(curves)} pairs** (a variant program and its parent, both ok on 3+ of the same sizes; target 3,000) "
                f"over {len({p for p, _, _ in curves})} parents, {len(both)} (variant, size) rows with both sides ok; "
                f"by mutation: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()) + "; "
                f"growth class rose in the variant: time {rose['time']}, memory {rose['memory']}.",
            "", "Which variants, in which order: data v2's LeetCode variants first, then every mutation kind that "
                "applies to every program with 3+ ok rungs in the packed curves, kinds interleaved "
                "(`leetcode_ladders._more_variants`); from 2026-12-06 13:14 UTC the variants of the cheapest parents "
                "first (`streams run --order cheap`: the dearest tenth of programs took half the time), so the later "
                "pairs lean to cheap programs. A rung predicted over twice the time limit from the program's own "
                f"smaller rungs is not run ({predicted_skips(data)} rows skipped so, each with the prediction in its "
                "reason), as a rung that ran out of time stops the larger ones."]


def predicted_skips(data: Path) -> int:
    """Variant rows skipped because their time was predicted over the limit (`streams._too_slow`)."""
    return sum(str(r.get("reason") or "").startswith("predicted over the time limit")
               for r in read_gz(data / "leetcode_variant_curves.jsonl.gz") if r.get("status") == "skipped")


def write(text: str, readme: Path = README, start: str = START, end: str = END) -> None:
    """`text` between the `start` and `end` markers of `readme` (appended with them where absent)."""
    body = readme.read_text(encoding="utf-8")
    block = f"{start}\n{text}\n{end}"
    if start in body:
        head, rest = body.split(start, 1)
        body = head + block + rest.split(end, 1)[1]
    else:
        body = body.rstrip("\n") + "\n\n" + block + "\n"
    readme.write_text(body, encoding="utf-8")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.curves_card", description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--data", type=Path, default=DATA)
    a = ap.parse_args(argv)
    text = section(a.data)
    print(text)
    if a.write:
        write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
