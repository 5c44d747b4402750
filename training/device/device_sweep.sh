#!/usr/bin/env bash
# One GPU lease, one command: train several Python RLM configurations side by side (plus a larger
# NAS model) for $MINUTES each, then put the best checkpoints, as <=15 MiB float16 shards, in $OUT.
#
#   here, first:  bash training/device/device_sweep.sh stage     # fills .gpu/ (git-ignored) from ../shared
#   GPU machine:  bash training/device/device_sweep.sh           # with .gpu carried; results in $OUT
#   here, after:  python -m training.learning.shards unpack OUT/py1 training/runs/gpu-py1
#
# .gpu/ holds what the GPU machine cannot reach: solutions.jsonl.gz (only the corpus rows the
# measurements name, 1.8 MB), tokenizer.json (the shipped model's) and nas/ (HELP's NAS-Bench-201
# table). The GPU image's transformers 5 trains the same T5 (see rlm_model.build_model).
set -u
if [ "${1:-}" = stage ]; then
    G=${GPU_DATA:-.gpu}
    mkdir -p "$G/nas"
    # .gpu/ is in .gitignore (a worktree has no .git/info/ of its own to write to)
    python - "$G" <<'PYEOF'
import gzip, json, sys
from training.learning import dataset
keys = {row.get("key") for row in dataset.read_jsonl(dataset.expand(dataset.DEFAULT_DATA))}
with gzip.open(dataset.DEFAULT_CORPUS, "rt") as f, gzip.open(f"{sys.argv[1]}/solutions.jsonl.gz", "wt") as g:
    g.writelines(line for line in f if json.loads(line).get("language") == "python"
                 and "{source}:{path}".format(**json.loads(line)) in keys)
PYEOF
    cp rlm_lsp/models/default/tokenizer.json "$G/"
    cp "$(python -c 'from training.nas import data; print(data.CORPUS)')"/{nasbench201_latency.csv.gz,help_meta.json} "$G/nas/"
    du -sh "$G"
    exit 0
fi
MINUTES=${MINUTES:-6}
OUT=${OUT:-/tmp/sweep_out}
G=${GPU_DATA:-.gpu}
R=${SWEEP_DIR:-/tmp/sweep}
mkdir -p "$R" "$OUT"
. training/device/device_common.sh && device_setup  # environment, PY, and what the machine has

common=(--corpus "$G/solutions.jsonl.gz" --tokenizer "$G/tokenizer.json" --max-minutes "$MINUTES"
        --epochs 1000 --eval-every "${EVAL_EVERY:-200}" --patience 1000 --no-progress)
run() { local name=$1; shift; "$PY" -m training.learning.train --out "$R/$name" "${common[@]}" "$@" >"$R/$name.log" 2>&1 & }
run A --batch-size 64 --lr 1e-3
run B --batch-size 128 --lr 2e-3
run C --batch-size 64 --lr 1e-3 --dropout 0.2
run D --batch-size 64 --lr 1e-3 --size small6
run E --batch-size 64 --lr 1e-3 --max-input-tokens 512
NAS_MIN=$(awk "BEGIN{print $MINUTES - 1}")
RLM_NAS_CORPUS="$G/nas" "$PY" -m training.nas.train --out "$R/nas" --torch-device "${NAS_DEVICE:-cuda}" --eval-archs "${NAS_EVAL_ARCHS:-600}" \
    --max-minutes "$NAS_MIN" --d-model 256 --d-ff 1024 --layers 4 --batch-size 256 --lr 1e-3 \
    --eval-every-min 1 >"$R/nas.log" 2>&1 &
wait

"$PY" - "$R" "$OUT" <<'PYEOF'
import json, sys
from pathlib import Path
from training.learning.shards import pack
runs, out = Path(sys.argv[1]), Path(sys.argv[2])
best = {}
for log in sorted(runs.glob("*/train_log.jsonl")):
    rows = [json.loads(l) for l in log.read_text().splitlines() if l.strip()]
    top = max(rows, key=lambda r: r["spearman_mean"])
    best[log.parent.name] = top
    print(f"{log.parent.name}: {len(rows)} evals, last step {rows[-1]['step']}, best step {top['step']} "
          f"mean {top['spearman_mean']:.3f} " + " ".join(f"{m} {s['spearman']:.3f}" for m, s in top["scores"].items()))
order = sorted(best, key=lambda n: -best[n]["spearman_mean"])
# What goes back, in priority order: the best Python run, the NAS run, the second Python run;
# each only if its float16 shards (half its float32 weights) still fit the 64 MiB return limit.
wanted = [("py1", runs / order[0])] + [("nas", runs / "nas")] + [("py2", runs / n) for n in order[1:2]]
budget, used = 60 * 2**20, 0
for label, run in wanted:
    weights = run / "best" / "model.safetensors"
    if not weights.exists() or used + weights.stat().st_size // 2 > budget:
        print(f"skip {label} ({run.name}): {'no checkpoint' if not weights.exists() else 'no room'}")
        continue
    used += sum(p.stat().st_size for p in pack(run / "best", out / label))
    (out / f"{label}.json").rename(runs / f"{label}.json")  # side file travels in logs.tgz
    print(f"{label} = {run.name}")
print(f"returned {used / 2**20:.1f} MiB of shards")
PYEOF
tar czf "$OUT/logs.tgz" -C "$R" $(cd "$R" && ls *.log *.json */train_log.jsonl nas/history.json nas/eval.json 2>/dev/null)
ls -la "$OUT"
