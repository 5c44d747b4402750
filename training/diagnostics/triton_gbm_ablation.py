"""Which inputs give the Triton GBM baseline its lead? The card's size GBM, without the perf scripts'
byte/FLOP formulas, and with only the work size plus GPU, dtype and mode (what the RLM's input also has).

    python -m training.diagnostics.triton_gbm_ablation
"""
import numpy as np
from sklearn.ensemble import HistGradientBoostingRegressor
from training.triton import data, evaluate as ev
rows = data.load_rows()
train = [r for r in rows if r["split"] == "train"]; test = [r for r in rows if r["split"] == "test"]
y = np.log10([r["ms"] for r in train]); truth = [r["ms"] for r in test]
def fit(feats, cats):
    m = HistGradientBoostingRegressor(max_iter=300, learning_rate=0.05, random_state=0, categorical_features=cats)
    m.fit(np.array([feats(r) for r in train]), y)
    return m.predict(np.array([feats(r) for r in test]))
full = lambda r: ev.size_features(r)
nobf = lambda r: ev.size_features(r)[:5] + ev.size_features(r)[7:]
only_w = lambda r: [r["work_log2"]] + ev.size_features(r)[7:]
for name, f, cats in (("size (as in the card)", full, [7, 8, 9]), ("size without bytes/flops", nobf, [5, 6, 7]),
                      ("work + gpu/dtype/mode", only_w, [1, 2, 3])):
    p = fit(f, cats)
    within = []
    groups = {}
    for i, r in enumerate(test): groups.setdefault((r["family"], r["gpu"]), []).append(i)
    for g in groups.values():
        if len(g) >= 3: within.append(ev.spearman([p[i] for i in g], [truth[i] for i in g]))
    print(f"{name}: overall {ev.spearman(p, truth):.3f}  mean within (family, GPU) {np.nanmean(within):.3f}")
