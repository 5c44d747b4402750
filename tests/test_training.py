"""Trainer, dataset join, split, preprocessing, metrics and baseline on tiny synthetic data."""

from __future__ import annotations

import ast
import gzip
import json
import random

import pytest

from rlm_lsp.python import preprocess
from training.judging.evaluate import coverage, pairwise_accuracy, score, spearman
from training.learning import augment, dataset

LEETCODE = '''class Solution:
    """Docstring."""

    def twoSum(self, nums: List[int], target: int) -> List[int]:
        # hash map of seen values
        d: dict = {}
        for i, x in enumerate(nums):  # trailing comment
            if target - x in d:
                return [d[target - x], i]
            d[x] = i
            self.helper(x)

    def helper(self, x):
        "bare string"
        return x
'''


# --- preprocess ---------------------------------------------------------------------------------


def test_strip_v1_unwraps_solution_and_drops_surface():
    out = preprocess.apply("strip_v1", LEETCODE)
    assert "class Solution" not in out
    assert "self" not in out
    assert "#" not in out and "Docstring" not in out and "bare string" not in out
    assert "List[int]" not in out and "->" not in out
    assert out.startswith("def twoSum(nums, target):\n")
    assert "helper(x)" in out
    ast.parse(out)
    assert preprocess.apply("strip_v1", out) == out  # idempotent


def test_strip_v1_lone_method_and_script():
    method = "def maxSum(self, nums: list[int]) -> int:\n    return self.best(nums)\n"
    assert preprocess.apply("strip_v1", method) == "def maxSum(nums):\n    return best(nums)\n"
    script = "import sys\n# read\nn = int(input())\nprint(n * 2)\n"
    assert preprocess.apply("strip_v1", script) == "import sys\nn = int(input())\nprint(n * 2)\n"


def test_strip_v1_python2_falls_back_to_text():
    code = (
        "class Solution(object):\n    def f(self, n):\n        # c\n"
        "        print 'x'\n        return self.g(xrange(n))\n"
    )
    out = preprocess.apply("strip_v1", code)
    assert out == "def f(n):\n    print 'x'\n    return g(xrange(n))\n"


def test_preprocess_none_and_unknown():
    assert preprocess.apply("none", LEETCODE) == LEETCODE
    with pytest.raises(ValueError, match="unknown preprocess"):
        preprocess.apply("nope", "x")


def test_augment_rewrites_parse_and_keep_body():
    code = preprocess.apply("strip_v1", LEETCODE)
    rng = random.Random(3)
    seen = set()
    for _ in range(30):
        out = augment.rewrite(code, rng)
        ast.parse(out)
        assert "enumerate(nums)" in out
        seen.add(out)
    assert len(seen) > 3
    assert augment.rewrite("print 'py2'\n", rng) == "print 'py2'\n"


# --- data -------------------------------------------------------------------------------------------


def test_load_examples_joins_by_key_and_merges(tmp_path):
    corpus = tmp_path / "solutions.jsonl.gz"
    with gzip.open(corpus, "wt") as f:
        for i in range(3):
            f.write(json.dumps({"source": "doocs", "path": f"p{i}.py", "language": "python",
                                "problem_id": i, "code": f"def f{i}(): pass\n"}) + "\n")
    data = tmp_path / "rows.jsonl"
    rows = [
        {"key": "doocs:p0.py", "problem_id": 0, "tier": "large", "status": "ok",
         "memory_bytes": 100, "latency_ms": 1.0},
        {"key": "doocs:p0.py", "problem_id": 0, "tier": "large", "status": "ok",
         "memory_bytes": 300, "latency_ms": 3.0},
        {"key": "doocs:p1.py", "problem_id": 1, "tier": "large", "status": "error",
         "memory_bytes": None, "latency_ms": None},
        {"key": "doocs:p2.py", "problem_id": 2, "tier": "examples", "status": "ok",
         "memory_bytes": 5, "latency_ms": 0.1},
        {"key": "doocs:missing.py", "problem_id": 9, "tier": "large", "status": "ok",
         "memory_bytes": 5, "latency_ms": 0.1},
    ]
    data.write_text("\n".join(json.dumps(r) for r in rows) + "\n{\"half-writ")
    ex = dataset.load_examples(str(data), str(corpus), tiers=("large",))
    assert [e.key for e in ex] == ["doocs:p0.py"]
    assert ex[0].values == {"memory": 200, "latency": 2.0}
    assert ex[0].code == "def f0(): pass\n" and ex[0].problem_id == "0"
    both = dataset.load_examples(str(data), str(corpus), tiers=("large", "examples"))
    assert len(both) == 2


def test_split_is_by_problem_and_stable():
    examples = dataset.synthetic_examples(300, problems=40)
    train, val = dataset.split_by_problem(examples, 0.2)
    assert train and val
    assert not {e.problem_id for e in train} & {e.problem_id for e in val}
    assert dataset.split_by_problem(examples, 0.2)[1] == val


# --- metrics ----------------------------------------------------------------------------------------


def test_pairwise_accuracy_counts_only_2x_pairs_within_problem():
    pids = ["a", "a", "a", "b"]
    true = [1.0, 1.5, 4.0, 100.0]
    pred = [1.0, 9.0, 2.0, 0.0]
    # pairs with >= 2x inside problem a: (0,2) right, (1,2) wrong; b alone; cross-problem ignored
    acc, n = pairwise_accuracy(pids, true, pred)
    assert n == 2 and acc == 0.5
    acc, n = pairwise_accuracy(["a", "a"], [1.0, 4.0], [3.0, 3.0])
    assert (acc, n) == (0.5, 1)  # a tie counts half


def test_spearman_coverage_and_score():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3], [5, 5, 5]) == 0.0
    assert coverage([1, 5], [0, 6], [2, 7]) == 0.5
    ex = dataset.synthetic_examples(9)
    preds = {"memory": {"value": [e.values["memory"] for e in ex]}}
    rep = score(ex, preds)
    assert rep["memory"]["spearman"] == pytest.approx(1.0) and "latency" not in rep


def test_baseline_fits_synthetic():
    from training.judging import baseline

    examples = dataset.synthetic_examples(120)
    train, val = dataset.split_by_problem(examples, 0.3)
    preds = baseline.fit_predict(train, val, max_iter=10)
    rep = score(val, preds["gbm"])
    assert rep["memory"]["n"] == len(val)
    assert len(baseline.features("x = 1\n")) == len(baseline.FEATURE_NAMES)


# --- trainer ------------------------------------------------------------------------------------------


def test_train_tiny_end_to_end_and_resume(tmp_path):
    import numpy as np

    from training.judging.evaluate import decode_values, encode_inputs, evaluate_dir
    from training.learning import train
    from training.learning.rlm_model import load_checkpoint

    out = tmp_path / "run"
    common = ["--synthetic", "48", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8",
              "--eval-every", "3", "--out", str(out), "--no-progress", "--eval-max", "16"]
    best = train.train(common + ["--max-steps", "4", "--epochs", "1"])
    for name in ("config.json", "model.safetensors", "tokenizer.json", "rlm_meta.json",
                 "tokenizer_config.json", "special_tokens_map.json"):
        assert (best / name).exists(), name
    meta = json.loads((best / "rlm_meta.json").read_text())
    assert [m["name"] for m in meta["metrics"]] == ["memory", "latency"]
    for key in ("input_template", "max_input_tokens", "languages", "preprocess", "training_data"):
        assert key in meta
    assert meta["preprocess"] == "strip_v1"
    assert (out / "last" / train.STATE_FILE).exists()

    # resume continues from the saved step instead of starting over
    train.train(common + ["--max-steps", "6", "--epochs", "1", "--resume"])
    log = [json.loads(line) for line in (out / "train_log.jsonl").read_text().splitlines()]
    assert log[-1]["step"] == 6 and log[0]["step"] == 3

    # a second phase starts from the weights, with its own optimiser and schedule
    phase2 = train.train([*common[:10], "--out", str(tmp_path / "p2"), "--no-progress",
                          "--init-from", str(best), "--max-steps", "2", "--epochs", "1"])
    assert (phase2 / "tokenizer.json").read_text() == (best / "tokenizer.json").read_text()

    model, tok, meta = load_checkpoint(best)
    ids = encode_inputs(tok, meta, ["def f(n):\n    return [0] * n\n"], ["memory", "latency"])
    vals = decode_values(model, tok, ids, 2, samples=3)
    assert vals.shape == (1, 3, 2) and np.isfinite(vals).all()

    from transformers import AutoTokenizer

    fast = AutoTokenizer.from_pretrained(str(best))
    assert fast("x = 1")["input_ids"] == tok.encode("x = 1").ids

    rep = evaluate_dir(str(best), dataset.synthetic_examples(12), samples=2)
    assert set(rep) == {"greedy", "sampled"} and "coverage" in rep["sampled"]["memory"]


def test_aux_tiers_are_extra_tasks_named_apart_and_never_validated(tmp_path):
    """--aux-tiers examples: training problems' examples-tier rows join training under the names
    memory@examples / latency@examples; validation keeps the main tier only; the regression head
    reads main-tier values only."""
    import torch

    from training.learning import train
    from training.learning.rlm_model import train_tokenizer

    corpus, data = tmp_path / "solutions.jsonl.gz", tmp_path / "rows.jsonl"
    with gzip.open(corpus, "wt") as f:
        for i in range(40):
            f.write(json.dumps({"source": "doocs", "path": f"p{i}.py", "language": "python",
                                "problem_id": i, "code": f"def f{i}(n):\n    return [0] * n\n"}) + "\n")
    with data.open("w") as f:
        for i in range(40):
            for tier, mem in (("large", 10_000 + i), ("examples", 100 + i)):
                f.write(json.dumps({"key": f"doocs:p{i}.py", "problem_id": i, "tier": tier, "status": "ok",
                                    "memory_bytes": mem, "latency_ms": 1.0}) + "\n")
    args = train.parse_args(["--data", str(data), "--corpus", str(corpus), "--val-fraction", "0.3",
                             "--aux-tiers", "examples", "--augment", "0"])
    tr, val = train._load_data(args)
    val_problems = {e.problem_id for e in val}
    assert val and {e.tier for e in val} == {"large"}
    assert {e.tier for e in tr} == {"large", "examples"}
    assert not val_problems & {e.problem_id for e in tr}  # neither tier of a validation problem trains
    assert len(tr) == 2 * (40 - len(val_problems))

    tok = train_tokenizer([e.code for e in tr], vocab_size=300)
    items = train.encode_examples(tok, tr, ["memory", "latency"], args, train=True, rng=random.Random(0))
    for item in items:
        text = tok.decode(item.variants[(("memory", "latency"), False)], skip_special_tokens=False)
        named = "memory@examples latency@examples" in text
        assert named == (item.example.tier == "examples"), text

    stats = train._log_stats([e for e in tr if e.tier == "large"], ["memory"])
    target, known = train._aux_targets(tr, ["memory"], stats, torch.device("cpu"), skip_tiers={"examples"})
    assert [bool(k) for k in known[:, 0]] == [e.tier == "large" for e in tr]


def test_shortcut_probe_reads_the_exponent_distribution(tiny_checkpoint, capsys):
    """`python -m training.learning.shortcut`: teacher-forced, true or fixed mantissa, one Spearman per metric."""
    import re

    from training.learning import shortcut

    for fixed in ([], ["--fixed"]):
        assert shortcut.main([str(tiny_checkpoint), "--synthetic", "24", "--rows", "24", *fixed]) == 0
        out = capsys.readouterr().out
        kind = "fixed" if fixed else "true"
        for metric in ("memory", "latency"):
            m = re.search(rf"{metric}: Spearman\(expected exponent, measured\) = (-?\d\.\d+|nan) \({kind} mantissa, (\d+) rows\)", out)
            assert m, out
            assert int(m.group(2)) > 0


def test_targets_and_export_follow_the_checkpoints_number_format(tiny_checkpoint):
    from tokenizers import Tokenizer

    from rlm_lsp.runtime import numbers
    from training.learning.rlm_model import target_ids

    tok = Tokenizer.from_file(str(tiny_checkpoint / "tokenizer.json"))
    p10, p10e = target_ids(tok, [0.25, None]), target_ids(tok, [0.25, None], numbers.P10E)
    names = [tok.id_to_token(i) for i in p10e[:6]]
    assert names == ["<+>", "<E-1>", "<2>", "<5>", "<0>", "<0>"]
    assert sorted(p10[:6]) == sorted(p10e[:6]) and p10e[6:] == [-100] * 6
    assert numbers.format_of({}) == numbers.P10  # checkpoints from before P10E
    fixed = target_ids(tok, [0.25, 1.5], numbers.P10, [numbers.Grammar(), numbers.Grammar(False, True)])  # a growth as ±d.ddd
    assert fixed[:6] == p10[:6]
    assert [tok.id_to_token(i) for i in fixed[6:]] == ["<+>", "<1>", "<5>", "<0>", "<0>", "<E0>"]
    assert numbers.format_of({"number_format": numbers.P10E.config()}) == numbers.P10E


def test_train_exponent_first_and_a_second_phase_keeps_it(tmp_path):
    from training.learning import train

    common = ["--synthetic", "32", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8",
              "--eval-every", "2", "--no-progress", "--eval-max", "8", "--epochs", "1", "--max-steps", "2"]
    first = train.train(common + ["--out", str(tmp_path / "e"), "--number-format", "P10E"])
    assert json.loads((first / "rlm_meta.json").read_text())["number_format"]["exponent_first"] is True
    # --init-from continues in the checkpoint's order, whatever the flag says
    second = train.train(common + ["--out", str(tmp_path / "e2"), "--init-from", str(first), "--number-format", "P10"])
    assert json.loads((second / "rlm_meta.json").read_text())["number_format"]["exponent_first"] is True


def test_neutral_rewrites_keep_what_the_program_computes():
    import random

    from training.learning import augment

    code = ("def f(xs, k):\n    a = 1\n    b = 2\n    total = 0\n    for x in xs:\n        total += 1\n"
            "        total = total + x * a + b\n    return total * k\n")
    changed = 0
    for seed in range(40):
        out = augment.neutral(code, random.Random(seed))
        ns_a, ns_b = {}, {}
        exec(code, ns_a)
        exec(out, ns_b)
        assert ns_a["f"]([3, 4, 5], 2) == ns_b["f"]([3, 4, 5], 2)
        changed += out != code
    assert changed >= 30
    kinds = {k for k in augment.NEUTRAL if augment.neutral(code, random.Random(0), kinds=(k,)) != code}
    assert kinds == set(augment.NEUTRAL)


def test_build_dataset_never_imports_dataset_stats():
    """One way: the statistics read the builder's files; the builder does not import the statistics."""
    from pathlib import Path

    import training

    tree = ast.parse((Path(training.__file__).parent / "measuring" / "build_dataset.py").read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {f"{n.module}.{a.name}" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for a in n.names}
    assert not [m for m in imported if "dataset_stats" in m]


def test_experiments_have_a_main_and_run_nothing_at_import():
    """experiments/*.py: a main(argv) each; the module body is imports, definitions, constants and
    the `if __name__ == "__main__"` guard only (a read of the source: importing one needs its data)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "experiments"
    scripts = sorted(p for p in root.glob("*.py") if p.name != "__init__.py")
    assert scripts
    inert = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef)
    for path in scripts:
        tree = ast.parse(path.read_text())
        assert any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body), path.name
        for node in tree.body:
            if isinstance(node, inert) or (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
                continue
            if isinstance(node, ast.If):  # only the main guard
                assert ast.unparse(node.test) in ("__name__ == '__main__'", '__name__ == "__main__"'), path.name
                continue
            assert isinstance(node, (ast.Assign, ast.AnnAssign)), f"{path.name}:{node.lineno} runs at import"
            value = node.value
            calls = [c for c in ast.walk(value) if isinstance(c, ast.Call)] if value is not None else []
            # constants, and cheap constructors of constants (Path("..."), set literal, dict(...))
            assert all(ast.unparse(c.func) in ("Path", "set", "frozenset", "dict", "tuple", "list", "re.compile")
                       for c in calls), f"{path.name}:{node.lineno} calls at import: {ast.unparse(value)[:60]}"


def test_validation_rows_are_cut_as_the_runtime_cuts_them():
    """Training rows too long for --max-input-tokens keep their start; validation rows are read by
    head and tail (rlm_lsp.runtime.predictor.head_and_tail), as the runtime reads them."""
    from rlm_lsp.runtime.predictor import ELISION, head_and_tail
    from training.learning import train
    from training.learning.rlm_model import train_tokenizer

    examples = dataset.synthetic_examples(4)
    args = train.parse_args(["--augment", "0", "--max-input-tokens", "24"])
    tok = train_tokenizer([e.code for e in examples] * 5, vocab_size=300)
    key = (("memory", "latency"), False)
    full = train.encode_examples(tok, examples, ["memory", "latency"], args.__class__(**{**vars(args), "max_input_tokens": 10**6}),
                                 train=False, rng=random.Random(0))
    cut_train = train.encode_examples(tok, examples, ["memory", "latency"], args, train=True, rng=random.Random(0))
    cut_val = train.encode_examples(tok, examples, ["memory", "latency"], args, train=False, rng=random.Random(0))
    marker = tok.encode(ELISION, add_special_tokens=False).ids
    for f, t, v in zip(full, cut_train, cut_val):
        ids = f.variants[key]
        assert len(ids) > 24
        assert t.variants[key] == ids[:23] + [ids[-1]]  # the start, then </s>
        assert v.variants[key] == head_and_tail(ids, 24, marker) != t.variants[key]


def test_symmetric_kl_is_zero_for_equal_logits_and_ignores_unlabelled_positions():
    import torch

    from rlm_lsp.runtime import numbers
    from training.learning.train import symmetric_kl

    groups = [torch.arange(4) for _ in range(numbers.TOKENS_PER_NUMBER)]
    weights = torch.ones(numbers.TOKENS_PER_NUMBER)
    a = torch.randn(3, numbers.TOKENS_PER_NUMBER, 6)
    labels = torch.zeros(3, numbers.TOKENS_PER_NUMBER, dtype=torch.long)
    assert symmetric_kl(a, a.clone(), labels, weights, groups).item() == 0.0
    b = a.clone()
    b[1, 2, :4] = torch.tensor([5.0, -5.0, 0.0, 0.0])
    kl = symmetric_kl(a, b, labels, weights, groups).item()
    assert kl > 0 and symmetric_kl(b, a, labels, weights, groups).item() == pytest.approx(kl)
    labels[1, 2] = -100  # the one position that differs is unlabelled: nothing to compare
    assert symmetric_kl(a, b, labels, weights, groups).item() == pytest.approx(0.0, abs=1e-7)
    # columns outside the allowed tokens do not count
    c = a.clone()
    c[:, :, 4:] += 9.0
    assert symmetric_kl(a, c, torch.zeros_like(labels), weights, groups).item() == pytest.approx(0.0, abs=1e-6)


def _rows_seen_by(monkeypatch, module, name: str) -> list[tuple[int, int]]:
    """Wrap the loss `module.name(a, b, labels, weights, groups)`: the list it returns fills with
    the rows of a and b at each call."""
    seen: list[tuple[int, int]] = []
    real = getattr(module, name)

    def spy(a, b, *rest):
        seen.append((a.shape[0], b.shape[0]))
        return real(a, b, *rest)

    monkeypatch.setattr(module, name, spy)
    return seen


def test_consistency_loss_pairs_the_rows_that_drew_their_rewrite(tmp_path, monkeypatch):
    from training.learning import train

    seen = _rows_seen_by(monkeypatch, train, "symmetric_kl")
    common = ["--synthetic", "32", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8",
              "--eval-every", "2", "--no-progress", "--eval-max", "8", "--epochs", "1", "--max-steps", "2",
              "--augment", "1.0", "--neutral", "0.8", "--preprocess", "canon_v1"]
    best = train.train(common + ["--out", str(tmp_path / "k"), "--consistency", "1.0"])
    assert json.loads((best / "rlm_meta.json").read_text())["train_args"]["consistency"] == 1.0
    # --augment 1.0: every row with a rewrite draws it, and each is paired with its plain program
    assert len(seen) == 2 and all(0 < a == b <= 8 for a, b in seen)
    seen.clear()
    train.train(common + ["--out", str(tmp_path / "n"), "--augment", "0"])  # no rewrites: never called
    assert seen == []


def test_distill_kl_is_zero_for_the_teachers_own_logits_and_one_directional():
    import torch

    from rlm_lsp.runtime import numbers
    from training.learning.train import distill_kl

    groups = [torch.arange(4) for _ in range(numbers.TOKENS_PER_NUMBER)]
    weights = torch.ones(numbers.TOKENS_PER_NUMBER)
    teacher = torch.randn(3, numbers.TOKENS_PER_NUMBER, 6)
    labels = torch.zeros(3, numbers.TOKENS_PER_NUMBER, dtype=torch.long)
    assert distill_kl(teacher.clone(), teacher, labels, weights, groups).item() == pytest.approx(0.0, abs=1e-7)
    student = teacher.clone()
    student[0, 1, :4] = torch.tensor([4.0, -4.0, 0.0, 1.0])
    kl = distill_kl(student, teacher, labels, weights, groups).item()
    assert kl > 0 and distill_kl(teacher, student, labels, weights, groups).item() != pytest.approx(kl)
    labels[0, 1] = -100  # the position that differs is unlabelled
    assert distill_kl(student, teacher, labels, weights, groups).item() == pytest.approx(0.0, abs=1e-7)


def test_distillation_reads_the_plain_rows_the_teachers_way(tmp_path, monkeypatch):
    """A real-name teacher (strip_v1) for a canonical-name student (canon_v1): the teacher reads
    each plain row with its own preprocess, and only plain rows with every metric are pulled."""
    from training.learning import train

    common = ["--synthetic", "32", "--size", "tiny", "--vocab-size", "400", "--batch-size", "8",
              "--eval-every", "2", "--no-progress", "--eval-max", "8", "--epochs", "1", "--max-steps", "2"]
    teacher = train.train(common + ["--out", str(tmp_path / "t"), "--preprocess", "strip_v1"])
    seen = _rows_seen_by(monkeypatch, train, "distill_kl")
    texts = []
    from rlm_lsp.python import preprocess as pre
    real_apply = pre.apply

    def record(name, code):
        out = real_apply(name, code)
        if name == "strip_v1":
            texts.append(out)
        return out

    monkeypatch.setattr(pre, "apply", record)
    best = train.train(common + ["--out", str(tmp_path / "s"), "--preprocess", "canon_v1", "--init-from",
                                 str(teacher), "--distill-from", str(teacher), "--augment", "0", "--subset-prob", "0"])
    assert json.loads((best / "rlm_meta.json").read_text())["train_args"]["distill_from"] == str(teacher)
    assert texts  # the teacher's inputs were made with its own preprocess
    # no rewrites, no subsets: every row of both steps is pulled towards the teacher
    assert len(seen) == 2 and all(0 < a == b <= 8 for a, b in seen)
