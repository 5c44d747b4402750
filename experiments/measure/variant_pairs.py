"""#62's gate figure: `rlm gate --measure=all` on measured variant pairs of the LeetCode curves.

    python experiments/measure/variant_pairs.py OUT.jsonl [--per-group 30] [--seed 0]

Validation problems' variant/parent curve pairs (`training.judging.gate_curves`: the variant made
again by `mutations.mutate(parent, kind, seed=0)`, the measured labels from the curves' fitted
classes), a sample of `--per-group` pairs whose measured time or memory class rose and as many
neutral ones (renames and swaps). Each pair: a throwaway git repository holding the parent as
`solution.py` (LeetCode's own imports in front: `from typing import *`, collections, heapq, ...),
committed; the variant staged; then the shipped CLI, `rlm gate --measure=all --format json`. A row
per pair (resumable): key, mutation, labels, exit code, the gate's findings and what decided them.
No code is written to OUT.
"""
from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from training.judging.gate_curves import PAIRS, PARENT_GROWTH, VARIANT_GROWTH, curve_pairs, labels, read_rows  # noqa: E402
from training.judging.gate_variants import is_validation, parent_codes  # noqa: E402
from training.measuring.mutations import mutate  # noqa: E402

RLM = str(ROOT / ".venv" / "bin" / "rlm")
PRELUDE = ("from typing import *\nimport collections, heapq, bisect, math, itertools, functools, string, re\n"
           "from collections import *\nfrom heapq import *\nfrom bisect import *\nfrom functools import *\n"
           "from itertools import *\nfrom math import *\n\n\n")


def gate(old: str, new: str) -> dict:
    with tempfile.TemporaryDirectory() as d:
        git = ["git", "-C", d, "-c", "user.email=a@b", "-c", "user.name=a"]
        subprocess.run(["git", "init", "-q", d], check=True)
        Path(d, "solution.py").write_text(PRELUDE + old)
        subprocess.run(git + ["add", "solution.py"], check=True)
        subprocess.run(git + ["commit", "-qm", "base"], check=True)
        Path(d, "solution.py").write_text(PRELUDE + new)
        subprocess.run(git + ["add", "solution.py"], check=True)
        try:
            out = subprocess.run([RLM, "gate", "--measure=all", "--format", "json"], cwd=d, capture_output=True,
                                 text=True, timeout=300)
        except subprocess.TimeoutExpired:
            return {"exit": None, "error": "timed out (300 s)"}
        try:
            report = json.loads(out.stdout)
        except ValueError:
            return {"exit": out.returncode, "error": (out.stderr or out.stdout).strip()[-300:]}
        return {"exit": out.returncode, "report": report}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--per-group", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    pairs = [p for p in curve_pairs(read_rows(PAIRS)) if is_validation(p)]
    vg = {g["key"]: g for g in read_rows(VARIANT_GROWTH)}
    pg = {g["key"]: g for g in read_rows(PARENT_GROWTH)}
    codes = parent_codes(pairs)
    rose, neutral = [], []
    for p in pairs:
        lab = labels(p, vg, pg)
        if p["parent"] not in codes:
            continue
        if lab["neutral"]:
            neutral.append((p, lab))
        elif any(lab["rose"].values()):
            rose.append((p, lab))
    rnd = random.Random(a.seed)
    chosen = rnd.sample(rose, min(a.per_group, len(rose))) + rnd.sample(neutral, min(a.per_group, len(neutral)))
    done = {json.loads(x)["key"] for x in open(a.out)} if Path(a.out).exists() else set()
    with open(a.out, "a") as fh:
        for k, (p, lab) in enumerate(chosen, 1):
            if p["key"] in done:
                continue
            parent = codes[p["parent"]]
            variant = mutate(parent, p["mutation"], seed=0)
            if variant is None or variant.code == parent:
                continue
            got = gate(parent, variant.code)
            row = {"key": p["key"], "mutation": p["mutation"], "rose": lab["rose"], "neutral": lab["neutral"], **got}
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(f"[{k}/{len(chosen)}] {p['mutation']:13s} rose={lab['rose']} exit={got.get('exit')} "
                  f"{got.get('error', '')[:100]}", flush=True)


if __name__ == "__main__":
    main()
