"""One training loop for every RLM trainer: a task says what to learn, the loop how.

    task = MyTask(...)                       # data, model, inputs, loss, scores, checkpoint files
    Loop(task, LoopConfig(out=..., lr=...)).run()

The loop owns what the trainers used to write three times: the device, the AdamW optimiser,
the learning-rate schedule (`Cosine`: linear warm-up, cosine decay to a floor, the factor of
`transformers.get_cosine_with_min_lr_schedule_with_warmup`), gradient clipping, the stopping
rules (`max_steps`, `max_minutes`, `epochs`, `patience`), the time budget (with `size_to_budget`
the schedule is cut to the steps that fit in `max_minutes`, once the speed is measured),
periodic evaluation (every `eval_every` steps, every `eval_every_min` minutes, at each epoch's
end), the checkpoints (`best_dir` when the task's score improves, `last_dir` with the
optimiser, scheduler and RNG state after each evaluation, so `resume` continues a run where it
stopped), the `train_log.jsonl` of evaluations, and a tqdm bar with an ETA that stays quiet
when stderr is not a terminal.

A task (`Task`) brings: the model and the parameters to optimise and clip, the batches of an
epoch, the loss of a batch, an evaluation (a key to maximise and a record to log), how to save
a checkpoint, and any state of its own that a resumed run needs (its random generator, an
auxiliary head).
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

STATE_FILE = "trainer_state.pt"


# --- the schedule ------------------------------------------------------------------------------


def cosine_factor(t: float, warmup: float, total: float, min_ratio: float, unit: float = 1.0) -> float:
    """transformers' cosine-with-warm-up factor (num_cycles 0.5, `min_lr_rate`), over any clock:
    t / warmup while t < warmup, then a half cosine from 1 down to `min_ratio` at t = total.
    `unit`: the smallest denominator (one step; a small fraction when t is a fraction)."""
    if t < warmup:
        return float(t) / float(max(unit, warmup))
    progress = min(1.0, float(t - warmup) / float(max(unit, total - warmup)))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * 0.5 * 2.0 * progress)) * (1 - min_ratio) + min_ratio)


class Cosine:
    """The learning-rate factor at a step: warm-up over the first `warmup` of the schedule, then
    cosine decay to `min_ratio`, over `total_steps` steps, or, with `total_steps=0`, over the
    wall clock (`elapsed_s`, set by the loop) against `budget_s`, for trainers that stop on time
    whatever the speed.

    By steps, the warm-up is `int(total_steps * warmup)` whole steps and warm-up step s counts
    as s + 1 (the first step already learns); after it, the factor is transformers' at step s.
    `fraction=True` runs the same curve on the fraction step / total_steps instead (a warm-up
    of `warmup` of the schedule, not rounded to steps; the NAS trainer's). A callable object,
    so LambdaLR saves `total_steps` with the scheduler (the time budget may have resized it)."""

    def __init__(self, total_steps: int, warmup: float, min_ratio: float, budget_s: float = 0.0,
                 fraction: bool = False):
        self.total_steps = int(total_steps)
        self.warmup = float(warmup)
        self.min_ratio = float(min_ratio)
        self.budget_s = float(budget_s)
        self.fraction = bool(fraction)
        self.elapsed_s = 0.0

    def __call__(self, step: int) -> float:
        if self.total_steps and not self.fraction:
            warm = max(1, int(self.total_steps * self.warmup))
            return cosine_factor(step + 1 if step < warm else step, warm, self.total_steps, self.min_ratio)
        if self.total_steps:
            frac = min(1.0, step / self.total_steps)
        else:
            frac = min(1.0, self.elapsed_s / self.budget_s) if self.budget_s else 0.0
        return cosine_factor(frac, self.warmup, 1.0, self.min_ratio, unit=1e-9)


def lr_factor(step: int, total: int, warmup: float, min_ratio: float) -> float:
    """`Cosine(total, warmup, min_ratio)(step)` (kept for `training.learning.pretrain`)."""
    return Cosine(total, warmup, min_ratio)(step)


def resolve_device(name: str = "auto"):
    """'auto': the GPU when there is one, else the CPU."""
    import torch

    if name != "auto":
        return torch.device(name)
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def setup_device(name: str = "auto", threads: int = 1):
    """The torch device, with the thread count (CPU) or TF32 matmuls (GPU) set."""
    import torch

    device = resolve_device(name)
    if device.type == "cpu":
        torch.set_num_threads(threads)
    else:
        torch.backends.cuda.matmul.allow_tf32 = True
    return device


# --- the task ----------------------------------------------------------------------------------


@dataclass
class Evaluation:
    key: tuple  # larger is better (e.g. (mean Spearman, -validation loss))
    record: dict  # logged to train_log.jsonl and kept with the best
    line: str = ""  # one line for stderr
    validation: dict | None = None  # written into the best checkpoint's meta, if the task wants
    result: dict | None = None  # kept as the best (default: record)


class Task(Protocol):
    def parameters(self) -> list:
        """What AdamW optimises (one parameter group)."""

    def clip_parameters(self) -> list:
        """What the gradient norm is clipped over."""

    def epoch_batches(self, epoch: int) -> Sequence | Iterable:
        """The batches of one epoch; an endless iterator for a task without epochs."""

    def loss(self, batch):
        """The scalar loss tensor of one batch (the loop calls backward)."""

    def after_step(self) -> None:
        """Called after every optimiser step (e.g. a projection of some weights)."""

    def evaluate(self) -> Evaluation | None:
        """Validation; None for a task that has none (then only `last_dir` is written)."""

    def save(self, path: Path, validation: dict | None, info: dict) -> None:
        """Write a checkpoint that the exporter reads. `info`: step, minutes."""

    def state_dict(self) -> dict:
        """The task's own state a resumed run needs (random generators, extra heads)."""

    def load_state_dict(self, state: dict) -> None: ...

    def start_epoch(self, epoch: int, step: int) -> bool:
        """Called before an epoch's batches; True when the validation set changed (the best is reset)."""


class TaskBase:
    """Defaults for the optional parts of `Task`."""

    def clip_parameters(self) -> list:
        return self.parameters()

    def after_step(self) -> None:
        pass

    def evaluate(self) -> Evaluation | None:
        return None

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state: dict) -> None:
        pass

    def start_epoch(self, epoch: int, step: int) -> bool:
        return False


# --- the loop ----------------------------------------------------------------------------------


@dataclass
class LoopConfig:
    out: Path
    lr: float = 1e-3
    weight_decay: float = 0.01
    betas: tuple[float, float] = (0.9, 0.999)
    clip: float = 1.0
    warmup: float = 0.05  # fraction of the schedule
    min_lr_ratio: float = 0.05
    schedule_steps: int = 0  # steps of the schedule; 0: over the clock (max_minutes)
    schedule_fraction: bool = False  # the warm-up as a fraction of the steps, not whole steps (Cosine)
    size_to_budget: bool = False  # with max_minutes: cut schedule_steps to what fits, once timed
    resize: bool = False  # with resume: size the schedule again
    epochs: int = 1  # an endless task (epoch_batches never ends) ignores it
    steps_per_epoch: int = 0  # 0: unknown (endless); the step count of an epoch-end evaluation
    max_steps: int = 0  # 0: no limit (other than schedule_steps)
    stop_at_schedule_end: bool = True
    max_minutes: float = 0.0  # 0: no limit; a resumed run counts the time already spent
    clock_excludes_eval: bool = False  # the schedule's clock and max_minutes leave evaluations out
    eval_every: int = 0  # steps; 0: each epoch's end (and the run's)
    eval_every_min: float = 0.0  # minutes of the clock; 0: off
    eval_at_epoch_end: bool = True
    patience: int | None = None  # evaluations without improvement before stopping; None: never
    save_every: int = 0  # steps between writes of last_dir (besides those after evaluations)
    resume: bool = False
    last_dir: Path | None = None  # default OUT/last
    best_dir: Path | None = None  # default OUT/best
    log_name: str = "train_log.jsonl"
    progress: bool = True  # the tqdm bar (never on a non-terminal)
    desc: str = "train"
    hooks: list = field(default_factory=list)  # callables hook(loop) after each step

    def __post_init__(self):
        self.out = Path(self.out)
        self.last_dir = Path(self.last_dir) if self.last_dir else self.out / "last"
        self.best_dir = Path(self.best_dir) if self.best_dir else self.out / "best"


class Loop:
    def __init__(self, task: Task, config: LoopConfig):
        import torch

        self.task, self.cfg = task, config
        self.opt = torch.optim.AdamW(task.parameters(), lr=config.lr, weight_decay=config.weight_decay,
                                     betas=config.betas)
        total = config.schedule_steps
        self.schedule = Cosine(total, config.warmup, config.min_lr_ratio, config.max_minutes * 60,
                               config.schedule_fraction)
        self.sched = torch.optim.lr_scheduler.LambdaLR(self.opt, self.schedule)
        self.step = self.epoch = self.epoch_start = self.bad_evals = 0
        self.best: dict | None = None
        self.spent = 0.0  # seconds of the run so far (resumed runs included)
        self.paused = 0.0  # seconds of evaluation (left off the clock with clock_excludes_eval)
        self.budget_sized = False
        self.clock_evals = 0  # evaluations due by eval_every_min so far
        self.last_eval_step = -1
        self.last_loss = float("nan")
        self.stop_reason = ""
        self.finished = False  # True once training stopped (the last save is the final one)
        config.out.mkdir(parents=True, exist_ok=True)
        if config.resume and (config.last_dir / STATE_FILE).exists():
            self._load_state(torch.load(config.last_dir / STATE_FILE, map_location="cpu", weights_only=False))

    # -- resume -----------------------------------------------------------------------------

    def state(self) -> dict:
        import numpy as np
        import torch

        state = {**self.task.state_dict(),
                 "optimizer": self.opt.state_dict(), "scheduler": self.sched.state_dict(),
                 "step": self.step, "epoch": self.epoch, "best": self.best, "bad_evals": self.bad_evals,
                 "total": self.schedule.total_steps, "spent_seconds": self.spent, "paused_seconds": self.paused,
                 "budget_sized": self.budget_sized, "epoch_start_step": self.epoch_start,
                 "clock_evals": self.clock_evals,
                 "torch_rng": torch.get_rng_state(), "numpy_rng": np.random.get_state()}
        if torch.cuda.is_available() and torch.cuda.is_initialized():
            state["cuda_rng"] = torch.cuda.get_rng_state_all()
        return state

    def _load_state(self, state: dict) -> None:
        import numpy as np
        import torch

        self.task.load_state_dict(state)
        try:
            self.opt.load_state_dict(state["optimizer"])
        except ValueError:  # a state from before a change of parameters: start the optimiser afresh
            print("optimizer state does not match; starting it afresh", file=sys.stderr)
        self.step, self.epoch, self.best, self.bad_evals = state["step"], state["epoch"], state["best"], state["bad_evals"]
        self.spent, self.budget_sized = state["spent_seconds"], state["budget_sized"]
        self.paused = state.get("paused_seconds", 0.0)
        self.clock_evals = state.get("clock_evals", 0)
        spe = self.cfg.steps_per_epoch
        self.epoch_start = state.get("epoch_start_step", self.epoch * spe)
        if self.budget_sized and not self.cfg.resize:  # keep the schedule the time budget chose
            self.schedule.total_steps = state["total"]
        self.budget_sized = self.budget_sized and not self.cfg.resize
        if "scheduler" in state:
            total = self.schedule.total_steps
            self.sched.load_state_dict(state["scheduler"])
            self.schedule.total_steps = total  # the sizing above decides (LambdaLR restored the saved one)
        self.sched.last_epoch = self.step  # then the learning rate of the next step, as a fresh run has it
        for group, base in zip(self.opt.param_groups, self.sched.base_lrs):
            group["lr"] = base * self.schedule(self.step)
        self.sched._last_lr = [g["lr"] for g in self.opt.param_groups]
        torch.set_rng_state(state["torch_rng"])
        if "numpy_rng" in state:
            np.random.set_state(state["numpy_rng"])
        if "cuda_rng" in state and torch.cuda.is_available():
            torch.cuda.set_rng_state_all(state["cuda_rng"])
        print(f"resuming from {self.cfg.last_dir} at step {self.step}", file=sys.stderr)

    def save_last(self) -> None:
        import torch

        self.task.save(self.cfg.last_dir, None, self.info())
        torch.save(self.state(), self.cfg.last_dir / STATE_FILE)

    def info(self) -> dict:
        return {"step": self.step, "epoch": self.epoch, "minutes": round(self.clock() / 60, 2),
                "final_loss": self.last_loss, "final": self.finished}

    # -- evaluation -------------------------------------------------------------------------

    def evaluate(self) -> None:
        self.last_eval_step = self.step
        t = time.time()
        res = self.task.evaluate()
        if res is None:
            self.save_last()
            return
        improved = self.best is None or res.key > tuple(self.best["key"])
        if improved:
            self.best = {"key": list(res.key), "step": self.step, **(res.record if res.result is None else res.result)}
            self.bad_evals = 0
            self.task.save(self.cfg.best_dir, res.validation, self.info())
        else:
            self.bad_evals += 1
        seconds = time.time() - t
        rec = {"step": self.step, "epoch": self.epoch, "time_min": round(self.spent / 60, 2), **res.record,
               "best": improved, "eval_seconds": round(seconds, 1)}
        with open(self.cfg.out / self.cfg.log_name, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(f"eval step {self.step}: {res.line}" + (" *best*" if improved else ""), file=sys.stderr)
        self.save_last()
        self.paused += time.time() - t

    # -- training ---------------------------------------------------------------------------

    def clock(self) -> float:
        """Seconds the schedule and max_minutes count."""
        return self.spent - (self.paused if self.cfg.clock_excludes_eval else 0.0)

    def run(self) -> dict | None:
        """Train until a stopping rule; returns the best record (None for a task without evaluation)."""
        import torch
        from tqdm import tqdm

        cfg, task = self.cfg, self.task
        steps = [n for n in (cfg.max_steps, self.schedule.total_steps if cfg.stop_at_schedule_end else 0)
                 if 0 < n < 10**8]
        # The ETA follows what ends the run: its steps, else the clock of max_minutes (in seconds).
        by_clock = not steps and bool(cfg.max_minutes)
        bar = tqdm(total=round(cfg.max_minutes * 60) if by_clock else (min(steps) if steps else None),
                   initial=int(self.clock()) if by_clock else self.step, unit="s" if by_clock else "it",
                   disable=None if cfg.progress else True, dynamic_ncols=True, desc=cfg.desc, file=sys.stderr)
        run_start = time.time() - self.spent
        timing_from, run_steps, stop = None, 0, False
        total = self.schedule.total_steps
        if (cfg.stop_at_schedule_end and total and self.step >= total) or (cfg.max_steps and self.step >= cfg.max_steps):
            stop = True  # a resumed run that had already finished: no step past its end
        while not stop and self.epoch < cfg.epochs:
            skip = self.step - self.epoch_start  # > 0 when resuming mid-epoch
            if skip == 0 and self.step > 0 and task.start_epoch(self.epoch, self.step):
                self.best, self.bad_evals = None, 0  # a new validation set: the old best is not comparable
            for b_idx, batch in enumerate(task.epoch_batches(self.epoch)):
                if b_idx < skip:
                    continue
                if not self.schedule.total_steps:
                    self.schedule.elapsed_s = self.clock()
                    self._set_lr()
                loss = task.loss(batch)
                self.opt.zero_grad(set_to_none=True)
                loss.backward()
                if cfg.clip is not None:
                    torch.nn.utils.clip_grad_norm_(task.clip_parameters(), cfg.clip)
                self.opt.step()
                task.after_step()
                self.step += 1
                self.last_loss = loss.item()
                self.spent = time.time() - run_start
                bar.update(max(0, int(self.clock()) - bar.n) if by_clock else 1)
                bar.set_postfix(loss=f"{self.last_loss:.3f}", lr=f"{self.opt.param_groups[0]['lr']:.1e}",
                                ep=self.epoch)
                run_steps += 1
                if cfg.size_to_budget and cfg.max_minutes and not self.budget_sized:
                    # Size the schedule to the time budget once the speed is known (steps 10..40).
                    if run_steps == 10:
                        timing_from = (time.time(), self.step)
                    elif timing_from and run_steps >= 40:
                        per_step = (time.time() - timing_from[0]) / (self.step - timing_from[1])
                        remaining = cfg.max_minutes * 60 - self.spent
                        fit = self.step + int(remaining / per_step * 0.85)  # leave room for evaluations
                        self.schedule.total_steps = max(self.step + 1, min(self.schedule.total_steps, fit))
                        if not by_clock:
                            bar.total = self.schedule.total_steps
                        self.budget_sized = True
                        n_evals = max(1, self.schedule.total_steps // max(1, cfg.eval_every or cfg.steps_per_epoch or 1))
                        print(f"\n{per_step:.2f}s/step: schedule sized to {self.schedule.total_steps} steps "
                              f"(~{n_evals} evals)", file=sys.stderr)
                if self.schedule.total_steps:
                    self.sched.step()
                for hook in cfg.hooks:
                    hook(self)
                total = self.schedule.total_steps
                at_end = (cfg.stop_at_schedule_end and total and self.step >= total) or \
                    (cfg.max_steps and self.step >= cfg.max_steps)
                if at_end or (cfg.max_minutes and self.clock() > cfg.max_minutes * 60):
                    self.finished = True  # this step's saves are the final ones
                every = cfg.eval_every or (cfg.steps_per_epoch if cfg.eval_at_epoch_end else 0)
                due_min = cfg.eval_every_min and self._eval_due_by_clock()
                if (every and self.step % every == 0) or at_end or due_min:
                    self.evaluate()
                    if cfg.patience is not None and self.bad_evals >= cfg.patience:
                        print("early stop: no improvement", file=sys.stderr)
                        self.stop_reason = "patience"
                        stop = True
                elif cfg.save_every and self.step % cfg.save_every == 0:
                    self.save_last()
                self.spent = time.time() - run_start
                if at_end or (cfg.max_minutes and self.clock() > cfg.max_minutes * 60):
                    self.stop_reason = self.stop_reason or ("steps" if at_end else "time")
                    stop = True
                if stop:
                    break
            else:
                self.epoch += 1
                self.epoch_start = self.step
        bar.close()
        self.finished = True
        if self.last_eval_step != self.step:
            self.evaluate()
        return self.best

    def _eval_due_by_clock(self) -> bool:
        """Every eval_every_min minutes of the clock (the first at eval_every_min)."""
        due = int(self.clock() // (self.cfg.eval_every_min * 60))
        if due > self.clock_evals:
            self.clock_evals = due
            return True
        return False

    def _set_lr(self) -> None:
        factor = self.schedule(self.step)
        for group, base in zip(self.opt.param_groups, self.sched.base_lrs):
            group["lr"] = base * factor
