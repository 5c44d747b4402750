#!/usr/bin/env bash
# The shipped NAS model's recipe (t4 -> t6 -> t8, rlm_lsp/models/nas/MODEL_CARD.md), by steps instead of minutes,
# so it gives the shipped model's steps on any machine:
#     bash training/nas/recipe.sh SEED OUT [THREADS]
# SEED moves initialisation and batch order only (the arch split stays --split-seed 0).
# OUT/a, OUT/b, OUT/c are the three phases; OUT/c/best is the model (python -m training.nas.export).
set -euo pipefail
seed=${1:?seed}; out=${2:?output folder}; threads=${3:-1}
common=(--d-model 128 --d-ff 512 --eval-archs 300 --threads "$threads" --seed "$seed" --max-minutes 600)
python -m training.nas.train --out "$out/a" --schedule-steps 5686 --eval-every-min 10 "${common[@]}"
python -m training.nas.train --out "$out/b" --init-from "$out/a/best" --schedule-steps 2816 \
    --lr 6e-4 --warmup 0.1 --eval-every-min 7 "${common[@]}"
python -m training.nas.train --out "$out/c" --init-from "$out/b/best" --schedule-steps 3298 \
    --lr 3e-4 --warmup 0.1 --eval-every-min 6 "${common[@]}" \
    --device-weight gold_6226=3 --device-weight gold_6240=3 --device-weight silver_4210r=3 \
    --val-devices pixel3 eyeriss gold_6226 silver_4210r 1080ti_1 titanxp_1 2080ti_256 raspi4 gold_6240
