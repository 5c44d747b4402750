#!/usr/bin/env bash
# One GPU lease, one command: re-time TritonBench-G operators on this GPU (resumable across leases).
#
#   here, first:  python -m training.triton.tritonbench stage .gpu/tb        # corpus -> git-ignored dir (2 MB)
#                 cp training/data/tritonbench_<gpu>.jsonl .gpu/tb/times.jsonl   # only to resume an earlier lease
#   GPU machine:  bash training/device/device_tritonbench.sh    # run(carry=[".gpu/tb"]); OUT/times.jsonl comes back
#   here, after:  cp OUT/times.jsonl training/data/tritonbench_<gpu>.jsonl
#                 python -m training.triton.train --extra-times training/data/tritonbench_<gpu>.jsonl ...
#
# The run stops itself after $MINUTES (default 8), so the times come back inside one 10-minute call.
set -u
OUT=${OUT:-/tmp/tb_out}
TB=${TB:-.gpu/tb}
MINUTES=${MINUTES:-8}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH}
[ -f "$TB/times.jsonl" ] && cp "$TB/times.jsonl" "$OUT/times.jsonl"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)"
python3 -m training.triton.tritonbench time "$TB" --out "$OUT/times.jsonl" --max-minutes "$MINUTES" \
    --op-timeout "${OP_TIMEOUT:-90}" ${TB_ARGS:-} 2>&1 | tail -n 40 > "$OUT/run.log"
cat "$OUT/run.log" | tail -n 8
