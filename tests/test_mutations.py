"""The mutation engine (training/measuring/mutations.py): each kind applies where it should, keeps the output,
refuses where it is unsafe, and is deterministic given a seed."""
from __future__ import annotations

import ast
import copy
import tracemalloc

import pytest

from training.measuring.mutations import EXPECTED, KINDS, Variant, mutate, variants


def run(code, inputs, fn="f"):
    """Output of ``fn`` on each input (a fresh namespace per input, arguments copied)."""
    out = []
    for args in inputs:
        ns = {}
        exec(compile(code, "<t>", "exec"), ns)
        out.append(ns[fn](*copy.deepcopy(args)))
    return out


def same_output(parent, variant, inputs, fn="f"):
    return run(parent, inputs, fn) == run(variant.code, inputs, fn)


LISTS = [([3, 1, 2],), ([5, 5, 1, 9, 0, 2],), ([7],), (list(range(20, 0, -3)),)]

# kind -> (program, inputs, text that must appear in the variant)
CASES = {
    "materialize": ("def f(a):\n    # squares\n    return sum(x * x for x in a)\n", LISTS, "sum([x * x for x in a])"),
    "nxn_table": ("def f(a):\n    n = len(a)  # size\n    return max(a) - min(a) + n\n", LISTS,
                  "_t = [[0] * len(a) for _ in range(len(a))]"),
    "set_to_list": ("def f(a, b):\n    s = set(a)\n    return [x for x in b if x in s]\n",
                    [([1, 2, 3], [2, 4, 3]), ([], [1]), ([5, 5], [5, 6, 5])], "s = list(a)"),
    "sort_in_loop": ("import bisect\n\ndef f(a, qs):\n    b = sorted(a)\n    out = []\n    for q in qs:\n"
                     "        out.append(bisect.bisect_left(b, q))\n    return out\n",
                     [([3, 1, 2], [0, 2, 5]), ([9, 4, 4, 1], [4])], "    for q in qs:\n        b = sorted(a)\n"),
    "add_memo": ("def f(n):\n    def ways(i):\n        if i <= 1:\n            return 1\n"
                 "        return ways(i - 1) + ways(i - 2)\n    return ways(n)\n",
                 [(0,), (5,), (15,)], "    @functools.lru_cache(None)\n    def ways(i):"),
    "drop_memo": ("from functools import cache\n\ndef f(n):\n    @cache\n    def fib(i):\n"
                  "        return i if i < 2 else fib(i - 1) + fib(i - 2)\n    return fib(n)\n",
                  [(0,), (7,), (12,)], "    def fib(i):"),
    "copy_in_loop": ("def f(a):\n    t = 0\n    for i in range(len(a)):\n        t += a[i] * i\n    return t\n",
                     LISTS, "        _c = list(a)\n"),
    "rename": ("def f(a):\n    total = 0\n    for x in a:\n        total += x\n    best = max(a)\n"
               "    return total * best\n", LISTS, None),
    "swap": ("def f(a):\n    n = len(a)\n    m = max(a)\n    return n * m\n", LISTS,
             "    m = max(a)\n    n = len(a)\n"),
}

# kind -> programs where the kind must not apply (unsafe or nothing to do)
NOT_APPLICABLE = {
    "materialize": ["def f(a):\n    return a[0]\n", "def f(a):\n    return next(x for x in a if x)\n"],
    "nxn_table": ["def f(x):\n    return x + 1\n", "def f(k: int):\n    return len(str(k))\n"],
    "set_to_list": ["def f(a):\n    s = set(a)\n    return len(s)\n",                  # dedup matters
                    "def f(a):\n    s = set(a)\n    return sorted(s)\n",               # iteration
                    "def f(a):\n    s = set()\n    for x in a:\n        s.add(x)\n    return 1 in s, len(s)\n"],
    "sort_in_loop": ["def f(n):\n    return n * 2\n",
                     "def f(a):\n    b = sorted(a)\n    for i in range(3):\n        b.append(i)\n    return b\n"],
    "add_memo": [
        # side effect: the memoised call would skip the append
        "def f(n):\n    seen = []\n    def walk(i):\n        seen.append(i)\n        if i > 0:\n"
        "            walk(i - 1)\n    walk(n)\n    return seen\n",
        # reads a variable that changes between calls: a cache would return stale results
        "def f(n):\n    k = 1\n    def g(i):\n        return 0 if i == 0 else k + g(i - 1)\n    a = g(n)\n"
        "    k = 2\n    return a + g(n)\n",
        # not recursive
        "def f(n):\n    return n + 1\n",
        # list argument: unhashable
        "def f(a):\n    def g(xs):\n        return 0 if not xs else xs[0] + g(xs[1:])\n    return g(a)\n"],
    "drop_memo": ["def f(n):\n    return n\n",
                  "from functools import cache\n\n@cache\ndef g(i):\n    return i\n\ndef f(n):\n"
                  "    g.cache_clear()\n    return g(n)\n"],
    "copy_in_loop": ["def f(a):\n    it = iter(a)\n    t = 0\n    for x in it:\n        t += x\n    return t\n",
                     "def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n"],
    "rename": ["def f(a):\n    return a\n", "def f(a):\n    x = 1\n    return locals()['x'] + a\n"],
    "swap": ["def f(a):\n    n = len(a)\n    m = n + 1\n    return m\n",
             "def f():\n    x = int(input())\n    y = int(input())\n    return x - y\n",
             "def f(a):\n    a[0] = 1\n    b = a[0]\n    return b\n"],
}


def test_every_kind_has_cases():
    assert set(CASES) == set(KINDS) == set(NOT_APPLICABLE)


@pytest.mark.parametrize("kind", KINDS)
def test_kind_applies_and_keeps_output(kind):
    code, inputs, needle = CASES[kind]
    v = mutate(code, kind, seed=0)
    assert isinstance(v, Variant) and v.kind == kind
    assert v.code != code
    assert (v.expected, v.metrics) == EXPECTED[kind]
    if needle:
        assert needle in v.code, v.code
    assert same_output(code, v, inputs)
    ast.parse(v.code)


@pytest.mark.parametrize("kind", KINDS)
def test_kind_refuses(kind):
    for code in NOT_APPLICABLE[kind]:
        assert mutate(code, kind, seed=0) is None, (kind, code, mutate(code, kind).code)


def test_directions():
    assert EXPECTED["add_memo"][0] == "improvement"
    assert {EXPECTED[k][0] for k in ("rename", "swap")} == {"neutral"}
    assert {EXPECTED[k][0] for k in ("materialize", "nxn_table", "set_to_list", "sort_in_loop", "drop_memo",
                                     "copy_in_loop")} == {"regression"}


def test_more_forms():
    v = mutate("def f(n):\n    t = 0\n    for i in range(n):\n        t += i\n    return t\n", "materialize")
    assert "for i in list(range(n)):" in v.code
    # set filled with .add: -> list + append, membership unchanged
    code = ("def f(a):\n    seen = set()\n    out = 0\n    for x in a:\n        if x not in seen:\n"
            "            seen.add(x)\n            out += x\n    return out\n")
    v = mutate(code, "set_to_list")
    assert "seen = list()" in v.code and "seen.append(x)" in v.code and same_output(code, v, LISTS)
    v = mutate("def f(a):\n    s = {1, 2, 3}\n    return [x in s for x in a]\n", "set_to_list")
    assert "s = [1, 2, 3]" in v.code
    # an n x n table next to a sized local when no parameter is sized
    v = mutate("def f(s):\n    w = s.split()\n    return len(w)\n", "nxn_table")
    assert "    w = s.split()\n    _t = [[0] * len(w) for _ in range(len(w))]\n" in v.code
    # sort added in a loop over the data when nothing is sorted before it
    code = "def f(a):\n    t = 0\n    for x in a:\n        t += x\n    return t\n"
    v = mutate(code, "sort_in_loop")
    assert "        _s = sorted(a)\n" in v.code and same_output(code, v, LISTS)
    # lru_cache / functools.lru_cache(maxsize=None) forms are dropped too
    for deco in ("@lru_cache(None)", "@functools.lru_cache(maxsize=None)"):
        code = ("import functools\nfrom functools import lru_cache\n\n%s\ndef g(i):\n"
                "    return i if i < 2 else g(i - 1) + g(i - 2)\n\ndef f(n):\n    return g(n)\n" % deco)
        v = mutate(code, "drop_memo")
        assert deco not in v.code and same_output(code, v, [(10,)])
    # add_memo reuses an existing `import functools` and keeps a module docstring first
    code = '"""doc"""\nimport functools\n\ndef f(n):\n    return 1 if n < 2 else f(n - 1) + f(n - 2)\n'
    v = mutate(code, "add_memo")
    assert v.code.count("import functools") == 1 and v.code.startswith('"""doc"""')
    assert same_output(code, v, [(1,), (12,)])


def test_add_memo_import_after_future():
    code = ("from __future__ import annotations\n\ndef f(n: int) -> int:\n"
            "    return n if n < 2 else f(n - 1) + f(n - 2)\n")
    v = mutate(code, "add_memo")
    lines = v.code.splitlines()
    assert lines[0] == "from __future__ import annotations"  # must stay first
    assert lines.index("import functools") < lines.index("@functools.lru_cache(None)")
    assert same_output(code, v, [(10,)])


def test_rename_is_consistent_and_keeps_parameters():
    code, inputs, _ = CASES["rename"]
    v = mutate(code, "rename", seed=0)
    assert "def f(a):" in v.code  # parameters are the call interface
    t0, t1 = ast.parse(code), ast.parse(v.code)
    names0 = {n.id for n in ast.walk(t0) if isinstance(n, ast.Name)}
    names1 = {n.id for n in ast.walk(t1) if isinstance(n, ast.Name)}
    assert names0 - names1 and names0 - names1 <= {"total", "x", "best"}

    def shape(tree):  # the tree with every name replaced by its first-occurrence index
        order = {}
        for n in ast.walk(tree):
            if isinstance(n, ast.Name):
                n.id = "n%d" % order.setdefault(n.id, len(order))
        return ast.dump(tree)

    assert shape(t0) == shape(t1)
    # a closure's variable and a nested function's parameter are renamed in every scope or not at all
    code = ("def f(a):\n    count = 0\n    def bump(x):\n        nonlocal count\n        count += x\n"
            "    for x in a:\n        bump(x)\n    return count\n")
    for seed in range(4):
        v = mutate(code, "rename", seed=seed)
        assert "nonlocal count" in v.code and same_output(code, v, LISTS)


def test_comments_survive_and_only_the_site_changes():
    code, inputs, _ = CASES["nxn_table"]
    v = mutate(code, "nxn_table")
    assert "# size" in v.code
    assert v.code.splitlines()[:1] + v.code.splitlines()[2:] == code.splitlines()
    assert v.line == 2


PROGRAM = ("class Solution:\n    def solve(self, nums: List[int], k: int) -> int:\n"
           "        seen = set(nums)  # lookup\n        total = sum(x * x for x in nums)\n"
           "        n = len(nums)\n        ans = 0\n        for i in range(len(nums)):\n"
           "            if nums[i] + k in seen:\n                ans += 1\n        return ans + total + n\n")
PROGRAM_INPUTS = [([1, 2, 3, 5], 2), ([4, 4, 4], 0), ([10], 3), ([0, 7, 3, 1, 9, 2, 8], 1)]


def test_variants_on_a_class_program_keep_output():
    def out(code):
        res = []
        for args in PROGRAM_INPUTS:
            ns = {"List": list}
            exec(code, ns)
            res.append(ns["Solution"]().solve(*copy.deepcopy(args)))
        return res

    vs = variants(PROGRAM, seed=1)
    kinds = {v.kind for v in vs}
    assert {"materialize", "nxn_table", "set_to_list", "copy_in_loop", "rename", "swap"} <= kinds
    assert "drop_memo" not in kinds and "add_memo" not in kinds
    for v in vs:
        assert out(v.code) == out(PROGRAM), v.kind


def test_deterministic_and_seed_dependent():
    assert variants(PROGRAM, seed=5) == variants(PROGRAM, seed=5)
    renames = {mutate(PROGRAM, "rename", seed=s).code for s in range(8)}
    assert len(renames) >= 3
    assert len({mutate(PROGRAM, "materialize", seed=s).code for s in range(8)}) == 2  # genexp or range loop


def test_kinds_filter_and_bad_input():
    assert [v.kind for v in variants(PROGRAM, 0, kinds=["swap", "rename"])] == ["swap", "rename"]
    assert variants("def f(:\n", 0) == []
    with pytest.raises(ValueError):
        mutate(PROGRAM, "no_such_kind")


def _peak(code, args):
    ns = {}
    exec(code, ns)
    tracemalloc.start()
    ns["f"](*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_kinds_raise_the_peak():
    code = "def f(a):\n    return sum(x for x in a)\n"
    v = mutate(code, "materialize")
    assert _peak(v.code, (range(20000),)) > 10 * _peak(code, (range(20000),))
    code = "def f(a):\n    n = len(a)\n    return n\n"
    v = mutate(code, "nxn_table")
    assert _peak(v.code, (list(range(300)),)) > 300 * 300 * 8


def test_loops_over_iterators_or_objects_are_left_alone():
    # f is called with a generator: copying or sorting its parameter inside the loop would consume it
    code = ("def f(a):\n    def g(xs):\n        t = 0\n        for x in xs:\n            t = t * 2 + x\n"
            "        return t\n"
            "    return g(a) + g(x for x in reversed(a))\n")
    assert mutate(code, "copy_in_loop") is None and mutate(code, "sort_in_loop") is None
    # elements used through attributes (tree nodes, ...) may not be comparable: no sorted() added
    code = "def f(nodes):\n    t = 0\n    for n in nodes:\n        t += n.real\n    return t\n"
    assert mutate(code, "sort_in_loop") is None
    assert "_c = list(nodes)" in mutate(code, "copy_in_loop").code
    code = "def f(a):\n    ops = [abs, str]\n    out = []\n    for op in ops:\n        out.append(op(a))\n"
    code += "    return out\n"
    assert mutate(code, "sort_in_loop") is None  # functions do not sort
    # the loop changes the sorted list's elements: sorting again inside it would reorder them
    code = ("def f(a):\n    b = [[x, 0] for x in a]\n    b.sort()\n    for p in b:\n        p[0] -= b[0][0] + 10\n"
            "    return b\n")
    v = mutate(code, "sort_in_loop")
    assert "    for p in b:\n        _s = sorted(b)\n" in v.code and same_output(code, v, LISTS)


def test_deterministic_across_processes():
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = ("import json, sys; from training.measuring.mutations import variants; "
              "print(json.dumps([list(v) for v in variants(sys.stdin.read(), 2)]))")
    outs = []
    for hashseed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hashseed, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
        r = subprocess.run([sys.executable, "-c", script], input=PROGRAM, capture_output=True, text=True, env=env,
                           check=True, timeout=60)
        outs.append(json.loads(r.stdout))
    assert outs[0] == outs[1] == json.loads(json.dumps([list(v) for v in variants(PROGRAM, 2)]))


def test_swap_respects_aliases():
    # b is a: writing b[0] changes what a[0] reads, so the two statements are not independent
    code = "def f(a):\n    b = a\n    b[0] = 9\n    c = a[0]\n    return c\n"
    assert mutate(code, "swap") is None
    code = "def f(a):\n    b = a\n    b += [1]\n    n = len(a)\n    return n\n"
    assert mutate(code, "swap") is None
    # counters and plain names still swap
    code = "def f(a):\n    i = 0\n    j = 1\n    i += 1\n    return i - j + len(a)\n"
    assert mutate(code, "swap") is not None


def test_rename_leaves_names_evaluated_outside_the_function():
    # the default `k` is the module's k, the local k is another variable: renaming both would change the default
    code = "k = 3\n\ndef f(a, d=k):\n    k = len(a)\n    return k + d\n"
    assert mutate(code, "rename") is None


def test_add_memo_refuses_container_arguments():
    # the memoised function would be called with a dict: not hashable
    code = ("def f(n):\n    tree = {i: [i - 1] if i else [] for i in range(n)}\n    def depth(t, i):\n"
            "        return 0 if not t[i] else 1 + depth(t, t[i][0])\n    return depth(tree, n - 1)\n")
    assert mutate(code, "add_memo") is None
    code = ('def f(a):\n    """\n    :type a: List[int]\n    """\n    def g(xs, i):\n'
            '        return 0 if i < 0 else xs[i] + g(xs, i - 1)\n    return g(a, len(a) - 1)\n')
    assert mutate(code, "add_memo") is None


def test_sort_added_only_for_comparable_looking_elements():
    # q holds objects read through attributes elsewhere in the function
    code = ("def f(q):\n    idx = sorted(range(len(q)), key=lambda x: q[x].real)\n    t = 0\n"
            "    for i in range(len(q)):\n        t += idx[i]\n    return t\n")
    v = mutate(code, "sort_in_loop")  # the sort before the loop is repeated in it; no sorted(q) is added
    assert "sorted(q)" not in v.code and "    for i in range(len(q)):\n        idx = sorted(" in v.code
    assert same_output(code, v, LISTS)


def test_copy_refused_for_a_generator_bound_to_a_name():
    code = ("def f(a):\n    def g(xs):\n        t = 0\n        for x in xs:\n            t = t * 2 + x\n"
            "        return t\n    gen = (x + 1 for x in a)\n    return g(gen)\n")
    assert mutate(code, "copy_in_loop") is None
