"""Fit the growth trees (`rlm_lsp.runtime.growth`) on the measured cost curves and ship them in a model directory.

    python -m training.learning.growth_trees MODEL_DIR [--bags 16] [--reference-n 10000] [--check]
    python -m training.learning.growth_trees --cv                      # 5-fold by problem, training problems only

Targets, per program (``training/data``; no code in them): the time and memory exponents of the
cost curves (``leetcode_curves.growth.jsonl.gz``, ``training.measuring.curve_fit``: five sizes or more), and
where a program has no curve yet, the memory exponent of the memory ladders
(``leetcode_v2.growth.jsonl.gz``: three sizes, 16x).  Features: ``rlm_lsp.runtime.growth.features`` of
the program's code (counts and loop nests of the canonical code).  Only training problems
(``training.learning.dataset.is_validation`` false) are fitted.

Each metric gets ``--bags`` ensembles of ``HistGradientBoostingRegressor`` (``SETTINGS``), each
fitted on a bootstrap of the problems (whole problems drawn with replacement, seed = bag): their
spread is the growth's interval, and bag k of two functions is paired draw k for the gate.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.runtime.growth import FILE_NAME, GrowthSpec, GrowthTrees, bag_name, feature_names, features  # noqa: E402
from rlm_lsp.runtime.model_dir import CONFIG_NAME, sha256_file  # noqa: E402
from training.measuring.curves_card import read_gz  # noqa: E402

DATA = ROOT / "training" / "data"
PREPROCESS = "canon_v1"
METRICS = {"memory": "memory", "latency": "time"}  # model metric -> the curves' prefix
SETTINGS = {"max_iter": 120, "learning_rate": 0.08, "max_leaf_nodes": 15, "min_samples_leaf": 20}
REFERENCE_N = 10_000  # the median size of the inputs the RLM's function rows ran on (the ladders' rung "1")


def targets(data: Path = DATA) -> dict:
    """key -> {problem_id, memory, latency} exponents (None where not measured)."""
    out = {}
    for g in read_gz(data / "leetcode_v2.growth.jsonl.gz"):
        if g.get("growth_memory") is not None:
            out[g["key"]] = {"problem_id": g["problem_id"], "memory": g["growth_memory"], "latency": None}
    for g in read_gz(data / "leetcode_curves.growth.jsonl.gz"):
        out[g["key"]] = {"problem_id": g["problem_id"], "memory": g.get("memory_exponent"),
                         "latency": g.get("time_exponent")}
    return out


def table(data: Path = DATA, validation: bool = False) -> tuple[list, np.ndarray]:
    """(rows, features) of the programs with a target, on one side of the split."""
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for pr in bd.problems().values() for p in pr.programs}
    rows = [dict(t, key=k) for k, t in sorted(targets(data).items())
            if k in code and is_validation(str(t["problem_id"])) == validation]
    x = np.array([features(code[r["key"]], PREPROCESS) for r in rows])
    return rows, x


def fit_bags(rows: list, x: np.ndarray, metric: str, bags: int) -> list:
    from sklearn.ensemble import HistGradientBoostingRegressor
    idx = np.array([i for i, r in enumerate(rows) if r.get(metric) is not None])
    y = np.array([rows[i][metric] for i in idx])
    problems = np.array([rows[i]["problem_id"] for i in idx])
    uniq = np.unique(problems)
    by = {p: np.flatnonzero(problems == p) for p in uniq}
    models = []
    for k in range(bags):
        rnd = np.random.default_rng(k)
        take = np.concatenate([by[p] for p in rnd.choice(uniq, size=len(uniq), replace=True)])
        m = HistGradientBoostingRegressor(**SETTINGS, random_state=k)
        models.append(m.fit(x[idx][take], y[take]))
    return models


ESTIMATES = ("memory", "latency")  # the model's own estimates the encoder-reading trees take, log10


def encoder_view(model_dir: Path, rows: list, code: dict, cache: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(pooled (rows, D), log10 estimates (rows, 2)): the encoder's mean state of each row's code and
    the model's own two estimates, through `Predictor`; or read from `cache` (an .npz with `keys`,
    `emb`, `pred`, as `python -m experiments.growth_model embed` writes it with the shipped model)."""
    known: dict = {}
    if cache is not None and cache.exists():
        z = np.load(cache)
        known = {k: (e, q) for k, e, q in zip(z["keys"].tolist(), z["emb"], z["pred"])}
    todo = [r["key"] for r in rows if r["key"] not in known]
    if todo:  # the rows the cache lacks, through the model itself
        from rlm_lsp.runtime.predictor import Predictor
        pr = Predictor.from_dir(model_dir, threads=1)
        pooled = pr.pooled_states([code[k] for k in todo])
        preds = pr.predict([code[k] for k in todo])
        for k, e, p in zip(todo, pooled, preds):
            known[k] = (e, [np.log10(max(p[m].value, 1e-12)) for m in ESTIMATES])
    return (np.array([known[r["key"]][0] for r in rows], dtype=np.float64),
            np.array([known[r["key"]][1] for r in rows], dtype=np.float64))


def with_encoder(x: np.ndarray, pooled: np.ndarray, est: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """x with the pooled state's first k principal axes (fitted on these rows) and the estimates;
    and (mean, axes) to ship."""
    mean = pooled.mean(axis=0)
    _, _, vt = np.linalg.svd(pooled - mean, full_matrices=False)
    axes = vt[:k]
    return np.hstack([x, (pooled - mean) @ axes.T, est]), mean, axes


def write(model_dir: Path, models: dict, bags: int, reference_n: int, about: dict,
          encoder: tuple[np.ndarray, np.ndarray] | None = None) -> Path:
    from training.judging.feature_trees import arrays
    path = model_dir / FILE_NAME
    flat = {f"{bag_name(m, k)}/{f}": v for m, ms in models.items() for k, model in enumerate(ms)
            for f, v in arrays(model).items()}
    if encoder is not None:
        flat["encoder/mean"], flat["encoder/axes"] = encoder
    np.savez_compressed(path, **flat)  # type: ignore[arg-type]
    config_path = model_dir / CONFIG_NAME
    raw = json.loads(config_path.read_text(encoding="utf-8"))
    raw["growth_trees"] = {"file": FILE_NAME, "preprocess": PREPROCESS, "features": list(feature_names()),
                           "metrics": list(models), "bags": bags, "reference_n": reference_n, **about}
    if encoder is not None:
        raw["growth_trees"].update(encoder=int(encoder[1].shape[0]), estimates=list(ESTIMATES))
    raw.setdefault("files", {})[FILE_NAME] = sha256_file(path)
    config_path.write_text(json.dumps(raw, indent=2) + "\n", encoding="utf-8")
    return path


def check(model_dir: Path, models: dict, x: np.ndarray) -> float:
    """Largest |numpy trees - scikit-learn| over rows `x`, every bag (0.0 expected)."""
    raw = json.loads((model_dir / CONFIG_NAME).read_text())
    trees = GrowthTrees(model_dir, GrowthSpec.parse(raw["growth_trees"])).trees
    return max(float(np.max(np.abs(trees.predict(x, bag_name(m, k)) - model.predict(x))))
               for m, ms in models.items() for k, model in enumerate(ms))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.learning.growth_trees", description=__doc__.split("\n")[0])
    p.add_argument("model_dir", nargs="?")
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--bags", type=int, default=16)
    p.add_argument("--reference-n", type=int, default=REFERENCE_N)
    p.add_argument("--encoder", type=int, default=0, metavar="K",
                   help="also read the encoder's mean state on K principal axes and the model's estimates (0: no)")
    p.add_argument("--encoder-cache", type=Path, help="an .npz of the training programs' states and estimates")
    a = p.parse_args(argv)
    if not a.model_dir:
        p.error("give the model directory to write the trees into")
    rows, x = table(a.data)
    encoder = None
    if a.encoder:
        from training.measuring import build_dataset as bd
        code = {q.key: q.code for pr in bd.problems().values() for q in pr.programs}
        pooled, est = encoder_view(Path(a.model_dir), rows, code, a.encoder_cache)
        x, mean, axes = with_encoder(x, pooled, est, a.encoder)
        encoder = (mean, axes)
    models = {m: fit_bags(rows, x, m, a.bags) for m in METRICS}
    n = {m: sum(r.get(m) is not None for r in rows) for m in METRICS}
    about = {"fitted_on": "training problems: %d programs with a memory exponent, %d with a time exponent"
                          % (n["memory"], n["latency"])}
    path = write(Path(a.model_dir), models, a.bags, a.reference_n, about, encoder)
    worst = check(Path(a.model_dir), models, x[:300])
    print(f"{path}: {path.stat().st_size / 1e3:.0f} kB; numpy against scikit-learn on 300 rows: {worst:.2e}")
    return 0 if worst <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
