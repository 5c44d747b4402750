"""Session 41, time-v7's criterion 6: time growth on the LeetCode validation problems (never fitted by
the time-class trees), the candidate beside the analyzer alone, always linear and the loop depth,
SDs over 200 bootstrap resamples of problems (session 38's `look2.py` way).

    python experiments/time7/validation.py MODEL_DIR [--json FILE] [--metric memory]
"""
import argparse
import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, "/work/shared/growth-dev/tools")
from experiments.cost.look2 import judge  # noqa: E402
from rlm_lsp.python.cost_front import entry_of, read  # noqa: E402
from rlm_lsp.runtime.cost_growth import of_config  # noqa: E402
from rlm_lsp.runtime.model_dir import ModelConfig  # noqa: E402


def main():
    import score  # growth-dev's tools
    ap = argparse.ArgumentParser()
    ap.add_argument("model_dir", type=Path)
    ap.add_argument("--json")
    ap.add_argument("--metric", choices=("latency", "memory"), default="latency")
    a = ap.parse_args()
    growth = of_config(ModelConfig.load(a.model_dir))
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.dataset import is_validation
    from training.measuring import build_dataset as bd
    code = {p.key: p.code for P in bd.problems().values() for p in P.programs}
    T = asymptotic_targets()
    val = sorted(k for k, t in T.items() if k in code and is_validation(str(t["problem_id"])) and t.get(a.metric) is not None)

    def depth(c):
        try:
            e = entry_of(ast.parse(c), None)
            return score.loop_depth(c, e.name) if e is not None else 1.0
        except Exception:  # noqa: BLE001
            return 1.0

    def candidate(c):
        s = read(c)
        return 1.0 if s is None else growth.exponent(s, a.metric, c)

    def analyzer(c):
        s = read(c)
        return 1.0 if s is None else s.growth(a.metric)

    report = {}
    for name, fn in (("candidate", candidate), ("analyzer", analyzer), ("always_linear", lambda c: 1.0), ("loop_depth", depth)):
        by: dict = {}
        for k in val:
            by.setdefault(T[k]["problem_id"], []).append((T[k][a.metric], fn(code[k])))
        report[name] = judge(list(by.values()))
        print(name, json.dumps(report[name]))
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
