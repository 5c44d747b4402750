# Sourced by the training/device_*.sh scripts. On the GPU machine, `device_setup`: the environment,
# one line each on the GPU and on the torch / transformers stack it has, PY (the interpreter;
# $PYTHON or python3), and the staged init's weights unpacked. Here, at staging, `carry_size PATH...`:
# what a lease would send (the tracked tree and those carried paths) against its 64 MiB.
device_setup() {
    export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD OMP_NUM_THREADS=2 TOKENIZERS_PARALLELISM=false
    PY=${PYTHON:-python3}
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
    "$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available())"
    local packed=${GPU_DATA:-.gpu}/v3r/model.safetensors.xz
    if [ -f "$packed" ] && [ ! -f "${packed%.xz}" ]; then
        "$PY" -c "
import lzma, shutil, sys
with lzma.open(sys.argv[1]) as packed, open(sys.argv[1][:-3], 'wb') as raw:
    shutil.copyfileobj(packed, raw)" "$packed"
    fi
}

carry_size() {
    local tracked carried
    tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
    carried=$(du -cb "$@" | tail -1 | cut -f1)
    echo "a lease sends $(( (tracked + carried) / 1048576 )) MiB of 64: the tracked tree $(( tracked / 1048576 )) MiB, carry ($*) $(( carried / 1048576 )) MiB"
    [ $(( tracked + carried )) -le $(( 64 * 1048576 )) ] || { echo "over the 64 MiB a lease carries"; return 1; }
}

# The CPU check's knobs (MAX_STEPS, EVAL_EVERY, DEVICE) as training.train flags, in the array `extra`.
check_flags() {
    extra=()
    if [ -n "${MAX_STEPS:-}" ]; then extra+=(--max-steps "$MAX_STEPS"); fi
    if [ -n "${EVAL_EVERY:-}" ]; then extra+=(--eval-every "$EVAL_EVERY"); fi
    if [ -n "${DEVICE:-}" ]; then extra+=(--device "$DEVICE"); fi
}

# After the seeds of $SEEDS trained in RUNS/s<seed>: their bests' uniform soup in OUT/soup (with
# one best, that one in OUT/best), and every seed's log and train_log.jsonl in OUT/logs.tgz.
soup_of_seeds() {
    local runs=$1 out=$2 s
    local bests=()
    for s in $SEEDS; do
        if [ -f "$runs/s$s/best/model.safetensors" ]; then bests+=("$runs/s$s/best"); else echo "seed $s: no best checkpoint"; fi
    done
    if [ "${#bests[@]}" -ge 2 ]; then
        "$PY" -m training.soup "$out/soup" "${bests[@]}"
    elif [ "${#bests[@]}" -eq 1 ]; then
        cp -r "${bests[0]}" "$out/best"
    fi
    tar czf "$out/logs.tgz" -C "$runs" $(cd "$runs" && ls *.log */train_log.jsonl 2>/dev/null)
    ls -la "$out"
}
