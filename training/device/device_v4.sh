#!/usr/bin/env bash
# One GPU lease, one command: K seeds of a model v4 recipe (issue 25: functions and scripts, growth)
# on data v2, side by side, and their uniform soup, back in $OUT with every seed's training log.
#
#   here, first:  bash training/device/device_v4.sh stage        # fills .gpu/ (git-ignored): corpus subset, v3r
#   GPU machine:  SEEDS="0 1 2 3" bash training/device/device_v4.sh   # carry: .gpu/v3r .gpu/corpora; results in $OUT
#   here, after:  python -m training.learning.shards unpack OUT/soup training/runs/NAME
#                 METRICS=memory,latency,memory_growth bash training/judging/judge.sh NAME training/runs/NAME
#                 (judged by the rule written before the lease)
#
# .gpu/ holds what the GPU machine cannot reach (../shared does not travel): device_soup.sh's staging
# (the LeetCode rows the measurements name, the v3r init) and corpora/, the program files of Kattis,
# Project Euler and Rosetta cut to the programs data v2 measured (training/data/*_v2.jsonl.gz name
# them), read through RLM_CORPUS. The packed measurements themselves are tracked files and travel.
# ARGS replaces the recipe (default: session 19's v4h arguments, from v3r instead of the lost c4).
# CPU check of the plumbing: SEEDS="0 1" MAX_STEPS=4 EVAL_EVERY=2 DEVICE=cpu bash training/device/device_v4.sh
set -u
G=${GPU_DATA:-.gpu}
. training/device/device_common.sh
if [ "${1:-}" = stage ]; then
    bash training/device/device_soup.sh stage >/dev/null || exit 1
    python - "$G/corpora" <<'PYEOF'
import gzip, json, sys
from pathlib import Path
from training.judging import shaped_examples as v4_data
from training.measuring.sources import REPL_SUFFIX
out = Path(sys.argv[1])
for source, (folder, name, *more) in v4_data.PROGRAM_FILES.items():
    with gzip.open(v4_data.DATA / f"{source}_v2.jsonl.gz", "rt") as f:
        keys = {json.loads(line)["key"].removesuffix(REPL_SUFFIX) for line in f if line.strip()}
    for sub in (folder, *more):
        src, dst = v4_data.CORPORA / sub / name, out / sub / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        kept = 0
        with gzip.open(src, "rt", encoding="utf-8") as f, gzip.open(dst, "wt", encoding="utf-8") as g:
            for line in f:
                row = json.loads(line)
                if "%s:%s" % (row["source"], row["path"]) in keys:
                    g.write(line)
                    kept += 1
        print(f"{dst}: {kept} programs")
PYEOF
    mkdir -p "$G/corpora/leetcode" && cp "$G/solutions.jsonl.gz" "$G/corpora/leetcode/solutions.jsonl.gz"
    carry_size "$G/v3r" "$G/corpora"
    exit 0
fi
SEEDS=${SEEDS:-0 1 2 3}
OUT=${OUT:-/tmp/v4_out}
R=${V4_DIR:-/tmp/v4_runs}
mkdir -p "$R" "$OUT"
device_setup  # environment, PY, what the machine has; the init unpacked
export RLM_CORPUS=$G/corpora
read -r -a recipe <<< "${ARGS:---init-from $INIT --v4-data --variants --template shaped --metrics memory,latency,memory_growth --driver-prob 0 --preprocess canon_v1 --neutral 0.8 --consistency 1.0 --epochs 2 --lr 1e-4}"
check_flags
train_seeds "$R" "$OUT" --corpus "$G/corpora/leetcode/solutions.jsonl.gz" "${recipe[@]}"  # device_common.sh
