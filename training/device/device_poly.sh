#!/usr/bin/env bash
# One GPU lease, one command: K seeds of the polyglot recipe (issue 51, item 2: the shipped default
# fine-tuned on Python + C++ + Go + Java; /work/poly-model-work/train.sh's, whose two CPU runs of 154
# steps were underfit, experiments/log/11-2026-12-05-sessions-31-on.md "One model for Python, C++, Java
# and Go"), their uniform soup, back in $OUT as float32 shards (~40 MB, exact) with every seed's log.
# Each seed's cosine runs over the fewer of MAX_STEPS (default 2000) and the steps that fit MINUTES
# (default 6; the trainer times its first steps, `--max-minutes`); DEADLINE (default 480 s from the
# seeds' start) stops any still running, so the soup is made within one 10-minute command. REPEAT
# (default 8) is each C++/Go/Java training row's copies an epoch (--polyglot-repeat).
# EVAL_MAX (default 500): validation rows an evaluation reads (fewer for a CPU check).
#
#   here, first:  bash training/device/device_poly.sh stage     # fills .gpu/ (git-ignored), prints the carry;
#                 `python` the venv's, with tree-sitter (the `polyglot` extra) for the C++/Go/Java functions
#   GPU machine:  SEEDS="0 1 2 3" bash training/device/device_poly.sh     (run's timeout_s 590)
#                 carry: .gpu/poly_init .gpu/solutions.jsonl.gz .gpu/polyglot_texts.jsonl.gz
#   here, after:  python -m training.learning.shards unpack OUT/soup training/runs/NAME
#                 bash training/judging/polyglot_judge.sh NAME training/runs/NAME
#                 (export, each language's evaluation, the default beside it on Python, the GBM and the
#                 bootstrap; judged by the rule written in experiments/log/ before the lease, never after)
#
# .gpu/ holds what the GPU machine cannot reach (it has neither ../shared/corpora nor tree-sitter):
# - solutions.jsonl.gz: the corpus rows the Python training rows name (device_sweep.sh's staging);
# - polyglot_texts.jsonl.gz: each C++/Go/Java program's text as the model reads it (its functions,
#   normalised; `python -m training.learning.polyglot_data --stage-texts`), read by `--polyglot-texts`;
# - poly_init/: the current default, recovered (`python -m training.learning.recover`), its weights
#   xz-packed as device_soup.sh's v3r; default.sha256 says which default, so a new one is recovered again.
# The data files are the tracked training/data/leetcode_{v1,cpp,go,java}.jsonl.gz: stage again after
# they change (training stops, naming the first program the staged texts lack).
# CPU check of the plumbing, as the GPU machine sees it (a copy of the working tree and .gpu/, with no
# ../shared beside it, so dataset.DEFAULT_CORPUS names nothing):
#   d=$(mktemp -d)/repo && mkdir "$d" && git ls-files -z | xargs -0 cp --parents -t "$d" && cp -r .gpu "$d" &&
#   cd "$d" && PYTHON=/work/main/.venv/bin/python SEEDS="0 1" MAX_STEPS=4 EVAL_EVERY=2 DEVICE=cpu \
#       bash training/device/device_poly.sh                      # ~8 min on 2 shared cores
set -u
G=${GPU_DATA:-.gpu}
INIT_NAME=poly_init
POLY=(training/data/leetcode_cpp.jsonl.gz training/data/leetcode_go.jsonl.gz training/data/leetcode_java.jsonl.gz)
. training/device/device_common.sh
if [ "${1:-}" = stage ]; then
    bash training/device/device_sweep.sh stage >/dev/null || exit 1
    python -m training.learning.polyglot_data --stage-texts "$G/polyglot_texts.jsonl.gz" "${POLY[@]}" || exit 1
    stage_default_init "$INIT_NAME" || exit 1  # the current default, recovered (device_common.sh)
    carry_size "$G/$INIT_NAME" "$G/solutions.jsonl.gz" "$G/polyglot_texts.jsonl.gz"
    exit 0
fi
seed_knobs  # SEEDS, MAX_STEPS, MINUTES, DEADLINE, EVAL_EVERY (device_common.sh)
OUT=${OUT:-/tmp/poly_out}
R=${POLY_DIR:-/tmp/poly_runs}
CORPUS=$G/solutions.jsonl.gz  # the Python rows' code: the staged rows, never ../shared
mkdir -p "$R" "$OUT"
device_setup || exit 1  # environment, PY, what the machine has; the init unpacked
require_staged training/device/device_poly.sh "$CORPUS" "$G/polyglot_texts.jsonl.gz" \
    training/data/leetcode_v1.jsonl.gz "${POLY[@]}" || exit 1
check_flags  # MAX_STEPS, EVAL_EVERY, DEVICE
extra+=(--max-minutes "$MINUTES")
# the CPU candidate's recipe (poly-model run1) (device_common.sh: train_seeds, FINE_TUNE)
train_seeds "$R" "$OUT" --init-from "$INIT" --corpus "$CORPUS" --data training/data/leetcode_v1.jsonl.gz \
    --polyglot-data "${POLY[@]}" --polyglot-texts "$G/polyglot_texts.jsonl.gz" --polyglot-repeat "${REPEAT:-8}" \
    "${FINE_TUNE[@]}" --eval-max "${EVAL_MAX:-500}"
