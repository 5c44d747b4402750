"""Every observable of cost_front.read's Summary, one JSON line per function (bench/cost.py's sets + rows)."""
import json
import sys
from pathlib import Path

ROOT = Path("/work/main")
sys.path.insert(0, str(ROOT))
from rlm_lsp.python.cost_front import read  # noqa: E402


def items():
    for r in map(json.loads, open("/work/gd/out.jsonl")):
        yield "gd", r["code"], r["function"]
    from training.measuring import build_dataset as bd
    for c in [p.code for P in bd.problems().values() for p in P.programs][:400]:
        yield "lc", c, None
    for f in ("/work/fresh/rows_all.jsonl", "/work/fresh2/rows_all.jsonl", "/work/fresh3/rows_all.jsonl",
              "/work/fresh4/rows_all.jsonl"):
        for r in map(json.loads, open(f)):
            if r.get("code"):
                yield f.split("/")[2], r["code"], r.get("function")


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
