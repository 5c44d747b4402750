"""Every observable of cost_front.read's Summary, one JSON line per function (the rebuilt real-function
sets and 400 LeetCode programs).

    python experiments/cost/dump_summaries.py OUT [CHECKOUT] [REBUILT_DIR]

CHECKOUT: the project checkout whose analyzer reads (default /work/main; a `git worktree` of an
older commit compares two analyzers); REBUILT_DIR: the sets' rows with code (`rows.py build`),
gd.jsonl and fresh1-4.jsonl (default /work/rebuilt)."""
import json
import sys
from pathlib import Path

ROOT = Path(sys.argv[2] if len(sys.argv) > 2 else "/work/main")
REBUILT = Path(sys.argv[3] if len(sys.argv) > 3 else "/work/rebuilt")
sys.path.insert(0, str(ROOT))
from rlm_lsp.python.cost_front import read  # noqa: E402


def items():
    for r in map(json.loads, open(REBUILT / "gd.jsonl")):
        yield "gd", r["code"], r["function"]
    from training.measuring import build_dataset as bd
    for c in [p.code for P in bd.problems().values() for p in P.programs][:400]:
        yield "lc", c, None
    for k in range(1, 5):
        for r in map(json.loads, open(REBUILT / f"fresh{k}.jsonl")):
            if r.get("code"):
                yield f"fresh{k}", r["code"], r.get("function")


def obs(s):
    if s is None:
        return None
    M = ("latency", "memory")
    return {"text": [s.text(m) for m in M], "growth": [s.growth(m) for m in M], "features": s.features(),
            "lines": [list(s.lines(m)) for m in M], "unknown": list(s.unknown), "recursion": s.recursion,
            "nest": s.nest, "legend": [list(x) for x in s.legend()], "sure": s.sure,
            "time": repr(s.time), "memory": repr(s.memory), "symbols": repr(s.symbols),
            "scaled": sorted(s.scaled)}


out = open(sys.argv[1], "w")
for src, code, entry in items():
    out.write(json.dumps({"src": src, "entry": entry, "s": obs(read(code, entry))}, ensure_ascii=False) + "\n")
