"""#63: latency growth for C++, Java and Go from their cost analyzer (poly-time-v1), judged once.

    python experiments/poly_time/judge.py [--out experiments/poly_time/result.json]

The rule: experiments/log/15-2026-12-07-session-40.md, "#63: latency growth for C++, Java and Go".
Per language: every program of `training/data/leetcode_{lang}.growth.jsonl.gz` with a measured
`growth_latency` and its text; candidates the analyzer's time exponent (`analyzer`) and its mean with
the loop nest where the function has a loop (`nest_mix`), chosen by ρ on the training problems; judged
on the validation problems against the loop nest as written (`loop_depth`) and no growth (ρ 0).
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import rlm_lsp  # noqa: E402,F401 - registers the readers
from rlm_lsp.polyglot.counts import NAMES  # noqa: E402
from rlm_lsp.runtime import readers  # noqa: E402
from rlm_lsp.runtime.cost_growth import bucket  # noqa: E402
from training.judging.polyglot_judge import bootstrap, spearman  # noqa: E402
from training.learning import dataset, polyglot_data  # noqa: E402
from training.learning.poly_trees import DATA, LANGUAGES, entries  # noqa: E402


def readings(examples, entry_of) -> dict[str, np.ndarray]:
    a, nest = [], []
    depth = NAMES.index("loop_depth")
    for e in examples:
        text = readers.own_normaliser(e.language)(e.code)
        cost = readers.own_cost(e.language)
        entry = entry_of.get(e.problem_id)
        s = (cost(text, entry) if entry else None) or cost(text, None)
        a.append(max(0.0, s.growth("latency")) if s else 0.0)
        nest.append(float(readers.own_counts(e.language)(text)[depth]))
    a, nest = np.array(a), np.array(nest)
    return {"analyzer": a, "nest_mix": np.where(nest > 0, (a + nest) / 2, a), "loop_depth": nest}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default=str(ROOT / "experiments/poly_time/result.json"))
    p.add_argument("--label", choices=("process", "twin"), default="process",
                   help="process: the program's own 3-rung process growth (look 1); twin: its Python twin's "
                        "measured time exponent (look 2)")
    args = p.parse_args()
    examples = polyglot_data.load_examples([str(ROOT / DATA[lang]) for lang in LANGUAGES])
    entry_of = entries()
    twins = {r["key"]: float(r["time_exponent"])
             for r in map(json.loads, gzip.open(ROOT / "training/data/leetcode_curves.growth.jsonl.gz", "rt"))
             if r.get("time_exponent") is not None}
    result = {}
    for lang in LANGUAGES:
        process = {}
        for r in map(json.loads, gzip.open(ROOT / f"training/data/leetcode_{lang}.growth.jsonl.gz", "rt")):
            if r.get("growth_latency") not in (None, ""):
                process[r["key"]] = float(r["growth_latency"])
        growth = process
        if args.label == "twin":
            growth = {k: twins[k.rsplit(".", 1)[0] + ".py"] for k in process if k.rsplit(".", 1)[0] + ".py" in twins}
        ex = [e for e in examples if e.language == lang and e.key in growth]
        train, val = dataset.split_by_problem(ex)
        tr, va = readings(train, entry_of), readings(val, entry_of)
        y_tr = np.array([growth[e.key] for e in train])
        y_va = np.array([growth[e.key] for e in val])
        on_train = {k: spearman(y_tr, v) for k, v in tr.items() if k != "loop_depth"}
        chosen = max(on_train, key=on_train.get)
        probs = np.array([e.problem_id for e in val])
        boot = bootstrap(probs, y_va, {"candidate": va[chosen], "loop_depth": va["loop_depth"]})
        cand, ld = spearman(y_va, va[chosen]), spearman(y_va, va["loop_depth"])
        sd = float(np.nanstd(boot["candidate"]))
        diff_sd = float(np.nanstd(boot["candidate"] - boot["loop_depth"]))
        ships = bool(cand > ld and cand > 2 * sd)
        result[lang] = {"train_programs": len(train), "val_programs": len(val), "val_problems": len(set(probs)),
                        "train_rho": {k: round(v, 3) for k, v in on_train.items()}, "chosen": chosen,
                        "val_rho": round(cand, 3), "val_sd": round(sd, 3), "loop_depth_rho": round(ld, 3),
                        "loop_depth_sd": round(float(np.nanstd(boot["loop_depth"])), 3),
                        "difference_sd": round(diff_sd, 3), "ships": ships}
        if args.label == "twin":
            both = [e for e in ex if e.key in process]
            result[lang]["process_vs_twin_rho"] = round(spearman(np.array([process[e.key] for e in both]),
                                                                 np.array([growth[e.key] for e in both])), 3)
            yb = np.array([bucket(v) for v in y_va])
            for k in (chosen, "loop_depth"):
                pb = np.array([bucket(v) for v in va[k]])
                recall = [float(np.mean(pb[yb == c] == c)) for c in range(4) if np.any(yb == c)]
                result[lang][f"{k}_class"] = [round(float(np.mean(pb == yb)), 3), round(float(np.mean(recall)), 3)]
        print(lang, json.dumps(result[lang]), flush=True)
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
