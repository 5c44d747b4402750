"""time-v11's development figures: the shipped time growth (and memory, which must not fall) of every
kept row of the eight spent sets, and the cost analyzer's own time exponent beside it.

    python experiments/time11/dev.py                  # the table
    python experiments/time11/dev.py --json OUT.json  # and each row's growth
    python experiments/time11/dev.py --diff A.json B.json   # rows whose time bucket differs

Rows: /work/rebuilt/{gd,fresh1..fresh7}.jsonl, kept by experiments/fresh/judge.py's `kept()` (as
experiments/mem6/dev.py reads them, plus fresh7). Each row's growth is the default model's `CostGrowth` fold of
the analyzer's summary (latency: the time classes; memory: blended with the cost trees), read
in-process. Figures per set and pooled: time 4-bucket accuracy, balanced accuracy, Spearman rho,
the analyzer alone's time accuracy, and memory accuracy. The time trees were fitted on gd and
fresh1-5: fresh6 and fresh7 are out of sample (also shown pooled as "oos").
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

MODEL = ROOT / "rlm_lsp" / "models" / "default"
SETS = ("gd", "fresh1", "fresh2", "fresh3", "fresh4", "fresh5", "fresh6", "fresh7")
OUT_OF_SAMPLE = ("fresh6", "fresh7")
REBUILT = Path("/work/rebuilt")


def rows() -> list[dict]:
    """Every kept row of the eight sets, with its set name in `set` and id `set|id`."""
    out = []
    for s in SETS:
        for r in map(json.loads, filter(str.strip, open(REBUILT / f"{s}.jsonl"))):
            if kept(r)[0]:
                out.append({**r, "set": s, "key": f"{s}|{r['id']}"})
    return out


def member(name: str, row: dict) -> bool:
    """Whether `row` counts toward the figures of `name` (a set, "oos" or "pooled")."""
    return name == "pooled" or (name == "oos" and row["set"] in OUT_OF_SAMPLE) or name == row["set"]


def growths(rs: list[dict]) -> dict[str, dict]:
    """key -> {"memory", "latency", "analyzer", "text"}: the shipped growths and the analyzer's own."""
    grower = cost_growth.of_config(ModelConfig.load(MODEL, verify_hashes=False))
    read = readers.reader().cost
    out: dict[str, dict] = {}
    for r in rs:
        s = read(r["code"], r["function"])
        if s is None:
            out[r["key"]] = {"memory": None, "latency": None, "analyzer": None, "text": ""}
            continue
        out[r["key"]] = {m: max(0.0, grower.exponent(s, m, r["code"])) for m in ("memory", "latency")}
        out[r["key"]]["analyzer"] = max(0.0, s.growth("latency"))
        out[r["key"]]["text"] = s.text("latency")
    return out


def figures(rs: list[dict], got: dict) -> dict:
    """set (and "pooled") -> time accuracy, balanced, rho; the analyzer's time accuracy; memory accuracy."""
    out = {}
    for name in (*SETS, "oos", "pooled"):
        sub = [r for r in rs if member(name, r)]
        y = [r["time_exponent"] for r in sub]
        tim = score.figures(y, [got[r["key"]]["latency"] for r in sub])
        ana = score.figures(y, [got[r["key"]]["analyzer"] for r in sub])
        mem = score.figures([r["memory_exponent"] for r in sub], [got[r["key"]]["memory"] for r in sub])
        out[name] = {"rows": len(sub), "time_acc": tim["accuracy"], "time_bal": tim["balanced"],
                     "time_rho": tim["rho"], "analyzer_acc": ana["accuracy"], "mem_acc": mem["accuracy"],
                     "time_confusion": tim["confusion"]}
    return out


def table(figs: dict) -> str:
    lines = ["| set | rows | time acc | balanced | rho | analyzer acc | memory acc |",
             "|---|---|---|---|---|---|---|"]
    for name, f in figs.items():
        lines.append(f"| {name} | {f['rows']} | {100 * f['time_acc']:.1f}% | {100 * f['time_bal']:.1f}% | "
                     f"{f['time_rho']:.3f} | {100 * f['analyzer_acc']:.1f}% | {100 * f['mem_acc']:.1f}% |")
    return "\n".join(lines)


def diff(a_path: str, b_path: str) -> None:
    """Rows whose shipped or analyzer time bucket differs between two --json files, with the measured."""
    a, b = (json.loads(Path(p).read_text())["growth"] for p in (a_path, b_path))
    measured = {r["key"]: r["time_exponent"] for r in rows()}
    for k in sorted(a):
        x, y = a[k], b.get(k, {})
        for f in ("latency", "analyzer"):
            if x.get(f) is None or y.get(f) is None:
                continue
            if score.bucket(x[f]) != score.bucket(y[f]):
                m = measured.get(k)
                mark = "" if m is None else "+" if score.bucket(y[f]) == score.bucket(m) else \
                    "-" if score.bucket(x[f]) == score.bucket(m) else " "
                print(f"{mark} {f:8} {k}: {x[f]:.2f} -> {y[f]:.2f} (measured {m:.2f}) "
                      f"{x.get('text')} -> {y.get('text')}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", help="write the figures and each row's growth here")
    ap.add_argument("--diff", nargs=2, help="two --json files: rows whose time bucket differs")
    a = ap.parse_args()
    if a.diff:
        diff(*a.diff)
        return
    rs = rows()
    got = growths(rs)
    figs = figures(rs, got)
    print(table(figs))
    print("pooled time confusion (rows measured, columns predicted):", figs["pooled"]["time_confusion"])
    if a.json:
        Path(a.json).write_text(json.dumps({"figures": figs, "growth": got}, indent=1) + "\n")


if __name__ == "__main__":
    main()
