# Sourced by the training/device_*.sh scripts on the GPU machine: the environment, and one line each
# on the GPU and on the torch / transformers stack it has. Sets PY (the interpreter; $PYTHON or python3).
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD OMP_NUM_THREADS=2 TOKENIZERS_PARALLELISM=false
PY=${PYTHON:-python3}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null
"$PY" -c "import torch, transformers; print('torch', torch.__version__, 'transformers', transformers.__version__, 'cuda', torch.cuda.is_available())"
