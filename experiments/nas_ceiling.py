"""How much of a device's NAS-Bench-201 latency ranking any model of the architecture can explain.

    python -m experiments.nas_ceiling --devices gold_6240 gold_6226 silver_4210r

For each device: a gradient-boosting model that reads the *measured* latencies of the same arch on
every other HELP device (log ms), fitted on the training archs, scored (Spearman) on all 3,125 test
archs. It knows far more about an arch than its graph, so its figure is a practical ceiling: what
it cannot explain is mostly the device's own measurement noise. Also prints the Spearman between
the device and each other Intel Xeon, on the test archs.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from training.nas import data
from training.nas.baseline import spearman

XEONS = ["gold_6226", "gold_6240", "silver_4114", "silver_4210r"]


def main(argv=None) -> dict:
    from sklearn.ensemble import HistGradientBoostingRegressor

    p = argparse.ArgumentParser(prog="python -m experiments.nas_ceiling")
    p.add_argument("--devices", nargs="+", default=["gold_6240", "gold_6226", "silver_4210r"])
    args = p.parse_args(argv)
    _, lat = data.load_latency()
    train, _, test = data.split_archs()
    out = {}
    for d in args.devices:
        others = [o for o in sorted(lat) if o != d]

        def features(ids, others=others):
            return np.log([[lat[o][i] for o in others] for i in ids])

        model = HistGradientBoostingRegressor(max_iter=400, random_state=0)
        model.fit(features(train), np.log([lat[d][i] for i in train]))
        truth = [lat[d][i] for i in test]
        out[d] = {"other_devices_gbm": round(spearman(model.predict(features(test)), truth), 4),
                  **{f"vs_{x}": round(spearman([lat[x][i] for i in test], truth), 4) for x in XEONS if x != d}}
        print(d, json.dumps(out[d]), flush=True)
    return out


if __name__ == "__main__":
    main()
