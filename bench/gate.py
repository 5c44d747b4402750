"""Benchmark: rlm-gate over a staged change that touches 20 functions, one CPU thread.

    python bench/gate.py [--model DIR] [--runs 5] [--samples N ...] [--no-write]

A scratch git repository gets a module of 20 realistic functions, committed; then every
function is edited (a real code change, so all 40 versions are predicted) and staged. Each
run is a fresh `python -m rlm_lsp.gate.gate --threads 1` process, exactly what pre-commit starts:
interpreter start, imports, git, matching, model load, prediction of 40 snippets, verdict.
A second, in-process pass splits the time into its stages. Target: <= 5 s end to end.
Writes the `gate` section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.report import add_write_flag, machine, progress, publish  # noqa: E402

N_FUNCTIONS = 20
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip

# (old body, new body) pairs; {i} makes every function distinct so the cache never helps.
EDITS = [
    (
        "total = 0\n    for x in range(n + {i}):\n        total += x * x\n    return total\n",
        "squares = [x * x for x in range(n + {i})]\n    return sum(squares)\n",
    ),
    (
        "seen = set()\n    for x in items:\n        if x in seen:\n            return True\n"
        "        seen.add(x)\n    return {i} < 0\n",
        "for a in range(len(items)):\n        for b in range(a + 1, len(items)):\n"
        "            if items[a] == items[b]:\n                return True\n    return {i} < 0\n",
    ),
    (
        "with open(path) as fh:\n        return sum(1 for line in fh if line.strip()) + {i}\n",
        "with open(path) as fh:\n        lines = fh.readlines()\n"
        "    return len([s for s in lines if s.strip()]) + {i}\n",
    ),
    (
        "counts = {{}}\n    for w in text.split():\n        counts[w] = counts.get(w, 0) + 1\n"
        "    return max(counts.items(), key=lambda kv: kv[1])[0] if counts else '{i}'\n",
        "words = text.split()\n    best = max(set(words), key=words.count) if words else '{i}'\n    return best\n",
    ),
]
ARGS = ["n", "items", "path", "text"]


def module(version: int) -> str:
    parts = ['"""Generated for the gate benchmark."""\n']
    for i in range(N_FUNCTIONS):
        kind = i % len(EDITS)
        body = EDITS[kind][version].format(i=i)
        parts.append(f"\n\ndef task_{i}({ARGS[kind]}):\n    {body}")
    return "".join(parts)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


def one_function(i: int, version: int) -> str:
    kind = i % len(EDITS)
    return f'"""Generated for the gate benchmark."""\n\n\ndef task_{i}({ARGS[kind]}):\n    {EDITS[kind][version].format(i=i)}'


def make_repo(where: Path, files: int = 1) -> Path:
    """One module of N_FUNCTIONS functions (`files` 1), or `files` modules of one function each
    (a commit touching that many files: issue 49's 500), committed, then every function edited and staged."""
    repo = where / "repo"
    repo.mkdir()
    git(repo, "init", "-q")

    def write(version: int) -> None:
        if files == 1:
            (repo / "tasks.py").write_text(module(version))
        else:
            (repo / "pkg").mkdir(exist_ok=True)
            for i in range(files):
                (repo / "pkg" / f"task_{i}.py").write_text(one_function(i, version))
        git(repo, "add", ".")

    write(0)
    git(repo, "commit", "-qm", "base")
    write(1)
    return repo


def end_to_end(repo: Path, model: str | None, samples: int | None) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "rlm_lsp.gate.gate", "--threads", "1"]
    if model:
        cmd += ["--model", model]
    if samples:
        cmd += ["--samples", str(samples)]
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=repo, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""
    if proc.returncode not in (0, 1) or "predicted regression" not in summary:  # a verdict either way is fine
        raise SystemExit(f"gate failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    return elapsed, summary


def import_time() -> float:
    """Seconds to import the gate and what it pulls in, in a fresh interpreter."""
    code = "import time; t = time.perf_counter(); import rlm_lsp.gate.gate, rlm_lsp.gate.compare; print(time.perf_counter() - t)"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    return float(out.stdout)


def stages(repo: Path, model: str | None, samples: int | None, runs: int) -> dict[str, float | str]:
    """Per-stage medians over `runs` in-process passes, each with a fresh Predictor (no cache)."""
    from rlm_lsp.gate import compare, gate
    from rlm_lsp.policy import project_config as config

    parse, load, predict = [], [], []
    for _ in range(runs):
        t1 = time.perf_counter()
        cfg = config.load(config.find_pyproject(repo))
        versions = gate.collect(repo, None, gate.git.INDEX, [], repo, cfg)
        old = {v.old_path: compare.parse_functions(v.old_path, v.old.decode()) for v in versions if v.old}
        new = {v.path: compare.parse_functions(v.path, v.new.decode()) for v in versions if v.new}
        matching = compare.match(old, new, {})
        t2 = time.perf_counter()
        predictor = gate.load_predictor(model, 1, samples, "cpu")
        t3 = time.perf_counter()
        codes = compare.codes_to_predict(matching.changed)
        predictor.predict(codes, language="python", metrics=["memory", "latency"])
        t4 = time.perf_counter()
        parse.append(t2 - t1)
        load.append(t3 - t2)
        predict.append(t4 - t3)
    return {
        "import": statistics.median(import_time() for _ in range(3)),
        "git + parse + match": statistics.median(parse),
        "model load": statistics.median(load),
        "predict": statistics.median(predict),
        "snippets": len(codes),
        "functions changed": len(matching.changed),
        "samples": predictor.samples,
        "model_version": predictor.config.model_version,
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", help="model directory (default: the shipped model)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--samples", type=int, nargs="*", default=[0], help="0 = the predictor's default")
    add_write_flag(p)
    p.add_argument("--note", default="", help="a line to add under the table (e.g. what the model is)")
    p.add_argument("--files", type=int, default=1,
                   help="1: one module of 20 functions; N > 1: N modules of one function each (a 500-file commit)")
    args = p.parse_args()
    changed = N_FUNCTIONS if args.files == 1 else args.files

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        repo = make_repo(Path(tmp), args.files)
        for samples in args.samples:
            s = samples or None
            end_to_end(repo, args.model, s)  # warm the page cache; not counted
            times = []
            for _ in progress(range(args.runs), desc=f"samples={samples or 'default'}", unit="run"):
                elapsed, summary = end_to_end(repo, args.model, s)
                times.append(elapsed)
            split = stages(repo, args.model, s, args.runs)
            rows.append((samples, times, summary, split))
            print(f"samples={split['samples']}: median {statistics.median(times):.2f} s "
                  f"(min {min(times):.2f}, max {max(times):.2f}) {summary}", flush=True)  # fmt: skip

    cpu, python = machine().split(", Python ")
    model_version = rows[0][3]["model_version"]
    lines = [
        (f"## rlm-gate: a staged change touching {args.files} files (`bench/gate.py --files {args.files}`)"
         if args.files > 1 else "## rlm-gate: a staged change touching 20 functions (`bench/gate.py`)"),
        "",
        f"Command: `python bench/gate.py --runs {args.runs}" + (f" --files {args.files}" if args.files > 1 else "")
        + (f" --samples {' '.join(map(str, args.samples))}" if args.samples != [0] else "")
        + (" --model DIR" if args.model else "")
        + "`.",
        f"Machine: {cpu}, {os.cpu_count()} cores (shared), Python {python}; "
        f"model `{model_version}`; one CPU thread (`--threads 1`).",
        "",
        "Each run is a fresh `python -m rlm_lsp.gate.gate` process, as pre-commit starts it: imports, git, matching, "
        f"model load (once), and {changed} changed functions predicted before and after ({2 * changed} snippets, "
        "one batch run). " + ("Target: 5 s." if args.files == 1 else "No target: the time a large commit costs."),
        "",
        f"| samples | median | min | max | imports | git + parse + match | model load | predict {2 * changed} snippets |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for _, times, _, split in rows:
        lines.append(
            f"| {split['samples']} | {statistics.median(times):.2f} s | {min(times):.2f} s | {max(times):.2f} s | "
            f"{split['import']:.2f} s | {split['git + parse + match']:.3f} s | {split['model load']:.2f} s | "
            f"{split['predict']:.2f} s |"
        )
    lines += [
        "",
        "End to end: median, min and max over the runs. Stages: medians of separate measurements (imports in a "
        "fresh interpreter; the rest in-process with a fresh Predictor each time), so they need not add up to "
        "the end-to-end time, which also pays interpreter start. Other jobs shared the 2 cores.",
        "",
    ]
    if args.note:
        lines += [args.note, ""]
    publish("gate" if args.files == 1 else f"gate-{args.files}-files", "\n".join(lines), write=not args.no_write)


if __name__ == "__main__":
    main()
