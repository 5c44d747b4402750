#!/usr/bin/env bash
# One GPU lease, one command: K seeds of the anchor + growth recipe (issue 48, item 1: the RLM never
# reads n; it writes each program's anchor, its value at n0 = 10^4 on its growth line, and its
# asymptotic growth, and the runtime moves the value from n0 along that growth, `growth.at`; the
# curves recipe, which reads n as text, barely learned n: experiments/log/12-2026-12-06-sessions-34-on.md,
# "Result of curves-cpu"), their uniform soup, back in $OUT as float32 shards (~40 MB, exact) with
# every seed's log. The rows: one per program of the measured curves (`training.learning.curve_rows.
# load_anchor_examples`), read through the shaped template (no {n}; `--template shaped`, as model v4's),
# fine-tuned from the shipped default; the saved config says reference_n = n0 (REFERENCE_N, default
# 10000: the n the anchors are at and the model's numbers are for). Each seed's cosine runs over the
# fewest of EPOCHS (default 8: the shipped recipe's, on a like number of programs; longer overfit),
# MAX_STEPS (default 2000) and the steps that fit MINUTES (default 6; `--max-minutes`); DEADLINE
# (default 480 s from the seeds' start) stops any still running, so the soup is made within one
# 10-minute command. EVAL_EVERY (default 100: an epoch is ~95 steps of 64 programs), EVAL_MAX
# (default 500): validation rows an evaluation reads (fewer for a CPU check).
#
#   here, first:  bash training/device/device_anchor.sh stage    # fills .gpu/ (git-ignored), prints the carry
#                 (`python` the venv's)
#   GPU machine:  SEEDS="0 1 2 3" bash training/device/device_anchor.sh     (run's timeout_s 590)
#                 carry: .gpu/anchor_init .gpu/solutions.jsonl.gz
#   here, after:  python -m training.learning.shards unpack OUT/soup training/runs/NAME
#                 python -m rlm_lsp.export training/runs/NAME training/work/NAME/fast \
#                     --metrics memory,latency,memory_growth,latency_growth --point-estimate log_mean_rb \
#                     --growth-temperature 0.6
#                 python -m training.judging.growth_eval training/work/NAME/fast --json training/work/NAME/growth.json
#                 (issue 48's table beside the counts baseline; growth, value at each row's n moved from
#                 n0 along the predicted growth, scripts; judged by the rule written in experiments/log/
#                 before the lease, never after)
#
# .gpu/ holds what the GPU machine cannot reach (it has no ../shared/corpora):
# - solutions.jsonl.gz: the corpus rows the training data name, the curves' among them
#   (device_sweep.sh's staging);
# - anchor_init/: the current default, recovered (`stage_default_init`, device_common.sh), weights xz-packed.
# The rows are the tracked training/data/leetcode_curves.jsonl.gz: stage again after it grows (a
# program the staged corpus lacks is left out of the rows, as the join leaves it out here).
# CPU check of the plumbing, as the GPU machine sees it (a copy of the working tree and .gpu/, with no
# ../shared beside it, so dataset.DEFAULT_CORPUS names nothing):
#   d=$(mktemp -d)/repo && mkdir "$d" && git ls-files -z | xargs -0 cp --parents -t "$d" && cp -r .gpu "$d" &&
#   cd "$d" && PYTHON=/work/main/.venv/bin/python SEEDS="0" MAX_STEPS=4 EVAL_EVERY=2 EVAL_MAX=32 DEVICE=cpu \
#       bash training/device/device_anchor.sh
set -u
G=${GPU_DATA:-.gpu}
INIT_NAME=anchor_init
CURVES=training/data/leetcode_curves.jsonl.gz
. training/device/device_common.sh
if [ "${1:-}" = stage ]; then
    bash training/device/device_sweep.sh stage >/dev/null || exit 1
    stage_default_init "$INIT_NAME" || exit 1
    python -m training.learning.curve_rows --anchor --corpus "$G/solutions.jsonl.gz" || exit 1  # the rows the staged corpus gives
    carry_size "$G/$INIT_NAME" "$G/solutions.jsonl.gz"
    exit 0
fi
EVAL_EVERY=${EVAL_EVERY:-100}
seed_knobs  # SEEDS, MAX_STEPS, MINUTES, DEADLINE, EVAL_EVERY (device_common.sh)
OUT=${OUT:-/tmp/anchor_out}
R=${ANCHOR_DIR:-/tmp/anchor_runs}
CORPUS=$G/solutions.jsonl.gz  # the rows' code: the staged rows, never ../shared
mkdir -p "$R" "$OUT"
device_setup || exit 1  # environment, PY, what the machine has; the init unpacked
require_staged training/device/device_anchor.sh "$CORPUS" "$CURVES" || exit 1
check_flags  # MAX_STEPS, EVAL_EVERY, DEVICE
extra+=(--max-minutes "$MINUTES" --epochs "${EPOCHS:-8}")
# the curves recipe's fine-tuning on the anchor rows (device_common.sh: train_seeds, FINE_TUNE)
# NUMBER_FORMAT / GROWTH_DIGITS: how the numbers are written (`rlm_lsp.runtime.numbers`); P10S with growths
# of 2 digits decodes 14 tokens instead of 24, the whole curve 1.16x the default's instead of 1.46x
# (`bench/curve.py --as-p10s 2`; #48's budget: 30 ms)
train_seeds "$R" "$OUT" --init-from "$INIT" --corpus "$CORPUS" --anchor-data "$CURVES" --template shaped \
    --driver-prob 0 --reference-n "${REFERENCE_N:-10000}" "${FINE_TUNE[@]}" --eval-max "${EVAL_MAX:-500}" \
    --number-format "${NUMBER_FORMAT:-P10}" --growth-digits "${GROWTH_DIGITS:-4}"
