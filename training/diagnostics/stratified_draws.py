"""Independent vs stratified (Latin-hypercube) sampling draws: Spearman at 16 and 48 samples.

    python -m training.diagnostics.stratified_draws MODEL_DIR

Per-input draws (`shared_draws=False`), so that the patched `_uniforms` is the one used. Model card:
"Stratified draws".
"""
import sys, numpy as np
from rlm_lsp import Predictor
from training import dataset
from training.evaluate import spearman
ex = dataset.load_examples(["training/data/leetcode_v1.jsonl.gz"], dataset.DEFAULT_CORPUS, tiers=["large"])
_, val = dataset.split_by_problem(ex, 0.1); val = val[:300]
def lhs(self, key, n):
    rng = np.random.default_rng([self.seed, int(key[:16], 16)])
    P = len(self._allowed)
    return np.stack([(rng.permutation(n) + rng.random(n)) / n for _ in range(P)], axis=1)
iid = Predictor._uniforms
for name, fn, n in (("iid", iid, 16), ("lhs", lhs, 16), ("iid", iid, 48), ("lhs", lhs, 48)):
    Predictor._uniforms = fn
    p = Predictor.from_dir(sys.argv[1], samples=n, cache_size=0, threads=1, shared_draws=False)
    preds = p.predict([e.code for e in val])
    out = []
    for m in ("memory", "latency"):
        idx = [j for j, e in enumerate(val) if e.values.get(m)]
        out.append(round(spearman([val[j].values[m] for j in idx], [preds[j][m].value for j in idx]), 3))
    print(name, n, out, flush=True)
