"""Re-measure a random sample of the C++, Java and Go rows and compare (issue 51: the re-measurement check
on 200 rows per language, as ``curves_remeasure`` does for the Python curves).

    nice -n 10 python -m training.measuring.polyglot_remeasure --language go [--rows 200] [--seed 0]
        [--from training/data/leetcode_go.jsonl.gz] [--out training/data/remeasure_polyglot.json]

Draws ``--rows`` random ``ok`` rows of one language (seed fixed) from the packed rows (or ``--from``, a
stream's .jsonl, read only), measures each again the same way (``compiled.measure``: compiled in the sandbox
into this process's build folder, 3 sandboxed runs, peak RSS minus the empty program's, min CPU time) on the
same rung's tests (their sha1 checked against the row's), and writes the language's summary and pairs
(numbers and ids only) into ``--out`` beside the other languages'.  Pairs go to a work file as they come
(``$RLM_TRAINING_WORK/polyglot/remeasure-<language>.jsonl``), so a stopped run resumes.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import sys
from datetime import datetime, timezone
from pathlib import Path

from training.measuring.curves_card import DATA

OUT = DATA / "remeasure_polyglot.json"
WITHIN = 0.15


def read_rows(path: Path) -> list:
    """Rows of a packed .jsonl.gz or of a stream's .jsonl (a half-written last line is left out)."""
    if not path.exists():
        return []
    opener = gzip.open if path.suffix == ".gz" else open
    out = []
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return out


def sample(rows: list, n: int, seed: int) -> list:
    ok = sorted((r for r in rows if r.get("status") == "ok"), key=lambda r: (r["key"], r["rung"]))
    return random.Random(seed).sample(ok, min(n, len(ok)))


def codes(keys: set) -> dict:
    """key -> code, in one pass over the corpus."""
    from training.measuring.lc_corpus import LEETCODE
    out = {}
    with gzip.open(LEETCODE / "solutions.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            k = "%s:%s" % (r.get("source"), r.get("path"))
            if k in keys:
                out[k] = r["code"]
    return out


def again(row: dict, code: str) -> dict:
    """The row measured again: {memory_bytes, latency_ms, output_digest, status}."""
    from training.measuring import compiled
    from training.measuring import leetcode_ladders as lad
    rung = lad._rung(row["problem_id"], row["rung"], 0)
    if rung is None or rung[5] != row.get("input_sha1"):
        return {"status": "inputs_differ"}
    m = compiled.measure(code, row["language"], lad.problems()[row["problem_id"]].entry, rung[2], runs=3,
                         time_limit_s=float(row.get("time_limit_s") or 10.0), memory_mb=int(row.get("memory_limit_mb") or 2048))
    d = lad.digest(m["digests"]) if m.get("digests") else None
    return {"status": m["status"], "memory_bytes": m["memory_bytes"], "latency_ms": m["latency_ms"], "output_digest": d,
            "error": m.get("error") or m.get("reason")}


def summary(pairs: list, drawn: int) -> dict:
    from scipy.stats import spearmanr
    ok = [p for p in pairs if p["status"] == "ok"]
    lat = [p["latency_ms"] for p in ok]
    mem = [p["memory_bytes"] for p in ok]

    def within(xs):
        return round(sum(abs(b - a) <= WITHIN * max(a, b) for a, b in xs) / max(1, len(xs)), 4)

    def rho(xs):  # None where it is not defined (fewer than 3 pairs, or one side constant)
        a, b = zip(*xs) if xs else ((), ())
        return round(float(spearmanr(a, b)[0]), 4) if len(xs) >= 3 and len(set(a)) > 1 and len(set(b)) > 1 else None
    return {"rows": drawn, "measured": len(pairs), "again_ok": len(ok),
            "latency_spearman": rho(lat), "memory_spearman": rho(mem),
            "latency_within_15pct": within(lat), "memory_within_15pct": within(mem),
            "memory_identical": round(sum(a == b for a, b in mem) / max(1, len(mem)), 4),
            "same_output": round(sum(p["same_output"] for p in ok) / max(1, len(ok)), 4),
            "not_ok_again": dict(sorted({s: sum(p["status"] == s for p in pairs) for s in {p["status"] for p in pairs}
                                         if s != "ok"}.items()))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m training.measuring.polyglot_remeasure", description=__doc__.split("\n")[0])
    ap.add_argument("--language", choices=("cpp", "java", "go"), required=True)
    ap.add_argument("--rows", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--from", dest="src", type=Path, default=None)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    from training.measuring import compiled
    from training.measuring.harness import machine_info
    src = a.src or DATA / ("leetcode_%s.jsonl.gz" % a.language)
    drawn = sample(read_rows(src), a.rows, a.seed)
    if not drawn:
        print("no ok rows in %s" % src, file=sys.stderr)
        return 1
    work = compiled.WORK / "polyglot" / ("remeasure-%s.jsonl" % a.language)
    work.parent.mkdir(parents=True, exist_ok=True)
    done = {(p["key"], p["rung"]): p for p in read_rows(work) if p.get("seed") == a.seed}
    code = codes({r["key"] for r in drawn})
    with open(work, "a", encoding="utf-8") as f:
        for i, r in enumerate(drawn):
            if (r["key"], r["rung"]) in done:
                continue
            n = again(r, code[r["key"]]) if r["key"] in code else {"status": "code_missing"}
            p = {"key": r["key"], "rung": r["rung"], "seed": a.seed, "status": n["status"],
                 "latency_ms": [r["latency_ms"], n.get("latency_ms")], "memory_bytes": [r["memory_bytes"], n.get("memory_bytes")],
                 "same_output": n.get("output_digest") == r.get("output_digest"), "error": (n.get("error") or "")[:200] or None}
            done[(r["key"], r["rung"])] = p
            f.write(json.dumps(p) + "\n")
            f.flush()
            print("%d/%d %s %s %s" % (i + 1, len(drawn), p["status"], p["latency_ms"], p["memory_bytes"]), flush=True)
    pairs = [done[(r["key"], r["rung"])] for r in drawn]
    info = machine_info()
    s = dict(summary(pairs, len(drawn)), language=a.language, source=str(src.name), seed=a.seed,
             when=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), first_measured=min(r["measured_at"] for r in drawn),
             machine={k: info[k] for k in ("cpu_model", "cpu_count", "platform")})
    print(json.dumps(s, indent=1))
    whole = json.loads(a.out.read_text()) if a.out.exists() else {}
    whole[a.language] = {"summary": s, "pairs": [{k: p[k] for k in ("key", "rung", "status", "latency_ms", "memory_bytes",
                                                                    "same_output")} for p in pairs]}
    tmp = a.out.with_suffix(".tmp")
    tmp.write_text(json.dumps(dict(sorted(whole.items())), indent=1) + "\n")
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
