"""The C++, Java and Go data card (issue 51): figures of ``leetcode_{cpp,java,go}.jsonl.gz``, written into
training/data/README.md between ``<!-- POLYGLOT -->`` and ``<!-- /POLYGLOT -->``.

    python -m training.measuring.polyglot_card            # print the section
    python -m training.measuring.polyglot_card --write    # and write it into the README
    python -m training.measuring.polyglot_card --stream java=PATH   # add a running stream's counts (read only)

Per language: rows, programs and problems by status; why rows are not ``ok`` (reasons grouped: ``diagnostics.why``);
rung coverage; problems measured in Python too (``leetcode_v2``, the same rungs) and whether their inputs
are byte-identical; memory and time distributions; growth classes over the three rungs
(``training.measuring.curve_fit``); the re-measurement check (``remeasure_polyglot.json``).
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path

from training.measuring import curves_card
from training.measuring.curve_fit import CLASSES, fit
from training.measuring.curves_card import DATA, README, read_gz
from training.measuring.diagnostics import why
from training.measuring.polyglot_remeasure import read_rows

LANGUAGES = ("cpp", "java", "go")
NAME = {"cpp": "C++", "java": "Java", "go": "Go"}
RUNGS = ("1/16", "1/4", "1")
START, END = "<!-- POLYGLOT -->", "<!-- /POLYGLOT -->"
NOT_OK = ("wrong_answer", "compile_error", "skipped", "error", "timeout", "memory_limit")
MEMORY_FLOOR = 128 << 10   # RSS moves by tens of kB between runs of one program: below this, noise
TIME_FLOOR_SHARE = 0.10    # of the empty program's CPU time (start-up jitter), at least curve_fit's 10 µs

def _q(xs: list, fmt) -> str:
    if len(xs) < 10:
        return "- | - | - | -"
    q = statistics.quantiles(xs, n=10)
    return " | ".join(fmt(v) for v in (q[0], statistics.median(xs), q[-1], max(xs)))


def _mb(b: float) -> str:
    return "%.2f MB" % (b / 1e6) if b < 1e8 else "%.0f MB" % (b / 1e6)


def _ms(t: float) -> str:
    return "%.3g ms" % t


def classes(ok: list) -> dict:
    """metric -> Counter of growth classes over the programs with all three rungs ok."""
    by: dict = {}
    for r in ok:
        by.setdefault(r["key"], []).append(r)
    out = {"time": Counter(), "memory": Counter()}
    for rows in by.values():
        if len({r["input_size"] for r in rows}) < 3:
            continue
        rows = sorted(rows, key=lambda r: r["input_size"])
        sizes = [r["input_size"] for r in rows]
        base = min(r.get("baseline_cpu_ms") or 0.0 for r in rows)
        own = [max(0.0, r["latency_ms"] - (r.get("baseline_cpu_ms") or 0.0)) for r in rows]
        t = fit(sizes, own, max(0.01, TIME_FLOOR_SHARE * base))
        m = fit(sizes, [r["memory_bytes"] for r in rows], MEMORY_FLOOR)
        out["time"][t.growth_class or "1"] += 1
        out["memory"][m.growth_class or "1"] += 1
    return out


def section(data: Path = DATA, streams: dict | None = None) -> str:
    rows = {lang: read_gz(data / ("leetcode_%s.jsonl.gz" % lang)) for lang in LANGUAGES}
    if not any(rows.values()):
        return "No C++, Java or Go rows packed yet."
    py = [r for r in read_gz(data / "leetcode_v2.jsonl.gz") if r["status"] == "ok"]
    py_inputs = {(r["problem_id"], r["rung"]): r["input_sha1"] for r in py if r.get("input_id", "").endswith(":s0")}
    py_problems = {r["problem_id"] for r in py}
    ok = {lang: [r for r in rows[lang] if r["status"] == "ok"] for lang in LANGUAGES}
    L = [
        "Packed rows (`python -m training.measuring.streams pack --source leetcode-<language>`); figures by "
        "`python -m training.measuring.polyglot_card`.", "",
        "| language | rows | programs | problems | ok rows | ok programs | ok problems | "
        + " | ".join(NOT_OK) + " |",
        "|---|" + "---|" * (6 + len(NOT_OK)),
    ]
    for lang in LANGUAGES:
        rs, st = rows[lang], Counter(r["status"] for r in rows[lang])
        L.append(f"| {NAME[lang]} | {len(rs)} | {len({r['key'] for r in rs})} | {len({r['problem_id'] for r in rs})} | "
                 f"{len(ok[lang])} | {len({r['key'] for r in ok[lang]})} | {len({r['problem_id'] for r in ok[lang]})} | "
                 + " | ".join(str(st.get(s, 0)) for s in NOT_OK) + " |")
    for lang, path in sorted((streams or {}).items()):
        live = read_rows(Path(path))
        st = Counter(r.get("status") for r in live)
        L += ["", f"{NAME[lang]} is being measured again by a running stream (not packed; read at "
              f"{max((r.get('measured_at') or '') for r in live) if live else '-'}): {len(live)} rows of "
              f"{len({r.get('key') for r in live})} programs over {len({r.get('problem_id') for r in live})} problems, "
              + ", ".join(f"{k} {v}" for k, v in st.most_common()) + "; ok programs "
              f"{len({r.get('key') for r in live if r.get('status') == 'ok'})}, ok problems "
              f"{len({r.get('problem_id') for r in live if r.get('status') == 'ok'})}."]
    L += ["", "Why rows are not `ok` (rows, programs; reasons grouped by `diagnostics.why`):", ""]
    for lang in LANGUAGES:
        bad = [r for r in rows[lang] if r["status"] != "ok"]
        if not bad:
            continue
        groups: dict = {}
        for r in bad:
            groups.setdefault((r["status"], why(r)), []).append(r["key"])
        L.append(f"- **{NAME[lang]}**: " + "; ".join(
            f"{st} / {g}: {len(ks)} ({len(set(ks))})" for (st, g), ks in sorted(groups.items(), key=lambda kv: -len(kv[1]))) + ".")
    L += ["", "Rung coverage (`ok` rows per rung of the Python ladders: 1/16, 1/4 and 1 of the `large` size) and the "
          "problems measured in Python too (`leetcode_v2`, `ok` on the same rung; inputs compared by their sha1):", "",
          "| language | 1/16 | 1/4 | 1 | programs with 3 rungs | problems also in Python | (problem, rung) pairs with Python | "
          "identical inputs |", "|---|---|---|---|---|---|---|---|"]
    for lang in LANGUAGES:
        rung = Counter(r["rung"] for r in ok[lang])
        by = Counter(r["key"] for r in ok[lang])
        pairs = {(r["problem_id"], r["rung"]): r["input_sha1"] for r in ok[lang]}
        both = [k for k in pairs if k in py_inputs]
        same = sum(pairs[k] == py_inputs[k] for k in both)
        L.append(f"| {NAME[lang]} | " + " | ".join(str(rung.get(k, 0)) for k in RUNGS)
                 + f" | {sum(v >= 3 for v in by.values())} | {len({r['problem_id'] for r in ok[lang]} & py_problems)} | "
                 f"{len(both)} | {same} |")
    sets = {lang: {r["problem_id"] for r in ok[lang]} for lang in LANGUAGES}
    L += ["", "Problems with `ok` rows in several languages: " + ", ".join(
        f"{' + '.join(NAME[x] for x in combo)} {len(set.intersection(*(sets[x] for x in combo)))}"
        for combo in (("cpp", "java"), ("cpp", "go"), ("java", "go"), ("cpp", "java", "go")))
        + f"; all three and Python: {len(set.intersection(*sets.values()) & py_problems)}."]
    L += ["", "Distributions of the `ok` rows (memory: peak RSS − the empty program's; time: min CPU time of 3 runs, "
          "start-up included; the empty program's in the last column):", "",
          "| language | memory p10 | median | p90 | max | share 0 | time p10 | median | p90 | max | empty program (RSS, CPU) |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    for lang in LANGUAGES:
        mem = [r["memory_bytes"] for r in ok[lang]]
        lat = [r["latency_ms"] for r in ok[lang]]
        base = ok[lang][0] if ok[lang] else {}
        L.append(f"| {NAME[lang]} | {_q(mem, _mb)} | {sum(m == 0 for m in mem) / max(1, len(mem)):.0%} | {_q(lat, _ms)} | "
                 f"{base.get('baseline_rss_kb', '-')} kB, {base.get('baseline_cpu_ms', '-')} ms |")
    L += ["", "Growth classes over the three rungs (16×), programs with all three `ok` (`curve_fit.fit`; time is the "
          "CPU time above the empty program's, floored at %d%% of it; memory floored at %d kB; three sizes tell "
          "`1` from `n` from `n²`, not `n` from `n log n`):" % (100 * TIME_FLOOR_SHARE, MEMORY_FLOOR >> 10), "",
          "| language | metric | " + " | ".join(CLASSES) + " |", "|---|---|" + "---|" * len(CLASSES)]
    for lang in LANGUAGES:
        c = classes(ok[lang])
        for metric in ("time", "memory"):
            L.append(f"| {NAME[lang]} | {metric} | " + " | ".join(str(c[metric].get(k, 0)) for k in CLASSES) + " |")
    again = data / "remeasure_polyglot.json"
    if again.exists():
        R = json.loads(again.read_text())
        L += ["", "Re-measurement (`python -m training.measuring.polyglot_remeasure --language <l>`: random `ok` rows "
              "measured again, compiled in the sandbox into a fresh build folder, 3 runs):", "",
              "| language | rows | ok again | time Spearman | time within 15% | memory Spearman | memory within 15% | "
              "memory identical | same output | first measured | again |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for lang in LANGUAGES:
            if lang in R:
                s = R[lang]["summary"]
                L.append(f"| {NAME[lang]} | {s['rows']} | {s['again_ok']} | {s['latency_spearman']} | "
                         f"{s['latency_within_15pct']:.0%} | {s['memory_spearman']} | {s['memory_within_15pct']:.0%} | "
                         f"{s['memory_identical']:.0%} | {s['same_output']:.0%} | {s['first_measured'][:10]} ({s['source']}) | "
                         f"{s['when'][:16]} |")
        L += ["", "Within 15%: |a − b| ≤ 15% of the larger.  Time is the process's CPU time with its start-up, "
              "which on a loaded machine moves by tenths of a millisecond, the size of most C++ and Go rows; memory is "
              "peak RSS, which moves by up to a few hundred kB between runs.  Run on the measurement's day; another day's "
              "run is still to do (issue 47 asks it for the Python curves)."]
        L += java_protocol(data)
    machines = Counter((r.get("machine") or {}).get("cpu_model") for lang in LANGUAGES for r in ok[lang])
    L += ["", "Machines: " + ", ".join(f"{k} ({v} rows)" for k, v in machines.items()) + "."]
    return "\n".join(L)


# The Java protocol in use (its rows carry no protocol field) and the name of its check in the protocols' file.
FIRST_JAVA = "first (C2, random layout, baseline of 5)"


def java_protocol(data: Path) -> list:
    """The Java paragraph of the re-measurement section: why Java's memory moved, and the check of each
    protocol tried against it (``remeasure_java_protocol.json``) where it was run."""
    L = ["", "Java's memory is small beside its empty program's 36 MB, subtracted from every row.  That baseline (the "
         "min peak RSS of the empty program's 5 runs, taken once per measuring process) moves by ~0.5 MB between "
         "processes (36,052-36,508 kB) against a median program's ~2 MB, and every row of a process moves with it: "
         "the re-measured memory was 19% higher at the median.  Three protocols were tried against it on the same "
         "200 rows, each measured twice; one was to be adopted if time and memory Spearman were both at least 0.95 "
         "and memory within 15% beat the first protocol's 42%.  None passed both bars, so Java's rows stay measured "
         "the first way (C2, the kernel's address-space randomisation, a baseline of the min of 5 runs)."]
    path = data / "remeasure_java_protocol.json"
    if not path.exists():
        return L
    s = json.loads(path.read_text())["java"]
    L += ["", "The same 200 Java rows under each protocol (`%s`; the first: its stream against a re-measurement, the "
          "others: measured twice; memory ratio: the second figure over the first at the median):" % path.name, "",
          "| protocol | time Spearman | time within 15% | memory Spearman | memory within 15% | memory ratio |",
          "|---|---|---|---|---|---|"]
    for name, f in s.get("protocols", {}).items():
        shown = "**%s** (in use)" % name if name == s.get("adopted") else "%s: %s" % (name, f.get("what", ""))
        L.append(f"| {shown} | {f['latency_spearman']} | {f['latency_within_15pct']:.0%} | {f['memory_spearman']} | "
                 f"{f['memory_within_15pct']:.0%} | {f.get('memory_ratio_median', '-')} |")
    return L


def write(text: str, readme: Path = README) -> None:
    curves_card.write(text, readme, START, END)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.polyglot_card", description=__doc__.split("\n")[0])
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--stream", action="append", default=[], metavar="LANGUAGE=PATH",
                    help="a running stream's .jsonl (read only): its counts beside the packed rows")
    a = ap.parse_args(argv)
    streams = {}
    for s in a.stream:
        lang, sep, path = s.partition("=")
        if not sep or lang not in LANGUAGES:
            print("--stream takes LANGUAGE=PATH with LANGUAGE one of cpp, java, go (got %r)" % s, file=sys.stderr)
            return 2
        streams[lang] = path
    text = section(a.data, streams)
    print(text)
    if a.write:
        write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
