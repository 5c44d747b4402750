#!/usr/bin/env bash
# One GPU lease, one command: K seeds of the cost-curve recipe (issue 48, item 1: the RLM itself reads
# n and predicts the value at n and the growth; the trees on code counts plateaued, experiments/log/
# 11-2026-12-05-sessions-31-on.md "Session 33"), their uniform soup, back in $OUT as float32 shards
# (~40 MB, exact) with every seed's log. The rows: every ok (program, size) of the measured curves at
# its n, with the program's asymptotic growth (`training.learning.curve_rows`), read through the
# template that states n (`--template curves`; `rlm_lsp.runtime.template.n_field`), fine-tuned from the
# shipped default. Each seed's cosine runs over the fewer of MAX_STEPS (default 2000) and the steps
# that fit MINUTES (default 6; `--max-minutes`); DEADLINE (default 480 s from the seeds' start) stops
# any still running, so the soup is made within one 10-minute command. REFERENCE_N (default 10000):
# the n the model's numbers are for when a caller states none (rlm_config.json's reference_n).
# EVAL_MAX (default 500): validation rows an evaluation reads (fewer for a CPU check).
#
#   here, first:  bash training/device/device_curves.sh stage    # fills .gpu/ (git-ignored), prints the carry
#                 (`python` the venv's)
#   GPU machine:  SEEDS="0 1 2 3" bash training/device/device_curves.sh     (run's timeout_s 590)
#                 carry: .gpu/curves_init .gpu/solutions.jsonl.gz
#   here, after:  python -m training.learning.shards unpack OUT/soup training/runs/NAME
#                 python -m rlm_lsp.export training/runs/NAME training/work/NAME/fast \
#                     --metrics memory,latency,memory_growth,latency_growth --point-estimate log_mean_rb \
#                     --growth-temperature 0.6
#                 python -m training.judging.growth_eval training/work/NAME/fast --json training/work/NAME/growth.json
#                 (issue 48's table beside the counts baseline; growth, value at each row's n, scripts;
#                 judged by the rule written in experiments/log/ before the lease, never after)
#
# .gpu/ holds what the GPU machine cannot reach (it has no ../shared/corpora):
# - solutions.jsonl.gz: the corpus rows the training data name, the curves' among them
#   (device_sweep.sh's staging);
# - curves_init/: the current default, recovered (`stage_default_init`, device_common.sh), weights xz-packed.
# The rows are the tracked training/data/leetcode_curves.jsonl.gz: stage again after it grows (a
# program the staged corpus lacks is left out of the rows, as the join leaves it out here).
# CPU check of the plumbing, as the GPU machine sees it (a copy of the working tree and .gpu/, with no
# ../shared beside it, so dataset.DEFAULT_CORPUS names nothing):
#   d=$(mktemp -d)/repo && mkdir "$d" && git ls-files -z | xargs -0 cp --parents -t "$d" && cp -r .gpu "$d" &&
#   cd "$d" && PYTHON=/work/main/.venv/bin/python SEEDS="0" MAX_STEPS=4 EVAL_EVERY=2 EVAL_MAX=32 DEVICE=cpu \
#       bash training/device/device_curves.sh
set -u
G=${GPU_DATA:-.gpu}
INIT_NAME=curves_init
CURVES=training/data/leetcode_curves.jsonl.gz
. training/device/device_common.sh
if [ "${1:-}" = stage ]; then
    bash training/device/device_sweep.sh stage >/dev/null || exit 1
    stage_default_init "$INIT_NAME" || exit 1
    python -m training.learning.curve_rows --corpus "$G/solutions.jsonl.gz" || exit 1  # the rows the staged corpus gives
    carry_size "$G/$INIT_NAME" "$G/solutions.jsonl.gz"
    exit 0
fi
seed_knobs  # SEEDS, MAX_STEPS, MINUTES, DEADLINE, EVAL_EVERY (device_common.sh)
OUT=${OUT:-/tmp/curves_out}
R=${CURVES_DIR:-/tmp/curves_runs}
CORPUS=$G/solutions.jsonl.gz  # the rows' code: the staged rows, never ../shared
mkdir -p "$R" "$OUT"
device_setup || exit 1  # environment, PY, what the machine has; the init unpacked
require_staged training/device/device_curves.sh "$CORPUS" "$CURVES" || exit 1
check_flags  # MAX_STEPS, EVAL_EVERY, DEVICE
extra+=(--max-minutes "$MINUTES")
# the polyglot candidate's fine-tuning recipe on the curve rows (device_common.sh: train_seeds, FINE_TUNE)
train_seeds "$R" "$OUT" --init-from "$INIT" --corpus "$CORPUS" --curve-data "$CURVES" --template curves \
    --reference-n "${REFERENCE_N:-10000}" "${FINE_TUNE[@]}" --eval-max "${EVAL_MAX:-500}"
