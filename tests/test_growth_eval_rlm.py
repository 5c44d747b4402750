"""`training.judging.growth_eval` on a model whose RLM predicts growth itself and reads n (issue 48)."""

import gzip
import json
from types import SimpleNamespace

from tests.conftest import TOKENIZER_TEXTS
from training.learning.dataset import is_validation

CODES = ("def f(xs):\n    return sum(xs)\n", "def g(xs):\n    return [a * b for a in xs for b in xs]\n",
         "def h(xs):\n    return xs[0]\n")


def _rlm_growth_model(tmp_path):
    """A tiny random model with memory, latency and their _growth, and a template that reads n."""
    import torch

    from rlm_lsp.export.cli import export
    from rlm_lsp.runtime.template import CURVE_TEMPLATE
    from training.judging.shaped_examples import V4_METRICS
    from training.learning import rlm_model

    torch.manual_seed(0)
    tok = rlm_model.train_tokenizer(TOKENIZER_TEXTS * 20, vocab_size=400)
    meta = rlm_model.default_meta(list(V4_METRICS), max_input_tokens=256, model_version="tiny-n",
                                  input_template=CURVE_TEMPLATE, reference_n=10_000)
    ckpt = rlm_model.save_checkpoint(rlm_model.build_model(tok, "tiny"), tok, tmp_path / "ckpt", meta)
    export(ckpt, tmp_path / "model", int8=False)
    return tmp_path / "model"


def _data(tmp_path):
    """Curves of three programs for each of 30 problems (validation ones among them)."""
    data = tmp_path / "data"
    data.mkdir()
    growth, rows, problems = [], [], {}
    for pid in range(1, 31):
        programs = []
        for i, code in enumerate(CODES):
            key = f"doocs:p{pid}/{i}.py"
            programs.append(SimpleNamespace(key=key, code=code))
            growth.append({"key": key, "problem_id": pid, "memory_exponent": float(i), "time_exponent": float(i)})
            rows += [{"key": key, "status": "ok", "input_size": n, "memory_bytes": 1e3 * n ** i,
                      "latency_ms": 1e-3 * n ** i} for n in (100, 1000, 10_000)]
        problems[pid] = SimpleNamespace(programs=programs)
    for name, items in (("leetcode_curves.growth.jsonl.gz", growth), ("leetcode_curves.jsonl.gz", rows)):
        with gzip.open(data / name, "wt") as f:
            f.writelines(json.dumps(r) + "\n" for r in items)
    return data, problems


def test_growth_eval_judges_a_model_whose_rlm_predicts_growth_and_reads_n(tmp_path, monkeypatch):
    from rlm_lsp.runtime.predictor import Predictor
    from training.judging import growth_eval
    from training.measuring import build_dataset

    model = _rlm_growth_model(tmp_path)
    data, problems = _data(tmp_path)
    monkeypatch.setattr(build_dataset, "problems", lambda: problems)
    asked = []
    real = Predictor.predict

    def spy(self, codes, *args, context=None, **kw):
        asked.append((context or {}).get("n"))
        return real(self, codes, *args, context=context, **kw)

    monkeypatch.setattr(Predictor, "predict", spy)
    out = tmp_path / "report.json"
    assert growth_eval.main([str(model), "--data", str(data), "--bootstrap", "2", "--no-scripts",
                             "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    validation = sum(is_validation(str(pid)) for pid in problems)
    assert validation  # the split holds some of the 30 problems out
    assert report["reads_n"] and report["programs"] == 3 * validation
    assert report["growth/memory/model"]["n"] == report["growth/latency/model"]["n"] == 3 * validation
    assert report["value_at_n/memory"]["rows"] == report["value_at_n/latency"]["rows"] == 9 * validation
    assert {100, 1000} <= set(asked)  # each row's value was asked at its own n


def test_the_measured_exponent_is_the_asymptotic_one(tmp_path):
    """A curve flat at its small sizes and linear at its large ones: its asymptotic exponent (~1) is
    what growth_eval judges against by default; the all-sizes slope (< 1) is the `growth_all` one."""
    from training.judging.growth_eval import asymptotic_targets
    from training.learning.growth_trees import targets
    data = tmp_path / "data"
    data.mkdir()
    sizes = (10, 100, 1000, 10_000, 100_000)
    costs = (5.0, 5.0, 10.0, 100.0, 1000.0)  # ms: flat, then linear
    rows = [{"key": "doocs:a.py", "problem_id": 7, "status": "ok", "input_size": n, "latency_ms": c,
             "memory_bytes": 1000 * n} for n, c in zip(sizes, costs)]
    growth = [{"key": "doocs:a.py", "problem_id": 7, "time_exponent": 0.6, "memory_exponent": 1.0}]
    for name, items in (("leetcode_curves.jsonl.gz", rows), ("leetcode_curves.growth.jsonl.gz", growth),
                        ("leetcode_v2.growth.jsonl.gz", [])):
        with gzip.open(data / name, "wt") as f:
            f.writelines(json.dumps(r) + "\n" for r in items)
    assert targets(data)["doocs:a.py"]["latency"] == 0.6
    got = asymptotic_targets(data)["doocs:a.py"]
    assert abs(got["latency"] - 1.0) < 0.05 and abs(got["memory"] - 1.0) < 0.05
