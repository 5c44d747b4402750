"""The cost analyzer (`rlm_lsp.cost`, Python front end `cost_front`): its reading of textbook
functions, and memory's growth through the shipped default in `rlm predict` and the gate."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.python.cost_front import MAX_CHARS, read

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "rlm_lsp" / "models" / "default"

SAMPLES = textwrap.dedent('''
    from collections import deque


    def constant(xs):
        return xs[0] + 1


    def linear(xs):
        t = 0
        for x in xs:
            t += x
        return t


    def nested(xs):
        c = 0
        for i in range(len(xs)):
            for j in range(i + 1, len(xs)):
                if xs[i] > xs[j]:
                    c += 1
        return c


    def triple(xs):
        n = len(xs)
        t = 0
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    t += xs[i] * xs[j] * xs[k]
        return t


    def sort_it(xs):
        return sorted(xs)


    def bfs(graph, start):
        seen = {start}
        q = deque([start])
        order = []
        while q:
            u = q.popleft()
            order.append(u)
            for v in graph[u]:
                if v not in seen:
                    seen.add(v)
                    q.append(v)
        return order


    def bsearch(xs, t):
        lo, hi = 0, len(xs) - 1
        while lo <= hi:
            mid = (lo + hi) // 2
            if xs[mid] < t:
                lo = mid + 1
            else:
                hi = mid - 1
        return lo


    def pop_front(xs):
        out = []
        while xs:
            out.append(xs.pop(0))
        return out


    def merge_sort(a):
        if len(a) <= 1:
            return a
        mid = len(a) // 2
        left = merge_sort(a[:mid])
        right = merge_sort(a[mid:])
        res = []
        i = j = 0
        while i < len(left) and j < len(right):
            if left[i] < right[j]:
                res.append(left[i])
                i += 1
            else:
                res.append(right[j])
                j += 1
        res.extend(left[i:])
        res.extend(right[j:])
        return res


    def table(n):
        return [[0] * n for _ in range(n)]


    def counts(xs):
        d = {}
        for x in xs:
            d[x] = d.get(x, 0) + 1
        return d


    def fib(n, memo={}):
        if n < 2:
            return n
        if n in memo:
            return memo[n]
        memo[n] = fib(n - 1) + fib(n - 2)
        return memo[n]
''')

TIME = {"constant": "1", "linear": "n", "nested": "n²", "triple": "n³", "sort_it": "n·log n", "bfs": "n",
        "bsearch": "log n", "pop_front": "n²", "merge_sort": "n·log n", "table": "n²", "counts": "n"}
MEMORY = {"constant": "1", "linear": "1", "nested": "1", "triple": "1", "sort_it": "n", "pop_front": "n",
          "merge_sort": "n", "table": "n²", "counts": "n"}


# Shapes the development repositories showed read wrong before session 40 (experiments/log/15-*)
SHAPES = textwrap.dedent('''
    import bisect
    import heapq


    def find(root, key):
        node = root
        while node:
            if key == node.val:
                return node
            node = node.left if key < node.val else node.right
        return None


    def search(node, key):
        if node is None or node.val == key:
            return node
        if key < node.val:
            return search(node.left, key)
        return search(node.right, key)


    def insert(node, key):
        if node is None:
            return Node(key)
        if key < node.val:
            node.left = insert(node.left, key)
        else:
            node.right = insert(node.right, key)
        return node


    def size(node):
        if node is None:
            return 0
        return 1 + size(node.left) + size(node.right)


    def heapify(arr, n, i):
        largest = i
        l = 2 * i + 1
        r = 2 * i + 2
        if l < n and arr[l] > arr[largest]:
            largest = l
        if r < n and arr[r] > arr[largest]:
            largest = r
        if largest != i:
            arr[i], arr[largest] = arr[largest], arr[i]
            heapify(arr, n, largest)


    def heap_sort(arr):
        n = len(arr)
        for i in range(n // 2 - 1, -1, -1):
            heapify(arr, n, i)
        for i in range(n - 1, 0, -1):
            arr[i], arr[0] = arr[0], arr[i]
            heapify(arr, i, 0)
        return arr


    def sift_down(a, i):
        n = len(a)
        while 2 * i + 1 < n:
            child = 2 * i + 1
            if child + 1 < n and a[child + 1] > a[child]:
                child += 1
            if a[i] >= a[child]:
                break
            a[i], a[child] = a[child], a[i]
            i = child


    def quick_sort(arr):
        if len(arr) <= 1:
            return arr
        pivot = arr[len(arr) // 2]
        return quick_sort([x for x in arr if x < pivot]) + [x for x in arr if x == pivot] + \\
            quick_sort([x for x in arr if x > pivot])


    def partition(a, lo, hi):
        p = a[hi]
        i = lo - 1
        for j in range(lo, hi):
            if a[j] <= p:
                i += 1
                a[i], a[j] = a[j], a[i]
        a[i + 1], a[hi] = a[hi], a[i + 1]
        return i + 1


    def qs(a, lo, hi):
        if lo < hi:
            p = partition(a, lo, hi)
            qs(a, lo, p - 1)
            qs(a, p + 1, hi)


    def ranks(xs, sorted_ys):
        return [bisect.bisect_left(sorted_ys, x) for x in xs]


    def push_all(h, xs):
        for x in xs:
            heapq.heappush(h, x)
        return h
''')

SHAPE_TIME = {"find": "log n", "search": "log n", "insert": "log n", "size": "n", "heapify": "log n",
              "heap_sort": "n·log n", "sift_down": "log n", "quick_sort": "n·log n", "partition": "n",
              "qs": "n·log n"}


@pytest.mark.parametrize("name", sorted(SHAPE_TIME))
def test_searches_heaps_and_partitions(name):
    assert read(SHAPES, name).text("latency") == SHAPE_TIME[name]


def test_a_log_cost_call_in_a_loop_is_not_free():
    for name in ("ranks", "push_all"):  # bisect, heappush: log of the list they search or push to
        assert read(SHAPES, name).growth("latency") > read(SAMPLES, "linear").growth("latency"), name


def test_the_summary_keeps_the_loop_nest_as_written():
    assert [read(SAMPLES, f).nest for f in ("constant", "linear", "nested", "triple")] == [0, 1, 2, 3]


@pytest.mark.parametrize("name", sorted(TIME))
def test_textbook_time(name):
    assert read(SAMPLES, name).text("latency") == TIME[name]


@pytest.mark.parametrize("name", sorted(MEMORY))
def test_textbook_memory(name):
    assert read(SAMPLES, name).text("memory") == MEMORY[name]


def test_exponents_rank_the_loops():
    g = {n: read(SAMPLES, n).growth("latency") for n in ("constant", "linear", "sort_it", "nested", "triple")}
    assert g["constant"] < g["linear"] < g["sort_it"] < g["nested"] < g["triple"]


def test_the_leading_lines_are_the_loops_that_carry_it():
    s = read(SAMPLES, "triple")
    first = SAMPLES.splitlines().index("def triple(xs):") + 1
    assert s.lines("latency")[:3] == (first + 3, first + 4, first + 5)


def test_two_sizes_are_two_letters_with_their_meaning():
    s = read("def common(text, pattern):\n    c = 0\n    for a in text:\n        for b in pattern:\n"
             "            if a == b:\n                c += 1\n    return c\n")
    assert s.text("latency") in ("n·m", "m·n")
    assert set(dict(s.legend()).values()) == {"len(text)", "len(pattern)"}


def test_a_memoised_recursion_costs_its_states_and_a_plain_one_is_exponential():
    assert read(SAMPLES, "fib").text("latency") == "n"
    plain = "def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n"
    assert read(plain).text("latency") == "2ⁿ"


def test_an_unknown_call_is_said_never_free():
    s = read("def f(xs):\n    return mystery(xs)\n")
    assert s.unknown and "mystery" in s.unknown[0] and not s.sure


def test_what_it_cannot_read_gives_no_summary():
    assert read("def f(:\n") is None
    assert read("x = 1\n") is None
    assert read("def f(xs):\n    return 1\n" + "#" * MAX_CHARS) is None


def test_costs_keep_what_no_other_term_dominates():
    n, m = Cost.sym("n"), Cost.sym("m")
    assert n.plus(n.times(n)).text({}) == "n²"
    assert n.plus(m).text({}, frozenset({"n", "m"})) in ("n + m", "m + n")
    assert n.times(m).substitute({"m": n}).text({}) == "n²"


def _rlm(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=300, cwd=cwd)


needs_default = pytest.mark.skipif(not (DEFAULT / "rlm_config.json").is_file(), reason="no shipped default model")


@needs_default
def test_predict_json_gives_memory_growth_with_its_cost(tmp_path):
    path = tmp_path / "s.py"
    path.write_text(SAMPLES)
    out = _rlm("predict", str(path), "--json")
    assert out.returncode == 0, out.stderr
    rows = {r["function"]: r for r in json.loads(out.stdout)}
    mem = rows["table"]["memory"]
    assert mem["cost"] == "n²" and mem["cost_of"] == {"n": "the value of n"} and mem["growth"] > 1.4
    assert rows["constant"]["memory"]["growth"] < 0.5
    # time-v7: the analyzer reads the table's time as n²; its growth is the time-class trees' where the
    # reading is unsure of the written nest (one comprehension): a known miss here (MODEL_CARD.md)
    assert rows["table"]["latency"]["cost"] == "n²" and rows["table"]["latency"]["growth"] >= 1.0


@needs_default
def test_jsonl_entry_picks_the_function_and_a_wrong_one_is_one_line():
    code = "def helper(xs):\n    return [x for x in xs]\n\n\ndef main(xs):\n    return 1\n"
    rows = [{"id": "a", "code": code, "entry": "helper"}, {"id": "b", "code": code},
            {"id": "c", "code": code, "entry": "nope"}]
    out = _rlm("predict", "--jsonl", "-", stdin="\n".join(map(json.dumps, rows)) + "\n")
    got = {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}
    assert got["a"]["memory"]["cost"] == "n" and got["b"]["memory"]["cost"] == "1"
    assert "nope" in got["c"]["error"] and "\n" not in got["c"]["error"]


GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _git(repo, *args):
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


@needs_default
def test_the_gate_blocks_a_memory_growth_step_and_passes_a_rename(tmp_path):
    _git(tmp_path, "init", "-q")
    f = tmp_path / "m.py"
    f.write_text("def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n")
    _git(tmp_path, "add", "m.py")
    _git(tmp_path, "commit", "-qm", "base")
    f.write_text("def total(values):\n    s = 0\n    for v in values:\n        s += v\n    return s\n")
    _git(tmp_path, "add", "m.py")
    assert _rlm("gate", cwd=tmp_path).returncode == 0
    f.write_text("def total(xs):\n    seen = [x * 2 for x in xs]\n    t = 0\n    for x in seen:\n"
                 "        t += x\n    return t\n")
    _git(tmp_path, "add", "m.py")
    out = _rlm("gate", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "~1 → ~n" in out.stdout and "line 2" in out.stdout


def test_the_hover_says_what_the_growth_is_read_as_and_where():
    from rlm_lsp.runtime.prediction import Prediction
    from rlm_lsp.server import curves
    from rlm_lsp.server.words import growth_line
    p = Prediction("memory", 1.0, 1.0, 1.0, "bytes", growth=2.0, growth_low=1.7, growth_high=2.3, n=1e4,
                   cost="n²", cost_legend=(("n", "len(xs)"),), cost_lines=(3,))
    source = curves.why(p, ("cost", 13, 13))
    assert source == "with the input, read as n² from line 13 (n = len(xs))"
    assert growth_line(p, source).startswith("grows ~n² with the input, read as n² from line 13")


@needs_default
@pytest.mark.timeout(120)
def test_the_editor_leads_with_memory_growth_and_the_hover_says_the_lines(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from lsp_client import LspClient, file_uri

    source = "import os\n\n\ndef table(n):\n    rows = [[0] * n for _ in range(n)]\n    return rows\n"
    (tmp_path / "t.py").write_text(source)
    client = LspClient(settings={"modelPath": str(DEFAULT), "debounceMs": 50}, cwd=tmp_path)
    client.initialize(tmp_path)
    with client as c:
        uri = file_uri(tmp_path / "t.py")
        c.open(uri, source)
        label = c.wait_hints(uri, 1)[0]["label"]
        assert "mem" in label and "~n²" in label, label
        text = c.hover(uri, 3, 5)["contents"]["value"]
        assert "read as n² from line 5 (n = the value of n)" in text, text


@needs_default
def test_a_function_is_read_with_its_same_file_helpers(tmp_path):
    """The editor and `rlm predict FILE` hand the analyzer the functions a function calls (its
    `Snippet.helpers`), as a `--jsonl` row carries them: `solve` builds its table through `build`."""
    path = tmp_path / "h.py"
    path.write_text("def build(xs):\n    return [[0] * len(xs) for _ in xs]\n\n\n"
                    "def solve(xs):\n    table = build(xs)\n    return len(table)\n\n\n"
                    "class Grid:\n    def fill(self, xs):\n        return self.make(xs)\n\n"
                    "    def make(self, xs):\n        return [[x] * len(xs) for x in xs]\n")
    out = _rlm("predict", str(path), "--json")
    rows = {r["function"]: r["memory"] for r in json.loads(out.stdout)}
    assert rows["solve"]["cost"] == "n²" and rows["solve"]["cost_lines"] == [6]
    assert rows["Grid.fill"]["cost"] == "n²" and rows["Grid.fill"]["cost_lines"] == [12]


def test_helpers_are_what_a_function_calls_and_what_those_call():
    from rlm_lsp.python.snippets import extract
    src = ("def a(x):\n    return b(x)\n\n\ndef b(x):\n    return c(x)\n\n\ndef c(x):\n    return x\n\n\n"
           "def lone(x):\n    return x\n")
    got = {s.name: s.helpers for s in extract(src)}
    assert "def b(x)" in got["a"] and "def c(x)" in got["a"] and got["lone"] == "" and got["c"] == ""


def test_two_processes_read_the_same_code_alike():
    """Hash randomisation changes a set's order between processes: no reading may depend on it."""
    code = ("def meet(a, b):\n    x, y = a, b\n    while x is not y:\n        x = x.next if x else b\n"
            "        y = y.next if y else a\n    return x\n\n\n" + SAMPLES)
    script = ("import sys, json\nfrom rlm_lsp.python.cost_front import read\nimport ast\n"
              "code = sys.stdin.read()\n"
              "print(json.dumps([[n.name, read(code, n.name).text('latency'), read(code, n.name).text('memory')]"
              " for n in ast.parse(code).body if hasattr(n, 'name')]))\n")
    outs = {subprocess.run([sys.executable, "-c", script], input=code, capture_output=True, text=True, cwd=ROOT,
                           env={**os.environ, "PYTHONHASHSEED": seed}, check=True).stdout for seed in ("1", "2", "3")}
    assert len(outs) == 1, outs
