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
