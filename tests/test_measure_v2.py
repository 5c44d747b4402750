"""training.measuring.streams (data v2, script shapes) on tiny synthetic corpora written to a tmp dir.

The end-to-end tests run real programs in the sandbox: they are skipped where bubblewrap cannot
start, except in CI (CI=true), where they fail instead.
"""
from __future__ import annotations

import gzip
import json
import os

import pytest

from training.measuring import execute, packing, sources, splits, workfiles
from training.measuring import streams as measure_v2
from training.measuring.sandbox import sandbox_kind

KIND, WHY = sandbox_kind()
needs_bwrap = pytest.mark.skipif(
    KIND is None and os.environ.get("CI") != "true",
    reason="bubblewrap cannot start here (%s); apt-get install bubblewrap. In CI (CI=true) this fails" % WHY)


def _gz(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def _rows(path):
    return [json.loads(line) for line in open(path)] if path.exists() else []


SUM = "import sys\nxs = list(map(int, sys.stdin.read().split()))\nprint(sum(xs))\n"
WRONG = "print(0)\n"
EXITS = "n = int(input())\nprint(n + sum(map(int, input().split())))\nexit(0)\nprint('never')\n"
HALF = "print(1 / 3)\n"  # 0.3333333333333333 vs the answer 0.333333


def fake_corpus(root):
    k = root / "kattis_packages"
    progs = []
    for name, code, pid in [("good.py", SUM, "sums"), ("wrong.py", WRONG, "sums"), ("exits.py", EXITS, "sums"),
                            ("third.py", HALF, "third")]:
        progs.append({"source": "fake/kattis", "commit": "0" * 40, "path": "%s/submissions/accepted/%s" % (pid, name),
                      "problem_id": "fake/" + pid, "kattis_shortname": pid, "verdict_dir": "accepted", "code": code,
                      "py2": False, "interactive": False, "scoring": False, "third_party_imports": [],
                      "risk_flags": []})
    _gz(k / "programs.jsonl.gz", progs)
    _gz(k / "problems.jsonl.gz", [
        {"problem_id": "fake/sums", "validation": None, "interactive": False, "problem_yaml": "name: Sums\n",
         "time_limit_s": None},
        {"problem_id": "fake/third", "validation": "default", "interactive": False, "time_limit_s": 1.0,
         "problem_yaml": "name: Third\n# validator_flags: float_tolerance 1\nvalidator_flags: float_tolerance 1e-6\n"}])
    inputs = []
    for n in (10, 100, 1000, 10000, 20000):  # 5 sizes; K=4 keeps 10, 20000 and two between
        xs = list(range(1, n + 1))
        text = "%d\n%s\n" % (n, " ".join(map(str, xs)))
        inputs.append({"problem_id": "fake/sums", "path": "sums/data/secret/%d.in" % n, "group": "secret",
                       "input_bytes": len(text), "input": text, "answer": "%d\n" % (n + sum(xs))})
    inputs.append({"problem_id": "fake/sums", "path": "sums/data/secret/g2/link.in", "group": "secret/g2",
                   "input_bytes": 14, "input": "../g1/10000.in", "answer": "../g1/10000.ans"})  # a git symlink
    inputs.append({"problem_id": "fake/third", "path": "third/data/sample/1.in", "group": "sample",
                   "input_bytes": 1, "input": "\n", "answer": "0.333333\n"})
    _gz(k / "inputs.jsonl.gz", inputs)
    e = root / "project_euler"
    prog = "from helpers.num import total\nprint('Answer:', total(open('../data/nums.txt').read()))\n"
    _gz(e / "programs.jsonl.gz", [
        {"source": "fake/euler", "commit": "1" * 40, "path": "p001/sol.py", "problem_id": 1, "code": prog,
         "py2": False, "reads_stdin": False, "third_party_imports": [], "risk_flags": [], "variant": 1,
         "local_modules": [{"module": "helpers.num", "place_as": "helpers/num.py",
                            "code": "def total(s):\n    return sum(map(int, s.split()))\n"},
                           {"module": "helpers", "place_as": "helpers/__init__.py", "code": ""}],
         "aux_files": [{"name_in_code": "../data/nums.txt", "text": "1 2 3 4\n"}]},
        {"source": "fake/euler", "commit": "1" * 40, "path": "p001/bad.py", "problem_id": 1, "code": "print(11)\n",
         "py2": False, "reads_stdin": False, "third_party_imports": [], "risk_flags": [], "variant": 2,
         "local_modules": [], "aux_files": []},
        {"source": "fake/euler", "commit": "1" * 40, "path": "p002/np.py", "problem_id": 2, "code": "import numpy\n",
         "py2": False, "reads_stdin": False, "third_party_imports": ["numpy"], "risk_flags": [], "variant": 1,
         "local_modules": [], "aux_files": []}])
    _gz(e / "answers.jsonl.gz", [{"problem_id": 1, "answer": "10"}, {"problem_id": 2, "answer": "5"}])
    _gz(root / "rosetta" / "programs.jsonl.gz", [
        {"source": "fake/rosetta", "commit": "2" * 40, "path": "Task/A/Python/a.py", "task": "A", "language": "python",
         "variant": 1, "code": "print(sum(range(10)))\n", "py2": False, "reads_stdin": False,
         "third_party_imports": [], "risk_flags": [], "has_main_code": True},
        {"source": "fake/rosetta", "commit": "2" * 40, "path": "Task/B/Python/b.py", "task": "B", "language": "python",
         "variant": 1, "code": "def f():\n    pass\n", "py2": False, "reads_stdin": False,
         "third_party_imports": [], "risk_flags": [], "has_main_code": False},
        {"source": "fake/rosetta", "commit": "2" * 40, "path": "Task/A/C/a.c", "task": "A", "language": "c",
         "variant": 1, "code": "int main(){}"}])
    return root


@pytest.fixture
def env(tmp_path, monkeypatch):
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    return fake_corpus(tmp_path / "corpora")


def test_the_work_paths_live_in_workfiles_only():
    """A test patches ``workfiles.WORK`` / ``workfiles.DATA``; a module with its own copy would let a patch of
    it (or a missed one) write into the real training/data.  Patching a name that is gone fails loudly."""
    for module in (measure_v2, packing):
        assert not hasattr(module, "WORK") and not hasattr(module, "DATA"), module.__name__


def run(corpus, *extra):
    return measure_v2.main(["run", "--corpus", str(corpus), "--time-limit", "5", "--repeats", "1", *extra])


# ----------------------------------------------------------------- without the sandbox

def test_select_inputs_spreads_over_log_size_and_keeps_the_largest():
    cands = [{"path": "%d.in" % s, "input_bytes": s} for s in (5, 1, 100, 10, 1000, 100000, 10000, 10000)]
    got = [c["input_bytes"] for c in sources.select_inputs(cands, 4)]
    assert got == [1, 100, 1000, 100000]   # log targets 0, 3.8, 7.7 (nearest: 1, 100, 1000) + the largest
    assert [c["input_bytes"] for c in sources.select_inputs(cands, 2)] == [1, 100000]
    assert len(sources.select_inputs(cands, 50)) == len(cands)   # fewer distinct sizes than K: all inputs
    assert sources.select_inputs([], 4) == []


def test_definitions_only_and_link_texts():
    assert sources.definitions_only('"""Doc."""\nimport math\n\ndef solve():\n    return 1\n\nclass A:\n    pass\n')
    assert not sources.definitions_only("def solve():\n    return 1\n\nprint(solve())\n")
    assert not sources.definitions_only("x = 1\n") and not sources.definitions_only("print 1\n")
    assert sources.is_link_text("../../secret/group1/002-g1-1.in") and sources.is_link_text("../sample/1.in\n")
    assert not sources.is_link_text("3\n1 2 3\n") and not sources.is_link_text("a.in\n")


def test_kattis_flags_read_only_uncommented_lines():
    f = sources.kattis_flags({"problem_yaml": "#validator_flags: float_tolerance 9\n"
                                              "validator_flags: float_absolute_tolerance 1e-4 case_sensitive\n"})
    assert f == {"abs": 1e-4, "rel": None, "case_sensitive": True}
    assert sources.kattis_flags({}) == {"abs": None, "rel": None, "case_sensitive": False}


def test_checkers():
    eq = execute.kattis_equal
    assert eq("Impossible\n", "impossible") and not eq("Impossible", "impossible", case_sensitive=True)
    assert not eq("1 2", "1 2 3") and not eq("0.3333", "0.333333")
    assert eq("0.3333334", "0.333333", 1e-6, 1e-6) and not eq("0.3334", "0.333333", 1e-6, 1e-6)
    assert eq("1000.001", "1000", None, 1e-5) and not eq("x", "1.0", 1e-6, 1e-6)
    has = execute.answer_in_output
    assert has("Problem 1: answer = 233168.\nTime: 0.01 s\n", "233168")
    assert not has("12 13 2331680\n", "233168") and not has("0.233168\n", "233168") and not has("", "1")
    assert has("result 0.46439900001\n", "0.464399") and has("1,13717420,8\n", "1,13717420,8")


def test_prepare_inserts_one_line_after_docstring_and_future_imports():
    code = '"""Doc."""\nfrom __future__ import annotations\nimport os\nprint(os.path.basename(__file__))\nexit()\n'
    new, patches = execute.prepare(code, aux=True, depth=1, name="sol.py")
    assert patches == ["chdir", "__file__", "exit"]
    lines = new.splitlines()
    assert lines[:2] == code.splitlines()[:2] and lines[3:] == code.splitlines()[2:]
    assert "chdir" in lines[2] and "from sys import exit, exit as quit" in lines[2] and "'/a0'" in lines[2]
    compile(new, "<program>", "exec")
    assert execute.prepare("print(1)\n") == ("print(1)\n", [])


def test_slope_on_known_numbers():
    xs = [10, 100, 1000, 10000]
    assert packing.slope(xs, [3 * x * x for x in xs]) == pytest.approx(2.0)
    assert packing.slope(xs, [7.0] * 4) == pytest.approx(0.0)
    assert packing.slope([10, 10, 100], [1, 2, 3]) is None   # two distinct sizes only


def _row(key, inp, n, **kw):
    r = {"source": "kattis", "problem_id": "p/" + key[0], "key": key, "input_id": inp, "input_bytes": n,
         "status": "ok", "memory_bytes": 2 * n ** 1.5, "exec_ms": 0.01 * n,
         "latency_ms": 40 + 0.01 * n, "memory_only": False, "kattis_shortname": key[0],
         "harness": workfiles.HARNESS}
    r.update(kw)
    return r


def test_pack_sorts_dedupes_prefers_full_rows_and_computes_growth(tmp_path, monkeypatch):
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    rows = [_row("b", "x3", 1000), _row("b", "x1", 10), _row("b", "x2", 100),
            _row("b", "x2", 100, memory_bytes=1),                         # a duplicate: the first row wins
            _row("a", "y1", 100, memory_only=True, exec_ms=None, latency_ms=None),
            _row("a", "y1", 100, memory_bytes=12345),                     # a full row replaces memory-only
            _row("a", "y2", 1000, status="timeout"), _row("a", "y3", 10),
            _row("c", "z1", 10, harness="measure-v2")]                    # an older harness: not packed
    p = workfiles.work_path("kattis")
    p.parent.mkdir(parents=True)
    p.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"key": "torn')
    info = packing.pack("kattis")
    got = [json.loads(line) for line in gzip.open(workfiles.data_path("kattis"), "rt")]
    assert info["rows"] == 6 and [(r["key"], r["input_id"]) for r in got] == [
        ("a", "y3"), ("a", "y1"), ("a", "y2"), ("b", "x1"), ("b", "x2"), ("b", "x3")]
    assert got[1]["memory_bytes"] == 12345 and not got[1]["memory_only"]
    assert got[4]["memory_bytes"] != 1
    assert all(r["validation"] == splits.is_kattis_validation(r["kattis_shortname"]) for r in got)
    g = [json.loads(line) for line in gzip.open(workfiles.growth_path("kattis"), "rt")]
    assert [x["key"] for x in g] == ["b"]   # "a" has 2 ok sizes only
    assert g[0]["growth_memory"] == pytest.approx(1.5, abs=1e-3)
    assert g[0]["growth_latency"] == pytest.approx(1.0, abs=1e-3)
    assert g[0]["n_sizes"] == 3 and g[0]["max_bytes"] == 1000
    before = workfiles.data_path("kattis").read_bytes()
    packing.pack("kattis")   # deterministic (gzip mtime 0), and the packed rows are merged back
    assert workfiles.data_path("kattis").read_bytes() == before
    p.write_text(json.dumps(dict(rows[0], code="print(1)")) + "\n")
    workfiles.data_path("kattis").unlink()
    with pytest.raises(ValueError):
        packing.pack("kattis")


def test_retry_errors_measures_a_failed_row_again_and_pack_keeps_the_run(tmp_path, monkeypatch):
    import argparse

    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    failed = _row("a", "1", 10, status="error", memory_bytes=None, error="AttributeError: no attribute 'buffer'")
    other = _row("b", "1", 10, status="error", memory_bytes=None, error="ValueError: bad input")
    packing._write_gz(workfiles.data_path("kattis"), [failed, other])
    tasks = [{"row": {"key": k, "input_id": "1"}, "code": "print(1)", "stdin": ""} for k in ("a", "b")]
    monkeypatch.setattr(measure_v2, "source_tasks", lambda source, a: tasks)
    measured = []
    monkeypatch.setattr(measure_v2, "_measure", lambda args: measured.append(args[0]["row"]["key"]) or _row(
        args[0]["row"]["key"], "1", 10, memory_bytes=777))
    opts = dict(limit=None, time_limit=1, memory_limit=64, repeats=1, memory_only=True, workers=1)
    measure_v2.run_source("kattis", argparse.Namespace(**opts))
    assert measured == []  # errors are done unless asked
    measure_v2.run_source("kattis", argparse.Namespace(**opts, retry_errors="no attribute 'buffer'"))
    assert measured == ["a"]
    packing.pack("kattis")
    packed = {r["key"]: r for r in map(json.loads, gzip.open(workfiles.data_path("kattis"), "rt"))}
    assert packed["a"]["status"] == "ok" and packed["a"]["memory_bytes"] == 777
    assert packed["b"]["status"] == "error"


def test_kattis_validation_split_is_fixed_by_hash():
    names = ["problem%d" % i for i in range(2000)]
    val = [n for n in names if splits.is_kattis_validation(n)]
    assert 120 < len(val) < 280
    assert val == [n for n in names if splits.is_kattis_validation(n)]
    assert splits.is_kattis_validation("arcade2") == splits.is_kattis_validation("arcade2")


def test_workers_without_memory_only_are_refused(env):
    assert run(env, "--source", "rosetta", "--workers", "2") == 2
    assert not workfiles.work_path("rosetta").exists()


# ----------------------------------------------------------------- in the sandbox

@needs_bwrap
def test_kattis_rows_checks_resume_and_growth(env):
    assert run(env, "--source", "kattis", "--limit", "3") == 0
    path = workfiles.work_path("kattis")
    assert len(_rows(path)) == 3
    assert run(env, "--source", "kattis") == 0
    rows = _rows(path)
    # 3 programs x 4 inputs of "sums" + 1 program x 1 input of "third"; the first 3 not measured again
    assert len(rows) == 13 and len({(r["key"], r["input_id"]) for r in rows}) == 13
    by = {}
    for r in rows:
        by.setdefault(r["path"].rsplit("/", 1)[1], []).append(r)
    assert sorted(r["input_bytes"] for r in by["good.py"]) == sorted(
        r["input_bytes"] for r in by["wrong.py"])
    assert len({r["input_bytes"] for r in by["good.py"]}) == 4
    assert not any(r["input_id"].endswith("link.in") for r in rows)   # the smallest, but a symlink's text
    assert max(r["input_bytes"] for r in by["good.py"]) > 100000   # the largest input is always taken
    for r in by["good.py"]:
        assert r["status"] == "ok" and r["checked"] and r["check"] == "tokens", r
        assert r["memory_bytes"] > 0 and "memory_baseline_bytes" not in r and r["harness"] == workfiles.HARNESS
        assert r["latency_ms"] > r["exec_ms"] > 0 and r["exec_runs"] == 1
        assert r["sandbox"] in ("bwrap", "bwrap-root") and r["shape"] == "stdin" and r["python"]
    assert {r["status"] for r in by["wrong.py"]} == {"wrong_answer"}
    assert all(r["status"] == "ok" and r["patches"] == ["exit"] for r in by["exits.py"])
    third = by["third.py"][0]
    assert third["status"] == "ok" and third["check"] == "kattis"   # 0.3333333333333333 within 1e-6
    # resume: nothing left to do; a removed line is measured again, and only that one
    assert run(env, "--source", "kattis") == 0 and len(_rows(path)) == 13
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-1]) + lines[-1][:20])   # the last row, torn
    assert run(env, "--source", "kattis") == 0
    rows = list(workfiles.read_rows(path))
    assert len(rows) == 13 and len({(r["key"], r["input_id"]) for r in rows}) == 13
    info = packing.pack("kattis")
    assert info["rows"] == 13
    g = {x["key"].rsplit("/", 1)[1]: x for x in map(json.loads, gzip.open(workfiles.growth_path("kattis"), "rt"))}
    assert set(g) == {"good.py", "exits.py"}            # wrong.py is wrong_answer, third.py has one input
    assert 0.7 < g["good.py"]["growth_memory"] < 1.3    # a list of n ints: linear in the input


@needs_bwrap
def test_euler_helpers_data_files_answer_check_and_skips(env):
    assert run(env, "--source", "euler") == 0
    rows = {r["path"]: r for r in _rows(workfiles.work_path("euler"))}
    sol = rows["p001/sol.py"]
    assert sol["status"] == "ok", sol
    assert sol["check"] == "answer_in_output" and sol["patches"] == ["chdir"] and sol["shape"] == "script"
    assert sol["input_id"] == "" and sol["memory_bytes"] > 0 and sol["latency_ms"] > 0
    assert rows["p001/bad.py"]["status"] == "wrong_answer"
    assert rows["p002/np.py"]["status"] == "skipped" and "numpy" in rows["p002/np.py"]["reason"]
    assert all("code" not in r for r in rows.values())


@needs_bwrap
def test_rosetta_and_memory_only_mode(env):
    assert run(env, "--source", "rosetta", "--memory-only", "--workers", "2") == 0
    rows = {r["path"]: r for r in _rows(workfiles.work_path("rosetta"))}
    assert set(rows) == {"Task/A/Python/a.py", "Task/B/Python/b.py"}     # C rows are not Python
    a = rows["Task/A/Python/a.py"]
    assert a["status"] == "ok" and a["memory_only"] and a["latency_ms"] is None and not a["checked"]
    assert rows["Task/B/Python/b.py"]["status"] == "skipped"
    assert run(env, "--source", "rosetta") == 0                          # a full run re-measures it
    full = [r for r in _rows(workfiles.work_path("rosetta")) if r["path"] == "Task/A/Python/a.py"]
    assert len(full) == 2 and full[1]["latency_ms"] > 0
    packing.pack("rosetta")
    packed = [json.loads(line) for line in gzip.open(workfiles.data_path("rosetta"), "rt")]
    assert len(packed) == 2 and next(r for r in packed if r["path"] == "Task/A/Python/a.py")["latency_ms"] > 0


@needs_bwrap
def test_timeout_and_memory_limit_rows():
    opts = {"time_limit": 1, "memory_mb": 256, "repeats": 1}
    hang = execute.measure({"row": {"key": "k"}, "code": "while True:\n    pass\n", "stdin": ""}, opts)
    assert hang["status"] == "timeout" and hang["latency_ms"] is None and hang["memory_bytes"] is None
    assert hang["measure_s"] < 6   # the single timed run stops it: about T + 2 s, not the memory run's 3T + 2
    big = execute.measure({"row": {"key": "k"}, "code": "x = bytearray(1 << 30)\n", "stdin": ""}, opts)
    assert big["status"] == "memory_limit", big
    crash = execute.measure({"row": {"key": "k"}, "code": "print(1)\nraise KeyError(7)\n", "stdin": ""}, opts)
    assert crash["status"] == "error" and "KeyError" in crash["error"]


@needs_bwrap
def test_custom_validator_accepts_the_packages_answer_and_reruns_old_skips(env):
    k = env / "kattis_packages"
    progs = [json.loads(x) for x in gzip.open(k / "programs.jsonl.gz", "rt")]
    for name, code in [("exact.py", "print(6 * 7)\n"), ("other.py", "print('42.0')\n")]:
        progs.append(dict(progs[0], path="answer/submissions/accepted/" + name, problem_id="fake/answer",
                          kattis_shortname="answer", code=code))
    _gz(k / "programs.jsonl.gz", progs)
    problems = [json.loads(x) for x in gzip.open(k / "problems.jsonl.gz", "rt")]
    _gz(k / "problems.jsonl.gz", problems + [dict(problems[0], problem_id="fake/answer", validation="custom")])
    inputs = [json.loads(x) for x in gzip.open(k / "inputs.jsonl.gz", "rt")]
    _gz(k / "inputs.jsonl.gz", inputs + [{"problem_id": "fake/answer", "path": "answer/data/secret/1.in",
                                          "group": "secret", "input_bytes": 1, "input": "\n", "answer": "42\n"}])
    # a row written as skipped by an older source (custom validators were skipped): measured again
    old = dict(_row("fake/kattis:answer/submissions/accepted/exact.py", "answer/data/secret/1.in", 1),
               status="skipped", reason="custom output validator (not in the corpus)", memory_bytes=None)
    path = workfiles.work_path("kattis")
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(old) + "\n")
    assert run(env, "--source", "kattis", "--memory-only") == 0
    rows = {r["path"].rsplit("/", 1)[1]: r for r in _rows(path)[1:] if r["problem_id"] == "fake/answer"}
    assert rows["exact.py"]["status"] == "ok" and rows["exact.py"]["validator"] == "custom"
    assert rows["exact.py"]["checked"] and rows["exact.py"]["memory_bytes"] > 0
    assert rows["other.py"]["status"] == "unverified" and not rows["other.py"]["checked"]
    assert "custom validator" in rows["other.py"]["error"]
    packing.pack("kattis")
    packed = {r["key"]: r for r in map(json.loads, gzip.open(workfiles.data_path("kattis"), "rt"))}
    assert packed[old["key"]]["status"] == "ok"   # the measured row replaces the old skip
    n = len(_rows(path))
    assert run(env, "--source", "kattis", "--memory-only") == 0 and len(_rows(path)) == n   # nothing left


def test_a_latency_run_measures_what_was_never_measured_before_it_retimes(tmp_path, monkeypatch):
    """Memory-only rows are timed again by a latency run, but only after the tasks no row has yet."""
    import argparse

    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    old = _row("a", "1", 10, memory_only=True)
    packing._write_gz(workfiles.data_path("kattis"), [old])
    tasks = [{"row": {"key": k, "input_id": i}, "code": "print(1)", "stdin": ""}
             for k, i in (("a", "1"), ("b", "1"), ("a", "2"), ("c", "1"))]
    monkeypatch.setattr(measure_v2, "source_tasks", lambda source, a: tasks)
    order = []

    def fake_measure(args):
        task, opts = args
        order.append((task["row"]["key"], task["row"]["input_id"]))
        return dict(task["row"], status="ok", memory_only=opts["memory_only"])

    monkeypatch.setattr(measure_v2, "_measure", fake_measure)
    a = argparse.Namespace(memory_only=False, limit=None, time_limit=5, memory_limit=512, repeats=1, workers=1)
    info = measure_v2.run_source("kattis", a)
    assert order == [("b", "1"), ("a", "2"), ("c", "1"), ("a", "1")]  # the memory-only row last
    assert info["rows"] == 4
    order.clear()
    measure_v2.run_source("kattis", a)
    assert order == []  # all done: nothing again


def test_kattis_solutions_of_a_packaged_problem_run_on_its_inputs(tmp_path):
    from training.judging import shaped_examples as v4_data

    root = tmp_path / "corpora"
    fake_corpus(root)
    problems = [json.loads(x) for x in gzip.open(root / "kattis_packages" / "problems.jsonl.gz", "rt")]
    _gz(root / "kattis_packages" / "problems.jsonl.gz",
        [dict(p, kattis_shortname=p["problem_id"].split("/")[1]) for p in problems])
    sol = {"source": "sol/kattis", "commit": "2" * 40, "language": "python", "code": SUM, "py2": False,
           "reads_stdin": True, "third_party_imports": []}
    _gz(root / "kattis_solutions" / "programs.jsonl.gz", [
        dict(sol, path="src/Sums/sums.py", kattis_shortname="sums", inputs_in_kattis_packages=True),
        dict(sol, path="src/Other/other.py", kattis_shortname="other", inputs_in_kattis_packages=False),
        dict(sol, path="src/Sums/unflagged.py", kattis_shortname="sums", inputs_in_kattis_packages=False)])
    tasks = [t for t in sources.kattis_tasks(root, k=4) if t["row"]["repo"] == "sol/kattis"]
    assert {t["row"]["key"] for t in tasks} == {"sol/kattis:src/Sums/sums.py"}
    assert len(tasks) == 4 and {t["row"]["problem_id"] for t in tasks} == {"fake/sums"}
    assert all(t["row"]["verdict_dir"] == "kattis_solutions" and t["expected"] for t in tasks)  # checked
    assert v4_data.program_codes("kattis", root)["sol/kattis:src/Sums/sums.py"] == SUM


def _curve_row(key, rung, n, mem, ms, **kw):
    r = {"source": "curves", "shape": "function", "key": key, "problem_id": 7, "input_id": f"curve:{rung}:s0",
         "rung": rung, "input_size": n, "status": "ok", "memory_bytes": mem, "latency_ms": ms, "clock": "cpu_min",
         "output_digest": "d%s" % n, "harness": workfiles.HARNESS}
    r.update(kw)
    return r


def test_curves_pack_fits_both_metrics_and_pairs_the_variants_with_their_parents(tmp_path, monkeypatch):
    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    sizes = {"1/64": 100, "1/16": 400, "1/4": 1600, "1": 6400, "4": 25600}
    parent = [_curve_row("p", rung, n, 64 * n, 0.001 * n) for rung, n in sizes.items()]  # ~n both
    variant = [_curve_row("p#nest", rung, n, 64 * n, 1e-6 * n * n, source="variant-curves", parent="p",
                          mutation="nest", role="variant", expected_direction="regression",
                          expected_metrics=["latency"]) for rung, n in sizes.items()]  # time ~n²
    variant[-1].update(status="timeout", memory_bytes=None, latency_ms=None)
    for source, rows in (("curves", parent), ("variant-curves", variant)):
        p = workfiles.work_path(source)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    packing.pack("curves")
    info = packing.pack("variant-curves")
    [g] = [json.loads(line) for line in gzip.open(workfiles.growth_path("curves"), "rt")]
    assert (g["time_class"], g["memory_class"], g["n_sizes"], g["span"]) == ("n", "n", 5, 256.0)
    assert g["time_exponent"] == pytest.approx(1.0, abs=1e-3) and g["time_r2"] == pytest.approx(1.0)
    [v] = [json.loads(line) for line in gzip.open(workfiles.growth_path("variant-curves"), "rt")]
    assert v["time_class"] == "n²" and v["n_sizes"] == 4 and v["stopped"] == "timeout at rung 4"
    pairs = [json.loads(line) for line in gzip.open(workfiles.DATA / "leetcode_variant_curves.pairs.jsonl.gz", "rt")]
    assert info["pairs"] == 5 and info["pairs_both_ok"] == 4
    assert {p["input_id"] for p in pairs} == {f"curve:{r}:s0" for r in sizes}


def test_shards_split_the_programs_whole_and_a_bad_shard_is_one_line(tmp_path, monkeypatch, capsys):
    """Two ``--shard`` processes (one per core) measure every task once between them, each program whole."""
    import argparse

    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    tasks = [{"row": {"key": "p%d" % k, "input_id": str(i)}, "code": "print(1)", "stdin": ""}
             for k in range(20) for i in range(3)]
    monkeypatch.setattr(measure_v2, "source_tasks", lambda source, a: tasks)
    seen: dict = {}

    def fake_measure(args):
        task, opts = args
        seen.setdefault(task["row"]["key"], []).append(shard)
        return dict(task["row"], status="ok")

    monkeypatch.setattr(measure_v2, "_measure", fake_measure)
    for shard in ((0, 2), (1, 2)):
        a = argparse.Namespace(memory_only=False, limit=None, time_limit=5, memory_limit=512, repeats=1, workers=1,
                               shard=shard)
        measure_v2.run_source("kattis", a)
    assert set(seen) == {"p%d" % k for k in range(20)}
    assert all(len(v) == 3 and len(set(v)) == 1 for v in seen.values())  # each program whole, in one shard
    assert {v[0] for v in seen.values()} == {(0, 2), (1, 2)}              # both shards got work
    assert len(_rows(workfiles.work_path("kattis"))) == 60
    for bad in ("2/2", "one/two", "1"):
        with pytest.raises(SystemExit) as e:
            measure_v2.main(["run", "--source", "kattis", "--shard", bad])
        assert e.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert "--shard" in err and "I/K" in err


def test_more_variants_mutate_every_parent_with_packed_curves_interleaved_by_kind(tmp_path, monkeypatch):
    """Variant curves beyond data v2: every kind that applies to each program with 3+ ok rungs, minus the
    (parent, kind) pairs already listed; kinds interleaved so a partial run holds each."""
    from types import SimpleNamespace

    from training.measuring import leetcode_ladders as lc

    code = ("def f(xs):\n    seen = set()\n    for x in xs:\n        seen.add(x)\n"
            "    return sum(1 for x in xs if x in seen)\n")
    progs = [SimpleNamespace(key=k, code=code) for k in ("a", "b", "c")]
    monkeypatch.setattr(lc, "problems", lambda: {7: SimpleNamespace(programs=progs)})
    ok = [{"problem_id": 7, "key": k, "rung": r, "status": "ok"} for k in ("a", "b") for r in ("1/64", "1/16", "1")]
    ok += [{"problem_id": 7, "key": "c", "rung": r, "status": s} for r, s in (("1/64", "ok"), ("1/16", "ok"),
                                                                           ("1", "timeout"))]
    _gz(tmp_path / "leetcode_curves.jsonl.gz", ok)
    got = lc._more_variants(tmp_path / "leetcode_curves.jsonl.gz", have={("a", "rename")})
    parents = {p for _, p, _ in got}
    assert parents == {"a", "b"}                      # c has only 2 ok rungs
    kinds_a = {v.kind for _, p, v in got if p == "a"}
    kinds_b = {v.kind for _, p, v in got if p == "b"}
    assert "rename" not in kinds_a and "rename" in kinds_b and "set_to_list" in kinds_b
    assert kinds_a == kinds_b - {"rename"}
    assert all(v.code != code for _, _, v in got)
    first = [v.kind for _, _, v in got][: len(kinds_b)]
    assert len(set(first)) == len(first)              # each kind once before any kind twice
    assert lc._more_variants(tmp_path / "missing.jsonl.gz", set()) == []


def test_order_cheap_measures_the_variants_of_the_cheapest_parents_first(tmp_path, monkeypatch):
    """``--order cheap``: a variant's cost is its parent's CPU time over its ok rungs; rungs stay in order."""
    import argparse

    monkeypatch.setattr(workfiles, "WORK", tmp_path / "work")
    monkeypatch.setattr(workfiles, "DATA", tmp_path / "data")
    parents = [_curve_row(key, rung, n, 8 * n, ms * n) for key, ms in (("dear", 1.0), ("cheap", 0.01), ("mid", 0.1))
               for rung, n in (("1/16", 100), ("1/4", 400))]
    p = workfiles.work_path("curves")
    p.parent.mkdir(parents=True)
    p.write_text("".join(json.dumps(r) + "\n" for r in parents))
    tasks = [{"row": {"key": f"{parent}#{kind}", "parent": parent, "problem_id": 7, "input_id": f"curve:{rung}:s0",
                      "rung": rung, "role": "variant"}, "code": "x"}
             for kind in ("swap", "nest") for parent in ("dear", "unknown", "cheap", "mid") for rung in ("1/16", "1/4")]
    monkeypatch.setattr(measure_v2, "source_tasks", lambda source, a: tasks)
    order = []
    monkeypatch.setattr(measure_v2, "_measure", lambda args: order.append(
        (args[0]["row"]["key"], args[0]["row"]["rung"])) or dict(args[0]["row"], status="ok"))
    a = argparse.Namespace(memory_only=False, limit=None, time_limit=5, memory_limit=512, repeats=1, workers=1,
                           order="cheap")
    measure_v2.run_source("variant-curves", a)
    assert [k for k, _ in order[::2]] == ["cheap#swap", "cheap#nest", "mid#swap", "mid#nest", "dear#swap",
                                          "dear#nest", "unknown#swap", "unknown#nest"]  # a parent never measured: last
    assert [r for _, r in order] == ["1/16", "1/4"] * 8  # each program's rungs together, smallest first
