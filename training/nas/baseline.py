"""Baselines for NAS-Bench-201 latency: gradient-boosted trees on op counts.

    python -m training.nas.baseline --out training/runs/nas/baseline.json [--holdout-device silver_4114]

* per-device GBM on the arch's edge one-hot (6 edges x 5 ops; the whole encoding, a stronger baseline);
* per-device GBM: one HistGradientBoostingRegressor per device on op counts of the graph text
  (ops times repeat counts: rconv3, rconv1, avgpool3, add, mul, ...), log latency target;
* the held-out device: one GBM over all training devices on op counts + the device description numbers
  (the same 10 reference latencies the RLM reads), applied to the unseen device.
Test archs are the same split the RLM uses (`data.split_archs`); scores on all of them, and `_subset` on the
`data.eval_subset` archs the RLM is scored on.
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections import Counter
from pathlib import Path

import numpy as np

from training.nas import data

OPS = ["rconv3", "rconv1", "avgpool3", "add", "mul", "conv3", "conv1", "rconv3/s2", "avgpool2/s2"]


def op_counts(text: str) -> Counter:
    """Op word -> how many times the graph runs it (a `x5{` block counts 5 times); the census line,
    where the text has one (graph text v3), is skipped: it says the same."""
    counts: Counter = Counter()
    mult = 1
    for line in text.splitlines():
        if line.startswith("count "):
            continue
        m = re.fullmatch(r"x(\d+)\{", line)
        if m:
            mult = int(m.group(1))
            continue
        if line == "}":
            mult = 1
            continue
        counts[line.split(":")[0]] += mult
    return counts


def features(text: str) -> list[float]:
    c = op_counts(text)
    return [float(c.get(op, 0)) for op in OPS] + [float(sum(c.values()))]


def arch_onehot(arch: str) -> list[float]:
    """The full NB201 encoding: 6 edges x 5 ops, one-hot (an upper-bound style baseline)."""
    from training.nas.nb201_graph import NB201_OPS, parse_nb201_arch

    out = []
    for edges in parse_nb201_arch(arch):
        for op, _ in edges:
            out += [float(op == o) for o in NB201_OPS]
    return out


def device_features(desc: str) -> list[float]:
    parts = desc.split()
    scale = float(parts[1].split("=")[1])
    return [math.log(scale)] + [float(p) / 100 for p in parts[2:]]


def spearman(a, b) -> float:
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).correlation)


def run(holdout_device: str | None, seed: int = 0, eval_archs: int = 300) -> dict:
    from sklearn.ensemble import HistGradientBoostingRegressor

    archs, lat = data.load_latency()
    texts = data.graph_texts(archs)
    train, _, test = data.split_archs(seed)
    feats = {i: features(texts[i]) for i in archs}
    descs = data.device_descriptions(lat)
    subset = data.eval_subset(test, eval_archs)
    pos = [test.index(i) for i in subset]
    out: dict = {"per_device": {}, "n_test_archs": len(test), "per_device_subset": {}, "n_subset": len(subset)}
    xtr = np.array([feats[i] for i in train])
    xte = np.array([feats[i] for i in test])
    otr = np.array([arch_onehot(archs[i]) for i in train])
    ote = np.array([arch_onehot(archs[i]) for i in test])
    out["per_device_onehot"] = {}
    for dev in sorted(lat):
        y = np.log(np.maximum([lat[dev][i] for i in train], 1e-3))
        truth = [lat[dev][i] for i in test]
        model = HistGradientBoostingRegressor(max_iter=300, random_state=seed).fit(xtr, y)
        pred = model.predict(xte)
        out["per_device"][dev] = spearman(pred, truth)
        out["per_device_subset"][dev] = spearman(pred[pos], [truth[k] for k in pos])
        model = HistGradientBoostingRegressor(max_iter=300, random_state=seed).fit(otr, y)
        out["per_device_onehot"][dev] = spearman(model.predict(ote), truth)
    if holdout_device:
        rng = np.random.default_rng(seed)
        devices = [d for d in sorted(lat) if d != holdout_device]
        rows_x, rows_y = [], []
        for dev in devices:
            pick = rng.choice(train, size=3000, replace=False)
            df = device_features(descs[dev])
            rows_x += [feats[i] + df for i in pick]
            rows_y += [math.log(max(lat[dev][i], 1e-3)) for i in pick]
        model = HistGradientBoostingRegressor(max_iter=300, random_state=seed).fit(np.array(rows_x), rows_y)
        df = device_features(descs[holdout_device])
        pred = model.predict(np.array([feats[i] + df for i in test]))
        truth = [lat[holdout_device][i] for i in test]
        out["holdout"] = {"device": holdout_device, "spearman": spearman(pred, truth),
                          "spearman_subset": spearman(pred[pos], [truth[k] for k in pos])}
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.nas.baseline")
    p.add_argument("--out", type=Path, default=Path("training/runs/nas/baseline.json"))
    p.add_argument("--holdout-device", default="silver_4114")
    args = p.parse_args(argv)
    res = run(args.holdout_device)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps(res, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
