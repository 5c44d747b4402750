"""mem-v6's development figures: the shipped growth of every kept row of the seven spent sets.

    python experiments/mem6/dev.py                       # in-process (the model's CostGrowth)
    python experiments/mem6/dev.py --check PRED.jsonl    # and compare with `rlm predict --jsonl` rows
    python experiments/mem6/dev.py --json OUT.json       # the figures and each row's growth

Rows: /work/rebuilt/{gd,fresh1..fresh6}.jsonl, kept by experiments/fresh/judge.py's `kept()`. Each
row's growth is what `rlm predict --jsonl` gives for {"code", "entry": function}: the analyzer's
summary folded by the default model's `CostGrowth` (memory: blended with the cost trees; latency:
the time classes). That fold reads no neural state, so it is computed here without the decoder;
`--check` compares it with a file `rlm predict --jsonl` wrote for the same rows (ids `set|id`).
Figures per set and pooled: memory 4-bucket accuracy, balanced accuracy, Spearman rho of exponents,
and time accuracy (growth-dev's score.py `figures`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, "/work/shared/growth-dev/tools")

import score  # noqa: E402

from experiments.fresh.judge import kept  # noqa: E402
from rlm_lsp.runtime import cost_growth, readers  # noqa: E402
from rlm_lsp.runtime.model_dir import ModelConfig  # noqa: E402

SETS = ("gd", "fresh1", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6")
REBUILT = Path("/work/rebuilt")
MODEL = ROOT / "rlm_lsp" / "models" / "default"


def rows() -> list[dict]:
    """Every kept row of the seven sets, with its set name in `set` and id `set|id`."""
    out = []
    for s in SETS:
        for r in map(json.loads, filter(str.strip, open(REBUILT / f"{s}.jsonl"))):
            if kept(r)[0]:
                out.append({**r, "set": s, "key": f"{s}|{r['id']}"})
    return out


def growths(rs: list[dict]) -> dict[str, dict[str, float | None]]:
    """key -> {"memory", "latency"}: the shipped growth, read in-process."""
    grower = cost_growth.of_config(ModelConfig.load(MODEL, verify_hashes=False))
    read = readers.reader().cost
    out = {}
    for r in rs:
        s = read(r["code"], r["function"])
        if s is None:
            out[r["key"]] = {"memory": None, "latency": None}
            continue
        out[r["key"]] = {m: max(0.0, grower.exponent(s, m, r["code"])) for m in ("memory", "latency")}
    return out


def figures(rs: list[dict], got: dict) -> dict:
    """set (and "pooled") -> memory accuracy, balanced, rho; time accuracy."""
    out = {}
    for name in (*SETS, "pooled"):
        sub = [r for r in rs if name in ("pooled", r["set"])]
        mem = score.figures([r["memory_exponent"] for r in sub], [got[r["key"]]["memory"] for r in sub])
        tim = score.figures([r["time_exponent"] for r in sub], [got[r["key"]]["latency"] for r in sub])
        out[name] = {"rows": len(sub), "mem_acc": mem["accuracy"], "mem_bal": mem["balanced"], "mem_rho": mem["rho"],
                     "time_acc": tim["accuracy"], "mem_confusion": mem["confusion"]}
    return out


def table(figs: dict) -> str:
    lines = ["| set | rows | memory acc | balanced | rho | time acc |", "|---|---|---|---|---|---|"]
    for name, f in figs.items():
        lines.append(f"| {name} | {f['rows']} | {100 * f['mem_acc']:.1f}% | {100 * f['mem_bal']:.1f}% | "
                     f"{f['mem_rho']:.3f} | {100 * f['time_acc']:.1f}% |")
    return "\n".join(lines)


def check(got: dict, path: str) -> int:
    """How many rows' growth differs from `rlm predict --jsonl`'s (written for ids `set|id`)."""
    bad = 0
    for p in map(json.loads, filter(str.strip, open(path))):
        mine = got.get(p["id"])
        if mine is None:
            continue
        for m in ("memory", "latency"):
            theirs = (p.get(m) or {}).get("growth")
            if (theirs is None) != (mine[m] is None) or theirs is not None and abs(theirs - mine[m]) > 1e-9:
                bad += 1
                print("differs:", p["id"], m, theirs, mine[m])
    return bad


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", help="rows `rlm predict --jsonl` wrote for the same rows (ids set|id)")
    ap.add_argument("--json", help="write the figures and each row's growth here")
    a = ap.parse_args()
    rs = rows()
    got = growths(rs)
    figs = figures(rs, got)
    print(table(figs))
    c = figs["pooled"]["mem_confusion"]
    print("pooled memory confusion (rows measured, columns predicted):", c)
    if a.check:
        print("rows differing from rlm predict:", check(got, a.check))
    if a.json:
        Path(a.json).write_text(json.dumps({"figures": figs, "growth": got}, indent=1) + "\n")


if __name__ == "__main__":
    main()
