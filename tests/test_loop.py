"""The one training loop (training/learning/loop.py) and the runtime decoder driven by torch (training/learning/decoding.py)."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.learning import decoding  # noqa: E402
from training.learning.loop import Cosine, Evaluation, Loop, LoopConfig, TaskBase  # noqa: E402

CODES = [
    "def f(n):\n    return [0] * n\n",
    "def g(xs):\n    total = 0\n    for x in xs:\n        total += x * x\n    return total\n",
    "def h(s):\n    return sorted(set(s.split()))\n",
]


# --- schedule ----------------------------------------------------------------------------------


@pytest.mark.parametrize("total,warmup,min_ratio", [(100, 0.05, 0.05), (37, 0.1, 0.0), (940, 0.05, 0.05)])
def test_cosine_is_transformers_schedule_with_warmup_counted_from_one(total, warmup, min_ratio):
    from transformers import get_cosine_with_min_lr_schedule_with_warmup

    warm = max(1, int(total * warmup))
    opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
    hf = get_cosine_with_min_lr_schedule_with_warmup(opt, warm, total, min_lr_rate=min_ratio)
    reference = [hf.lr_lambdas[0](s) for s in range(total + 1)]
    ours = Cosine(total, warmup, min_ratio)
    for s in range(total + 1):
        # warm-up step s is transformers' step s + 1 (the first step already learns), then equal
        assert ours(s) == reference[s + 1 if s < warm else s], s
    assert ours(0) == 1 / warm and ours(total) == pytest.approx(min_ratio)


def test_cosine_over_the_clock():
    sched = Cosine(0, 0.1, 0.05, budget_s=100.0)
    sched.elapsed_s = 5.0
    assert sched(0) == pytest.approx(0.5)  # half way through the warm-up
    sched.elapsed_s = 10.0
    assert sched(123) == pytest.approx(1.0)
    sched.elapsed_s = 200.0
    assert sched(0) == pytest.approx(0.05)


# --- the loop on a toy task --------------------------------------------------------------------


class ToyTask(TaskBase):
    """y = 3x + 1 with dropout (torch RNG) and a python-RNG batch draw: both must survive a resume."""

    def __init__(self, seed=0):
        torch.manual_seed(seed)
        self.model = torch.nn.Sequential(torch.nn.Linear(1, 8), torch.nn.Dropout(0.2), torch.nn.Linear(8, 1))
        self.rng = random.Random(seed)
        self.x = torch.linspace(-1, 1, 64)[:, None]
        self.losses: list[float] = []
        self.saved: list[tuple[str, int]] = []

    def parameters(self):
        return list(self.model.parameters())

    def epoch_batches(self, epoch):
        return [None] * 8

    def loss(self, batch):
        idx = torch.tensor([self.rng.randrange(64) for _ in range(16)])
        x = self.x[idx]
        loss = ((self.model(x) - (3 * x + 1)) ** 2).mean()
        self.losses.append(loss.item())
        return loss

    def evaluate(self):
        with torch.no_grad():
            err = float(((self.model.eval()(self.x) - (3 * self.x + 1)) ** 2).mean())
        self.model.train()
        return Evaluation(key=(-err,), record={"err": err}, line=f"err {err:.4f}")

    def save(self, path, validation, info):
        path.mkdir(parents=True, exist_ok=True)
        torch.save(self.model.state_dict(), path / "model.pt")
        self.saved.append((path.name, info["step"]))

    def state_dict(self):
        return {"rng": self.rng.getstate()}

    def load_state_dict(self, state):
        self.rng.setstate(state["rng"])


def _config(out, **kw):
    return LoopConfig(out=out, lr=0.05, schedule_steps=20, epochs=10, steps_per_epoch=8, eval_every=5,
                      progress=False, **kw)


def test_resume_continues_optimizer_scheduler_and_rng_exactly(tmp_path):
    whole = ToyTask()
    Loop(whole, _config(tmp_path / "a")).run()
    assert len(whole.losses) == 20

    first = ToyTask()
    Loop(first, _config(tmp_path / "b", max_steps=12)).run()  # stops mid-epoch, mid-schedule
    second = ToyTask(seed=99)  # a fresh process: the state file must supply everything
    second.model.load_state_dict(torch.load(tmp_path / "b" / "last" / "model.pt"))
    loop = Loop(second, _config(tmp_path / "b", resume=True))
    assert loop.step == 12 and loop.opt.param_groups[0]["lr"] == pytest.approx(0.05 * loop.schedule(12))
    loop.run()
    assert first.losses + second.losses == pytest.approx(whole.losses, abs=1e-7)
    for name, p in whole.model.state_dict().items():
        assert torch.allclose(p, second.model.state_dict()[name], atol=1e-7), name
    log = [json.loads(line) for line in (tmp_path / "b" / "train_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [5, 10, 12, 15, 20]


def test_patience_best_and_last(tmp_path):
    task = ToyTask()
    task.evaluate = lambda: Evaluation(key=(0.0,), record={}, line="")  # never improves after the first
    loop = Loop(task, _config(tmp_path, patience=2))
    loop.run()
    assert loop.step == 15 and loop.stop_reason == "patience"
    assert ("best", 5) in task.saved and ("best", 10) not in task.saved and ("last", 15) in task.saved


def test_progress_bar_is_quiet_off_a_terminal(tmp_path, capsys):
    Loop(ToyTask(), LoopConfig(out=tmp_path, lr=0.05, schedule_steps=5, epochs=1, progress=True)).run()
    err = capsys.readouterr().err
    assert "it/s" not in err and "s/it" not in err and "%|" not in err


def test_progress_bar_on_a_terminal_shows_steps_or_the_clock(tmp_path, monkeypatch):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    # by steps: n/5 it; on the clock (no step limit): seconds of the 1-second budget, in s/s
    for name, kw, shown in (("steps", {"schedule_steps": 5}, ("5/5 [", "it/s")),
                            ("clock", {"max_minutes": 1 / 60}, ("/1 [", "s/s"))):
        term = Terminal()
        monkeypatch.setattr(sys, "stderr", term)
        Loop(ToyTask(), LoopConfig(out=tmp_path / name, lr=0.05, epochs=1, steps_per_epoch=8, **kw)).run()
        assert all(part in term.getvalue() for part in shown), term.getvalue()[-300:]


# --- the runtime's decoder, driven by torch -----------------------------------------------------


def test_shared_uniforms_are_the_predictors(tiny_model_dir_fp32):
    from rlm_lsp import Predictor

    pred = Predictor.from_dir(tiny_model_dir_fp32, samples=16, device="cpu", seed=3)
    assert np.array_equal(decoding.shared_uniforms(16, len(pred.allowed_ids), seed=3), pred._shared_uniforms())


@pytest.mark.parametrize("samples", [1, 16])
def test_torch_step_decode_matches_the_onnx_runtime(tiny_checkpoint, tiny_model_dir_fp32, samples):
    """The same tokens from the checkpoint (torch step function) and its export (ONNX), for the
    same uniforms: greedy, and 16 shared stratified draws."""
    from rlm_lsp import Predictor
    from rlm_lsp.runtime import numbers
    from training.learning.rlm_model import load_checkpoint

    model, tok, meta = load_checkpoint(tiny_checkpoint)
    pred = Predictor.from_dir(tiny_model_dir_fp32, samples=samples, device="cpu", cache_size=0)
    ids = [pred.token_ids(c) for c in CODES]
    ours, smooth = decoding.sample_values(model, tok, ids, decoding.grammars_of(meta), samples,
                                          numbers.format_of(meta), smooth=True)
    theirs = pred.sample_values(CODES)  # (codes, samples, metrics)
    assert ours.shape == theirs.shape == (len(CODES), samples, len(meta["metrics"]))
    np.testing.assert_array_equal(ours, theirs)
    assert (ours > 0).all()  # non-negative metrics never take the <-> sign
    if samples > 1:  # and the point estimate is the runtime's, for the model's configured kind
        rows = pred.predict(CODES)
        point = decoding.point_values(ours, pred.config.point_estimate, smooth=smooth)
        for i, row in enumerate(rows):
            for k, m in enumerate(pred.config.metric_names):
                # the smoothed samples take the decoder's probabilities, which torch and onnxruntime
                # compute to within float error
                assert row[m].value == pytest.approx(point[i, k], rel=1e-4)
                np.testing.assert_allclose(row[m].smooth_samples, smooth[i, :, k], rtol=1e-4)


def test_a_long_input_is_read_as_the_runtime_reads_it(tiny_checkpoint, tiny_model_dir_fp32):
    """predict_checkpoint's inputs: a function longer than max_input_tokens is cut by head and tail
    (rlm_lsp.runtime.predictor.head_and_tail), so the torch decode gives the runtime's samples for it too."""
    from rlm_lsp import Predictor
    from rlm_lsp.runtime import numbers
    from training.judging.evaluate import encode_inputs
    from training.learning.rlm_model import load_checkpoint

    model, tok, meta = load_checkpoint(tiny_checkpoint)
    long_code = "def f(n):\n" + "".join(f"    x{i} = [{i}] * n\n" for i in range(120)) + "    return x0\n"
    pred = Predictor.from_dir(tiny_model_dir_fp32, samples=4, device="cpu", cache_size=0)
    assert pred.read_limit(long_code) is not None  # it is too long
    names = [m["name"] for m in meta["metrics"]]
    ids = encode_inputs(tok, meta, [long_code], names, as_runtime=True)
    assert len(ids[0]) == meta["max_input_tokens"]
    ours = decoding.sample_values(model, tok, ids, decoding.grammars_of(meta), 4, numbers.format_of(meta))
    np.testing.assert_array_equal(ours, pred.sample_values([long_code]))

