# Sourced by the training/device_*.sh scripts. On the GPU machine, `device_setup`: the environment,
# one line each on the GPU and on the torch / transformers stack it has, PY (the interpreter;
# $PYTHON or python3), and INIT: the staged init (.gpu/v3r, its weights xz-packed to travel)
# unpacked outside the working tree (${INIT_DIR:-/tmp/rlm_init}/v3r), so that a CPU check of the
# plumbing here leaves nothing in .gpu/ that a lease would then have to carry. INIT_NAME names another
# staged init in .gpu/ (device_poly.sh: poly_init, the current default recovered). Here, at staging,
# `carry_size PATH...`: what a lease would send (the tracked tree and those carried paths) against
# its 64 MiB.
device_setup() {
    export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD OMP_NUM_THREADS=2 TOKENIZERS_PARALLELISM=false
    PY=${PYTHON:-python3}
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
    "$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available())"
    local staged=${GPU_DATA:-.gpu}/${INIT_NAME:-v3r}
    INIT=${INIT_DIR:-/tmp/rlm_init}/${INIT_NAME:-v3r}
    [ -f "$staged/model.safetensors.xz" ] || return 0  # a lease without the init (device_sweep.sh)
    mkdir -p "$INIT"
    for f in "$staged"/*; do
        case "$f" in *.xz) ;; *) cp "$f" "$INIT/" ;; esac
    done
    if [ ! -f "$INIT/model.safetensors" ] || [ "$staged/model.safetensors.xz" -nt "$INIT/model.safetensors" ]; then
        "$PY" -c "
import lzma, os, shutil, sys
part = f'{sys.argv[2]}.{os.getpid()}.part'  # its own: two runs side by side may unpack at once
with lzma.open(sys.argv[1]) as packed, open(part, 'wb') as raw:
    shutil.copyfileobj(packed, raw)
os.replace(part, sys.argv[2])" "$staged/model.safetensors.xz" "$INIT/model.safetensors" || return 1
    fi
}

carry_size() {
    local tracked carried
    tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
    carried=$(du -cb "$@" | tail -1 | cut -f1)
    echo "a lease sends $(( (tracked + carried) / 1048576 )) MiB of 64: the tracked tree $(( tracked / 1048576 )) MiB, carry ($*) $(( carried / 1048576 )) MiB"
    [ $(( tracked + carried )) -le $(( 64 * 1048576 )) ] || { echo "over the 64 MiB a lease carries"; return 1; }
}

# The CPU check's knobs (MAX_STEPS, EVAL_EVERY, DEVICE, THREADS) as training.learning.train flags, in the array `extra`.
# The K-seed recipes' knobs (device_curves.sh, device_poly.sh), each overridable from the environment:
# SEEDS, MAX_STEPS (each seed's cosine runs over the fewer of these and what fits MINUTES), MINUTES,
# DEADLINE (seconds from the seeds' start: wait_for_seeds), EVAL_EVERY.
seed_knobs() {
    SEEDS=${SEEDS:-0 1 2 3}
    MAX_STEPS=${MAX_STEPS:-2000}
    MINUTES=${MINUTES:-6}
    DEADLINE=${DEADLINE:-480}
    EVAL_EVERY=${EVAL_EVERY:-200}
}

check_flags() {
    extra=()
    if [ -n "${MAX_STEPS:-}" ]; then extra+=(--max-steps "$MAX_STEPS"); fi
    if [ -n "${EVAL_EVERY:-}" ]; then extra+=(--eval-every "$EVAL_EVERY"); fi
    if [ -n "${DEVICE:-}" ]; then extra+=(--device "$DEVICE"); fi
    if [ -n "${THREADS:-}" ]; then extra+=(--threads "$THREADS"); fi
}

# The seeds' trainings, started in the background with their pids in the array `pids`: waited for,
# and with DEADLINE (whole seconds from the seeds' start, after the setup; 0 or unset = none) those
# still running are stopped (TERM) at it, so a lease always has time left for the soup. Each seed's
# best so far stays its ingredient. The watchdog's own sleep is stopped with it, so nothing holds
# the output open once the seeds are done.
wait_for_seeds() {
    local watchdog=
    [ "${#pids[@]}" -gt 0 ] || { echo "no seeds to wait for"; return 0; }
    local deadline=${DEADLINE:-0}
    case "$deadline" in *[!0-9]*|'') echo "DEADLINE=$deadline: not whole seconds; waiting without one" >&2; deadline=0 ;; esac
    if [ "$deadline" -gt 0 ]; then
        ( sleep "$deadline" >/dev/null 2>&1 & nap=$!
          trap 'kill $nap 2>/dev/null; exit 0' TERM
          wait $nap
          echo "deadline ($deadline s): stopping the trainings still running"
          kill -TERM "${pids[@]}" 2>/dev/null ) &
        watchdog=$!
    fi
    wait "${pids[@]}"
    if [ -n "$watchdog" ]; then kill "$watchdog" 2>/dev/null; wait "$watchdog" 2>/dev/null; fi
    return 0
}

# After the seeds of $SEEDS trained in RUNS/s<seed>: their bests' uniform soup in RUNS/soup (with one
# best, that one), sent back as float32 shards OUT/soup.<i>.safetensors + OUT/soup.json (the machine
# returns files of at most 16 MiB; here: `python -m training.learning.shards unpack OUT/soup CKPT`, exact),
# and every seed's log and train_log.jsonl in OUT/logs.tgz. A best whose save was cut (its meta,
# written last, older than its weights) is left out.
soup_of_seeds() {
    local runs=$1 out=$2 s b
    local bests=()
    grep -H "eval step" "$runs"/s*.log
    for s in $SEEDS; do
        b=$runs/s$s/best
        if [ -f "$b/model.safetensors" ] && [ -f "$b/rlm_meta.json" ] && [ ! "$b/rlm_meta.json" -ot "$b/model.safetensors" ]; then
            bests+=("$b")
            echo "seed $s: last evaluation $(tail -n 1 "$runs/s$s/train_log.jsonl" 2>/dev/null | grep -o '"step": [0-9]*' | head -1), best $(grep -o '"step": [0-9]*' "$b/rlm_meta.json" | tail -1)"
        else
            echo "seed $s: no whole best checkpoint"
        fi
    done
    # the logs first: they are what explains a soup or a packing that fails below
    local logs
    logs=$(cd "$runs" && ls *.log */train_log.jsonl 2>/dev/null)
    if [ -n "$logs" ]; then tar czf "$out/logs.tgz" -C "$runs" $logs; fi
    local ckpt=$runs/soup
    if [ "${#bests[@]}" -ge 2 ]; then
        "$PY" -m training.learning.soup "$ckpt" "${bests[@]}" || return 1
    elif [ "${#bests[@]}" -eq 1 ]; then
        ckpt=${bests[0]}
        echo "one whole best only: OUT/soup is that seed alone, not a soup"
    else
        echo "no best checkpoint: nothing to send back"
    fi
    if [ "${#bests[@]}" -ge 1 ]; then "$PY" -m training.learning.shards pack "$ckpt" "$out/soup" --float32 || return 1; fi
    ls -la "$out"
}

# Here, at staging: the current default recovered (`training.learning.recover`) into $G/$1, its fp32
# weights (read back from int8: few distinct values a column) xz-packed, which shrinks them ~2.5x for
# the 64 MiB a lease carries; `device_setup` unpacks them there. default.sha256 says which default, so
# a new default is recovered again and an unchanged one is not.
stage_default_init() {
    local dest=${GPU_DATA:-.gpu}/$1 stamp
    stamp=$(cat rlm_lsp/models/default/*.onnx rlm_lsp/models/default/tokenizer.json rlm_lsp/models/default/rlm_config.json | sha256sum | cut -d' ' -f1)
    if [ ! -f "$dest/model.safetensors.xz" ] || [ "$(cat "$dest/default.sha256" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$dest"
        python -m training.learning.recover rlm_lsp/models/default "$dest" >/dev/null || return 1
        python -c "
import lzma, shutil, sys
with open(sys.argv[1], 'rb') as raw, lzma.open(sys.argv[1] + '.xz', 'wb', preset=9) as packed:
    shutil.copyfileobj(raw, packed)" "$dest/model.safetensors" || return 1
        echo "$stamp" > "$dest/default.sha256"
    fi
    rm -f "$dest/model.safetensors"  # unpacked, it would travel too
}

# The fine-tuning settings of the recipes that start from the shipped default (c4's, session 20).
FINE_TUNE=(--preprocess canon_v1 --neutral 0.8 --lr 3e-4 --consistency 1.0)

# `require_staged SCRIPT FILE...`: the staged init ($INIT) and the files a lease carries, or one line
# saying to stage them here with SCRIPT (a lease without them would train on nothing).
require_staged() {
    local script=$1 f
    shift
    [ -f "$INIT/model.safetensors" ] || { echo "no staged init in $G/$INIT_NAME: run 'bash $script stage' here and carry it"; return 1; }
    for f in "$@"; do
        [ -f "$f" ] || { echo "missing $f: stage here and carry .gpu/"; return 1; }
    done
}

# `train_seeds RUNS OUT TRAIN_ARG...`: one `training.learning.train` per seed of $SEEDS, side by side
# on the one device (RUNS/sS, its log RUNS/sS.log; each with --seed S, --no-progress and ${extra[@]}),
# `wait_for_seeds`, the data line of the first log, then `soup_of_seeds RUNS OUT`.
train_seeds() {
    local runs=$1 out=$2 s
    shift 2
    pids=()
    for s in $SEEDS; do
        "$PY" -m training.learning.train --out "$runs/s$s" "$@" --seed "$s" --no-progress "${extra[@]}" \
            >"$runs/s$s.log" 2>&1 &
        pids+=($!)
    done
    wait_for_seeds
    grep -h "^data:" "$runs"/s*.log | head -1
    soup_of_seeds "$runs" "$out"
}
