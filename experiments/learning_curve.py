"""How the GBM baseline's validation Spearman grows with the number of training problems.

    python -m experiments.learning_curve [--fractions 0.125,0.25,0.5,1] [--seeds 3]

Training problems are subsampled whole (all their programs or none); validation is the usual 774
programs of the validation problems. A cheap proxy for "is more of the same data the lever?": the
RLM itself costs an hour of CPU per point. Session 11 notes.
"""
from __future__ import annotations

import argparse
import json
import random

import numpy as np

from training.judging.baseline import fit_predict
from training.judging.evaluate import score
from training.learning import dataset


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(prog="python -m experiments.learning_curve")
    p.add_argument("--fractions", default="0.125,0.25,0.5,1")
    p.add_argument("--seeds", type=int, default=3)
    args = p.parse_args(argv)
    examples = dataset.load_examples([dataset.DEFAULT_DATA], dataset.DEFAULT_CORPUS, tiers=["large"])
    train, val = dataset.split_by_problem(examples, 0.1)
    problems = sorted({e.problem_id for e in train})
    report = {}
    for frac in (float(f) for f in args.fractions.split(",")):
        rows = []
        for seed in range(args.seeds if frac < 1 else 1):
            keep = set(random.Random(seed).sample(problems, max(1, round(frac * len(problems)))))
            part = [e for e in train if e.problem_id in keep]
            scored = score(val, fit_predict(part, val)["gbm"])
            rows.append([scored[m]["spearman"] for m in dataset.METRIC_NAMES] + [len(part)])
        mem, lat, n = np.mean(rows, axis=0)
        report[frac] = {"programs": int(n), "memory": round(float(mem), 3), "latency": round(float(lat), 3),
                        "seeds": len(rows)}
        print(frac, report[frac], flush=True)
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
