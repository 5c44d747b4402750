"""#63: C++/Java/Go values along n, the shipped default against a candidate directory (poly-own-n).

    python experiments/poly_time/along_n.py CANDIDATE_DIR [--out FILE]

"ships" is poly-own-n's rule (the mean over both metrics above 0); poly-mem-floor's (session 43) asked
memory alone not to fall by more than 1 SD. "changed": the rows whose value the candidate moved.

The rule: experiments/log/15-2026-12-07-session-40.md, "C++/Java/Go values read at their own n". Every
ok (program, rung) row of `training/data/leetcode_{cpp,java,go}.jsonl.gz` of a validation problem,
predicted at its measured `input_size` through `rlm predict --jsonl` (the shipped path).
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from training.judging.polyglot_judge import bootstrap, spearman  # noqa: E402
from training.learning import dataset, polyglot_data  # noqa: E402
from training.learning.poly_trees import DATA, LANGUAGES, entries  # noqa: E402

RLM = str(ROOT / ".venv" / "bin" / "rlm")
METRICS = {"latency": "latency_ms", "memory": "memory_bytes"}


def predict(lines: list[dict], model: str) -> dict:
    out = subprocess.run([RLM, "predict", "--jsonl", "-", "--model", model], input="".join(json.dumps(x) + "\n" for x in lines),
                         capture_output=True, text=True, check=True)
    return {p["id"]: {m: (p.get(m) or {}).get("value") for m in METRICS} for p in map(json.loads, filter(str.strip, out.stdout.splitlines()))}


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("candidate")
    ap.add_argument("--shipped", default=str(ROOT / "rlm_lsp" / "models" / "default"))
    ap.add_argument("--out", default=str(ROOT / "experiments/poly_time/along_n.json"))
    a = ap.parse_args()
    examples = {e.key: e for e in polyglot_data.load_examples([str(ROOT / DATA[lang]) for lang in LANGUAGES])}
    entry_of = entries()
    result = {}
    for lang in LANGUAGES:
        rows = defaultdict(list)
        for r in map(json.loads, gzip.open(ROOT / DATA[lang], "rt")):
            e = examples.get(r["key"])
            if r.get("status") == "ok" and e is not None and dataset.is_validation(e.problem_id) and r.get("input_size"):
                rows[r["key"]].append(r)
        lines, meta = [], []
        for key, rs in sorted(rows.items()):
            e = examples[key]
            for r in rs:
                rid = f"{key}@{r['rung']}"
                lines.append({"id": rid, "code": e.code, "language": lang, "n": max(1, int(float(r["input_size"]))),
                              "entry": entry_of.get(e.problem_id, "")})
                meta.append((rid, e.problem_id, r))
        got = {name: predict(lines, model) for name, model in (("shipped", a.shipped), ("candidate", a.candidate))}
        out = {"rows": len(meta), "programs": len(rows)}
        for metric, field in METRICS.items():
            keep = [(rid, pid, float(r[field])) for rid, pid, r in meta
                    if r.get(field) not in (None, "None") and got["shipped"].get(rid, {}).get(metric) is not None
                    and got["candidate"].get(rid, {}).get(metric) is not None]
            y = np.array([v for _, _, v in keep])
            probs = np.array([pid for _, pid, _ in keep])
            preds = {k: np.array([got[k][rid][metric] for rid, _, _ in keep]) for k in got}
            boot = bootstrap(probs, y, preds)
            top = [i for i, (rid, _, _) in enumerate(keep) if rid.endswith("@1")]
            out[metric] = {"changed": int(np.sum(~np.isclose(preds["shipped"], preds["candidate"]))),
                           "shipped": round(spearman(y, preds["shipped"]), 3),
                           "candidate": round(spearman(y, preds["candidate"]), 3),
                           "paired_sd": round(float(np.nanstd(boot["candidate"] - boot["shipped"])), 3),
                           "largest_rung": {k: round(spearman(y[top], preds[k][top]), 3) for k in preds}}
        d = [out[m]["candidate"] - out[m]["shipped"] for m in METRICS]
        out["ships"] = bool(np.mean(d) > 0 and all(out[m]["candidate"] - out[m]["shipped"] >= -out[m]["paired_sd"] for m in METRICS))
        result[lang] = out
        print(lang, json.dumps(out), flush=True)
    Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
