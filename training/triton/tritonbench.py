"""Re-time TritonBench-G operators on the GPU at hand, with TritonBench's own inputs and timer.

    python -m training.triton.tritonbench stage .gpu/tb                  # here: corpus -> a git-ignored dir
    python -m training.triton.tritonbench time .gpu/tb --out FILE --max-minutes 8       # on a GPU
    python -m training.triton.tritonbench time DIR --out FILE --dry cpu --max-inputs 1  # no GPU (CI)

The training rows of TritonBench are one (inferred) A100. Re-timing the same 184 operators on
another GPU adds rows that share their code and shape line. Only the GPU and the number change,
and `training.triton.data.remeasured_rows` joins them back onto the A100 rows by input size.

**Stage.** From `../shared/corpora/triton/tritonbench` the stage step writes three things, all
corpus code, into a folder the repository ignores, never into the repository:
- the operator modules (`TritonBench_v1/<module>.py`, the reference file without its test half);
- the perf harness base class (`performance_utils.py`);
- one perf script per operator (`golden_metrics/<op>_perf.py`).

`ops.json` lists the operators.

**Time.** Each perf script's `performance_metrics()` builds the input sweep (`get_input_tensors`),
moves one input to the GPU (`to_cuda`) and calls the operator (`call_op`). That is TritonBench's
own harness. The timer is also TritonBench's: `triton.testing.do_bench`, median, here with
`--warmup-ms` and `--rep-ms` (TritonBench used 100 / 1000; the defaults of 25 / 100 are its
base class's).

Every row records the `input_size` exactly as TritonBench's `run_benchmark` writes it, and the
join uses it. The upstream `measurement_index` skips inputs that failed, so indices do not line
up across GPUs.

**Robust and resumable.** One worker process times the operators in turn, appending JSON lines
(fsynced):
- `started` before an operator;
- one row per input;
- `done` after it.

The parent process restarts the worker when it dies (a CUDA fault poisons the whole process).
It also kills a worker that writes nothing for `--op-timeout` seconds. An operator that was
started but not finished is then written `failed`, and never tried again. At `--max-minutes` the
operator in progress is written `interrupted` instead, and is tried again on the next run. A rerun
skips every operator that is done or failed, so a lease can end at any time (an operator cut off
by the machine going away is counted failed).

`--dry cpu` makes `.cuda()` a no-op, sets `TRITON_INTERPRET=1` (Triton's CPU interpreter, where
triton is installed) and times with a wall-clock window instead of `do_bench`. It runs the same
orchestration without a GPU.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import json
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Iterable
from pathlib import Path

from training.triton.time_kernels import Clock, append, time_launch

CORPUS = Path("/work/shared/corpora/triton/tritonbench")


# --- stage -------------------------------------------------------------------------------------


def _jsonl(path: Path) -> Iterable[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            yield json.loads(line)


def module_code(code: str, test: str) -> str:
    """The operator half of a reference file, plus the import lines of its test half. Upstream
    imports the whole file (running its tests); one module (block_sparse_attn) imports torch only
    in the test half."""
    imports = [line for line in test.splitlines() if re.match(r"(import \S|from \S+ import )", line)]
    missing = [line for line in imports if line not in code.splitlines()]
    return "\n".join(missing + [code]) if missing else code


def stage(dest: Path, corpus: Path = CORPUS) -> list[dict]:
    """Write modules, harness and perf scripts of channel G under `dest`; returns the op list."""
    harness = {r["path"]: r["text"] for r in _jsonl(corpus / "perf_harness.jsonl.gz")}
    (dest / "TritonBench_v1").mkdir(parents=True, exist_ok=True)
    (dest / "golden_metrics").mkdir(exist_ok=True)
    (dest / "TritonBench_v1" / "__init__.py").write_text("")
    (dest / "performance_utils.py").write_text(harness["performance_metrics/perf_G/performance_utils.py"])
    for r in _jsonl(corpus / "reference_files.jsonl.gz"):
        if r["channel"] == "G":
            (dest / "TritonBench_v1" / Path(r["path"]).name).write_text(module_code(r["code"], r.get("test", "")))
    ops: dict[str, dict] = {}
    for r in _jsonl(corpus / "perf_measurements.jsonl.gz"):
        if r["channel"] != "G":
            continue
        op = ops.setdefault(r["op"], {"op": r["op"], "module": r["module"], "script": r["perf_script"], "rows": 0})
        op["rows"] += 1
    for op in ops.values():
        (dest / "golden_metrics" / f"{op['op']}_perf.py").write_text(harness[op["script"]])
    listing = sorted(ops.values(), key=lambda o: o["op"])
    (dest / "ops.json").write_text(json.dumps(listing, indent=1) + "\n")
    return listing


# --- one worker: time ops in turn --------------------------------------------------------------


def input_size(inp) -> list:
    """What TritonBench's run_benchmark writes: `[item.shape if tensor else item for item in
    input_tensor]`, made JSON-safe (anything else becomes its type name)."""
    import torch

    try:
        items = list(inp)
    except TypeError:
        items = [inp]
    out = []
    for item in items:
        if isinstance(item, torch.Tensor):
            out.append(list(item.shape))
        elif isinstance(item, (int, float, str, bool)) or item is None:
            out.append(item)
        else:
            out.append(type(item).__name__)
    return out


def _load_perf(stage_dir: Path, op: str):
    path = stage_dir / "golden_metrics" / f"{op}_perf.py"
    spec = importlib.util.spec_from_file_location(f"tb_perf_{op}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # its own sys.path line points at stage_dir
    return module.performance_metrics()


def _timer(args):
    """(gpu name, versions, fn -> (ms, extra fields))."""
    import torch

    if args.dry == "cpu":
        clock = Clock(now=time.perf_counter, sync=lambda: None)

        def measure(fn):
            res = time_launch(fn, clock, window_s=args.window_s, min_iters=3, trials=3, warmup=1)
            return res["ms"], {"trials_ms": res["trials_ms"], "iters": res["iters"]}
        return "cpu-dry", {"torch": torch.__version__}, measure
    import triton
    from triton.testing import do_bench

    def measure(fn):
        ms, p80, p20 = do_bench(fn, warmup=args.warmup_ms, rep=args.rep_ms, quantiles=[0.5, 0.8, 0.2],
                                return_mode="median")
        return ms, {"p20_ms": p20, "p80_ms": p80}
    return torch.cuda.get_device_name(0), {"torch": torch.__version__, "triton": triton.__version__}, measure


def _poisoned(error: str) -> bool:
    return any(s in error for s in ("CUDA error", "illegal memory access", "device-side assert",
                                    "unspecified launch failure"))


def worker(args) -> None:
    if args.dry == "cpu":
        import torch

        torch.Tensor.cuda = lambda self, *a, **k: self  # noqa: E731 - inputs stay on the CPU
    import torch

    gpu, versions, measure = _timer(args)
    out = Path(args.out)
    for op in args.ops:
        append(out, {"key": f"tb:{op}:started:{gpu}", "op": op, "gpu": gpu, "marker": True, "status": "started"})
        n_ok = n_err = 0
        try:
            perf = _load_perf(Path(args.stage), op)
            perf.get_input_tensors()
            inputs = perf.input_tensors[: args.max_inputs or None]
        except Exception as e:  # noqa: BLE001 - a broken script fails its op, not the run
            append(out, {"key": f"tb:{op}:done:{gpu}", "op": op, "gpu": gpu, "marker": True, "status": "error",
                         "error": f"setup: {type(e).__name__}: {str(e)[:300]}"})
            continue
        for i, inp in enumerate(inputs):
            row = {"key": f"tb:{op}:{i}:{gpu}", "op": op, "input_index": i, "gpu": gpu}
            try:
                t = perf.to_cuda(inp)
                row["input_size"] = input_size(t)
                ms, extra = measure(lambda: perf.call_op(t))
                row.update(status="ok", ms=ms, **extra)
                n_ok += 1
            except Exception as e:  # noqa: BLE001 - as upstream: a failing input is skipped
                row.update(status="error", error=f"{type(e).__name__}: {str(e)[:300]}")
                n_err += 1
            t = None
            if row["status"] == "error" and _poisoned(row["error"]):
                append(out, {**row, "host": platform.node()})
                os._exit(3)  # the CUDA context is gone: the parent marks this op failed and restarts
            if torch.cuda.is_available():
                torch.cuda.empty_cache()
            append(out, {**row, "protocol": "window" if args.dry else
                         f"do_bench warmup={args.warmup_ms}ms rep={args.rep_ms}ms median",
                         "host": platform.node(), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                         **versions})
        perf = inputs = None
        append(out, {"key": f"tb:{op}:done:{gpu}", "op": op, "gpu": gpu, "marker": True, "status": "done",
                     "ok": n_ok, "errors": n_err})
        print(f"{op}: {n_ok} ok, {n_err} failed", flush=True)


# --- the parent: restart, watchdog, resume -----------------------------------------------------


def op_states(out: Path) -> dict[str, str]:
    """op -> "started" | "done" | "error" | "failed" | "interrupted" (the last marker wins)."""
    states: dict[str, str] = {}
    if out.is_file():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut by a crash
            if r.get("marker"):
                states[r["op"]] = r["status"]
    return states


def _watch(proc: subprocess.Popen, out: Path, quiet_s: float, deadline: float | None) -> None:
    """Wait for the worker; kill it once `out` has not grown for `quiet_s` or the deadline passed."""
    size = lambda: out.stat().st_size if out.exists() else 0  # noqa: E731
    last, quiet_since = size(), time.time()
    while proc.poll() is None:
        time.sleep(0.2)
        if size() != last:
            last, quiet_since = size(), time.time()
        if time.time() - quiet_since > quiet_s or (deadline and time.time() > deadline):
            proc.kill()
            proc.wait()
            return


def time_all(args) -> dict[str, str]:
    if not args.dry:
        import torch

        if importlib.util.find_spec("triton") is None or not torch.cuda.is_available():
            sys.exit("tritonbench time: needs a CUDA GPU and triton; without one, use --dry cpu")
    out = Path(args.out)
    ops = [o["op"] for o in json.loads((Path(args.stage) / "ops.json").read_text())]
    if args.ops:
        ops = [o for o in ops if o in set(args.ops)]
    deadline = time.time() + args.max_minutes * 60 if args.max_minutes else None
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    if args.dry == "cpu":
        env["TRITON_INTERPRET"] = "1"
    while True:
        states = op_states(out)
        for op, state in states.items():
            if state == "started":  # its worker died or hung on it
                append(out, {"key": f"tb:{op}:failed", "op": op, "marker": True, "status": "failed",
                             "error": "worker died or produced nothing for --op-timeout s"})
                states[op] = "failed"
        todo = [o for o in ops if states.get(o, "interrupted") == "interrupted"]
        if not todo or (deadline and time.time() > deadline):
            break
        cmd = [sys.executable, "-m", "training.triton.tritonbench", "worker", args.stage, "--out", str(out),
               "--warmup-ms", str(args.warmup_ms), "--rep-ms", str(args.rep_ms), "--window-s", str(args.window_s),
               "--max-inputs", str(args.max_inputs), *(["--dry", args.dry] if args.dry else []), "--ops", *todo]
        _watch(subprocess.Popen(cmd, env=env), out, args.op_timeout, deadline)
        if deadline and time.time() > deadline:  # our own stop, not the op's fault: retried next run
            for op, state in op_states(out).items():
                if state == "started":
                    append(out, {"key": f"tb:{op}:interrupted", "op": op, "marker": True, "status": "interrupted"})
            break
    states = op_states(out)
    done = sum(1 for o in ops if states.get(o) == "done")
    print(f"{done} of {len(ops)} ops done, {sum(1 for o in ops if states.get(o) in ('failed', 'error'))} failed, "
          f"{sum(1 for o in ops if states.get(o, 'interrupted') == 'interrupted')} not reached -> {out}")
    return states


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m training.triton.tritonbench", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("stage", help="write the corpus' modules, harness and perf scripts under DEST")
    s.add_argument("dest", type=Path)
    s.add_argument("--corpus", type=Path, default=CORPUS)
    for name in ("time", "worker"):
        t = sub.add_parser(name, help="time every staged op (resumable)" if name == "time" else argparse.SUPPRESS)
        t.add_argument("stage")
        t.add_argument("--out", required=True)
        t.add_argument("--ops", nargs="*")
        t.add_argument("--dry", choices=["cpu"])
        t.add_argument("--warmup-ms", type=int, default=25)
        t.add_argument("--rep-ms", type=int, default=100)
        t.add_argument("--window-s", type=float, default=0.05, help="--dry cpu: wall-clock window per trial")
        t.add_argument("--max-inputs", type=int, default=0, help="time only the first N inputs of each op (0 = all)")
        if name == "time":
            t.add_argument("--max-minutes", type=float, default=0.0)
            t.add_argument("--op-timeout", type=float, default=120.0,
                           help="seconds without a new line before the worker is killed")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.cmd == "stage":
        ops = stage(args.dest, args.corpus)
        print(f"{len(ops)} ops, {sum(o['rows'] for o in ops)} A100 rows -> {args.dest}")
    elif args.cmd == "worker":
        worker(args)
    else:
        time_all(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
