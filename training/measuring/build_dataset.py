"""Build the v1 measurement dataset from ../shared/corpora/leetcode.

    nice -n 5 python -m training.measuring.build_dataset run [--workers N] [--ray ADDRESS] [--limit-problems K]
    python -m training.measuring.build_dataset export        # work jsonl -> training/data/leetcode_v1.jsonl.gz
    python -m training.measuring.dataset_stats [--json]      # distributions for the dataset card

One task = one problem: generate/validate the ``large`` inputs (cached under
training/work/inputs/), then measure every Python program of the problem on
the ``large`` tier (generated inputs) and the ``examples`` tier
(LeetCodeDataset tests or the problem's examples).  Rows are appended to
training/work/measure/leetcode_v1.jsonl as soon as a problem is done; a rerun
skips every (key, tier) already there or in the committed
training/data/leetcode_v1.jsonl.gz.  Problems are processed in a fixed
shuffled order (seed 0) so a partial run covers many problems.

The statistics live in `training.measuring.dataset_stats`, which reads the files this module
writes (`data_path`, `work_rows_path`, `read_rows`); this module never imports it.
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import random
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from training.measuring.gen_inputs import Scaler
from training.measuring.harness import PROTOCOL, machine_info, measure
from training.measuring.lc_corpus import COMMITS, Problem, load_problems, reference_program
from training.measuring.sandbox import Limits, run_child

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(os.environ.get("RLM_TRAINING_WORK", ROOT / "work"))
DATA = Path(os.environ.get("RLM_TRAINING_DATA", ROOT / "data"))
NAME = "leetcode_v1"
GEN_VERSION = "gen-v2"
HARNESS_VERSION = "harness-v2"

TARGET_MS = 100.0       # largest rung whose 2 inputs take <= this with the reference
STOP_MS = 60.0          # stop the ladder after a rung slower than this
MAX_FIRST_MS = 2000.0   # accept the first rung if it is slower than TARGET_MS but below this

_PROBLEMS: dict[int, Problem] | None = None
# LeetCode's judge has sortedcontainers; we install it with
#   pip install --target training/work/pylib sortedcontainers
PYLIB = WORK / "pylib"


def sys_path() -> list:
    return [str(PYLIB)] if PYLIB.is_dir() else []


def problems() -> dict[int, Problem]:
    global _PROBLEMS
    if _PROBLEMS is None:
        _PROBLEMS = load_problems()
    return _PROBLEMS


def work_rows_path() -> Path:
    return WORK / "measure" / f"{NAME}.jsonl"


def data_path() -> Path:
    return DATA / f"{NAME}.jsonl.gz"


# ------------------------------------------------------------------ large inputs

def _probe(code, tests, entry, limits=None):
    spec = {"mode": "probe", "code": code, "entry": entry, "tests": tests, "stop_ms": 1e12,
            "sys_path": sys_path()}
    r = run_child(spec, limits or Limits(cpu_s=8, wall_s=8.0))
    if r.status != "ok":
        return None, r.status + ": " + str(r.result.get("error", ""))[:200]
    return r.result.get("probe", []), None


def _same(d1, d2):
    return d1 is not None and d2 is not None and (d1[0] == d2[0] or d1[1] == d2[1])


def gen_large(pr: Problem) -> dict:
    """Generate, size and validate the large inputs of a problem (cached)."""
    cache = WORK / "inputs" / f"{pr.problem_id}.json.gz"
    res = None
    if cache.exists():
        try:
            with gzip.open(cache, "rt") as f:
                res = json.load(f)
        except (OSError, ValueError):
            res = None
    if res is None:
        res = _gen_large(pr)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(".tmp%d" % os.getpid())
        with gzip.open(tmp, "wt") as f:
            json.dump({k: v for k, v in res.items() if k != "tests"}, f)  # the recipe, not the inputs
        os.replace(tmp, cache)
    if "recipe" in res and "tests" not in res:
        res["tests"] = regenerate(pr, res["recipe"])
        blob = json.dumps(res["tests"], sort_keys=True).encode()
        if hashlib.sha1(blob).hexdigest() != res["input_sha1"]:
            return {"none": "regenerated inputs differ from the recorded hash"}
    return res


def regenerate(pr: Problem, recipe: dict) -> list:
    """Rebuild the large tests from a recipe (deterministic)."""
    version = int(str(recipe.get("gen", "gen-v1")).rsplit("v", 1)[1])
    sc = Scaler(pr.tests, pr.arg_names, pr.constraints, version=version)
    return [{"args": sc.make(recipe["L"], seed)} for seed in recipe["seeds"]]


def _gen_large(pr: Problem) -> dict:
    if not pr.tests:
        return {"none": "no tests"}
    sc = Scaler(pr.tests, pr.arg_names, pr.constraints)
    if not sc.ok:
        return {"none": "no scalable argument"}
    corpus_ref = reference_program(pr)
    if pr.reference:
        ref_code, ref_name, second = pr.reference, "leetcodedataset:completion", corpus_ref
    else:
        ref_code, ref_name = corpus_ref.code, corpus_ref.key
        others = [p for p in pr.programs if p.key != corpus_ref.key]
        others.sort(key=lambda p: (p.source == corpus_ref.source, p.source == "kamyu", p.path))
        second = others[0] if others else None
    chosen = None
    notes = []
    for k, L in enumerate(sc.ladder()):
        tests = [sc.make(L, seed) for seed in (1, 2)]
        if any(t is None for t in tests):
            break
        specs = [{"args": t} for t in tests]
        out, err = _probe(ref_code, specs, pr.entry)
        if err or not out or any("error" in o for o in out) or len(out) < 2:
            notes.append("L=%d: %s" % (L, err or next((o["error"] for o in out or [] if "error" in o), "?")))
            break
        total = sum(o["ms"] for o in out)
        if total <= TARGET_MS or (chosen is None and total <= MAX_FIRST_MS):
            chosen = {"L": L, "tests": specs, "digests": [o["digest"] for o in out], "ref_ms": [o["ms"] for o in out]}
        if total > STOP_MS:
            break
    if chosen is None:
        return {"none": "reference failed: " + "; ".join(notes)[:300]}
    keep = [True, True]
    agree = None
    if second is not None:
        out, err = _probe(second.code, chosen["tests"], pr.entry)
        if out:
            agree = []
            for o in out:
                if "error" not in o:
                    same = _same(o.get("digest"), chosen["digests"][o["i"]])
                    agree.append(same)
                    if not same:
                        keep[o["i"]] = False
    tests = [t for t, k in zip(chosen["tests"], keep) if k]
    if not tests:
        return {"none": "reference and second solution disagree"}
    digests = [d for d, k in zip(chosen["digests"], keep) if k]
    blob = json.dumps(tests, sort_keys=True).encode()
    return {
        "tests": tests, "digests": digests,
        "recipe": {"gen": GEN_VERSION, "L": chosen["L"], "seeds": [s for s, k in zip((1, 2), keep) if k],
                   "base_test": sc.base_index, "kinds": sc.kinds},
        "reference": ref_name, "second": second.key if second else None, "agree": agree,
        "ref_ms": [m for m, k in zip(chosen["ref_ms"], keep) if k],
        "input_sha1": hashlib.sha1(blob).hexdigest(),
    }


# ------------------------------------------------------------------ measuring

def _row(p, pr: Problem, tier: str, m: dict, extra: dict) -> dict:
    row = {
        "key": p.key, "source": p.source, "path": p.path, "commit": COMMITS[p.source],
        "problem_id": p.problem_id, "language": "python", "tier": tier,
        "status": m["status"], "memory_bytes": m["memory_bytes"], "latency_ms": m["latency_ms"],
        "latency_runs": m["latency_runs"], "cpu_ms": m["cpu_ms"], "rss_kb": m["rss_kb"],
        "correct": m["correct"], "n_tests": m["n_tests"],
        "latency_min_ms": m.get("latency_min_ms"), "latency_max_ms": m.get("latency_max_ms"),
        "error": (m.get("error") or None) and str(m["error"])[:200],
        "py2_converted": p.converted, "harness": HARNESS_VERSION,
        "measured_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    row.update(extra)
    return row


def process_problem(pid: int, todo: list, pr: Problem | None = None) -> dict:
    """Measure the (program key, tier) pairs in ``todo`` for one problem. Never raises.

    ``pr`` is passed by the Ray backend (its workers do not share our memory);
    local workers are forked after ``problems()`` was loaded.
    """
    t0 = time.time()
    rows, info = [], {"problem_id": pid}
    try:
        pr = pr or problems()[pid]
        by_key = {p.key: p for p in pr.programs}
        large = None
        if any(t == "large" for _, t in todo):
            large = gen_large(pr)
            info["large"] = large.get("none") or "ok"
        for key, tier in todo:
            p = by_key[key]
            if tier == "large":
                if not large or "tests" not in large:
                    continue
                m = measure(p.code, large["tests"], entry=pr.entry, expected_digests=large["digests"],
                            sys_path=sys_path())
                extra = {"test_source": "generated", "input_recipe": large["recipe"],
                         "input_sha1": large["input_sha1"], "reference": large["reference"]}
            else:
                if not pr.tests:
                    continue
                m = measure(p.code, pr.tests, entry=pr.entry, sys_path=sys_path())
                extra = {"test_source": pr.test_source}
            rows.append(_row(p, pr, tier, m, extra))
    except Exception as e:  # noqa: BLE001 - one problem's failure must not stop the run
        info["exception"] = "%s: %s" % (type(e).__name__, e)
    info["seconds"] = round(time.time() - t0, 2)
    return {"rows": rows, "info": info, "n": len(todo)}


# ------------------------------------------------------------------ run

def read_rows(path: Path):
    if not path.exists():
        return
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip()
            if line:
                try:
                    yield json.loads(line)
                except ValueError:
                    continue  # a torn last line of an interrupted run


def done_keys() -> set:
    done = set()
    for path in (data_path(), work_rows_path()):
        for r in read_rows(path):
            done.add((r["key"], r["tier"]))
    return done


def plan(done: set, limit_problems: int | None = None, tiers=("large", "examples")):
    probs = problems()
    pids = sorted(probs)
    random.Random(0).shuffle(pids)
    tasks = []
    for pid in pids:
        pr = probs[pid]
        if not pr.tests:
            continue
        cache = WORK / "inputs" / f"{pid}.json.gz"
        no_large = False
        if cache.exists():
            try:
                with gzip.open(cache, "rt") as f:
                    no_large = "none" in json.load(f)
            except (OSError, ValueError):
                pass
        todo = []
        for tier in tiers:
            if tier == "large" and no_large:
                continue
            for p in pr.programs:
                if (p.key, tier) not in done:
                    todo.append((p.key, tier))
        if todo:
            tasks.append((pid, todo))
        if limit_problems and len(tasks) >= limit_problems:
            break
    return tasks


def _local_results(tasks, workers):
    if workers <= 1:
        for pid, todo in tasks:
            yield process_problem(pid, todo)
        return
    import multiprocessing as mp
    problems()  # load once in the parent; forked workers inherit it
    ctx = mp.get_context("fork")
    with ctx.Pool(workers, maxtasksperchild=200) as pool:
        yield from pool.imap_unordered(_star, tasks, chunksize=1)


def _star(t):
    return process_problem(*t)


def _ray_results(tasks, address, workers):
    """Fan tasks out over Ray (``address`` = cluster address, or ``local`` for a local instance)."""
    import ray
    env = {"env_vars": {k: v for k, v in os.environ.items() if k.startswith("RLM_")}}
    if address == "local":
        ray.init(num_cpus=max(1, workers), include_dashboard=False, log_to_driver=False,
                 runtime_env=env)
    else:
        ray.init(address=address, log_to_driver=False, runtime_env=env)
    remote = ray.remote(num_cpus=1)(process_problem)
    pending, it = [], iter(tasks)
    max_inflight = max(2, 2 * workers)
    try:
        while True:
            while len(pending) < max_inflight:
                t = next(it, None)
                if t is None:
                    break
                pending.append(remote.remote(t[0], t[1], problems()[t[0]]))
            if not pending:
                break
            ready, pending = ray.wait(pending, num_returns=1)
            for r in ready:
                yield ray.get(r)
    finally:
        ray.shutdown()


def run(args) -> int:
    WORK.mkdir(parents=True, exist_ok=True)
    out_path = work_rows_path()
    out_path.parent.mkdir(parents=True, exist_ok=True)
    done = done_keys()
    tasks = plan(done, args.limit_problems, tuple(args.tiers.split(",")))
    total = sum(len(t[1]) for t in tasks)
    log = open(WORK / "measure" / f"{NAME}.problems.jsonl", "a")
    meta = {"started": datetime.now(timezone.utc).isoformat(), "machine": machine_info(),
            "protocol": PROTOCOL, "already_done": len(done), "tasks": len(tasks), "measurements_planned": total,
            "workers": args.workers, "ray": args.ray}
    print(json.dumps(meta), file=sys.stderr)
    log.write(json.dumps({"run": meta}) + "\n")
    log.flush()
    from tqdm import tqdm
    bar = tqdm(total=total, unit="meas", file=sys.stderr, smoothing=0.05, dynamic_ncols=True,
               mininterval=5 if not sys.stderr.isatty() else 0.5)
    results = _ray_results(tasks, args.ray, args.workers) if args.ray else _local_results(tasks, args.workers)
    n_ok = 0
    with open(out_path, "a") as out:
        for res in results:
            for r in res["rows"]:
                out.write(json.dumps(r, sort_keys=True) + "\n")
                n_ok += r["status"] == "ok"
            out.flush()
            log.write(json.dumps(res["info"]) + "\n")
            log.flush()
            bar.update(res["n"])
            bar.set_postfix(ok=n_ok, refresh=False)
    bar.close()
    return 0


# ------------------------------------------------------------------ export

def export(args=None) -> int:
    """Merge committed gz + work jsonl (dedupe on (key, tier), first wins) into the gz file."""
    seen, rows = set(), []
    for path in (data_path(), work_rows_path()):
        for r in read_rows(path):
            k = (r["key"], r["tier"])
            if k in seen:
                continue
            seen.add(k)
            rows.append(r)
    DATA.mkdir(parents=True, exist_ok=True)
    tmp = data_path().with_suffix(".tmp")
    with open(tmp, "wb") as raw:
        with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
            for r in rows:
                f.write((json.dumps(r, sort_keys=True) + "\n").encode())
    os.replace(tmp, data_path())
    meta = {"name": NAME, "rows": len(rows), "machine": machine_info(), "protocol": PROTOCOL,
            "commits": COMMITS, "generator": GEN_VERSION, "harness": HARNESS_VERSION,
            "exported_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    (DATA / f"{NAME}.meta.json").write_text(json.dumps(meta, indent=1) + "\n")
    print(json.dumps({"rows": len(rows), "path": str(data_path())}))
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="measure (resumable)")
    r.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    r.add_argument("--ray", default=None, metavar="ADDRESS", help="Ray cluster address, or 'local'")
    r.add_argument("--limit-problems", type=int, default=None)
    r.add_argument("--tiers", default="large,examples")
    sub.add_parser("export", help="write training/data/leetcode_v1.jsonl.gz")
    a = ap.parse_args(argv)
    if a.cmd == "run":
        return run(a)
    if a.cmd == "export":
        return export(a)
    return 2


if __name__ == "__main__":
    sys.exit(main())
