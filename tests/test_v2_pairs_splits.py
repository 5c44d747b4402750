"""Data v2 beyond the script sources: the second validation split, variant/parent pairs, LeetCode ladders.

The sandbox tests run real programs (skipped where bubblewrap cannot start, failing in CI as in
``test_measure_v2``); the LeetCode ones use a fake problem, not the corpus.
"""
from __future__ import annotations

import gzip
import json

import pytest
import test_harness
from test_measure_v2 import _gz, fake_corpus, needs_bwrap

from training.learning.dataset import is_validation
from training.measuring import ladders, packing, splits, variants, workfiles
from training.measuring import leetcode_ladders as leetcode
from training.measuring import streams as measure_v2

PROG = '''import sys


def total(values):
    out = 0
    for v in values:
        out += v
    return out


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    xs = [int(t) for t in data[1:1 + n]]
    seen = set()
    for x in xs:
        seen.add(x)
    big = max(x for x in xs)
    hits = 0
    for x in xs:
        if x in seen:
            hits += 1
    a = n
    b = hits
    print(a + total(xs) + 0 * big + 0 * b)


main()
'''


# ----------------------------------------------------------------- the second validation split

def test_kattis_split_is_fixed_by_hash_of_whole_problems():
    names = ["problem%d" % i for i in range(3000)]
    val = {n for n in names if splits.is_kattis_validation(n)}
    assert 200 < len(val) < 400                                   # about 10%
    assert val == {n for n in names if splits.is_kattis_validation(n)}
    # the rule: training.learning.dataset's hash with its own salt, so it is not the LeetCode split again
    assert val == {n for n in names if is_validation(n, 0.1, salt=splits.KATTIS_SALT)}
    assert val != {n for n in names if is_validation(n)}
    # one problem carried by two repositories (or re-exported) is on one side: the short name decides
    a = {"source": "kattis", "problem_id": "nwerc2020/problems/arcade2", "kattis_shortname": "arcade2"}
    b = {"source": "kattis", "problem_id": "kattis-export/gcpc2021/arcade2", "kattis_shortname": "Arcade2"}
    c = {"source": "kattis", "problem_id": "other/arcade2"}                      # no short name: the folder
    assert splits.validation(a) == splits.validation(b) == splits.validation(c) == \
        splits.is_kattis_validation("arcade2")
    assert packing.validation is splits.validation                           # one rule, one place


def test_split_keeps_problems_whole_and_leetcode_keeps_the_first_split():
    rows = [{"source": "kattis", "problem_id": "p/%s" % n, "kattis_shortname": n, "key": "%s:%d" % (n, i)}
            for n in ("alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta") for i in range(3)]
    rows += [{"source": "leetcode", "problem_id": pid, "key": "k%d" % pid} for pid in range(1, 200)]
    rows += [{"source": "euler", "problem_id": "7", "key": "e"}]
    train, val = splits.split(rows)
    assert len(train) + len(val) == len(rows)
    side = {}
    for r in train + val:
        side.setdefault((r["source"], r["problem_id"]), set()).add(r in val)
    assert all(len(s) == 1 for s in side.values())                  # never split by row
    assert {r["problem_id"] for r in val if r["source"] == "leetcode"} == {
        p for p in range(1, 200) if is_validation(str(p))}
    assert splits.validation({"source": "euler", "problem_id": "7"}) is None
    assert any(r["source"] == "leetcode" for r in val) and any(r["source"] == "leetcode" for r in train)


# ----------------------------------------------------------------- pairs, growth, skips

def _v(key, inp, status="ok", mem=100, digest="d", role="parent", kind=None, **kw):
    r = {"source": "kattis", "shape": "stdin", "problem_id": "p/x", "kattis_shortname": "x", "key": key,
         "input_id": inp, "input_bytes": 10, "status": status, "memory_bytes": mem, "output_digest": digest,
         "role": role, "parent": None, "mutation": None, "memory_only": True, "harness": workfiles.HARNESS}
    if role == "variant":
        r.update(parent=key.split("#")[0], mutation=kind, expected_direction="regression",
                 expected_metrics=["memory"], mutation_line=3)
    r.update(kw)
    return r


def test_pairs_join_on_the_same_input_and_check_the_output(tmp_path, monkeypatch):
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    rows = [_v("a", "1"), _v("a", "2", mem=200),
            _v("a#materialize", "1", mem=150, role="variant", kind="materialize"),
            _v("a#materialize", "2", mem=260, digest="other", role="variant", kind="materialize"),
            _v("a#rename", "3", role="variant", kind="rename"),                   # no parent row on input 3
            _v("b", "1", status="timeout", mem=None, digest=None),
            _v("b#swap", "1", status="timeout", mem=None, digest=None, role="variant", kind="swap")]
    p = workfiles.work_path("variants")
    p.parent.mkdir(parents=True)
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    info = packing.pack("variants")
    assert info["pairs"] == 3 and info["pairs_ok_same_output"] == {"materialize": 1}
    got = {(x["key"], x["input_id"]): x for x in
           (json.loads(line) for line in gzip.open(workfiles.pairs_path(), "rt"))}
    one = got[("a#materialize", "1")]
    assert one["same_output"] and (one["memory_parent"], one["memory_variant"]) == (100, 150)
    assert one["expected_direction"] == "regression" and one["validation"] == splits.is_kattis_validation("x")
    assert not got[("a#materialize", "2")]["same_output"]            # the outputs differ: not a valid pair
    assert not got[("b#swap", "1")]["same_output"]                   # neither ran: nothing to compare
    packed = [json.loads(line) for line in gzip.open(workfiles.data_path("variants"), "rt")]
    assert not any(packing.FORBIDDEN & set(r) for r in packed)


def test_variant_of_a_failed_parent_is_skipped():
    t = {"row": {"key": "a#swap", "parent": "a", "input_id": "1", "role": "variant"}, "code": "x"}
    assert measure_v2._unpaired(t, {}) is None                       # parent not measured yet: measure it
    assert measure_v2._unpaired(t, {("a", "1"): "ok"}) is None
    assert measure_v2._unpaired(t, {("a", "1"): "wrong_answer"}) is None
    assert "timeout" in measure_v2._unpaired(t, {("a", "1"): "timeout"})["skip"]
    parent = {"row": {"key": "a", "input_id": "1", "role": "parent"}}
    assert measure_v2._unpaired(parent, {("a", "1"): "timeout"}) is None


def test_a_rung_predicted_over_the_time_limit_is_skipped():
    rows = [{"key": "p#k", "problem_id": 1, "input_id": "curve:1/16:s0", "input_size": 100, "status": "ok",
             "latency_ms": 40.0},
            {"key": "p#k", "problem_id": 1, "input_id": "curve:1/4:s0", "input_size": 400, "status": "ok",
             "latency_ms": 640.0},                                   # slope 2 from the rung below
            {"key": "p", "problem_id": 1, "input_id": "curve:1:s0", "input_size": 1600, "status": "timeout"}]
    oks: dict = {}
    sizes: dict = {}
    for r in rows:                                                   # as the run does, row by row
        measure_v2._curve_times_add(oks, sizes, r)
    assert sizes[(1, "curve:1:s0")] == 1600 and oks["p#k"] == [(100, 40.0), (400, 640.0)]

    def task(input_id, key="p#k"):
        return {"row": {"key": key, "problem_id": 1, "input_id": input_id}}
    # 640 ms x 4^2 = 10.2 s at n = 1600: over twice a 5 s limit, skipped with the reason; not over twice 6 s
    got = measure_v2._too_slow(task("curve:1:s0"), oks, sizes, 5.0)
    assert got["skip"].startswith("predicted over the time limit: ~10 s at n=1600, from 640 ms at n=400")
    assert measure_v2._too_slow(task("curve:1:s0"), oks, sizes, 6.0) is None
    assert measure_v2._too_slow(task("curve:1/2:s0"), oks, sizes, 5.0) is None       # size not known: run
    assert measure_v2._too_slow(task("curve:1:s0", key="q"), oks, sizes, 5.0) is None  # nothing below: run
    # one rung below: slope 1 (3 s x 4 = 12 s skipped; 2 s x 4 = 8 s run); a falling slope counts as flat
    assert measure_v2._too_slow(task("curve:1:s0"), {"p#k": [(400, 3000.0)]}, sizes, 5.0)
    assert measure_v2._too_slow(task("curve:1:s0"), {"p#k": [(400, 2000.0)]}, sizes, 5.0) is None
    assert measure_v2._too_slow(task("curve:1:s0"), {"p#k": [(100, 9e3), (400, 4.5e3)]}, sizes, 3.0) is None


def test_growth_of_function_rows_reads_the_generator_size():
    rows = [{"source": "leetcode", "shape": "function", "problem_id": 1, "key": "k", "input_id": "ladder:%d" % n,
             "input_size": n, "input_bytes": 7 * n + 3, "status": "ok", "memory_bytes": 5 * n * n,
             "latency_ms": 0.2 * n} for n in (10, 40, 160)]
    (g,) = packing.growth(rows)
    assert g["size"] == "input_size" and g["n_sizes"] == 3 and (g["min_bytes"], g["max_bytes"]) == (10, 160)
    assert g["growth_memory"] == pytest.approx(2.0, abs=1e-3) and g["growth_latency"] == pytest.approx(1.0, abs=1e-3)


# ----------------------------------------------------------------- variant tasks on a synthetic corpus

@pytest.fixture
def corpus(tmp_path, monkeypatch):
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    monkeypatch.setattr(variants, "SOURCES", ("kattis", "euler", "rosetta"))   # no LeetCode corpus here
    root = fake_corpus(tmp_path / "corpora")
    path = root / "kattis_packages" / "programs.jsonl.gz"
    progs = [json.loads(line) for line in gzip.open(path, "rt")]
    progs.append(dict(progs[0], path="sums/submissions/accepted/rich.py", code=PROG))
    _gz(path, progs)
    return root


def test_variant_tasks_interleave_kinds_and_put_parents_first(corpus):
    ts = variants.tasks(corpus, per_kind=5, kattis_inputs=2)
    rows = [t["row"] for t in ts]
    assert not any(packing.FORBIDDEN & set(r) for r in rows)      # code and inputs stay in the task
    kinds = {r["mutation"] for r in rows if r["role"] == "variant"}
    assert {"materialize", "set_to_list", "sort_in_loop", "copy_in_loop", "rename", "swap"} <= kinds
    ids = [(r["key"], r["input_id"]) for r in rows]
    assert len(ids) == len(set(ids))                                  # a parent once, for all its kinds
    pos = {i: n for n, i in enumerate(ids)}
    for r in rows:
        if r["role"] == "variant":
            assert r["key"] == "%s#%s" % (r["parent"], r["mutation"])
            assert pos[(r["parent"], r["input_id"])] < pos[(r["key"], r["input_id"])]
            assert r["expected_direction"] in ("regression", "improvement", "neutral")
    rich = [r for r in rows if r.get("parent", "") and r["parent"].endswith("rich.py")]
    assert {r["input_bytes"] for r in rich} and len({r["input_id"] for r in rich}) > 2
    plain = [t["row"] for t in variants.tasks(corpus, per_kind=1, kattis_inputs=2)]  # no kind is scarce
    rich = [r for r in plain if r.get("parent", "") and r["parent"].endswith("rich.py")]
    assert not rich or len({r["input_id"] for r in rich}) == 2                          # the same 2 inputs
    first = [r["mutation"] for r in rows if r["role"] == "variant"][:len(kinds) * 2]
    assert len(set(first)) >= 3                                       # kinds interleaved, not one after another


def test_a_scarce_kind_is_measured_first_on_more_of_its_parents_inputs(corpus):
    found = variants.candidates(corpus, per_kind=5, kattis_inputs=2)
    scarce = {k for k, v in found.items() if 0 < len(v) < 5}
    assert scarce  # the synthetic corpus has fewer than 5 programs for some kind
    rows = [t["row"] for t in variants.tasks(corpus, per_kind=5, kattis_inputs=2)]
    first = next(r for r in rows if r["role"] == "variant")  # the extra inputs come first
    assert first["mutation"] in scarce
    assert first["input_id"] not in {t["row"]["input_id"] for ts, _ in found[first["mutation"]] for t in ts
                                     if t["row"]["key"] == first["parent"]}
    for kind in scarce:
        parent = found[kind][0][0][0]["row"]["key"]
        own = {t["row"]["input_id"] for t in found[kind][0][0]}
        measured = {r["input_id"] for r in rows if r.get("parent") == parent and r["mutation"] == kind}
        assert own < measured  # its own inputs and more (up to SCARCE_KATTIS_INPUTS)


def test_variant_scan_cache_remembers_misses_by_hash_only(corpus, tmp_path, monkeypatch):
    cache = tmp_path / "scan.json"
    calls = []
    real = variants.mutate

    def counting(code, kind, **kw):
        calls.append(kind)
        return real(code, kind, **kw)

    monkeypatch.setattr(variants, "mutate", counting)
    plain = variants.tasks(corpus, per_kind=5, kattis_inputs=2)
    first_calls = len(calls)
    assert variants.tasks(corpus, per_kind=5, kattis_inputs=2, scan_cache=cache) == plain
    raw = json.loads(cache.read_text())
    assert raw["mutations"] and raw["none"]
    assert all(len(k.split(":")[0]) == 16 for k in raw["none"])        # hashes and kinds, never code
    calls.clear()
    assert variants.tasks(corpus, per_kind=5, kattis_inputs=2, scan_cache=cache) == plain
    assert len(calls) < first_calls                                   # the misses are not tried again
    monkeypatch.setattr(variants, "_engine_digest", lambda: "another engine")
    calls.clear()
    assert variants.tasks(corpus, per_kind=5, kattis_inputs=2, scan_cache=cache) == plain
    assert len(calls) == first_calls                                  # a changed engine scans afresh


@needs_bwrap
def test_variants_measured_with_parents_pair_up(corpus):
    argv = ["run", "--corpus", str(corpus), "--source", "variants", "--memory-only", "--time-limit", "5",
            "--per-kind", "1", "--variant-inputs", "2"]
    assert measure_v2.main(argv) == 0
    info = packing.pack("variants")
    pairs = [json.loads(line) for line in gzip.open(workfiles.pairs_path(), "rt")]
    assert info["pairs"] == len(pairs) > 0
    good = [p for p in pairs if p["same_output"] and p["status_parent"] == p["status_variant"] == "ok"]
    assert {p["mutation"] for p in good} >= {"materialize", "rename", "swap"}
    for p in good:
        assert p["memory_parent"] > 0 and p["memory_variant"] > 0
    rows = [json.loads(line) for line in gzip.open(workfiles.data_path("variants"), "rt")]
    assert all(r["harness"] == workfiles.HARNESS and r["machine"] for r in rows)
    assert measure_v2.main(argv) == 0                                 # resume: nothing new
    assert len(list(workfiles.read_rows(workfiles.work_path("variants")))) == len(rows)


# ----------------------------------------------------------------- LeetCode ladders (fake problem)

TWO_SUM = test_harness.TWO_SUM + "        return [-1, -1]\n"   # the harness's, with an answer for "no pair"
QUAD = TWO_SUM.replace("        m = {}\n", "        m = {}\n        t = [[0] * len(nums) for _ in range(len(nums))]\n")


@pytest.fixture
def fake_leetcode(monkeypatch):
    from training.measuring.lc_corpus import Problem, Program
    pr = Problem(problem_id=1, slug="two-sum", entry="twoSum", test_source="test", reference=TWO_SUM,
                 tests=[{"args": [{"json": [2, 7, 11, 15]}, {"json": 9}], "expected": {"json": [0, 1]}}],
                 constraints="- 2 <= nums.length <= 10^4\n- -10^9 <= nums[i] <= 10^9")
    pr.arg_names = ["nums", "target"]
    for name, code in (("lin", TWO_SUM), ("quad", QUAD)):
        pr.programs.append(Program(key="doocs:%s.py" % name, source="doocs", path="%s.py" % name, problem_id=1,
                                   code=code, py2=False, converted=False))
    monkeypatch.setattr(leetcode, "problems", lambda: {1: pr})
    monkeypatch.setattr(leetcode, "large_ok", lambda: {1: ["doocs:lin.py", "doocs:quad.py"]})
    monkeypatch.setattr(ladders, "large_recipes", lambda *a: {1: {"gen": "gen-v2", "L": 480, "seeds": [1, 2]}})
    leetcode.rungs.cache_clear()
    leetcode.reference.cache_clear()
    yield pr
    leetcode.rungs.cache_clear()
    leetcode.reference.cache_clear()


def test_ladder_tasks_are_small_and_grouped(fake_leetcode):
    ts = leetcode.ladder_tasks()
    assert [(t["row"]["key"], t["row"]["rung"]) for t in ts] == [
        (k, r) for k in ("doocs:lin.py", "doocs:quad.py") for r in ("1/16", "1/4", "1")]
    assert all("code" not in t and t["row"]["shape"] == "function" and t["row"]["source"] == "leetcode" for t in ts)
    assert [t["row"]["rung"] for t in leetcode.ladder_tasks(labels=("1/4",))] == ["1/4", "1/4"]


@needs_bwrap
def test_ladder_rows_measure_three_sizes_and_growth(fake_leetcode):
    opts = {"time_limit": 5.0, "memory_mb": 1024, "memory_only": True, "machine": {"cpu_count": 2}, "python": "3"}
    rows = [leetcode.measure(t, opts) for t in leetcode.ladder_tasks()]
    assert all(r["status"] == "ok" and r["correct"] is True and r["checked"] for r in rows), rows
    sizes = [r["input_size"] for r in rows[:3]]
    assert sizes == sorted(sizes) and sizes[2] == 480 and len(set(sizes)) == 3
    assert all(r["input_sha1"] and r["size_param"] and r["output_digest"] for r in rows)
    g = {x["key"]: x for x in packing.growth(rows)}
    assert g["doocs:quad.py"]["growth_memory"] > 1.6                 # the n x n table
    assert g["doocs:lin.py"]["growth_memory"] < g["doocs:quad.py"]["growth_memory"] - 0.5
    bad = leetcode.measure(dict(leetcode.ladder_tasks()[0], code=TWO_SUM.replace("return [-1, -1]", "return [0]")),
                           opts)
    assert bad["status"] == "wrong_answer" and bad["correct"] is False


# ----------------------------------------------------------------- progress bar

def _run_cli(corpus, tmp_path, tty: bool) -> str:
    import os
    import pty
    import subprocess
    import sys
    env = dict(os.environ, RLM_TRAINING_WORK=str(tmp_path / ("w%d" % tty)), RLM_TRAINING_DATA=str(tmp_path / "d"),
               PYTHONPATH=os.getcwd(), COLUMNS="120")
    argv = [sys.executable, "-m", "training.measuring.streams", "run", "--corpus", str(corpus), "--source", "rosetta",
            "--memory-only", "--time-limit", "5"]
    if not tty:
        return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300).stderr
    import fcntl
    import struct
    import termios
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))   # a new pty is 0 columns wide
    p = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:   # the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    p.wait(timeout=300)
    os.close(master)
    return out.decode(errors="replace")


@needs_bwrap
def test_run_shows_a_bar_with_eta_on_a_terminal_only(corpus, tmp_path):
    quiet = _run_cli(corpus, tmp_path, tty=False)
    assert [json.loads(line)["source"] for line in quiet.splitlines()] == ["rosetta"]   # the summary only
    shown = _run_cli(corpus, tmp_path, tty=True)
    assert "rosetta: 100%" in shown and "row/s" in shown and "<00:00" in shown, shown   # rate and time left


# ----------------------------------------------------------------- dataset card figures

def test_card_figures_on_packed_rows(tmp_path, monkeypatch):
    from training.measuring import data_card as card
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    rows = []
    for prog, k in (("a", 1), ("b", 4)):                      # two programs of one problem, 3 sizes each
        for n in (10, 100, 1000):
            rows.append(_v(prog, "in%d" % n, mem=k * n, input_bytes=n, role=None))
    rows.append(_v("c", "in10", status="timeout", mem=None, role=None))
    p = workfiles.work_path("kattis")
    p.parent.mkdir(parents=True)
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    packing.pack("kattis")
    s = card.stats()
    k = s["sources"]["kattis/stdin"]
    assert (k["rows"], k["ok"], k["programs_ok"], k["problems_ok"]) == (7, 6, 2, 1)
    assert k["status_share"] == {"ok": round(6 / 7, 3), "timeout": round(1 / 7, 3)}
    assert k["within_problem"]["groups"] == 3 and k["within_problem"]["log10_max_over_min_p50"] == 0.6   # log10 4
    g = s["growth"]["kattis"]
    assert g["programs_3_sizes"] == 2 and g["growth_memory_bins"]["0.75-1.25"] == 2    # linear, both
    assert s["targets"]["real_input_ok"][0] == 6 and s["targets"]["programs_3_sizes"][0] == 2
    assert "| kattis/stdin | 7 | 6 | 2 | 1 |" in card.markdown(s)


def test_latency_agreement_of_two_runs_ranks_and_compares_them():
    from training.measuring.data_card import _latency_agreement

    rows = [{"latency_ms_1": a, "latency_ms_2": b, "exec_ms_1": a / 2, "exec_ms_2": None}
            for a, b in ((10.0, 11.0), (20.0, 19.0), (40.0, 44.0), (80.0, 80.0))]
    out = _latency_agreement(rows)
    assert out["latency_ms"] == {"pairs": 4, "spearman": 1.0, "median_abs_rel_diff": 0.075}
    assert out["exec_ms"] == {"pairs": 0, "spearman": None, "median_abs_rel_diff": None}  # no second timing
