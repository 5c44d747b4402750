#!/usr/bin/env bash
# One GPU lease, one command (session 10): time the built-in Triton kernels on the real GPU, then
# pre-train the Python RLM on unlabelled code and fine-tune it, with a from-scratch control.
#
#   here, first:  bash training/device/device_sweep.sh stage                            # .gpu/: corpus rows, tokenizer
#                 python -m training.learning.pretrain texts --out .gpu/pretrain_ids.npz  # .gpu/: pre-training ids
#   GPU machine:  bash training/device/device_pretrain.sh                               # .gpu carried; results in $OUT
#   here, after:  python -m training.learning.shards unpack OUT/ft1 training/runs/pre-ft1
#
# Phases (seconds are the GPU plan; every phase has its own timeout, so a failure still returns logs):
#   1. time_kernels on the real GPU, alone on it (~70 s): OUT/logs.tgz holds kernel_times.jsonl;
#   2. span-denoising pre-training, $PRE_MIN minutes;
#   3. three fine-tunes side by side, the shipped recipe (batch 64, 8 epochs): ft1 from the
#      pre-trained weights at lr 1e-3, ft2 the same at 5e-4, scratch from scratch at 1e-3 (control);
#   4. ft1 and ft2 go back as float16 shards, all logs in logs.tgz.
set -u
OUT=${OUT:-/tmp/pre_out}
G=${GPU_DATA:-.gpu}
R=${RUN_DIR:-/tmp/pre_runs}
PRE_MIN=${PRE_MIN:-3.6}
FT_MIN=${FT_MIN:-3.2}
PY=${PYTHON:-python3}
mkdir -p "$R" "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${EXTRA_PATH:+:$EXTRA_PATH} OMP_NUM_THREADS=2 TOKENIZERS_PARALLELISM=false
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>/dev/null
"$PY" -c "import torch, transformers, triton; print('torch', torch.__version__, 'transformers', transformers.__version__, 'triton', triton.__version__, 'cuda', torch.cuda.is_available())" 2>&1

echo "== 1. kernel timing $(date +%T)"
timeout "${KT_TIMEOUT:-110}" "$PY" -m training.triton.time_kernels --out "$R/kernel_times.jsonl" ${KT_ARGS:-} >"$R/kernel_times.log" 2>&1
echo "rc $?"; tail -12 "$R/kernel_times.log"

echo "== 2. pre-training $(date +%T)"
timeout "$(awk "BEGIN{print int($PRE_MIN * 60 + 60)}")" "$PY" -m training.learning.pretrain train --ids "$G/pretrain_ids.npz" \
    --tokenizer "$G/tokenizer.json" --out "$R/pre" --max-minutes "$PRE_MIN" ${PRE_ARGS:-} >"$R/pre.log" 2>&1
echo "rc $?"; tail -4 "$R/pre.log"

echo "== 3. fine-tunes $(date +%T)"
common=(--corpus "$G/solutions.jsonl.gz" --max-minutes "$FT_MIN" --eval-every "${EVAL_EVERY:-100}" --no-progress ${FT_ARGS:-})
ft() { local name=$1; shift; timeout "$(awk "BEGIN{print int($FT_MIN * 60 + 75)}")" "$PY" -m training.learning.train --out "$R/$name" "${common[@]}" "$@" >"$R/$name.log" 2>&1 & }
if [ -f "$R/pre/best/model.safetensors" ]; then
    ft ft1 --init-from "$R/pre/best" --lr 1e-3
    ft ft2 --init-from "$R/pre/best" --lr 5e-4
fi
ft scratch --tokenizer "$G/tokenizer.json" --lr 1e-3
wait
for n in ft1 ft2 scratch; do echo "-- $n"; grep -E "^(data|eval|done|early)|Error" "$R/$n.log" | tail -14; done

echo "== 4. pack $(date +%T)"
for n in ft1 ft2; do
    [ -f "$R/$n/best/model.safetensors" ] && "$PY" -m training.learning.shards pack "$R/$n/best" "$OUT/$n"
done
(cd "$R" && tar czf "$OUT/logs.tgz" --exclude='*.safetensors' --exclude='*.pt' kernel_times.jsonl ./*.log ./*/train_log.jsonl \
    ./*/best/rlm_meta.json pre/pretrain_log.jsonl 2>/dev/null)
ls -la "$OUT"; echo "end $(date +%T)"
