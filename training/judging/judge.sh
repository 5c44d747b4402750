#!/usr/bin/env bash
# The figures a candidate default is judged by, the shipped default beside it on the same rows:
#
#   bash training/judging/judge.sh NAME CHECKPOINT [CHECKPOINT ...]
#
# One checkpoint is exported as it is; several are averaged first (`training.learning.soup`). Then:
# `rlm-export` (fast int8, `log_mean_rb`, METRICS, GROWTH_T when growth is among them),
# `training.judging.evaluate --v4-data` for the candidate and the default (its `function` shape is the 774
# leetcode_v1 validation rows; `script` and `stdin` are data v2's), and `bench/stability.py --programs 300`.
# Writes training/work/judge/NAME/ (export, JSON, logs) and prints one table. Two cores, two jobs
# at a time. It judges nothing: the rule is written in the newest file of experiments/log/ before this runs.
set -eu
[ $# -ge 2 ] || { echo "usage: bash training/judging/judge.sh NAME CHECKPOINT [CHECKPOINT ...]" >&2; exit 2; }
NAME=$1; shift
METRICS=${METRICS:-memory,latency}
PY=${PYTHON:-.venv/bin/python}
W=training/work/judge/$NAME
mkdir -p "$W"
CKPT=$1
if [ $# -gt 1 ]; then
    CKPT=$W/soup
    "$PY" -m training.learning.soup "$CKPT" "$@" > "$W/soup.log" 2>&1
fi
growth=()
case ",$METRICS," in *_growth,*) growth=(--growth-temperature "${GROWTH_T:-0.6}") ;; esac
"$PY" -m rlm_lsp.export "$CKPT" "$W/fast" --metrics "$METRICS" --point-estimate log_mean_rb "${growth[@]}" > "$W/export.log" 2>&1
run() { local core=$1 log=$2; shift 2; taskset -c "$core" "$PY" "$@" > "$W/$log.log" 2>&1; }
run 0 shapes -m training.judging.evaluate "$W/fast" --v4-data --threads 1 --json "$W/shapes.json" &
run 1 default_shapes -m training.judging.evaluate rlm_lsp/models/default --v4-data --threads 1 --json "$W/default_shapes.json" &
wait
run 0 stability bench/stability.py --model "$W/fast" --programs 300 --threads 1 --no-write
"$PY" - "$W" <<'PYEOF'
import json, sys
from pathlib import Path
w = Path(sys.argv[1])
report = json.loads((w / "fast" / "export_report.json").read_text())
fidelity = report.get("fidelity", {})
print(f"{w.name}: {report.get('size_bytes', 0) / 1e6:.1f} MB, export within budget: {fidelity.get('within_budget')}")
def row(label, runtime):
    cells = [f"{runtime[m]['spearman']:.4f} (n={runtime[m]['n']})" if runtime.get(m, {}).get("n") else "-"
             for m in ("memory", "latency")]
    print(f"| {label} | " + " | ".join(cells) + " |")
print("| rows | memory Spearman | latency Spearman |\n|---|---|---|")
for who, name in (("candidate", "shapes.json"), ("default", "default_shapes.json")):
    for shape, figures in json.loads((w / name).read_text()).get("by_shape", {}).items():
        row(f"{shape} ({who})", figures["runtime"])
growth = [(who, shape, figures["runtime"][m], m)
          for who, name in (("candidate", "shapes.json"), ("default", "default_shapes.json"))
          for shape, figures in json.loads((w / name).read_text()).get("by_shape", {}).items()
          for m in figures["runtime"] if m.endswith("_growth") and figures["runtime"][m].get("n")]
if growth:
    print("\n| rows | growth | Spearman | class accuracy |\n|---|---|---|---|")
    for who, shape, r, m in growth:
        print(f"| {shape} ({who}) | {m} | {r['spearman']:.4f} (n={r['n']}) | {r.get('class_accuracy', 0):.0%} |")
PYEOF
grep '^|' "$W/stability.log"
