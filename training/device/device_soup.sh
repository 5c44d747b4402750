#!/usr/bin/env bash
# One GPU lease, one command: K seeds of the canonical-name recipe (c4's: fine-tune v3 on canon_v1
# inputs with neutral rewrites and the consistency loss), their uniform soup, back in $OUT as float32
# shards (~40 MB, exact) with every seed's training log. DEADLINE (seconds) stops the trainings
# still running, so the soup is always made within a lease; MAX_STEPS sizes each seed's schedule
# (`--max-steps`: the cosine runs over that many steps; 236 = two evaluations; the CPU seeds of
# soup3 / soup5 instead ran the 3-epoch, 354-step schedule and were stopped at 236). Session 27
# shipped the soup of eight (`python-v3c-small-20261204`, experiments/log/10-2026-12-04-sessions-27-30.md "soup8g").
#
#   here, first:  bash training/device/device_soup.sh stage      # fills .gpu/ (git-ignored): corpus rows, v3r
#   GPU machine:  SEEDS="0 1 2 3 4 5 6 7" bash training/device/device_soup.sh   # carry: .gpu/v3r .gpu/solutions.jsonl.gz
#   here, after:  python -m training.learning.shards unpack OUT/soup training/runs/NAME
#                 bash training/judging/judge.sh NAME training/runs/NAME   (export, evaluate, stability, the default beside it;
#                 judged by the rule written before the lease)
#
# .gpu/ holds what the GPU machine cannot reach: solutions.jsonl.gz (the corpus rows the
# measurements name; training.device_sweep's staging) and v3r/ (the init, recovered exactly from
# the pre-fast2 default: `git show d1eb9c3:rlm_lsp/models/default/<file>`, then training.learning.recover).
# CPU check of the plumbing: SEEDS="0 1" MAX_STEPS=4 EVAL_EVERY=2 DEVICE=cpu bash training/device/device_soup.sh
set -u
G=${GPU_DATA:-.gpu}
. training/device/device_common.sh
if [ "${1:-}" = stage ]; then
    bash training/device/device_sweep.sh stage >/dev/null || exit 1
    if [ ! -f "$G/v3r/model.safetensors.xz" ]; then
        src=$(mktemp -d)
        for f in $(git ls-tree --name-only d1eb9c3 rlm_lsp/models/default/); do
            git show "d1eb9c3:$f" > "$src/$(basename "$f")"
        done
        python -m training.learning.recover "$src" "$G/v3r" >/dev/null || exit 1
        rm -rf "$src"
        # 39 MB of fp32 read back from int8 (few distinct values a column): xz takes it to 16 MB,
        # which the 64 MiB a lease carries (the tracked tree included) needs; device_common.sh unpacks
        python -c "
import lzma, shutil, sys
with open(sys.argv[1], 'rb') as raw, lzma.open(sys.argv[1] + '.xz', 'wb', preset=9) as packed:
    shutil.copyfileobj(raw, packed)" "$G/v3r/model.safetensors" || exit 1
    fi
    rm -f "$G/v3r/model.safetensors"  # left by an older CPU check of the plumbing: it would travel too
    carry_size "$G/v3r" "$G/solutions.jsonl.gz"
    exit 0
fi
SEEDS=${SEEDS:-0 1 2 3 4 5}
OUT=${OUT:-/tmp/soup_out}
R=${SOUP_DIR:-/tmp/soup_runs}
mkdir -p "$R" "$OUT"
device_setup  # environment, PY, what the machine has; the init unpacked
check_flags
# c4's recipe (session 20, c4r) (device_common.sh: train_seeds, FINE_TUNE)
train_seeds "$R" "$OUT" --init-from "$INIT" --corpus "$G/solutions.jsonl.gz" "${FINE_TUNE[@]}" --epochs 3
