"""Which inputs give the Triton GBM baseline its lead? The card's size GBM, without the perf scripts'
byte/FLOP formulas, and with only the work size plus GPU, dtype and mode (what the RLM's input also has).

    python -m training.diagnostics.triton_gbm_ablation

Scored with `training.triton.evaluate.table`, the model card's overall and within-(family, GPU) figures.
"""
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor

from training.triton import data
from training.triton.evaluate import size_features, table

rows = data.load_rows()
train = [r for r in rows if r["split"] == "train"]
test = [r for r in rows if r["split"] == "test"]
y = np.log10([r["ms"] for r in train])
VARIANTS = {  # name -> (features, indices of the categorical ones: GPU, dtype, mode)
    "size (as in the card)": (size_features, [7, 8, 9]),
    "size without bytes/flops": (lambda r: size_features(r)[:5] + size_features(r)[7:], [5, 6, 7]),
    "work + gpu/dtype/mode": (lambda r: [r["work_log2"]] + size_features(r)[7:], [1, 2, 3]),
}
preds = {}
for name, (feats, cats) in VARIANTS.items():
    model = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0, categorical_features=cats)
    model.fit(np.array([feats(r) for r in train]), y)
    preds[name] = model.predict(np.array([feats(r) for r in test]))
scores = table(test, preds)["slices"]
for name in VARIANTS:
    print(f"{name}: overall {scores['overall'][name]:.3f}  "
          f"mean within (family, GPU) {scores['mean within (family, gpu)'][name]:.3f}")
