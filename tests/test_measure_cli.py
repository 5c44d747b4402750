"""`rlm measure` (issue 62, item 1): inputs by kind, the fit, and real runs in the sandbox.

The end-to-end tests run functions in bubblewrap; where it cannot start they skip with the
reason, except under CI=true, where they fail.  Budgets are small so the file stays fast.
"""

from __future__ import annotations

import json
import math
import os

import pytest

from rlm_lsp.app import cli, cli_measure
from rlm_lsp.measure import inputs, makers, report, run, sandbox
from rlm_lsp.policy import project_config
from rlm_lsp.runtime.errors import ConfigError

WHY = None if os.environ.get("CI") == "true" else sandbox.unavailable()
needs_bwrap = pytest.mark.skipif(WHY is not None, reason=f"{WHY}; with CI=true this fails")

KINDS = '''
import bisect


class Node:
    def __init__(self, val):
        self.val = val
        self.next = None


class Tree:
    def __init__(self, val):
        self.val = val
        self.left = self.right = None


def mean(xs: list[float]):
    return sum(xs) / len(xs)

def longest(words):
    return max(words, key=lambda w: len(w.strip()))

def vowels(s):
    return sum(1 for c in s if c in "aeiou")

def sieve(n):
    flags = [True] * (n + 1)
    for i in range(2, n + 1):
        for j in range(i * i, n + 1, i):
            flags[j] = False
    return flags

def invert(d):
    return {v: k for k, v in d.items()}

def islands(grid):
    return sum(grid[i][j] for i in range(len(grid)) for j in range(len(grid[0])))

def reach(graph, start):
    seen, todo = {start}, [start]
    while todo:
        for v in graph[todo.pop()]:
            if v not in seen:
                seen.add(v)
                todo.append(v)
    return seen

def degrees(adj):
    return [len(row) for row in adj]

def find(xs, target):
    lo, hi = 0, len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return lo

def rank(xs, x):
    return bisect.bisect_left(xs, x)

def length(head):
    k = 0
    while head:
        k, head = k + 1, head.next
    return k

def height(root):
    return 0 if root is None else 1 + max(height(root.left), height(root.right))

def sort_in_place(xs):
    xs.sort()

def popcount(n):
    c = 0
    while n:
        c, n = c + (n & 1), n >> 1
    return c

def top(xs, k):
    return sorted(xs)[:k]

def nothing():
    return 1
'''
EXPECTED = {  # function -> (inputs in words, mutates)
    "mean": ("xs: list of floats", False), "longest": ("words: list of strings", False),
    "vowels": ("s: string", False), "sieve": ("n: int (n = its value)", False), "invert": ("d: dict", False),
    "islands": ("grid: grid", False), "reach": ("graph: graph (dict), start: 0", False),
    "degrees": ("adj: graph (lists)", False), "find": ("xs: sorted list, target: 0", False),
    "rank": ("xs: sorted list, x: 0", False), "length": ("head: linked list", False), "height": ("root: tree", False),
    "sort_in_place": ("xs: list of ints", True), "popcount": ("n: int (n = its bits)", False),
    "top": ("xs: list of ints, k: 5", False),
}


def test_inputs_are_read_per_kind():
    plans = {p.function: p for p in inputs.plans(KINDS)}
    for name, (words, mutates) in EXPECTED.items():
        assert (plans[name].inputs, plans[name].mutates, plans[name].reason) == (words, mutates, None), name
    assert "no parameters" in plans["nothing"].reason
    assert inputs.plans(KINDS, only="find")[0].function == "find"


def test_the_makers_build_each_kind_at_size_n():
    ns = {"Node": type("Node", (), {}), "Tree": type("Tree", (), {})}
    for name in EXPECTED:
        plan = inputs.plans(KINDS, only=name)[0]
        args = makers.build(list(plan.recipe), 64, ns)
        assert len(args) == len(plan.recipe), name
    xs, = makers.build([{"kind": "sorted_ints"}], 100)
    assert len(xs) == 100 and xs == sorted(xs)
    grid, = makers.build([{"kind": "grid"}], 100)
    assert len(grid) == 10 and all(len(r) == 10 for r in grid)
    graph, = makers.build([{"kind": "graph_dict"}], 50)
    assert len(graph) == 50 and sum(map(len, graph.values())) == 2 * 4 * 50
    assert makers.build([{"kind": "bits"}], 40)[0].bit_length() == 40
    head, = makers.build([{"kind": "linked", "cls": "Node"}], 30, ns)
    count = 0
    while head:
        count, head = count + 1, head.next
    assert count == 30
    assert makers.build([{"kind": "ints"}], 20) == makers.build([{"kind": "ints"}], 20)  # deterministic


def test_what_cannot_be_built_says_why_in_one_line():
    source = "class Box:\n    def __init__(self, k):\n        self.k = k\n    def get(self, xs):\n        return xs\n\n" \
             "def walk(node):\n    return node.left\n\nasync def later(xs):\n    return xs\n"
    reasons = {p.function: p.reason for p in inputs.plans(source)}
    assert "constructor needs arguments" in reasons["Box.get"]
    assert reasons["walk"] is None  # no node class of its own: plain nodes (below)
    assert "async" in reasons["later"]
    assert all("\n" not in r for r in reasons.values() if r)


def test_a_method_of_a_class_of_object_is_measured_on_a_fresh_instance():
    source = "class Solution(object):\n    def total(self, nums):\n        return sum(nums)\n\n" \
             "class Base:\n    pass\n\nclass Derived(Base):\n    def total(self, nums):\n        return sum(nums)\n"
    reasons = {p.function: p.reason for p in inputs.plans(source)}
    assert reasons["Solution.total"] is None  # LeetCode's `class Solution(object)`
    assert "subclass" in reasons["Derived.total"]


def test_rows_unpacked_into_names_are_built_as_rows_of_that_width():
    source = "def wait(customers: list[list[int]]):\n    t = 0\n    for a, b in customers:\n        t = max(t, a) + b\n" \
             "    return t\n\ndef edges(n: int, roads: list[list[int]]):\n    g = [[] for _ in range(n)]\n" \
             "    for u, v, w in roads:\n        g[u].append((v, w))\n    return g\n"
    recipes = {p.function: p.recipe for p in inputs.plans(source)}
    assert recipes["wait"] == ({"kind": "rows", "width": 2},)
    assert recipes["edges"][1] == {"kind": "rows", "width": 3}
    roads, = makers.build([{"kind": "rows", "width": 3}], 50)
    assert len(roads) == 50 and all(len(r) == 3 and r == sorted(r) and 0 <= min(r) and max(r) < 50 for r in roads)


def test_a_generator_from_tool_rlm_inputs_replaces_the_kinds(tmp_path):
    config = project_config.from_table({"inputs": {"mean": "gen:make"}}, tmp_path)
    assert config.inputs == {"mean": "gen:make"} and not config.unknown
    plan = inputs.plans(KINDS, config.inputs, only="mean")[0]
    assert plan.generator == "gen:make" and plan.inputs == "generator gen:make"
    with pytest.raises(ConfigError):
        project_config.from_table({"inputs": {"mean": "no colon"}}, tmp_path)
    assert "did you mean 'inputs'" in project_config.from_table({"input": {}}, tmp_path).unknown[0]


@pytest.mark.parametrize("cost, expected", [
    (lambda n: 3e-6 * n, "n"), (lambda n: 2e-8 * n * n, "n²"), (lambda n: 4e-7 * n * math.log(n), "n log n"),
    (lambda n: 1e-6, "1"),
])
def test_the_fit_classes_synthetic_curves(cost, expected):
    sizes = [16 * 4 ** k for k in range(7)]
    g = run._growth(sizes, [cost(n) for n in sizes], run.FLOORS["time"])
    assert g.growth_class == expected


def test_memory_that_is_never_allocated_is_flat():
    g = run._growth([16, 64, 256, 1024], [0, 0, 0, 0], run.FLOORS["memory"])
    assert (g.growth_class, g.exponent) == ("1", 0.0)


def test_the_ladder_stops_where_the_next_size_would_overrun():
    rungs = [run.Rung(1000, 0.01, 0, 1.0, 0.5), run.Rung(2000, 0.04, 0, 1.0, 2.0)]
    assert run.predicted_wall(rungs, 4000) == pytest.approx(8.0)  # wall x4 per doubling: quadratic
    assert report.sparkline([1, 10, 100]) == "▁▅█" and report.sparkline([5, 5]) == "▁▁"


def test_without_bubblewrap_it_exits_2_with_the_install_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "f.py").write_text("def f(xs):\n    return len(xs)\n")
    monkeypatch.setenv("PATH", str(tmp_path))  # no bwrap on it
    monkeypatch.setattr(sandbox, "_PROBED", {})
    assert cli.main(["measure", str(tmp_path / "f.py")]) == 2
    err = capsys.readouterr().err
    assert "apt-get install bubblewrap" in err and len(err.strip().splitlines()) == 1
    with pytest.raises(sandbox.SandboxMissing):
        sandbox.run({"probe": True}, [], sandbox.Limits())


GROWTH = '''
def running_sum(xs):
    total = 0
    for x in xs:
        total += x
    return total


def doubled(xs):
    return [2 * x for x in xs]


def count_pairs(xs):
    pairs = 0
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] < xs[j]:
                pairs += 1
    return pairs
'''


def _measure(tmp_path, capsys, *names: str, budget: float = 3, max_n: str = "2**17") -> dict:
    targets = [f"{tmp_path / 'growth.py'}::{name}" for name in names]
    code = cli.main(["measure", *targets, "--budget", str(budget), "--max-n", max_n, "--json"])
    rows = {r["function"]: r for r in json.loads(capsys.readouterr().out)}
    assert code == 0, rows
    for r in rows.values():
        assert r["status"] == "measured" and r["wall_s"] < budget + 1
        assert len(r["sizes"]) == len(r["time_s"]) == len(r["memory_bytes"]) >= 3
    return rows


@needs_bwrap
def test_a_linear_and_a_quadratic_function_are_classed_right(tmp_path, capsys):
    (tmp_path / "growth.py").write_text(GROWTH)
    # both ladders end at max n, not at the budget: within 3 s of wall clock a loaded machine (slow
    # sandbox starts, a wall-clock prediction of the next size that grows with them) stopped the
    # quadratic at n=256, with two sizes above the 20 µs time floor, where the fit raises the rest to
    # the floor and the slope comes out damped (1.61 for a quadratic); beside 14 busy processes the
    # linear one stopped short of 2**17 too, where its memory's slope leans on small sizes (small ints
    # are shared) and passed 1.1.  The quadratic's 16..1024 puts three sizes above the time floor, and
    # the generous budget only matters where the machine is slow (idle, each takes about 1.5 s)
    rows = _measure(tmp_path, capsys, "doubled", budget=10)
    rows |= _measure(tmp_path, capsys, "count_pairs", budget=10, max_n="1024")
    assert rows["doubled"]["stopped"].startswith("max n"), rows["doubled"]
    assert rows["doubled"]["memory"]["class"] == "n" and 0.9 < rows["doubled"]["memory"]["exponent"] < 1.1
    assert rows["count_pairs"]["memory"]["class"] == "1"
    quadratic = rows["count_pairs"]
    above = [n for n, t in zip(quadratic["sizes"], quadratic["time_s"]) if t >= run.FLOORS["time"]]
    assert len(above) >= 3 and quadratic["sizes"][-1] == 1024, quadratic
    assert quadratic["time"]["class"] == "n²", quadratic
    assert 1.7 < quadratic["time"]["exponent"] < 2.3, quadratic
    # CPU time on a shared machine can bend a linear curve up by a few percent, which n log n then fits
    # better (tracemalloc's memory, above, is exact): the time is held to "far from the quadratic"
    time_fit = rows["doubled"]["time"]
    assert time_fit["class"] in ("n", "n log n") and 0.8 < time_fit["exponent"] < 1.4, rows["doubled"]


HOSTILE = '''
import os


def spin(n):
    while True:
        n += 1

def hog(n):
    return bytearray(n * 10 ** 9)

def forks(n):
    for _ in range(n):
        os.fork()

def writes(n):
    for _ in range(n):
        open("/etc/rlm-owned", "w").write("x")

def calls_home(n):
    import socket
    for _ in range(n):
        socket.create_connection(("1.1.1.1", 80), timeout=1)

def floods(n):
    for _ in range(n * 10 ** 9):
        print("spam" * 100)

def raw_flood(n):
    for _ in range(n * 10 ** 9):
        os.write(1, b"x" * 65536)
'''


@needs_bwrap
def test_hostile_functions_are_contained_and_reported_unmeasured(tmp_path, capsys):
    (tmp_path / "hostile.py").write_text(HOSTILE)
    code = cli_measure.main([str(tmp_path / "hostile.py"), "--budget", "1", "--json"])
    rows = {r["function"]: r for r in json.loads(capsys.readouterr().out)}
    assert code == 1
    assert all(r["status"] == "unmeasured" for r in rows.values())
    assert "timeout" in rows["spin"]["reason"]
    assert "memory limit" in rows["hog"]["reason"]
    assert "fork" in rows["forks"]["reason"]
    assert "Read-only file system" in rows["writes"]["reason"]
    assert "blocked" in rows["calls_home"]["reason"] or "unreachable" in rows["calls_home"]["reason"]
    assert "output flood" in rows["floods"]["reason"] and "output flood" in rows["raw_flood"]["reason"]
    assert rows["spin"]["wall_s"] < run.MIN_WALL_S + 1
    assert not os.path.exists("/etc/rlm-owned")


@needs_bwrap
def test_the_table_shows_each_rung_and_the_fit(tmp_path, capsys):
    (tmp_path / "pyproject.toml").write_text('[tool.rlm.inputs]\nrunning_sum = "gen:make"\n')
    (tmp_path / "gen.py").write_text("def make(n):\n    return (list(range(n)),)\n")
    (tmp_path / "growth.py").write_text(GROWTH)
    code = cli.main(["measure", f"{tmp_path / 'growth.py'}::running_sum", "--budget", "2", "--max-n", "4096"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "running_sum(generator gen:make)  measured" in out
    assert "ladder stopped:" in out and "time " in out and "memory " in out


def test_a_class_agrees_with_the_slope():
    """A flat curve whose last size jumps by noise can fit n³ best on relative errors; the class
    reported is then the nearest by its exponent (here flat)."""
    sizes = [16, 64, 256, 1024, 4096, 16384, 65536]
    times = [25e-6, 21e-6, 20e-6, 21e-6, 20e-6, 22e-6, 100e-6]
    assert run.fit(sizes, times, run.FLOORS["time"]).growth_class == "n³"  # the fit alone
    g = run._growth(sizes, times, run.FLOORS["time"])
    assert g.exponent is not None and g.exponent < 0.2 and g.growth_class in ("1", "log n"), g
    g = run._growth(sizes, [s * 1e-6 for s in sizes], run.FLOORS["time"])
    assert g.growth_class == "n", g


def test_a_tree_without_a_node_class_of_its_own_is_built_of_plain_nodes():
    """growth-dev's functions import their TreeNode; the measured tree is then of plain nodes, whose
    value also answers to `data` or `key`."""
    source = "def height(root):\n    if root is None:\n        return 0\n" \
             "    return 1 + max(height(root.left), height(root.right))\n\n\n" \
             "def total(head):\n    s = 0\n    while head:\n        s += head.data\n        head = head.next\n    return s\n"
    plans = {p.function: p for p in inputs.plans(source)}
    assert plans["height"].reason is None and plans["height"].recipe == ({"kind": "tree", "cls": None},)
    root, = makers.build(list(plans["height"].recipe), 63)
    depth, todo = 0, [(root, 1)]
    while todo:
        node, d = todo.pop()
        depth = max(depth, d)
        todo += [(c, d + 1) for c in (node.left, node.right) if c is not None]
    assert depth == 6
    head, = makers.build(list(plans["total"].recipe), 10)
    assert head.data == head.val and head.next is not None

