"""Session 42: time-v9's development, leave one repository out over the ten spent repositories
(growth-dev, growth-fresh 1-5). Ways beside time-v7's (`agree`): where the trees overrule the
analyzer, the probability-weighted mean of the bucket centres instead of the likeliest centre
(`agree_soft`), or that mean everywhere the reading is not sure and agreeing (`soft_blend`).

    python experiments/time8/table.py OUT.jsonl (with fresh-5 added) ; python experiments/time8/learn9.py OUT.jsonl
"""
import importlib.util
import sys

import numpy as np

_spec = importlib.util.spec_from_file_location("learn7", "/work/main/experiments/time7/learn.py")
learn7 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(learn7)
score = learn7.score


def stands(r, p, tau) -> bool:
    """time-v7's rule: the analyzer's reading stands (sure and agreeing with the nest, or trusted)."""
    a = learn7.an(r)
    return bool(r["sure"] and r["nest"] and score.bucket(a) == score.bucket(r["nest"])) or p[score.bucket(a)] >= tau


def agree_soft(r, p, tau):
    return learn7.an(r) if stands(r, p, tau) else float(np.dot(p, learn7.CENTRE))


def soft_mix(r, p, tau):
    """The analyzer where it stands (as agree), else the mean of its exponent and the soft centre."""
    a = learn7.an(r)
    return a if stands(r, p, tau) else (a + float(np.dot(p, learn7.CENTRE))) / 2


if __name__ == "__main__":
    learn7.main(sys.argv[1], taus=(0.3, 0.4), kinds=("ship",),
                ways={"agree": learn7.agreed, "agree_soft": agree_soft, "soft_mix": soft_mix})
