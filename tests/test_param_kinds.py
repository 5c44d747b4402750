"""param_kinds: each parameter's kind from its use and loop nests in powers of the ladder's n."""

from __future__ import annotations

import pytest

from rlm_lsp.python import param_kinds, preprocess

GRID_INDEXED = """
def total(grid: list[list[int]]) -> int:
    rows, cols = len(grid), len(grid[0])
    t = 0
    for i in range(rows):
        for j in range(cols):
            t += grid[i][j]
    return t
"""
GRID_ROWS = """
def total(board):
    t = 0
    for row in board:
        for x in row:
            t += x
    return t
"""
RANGE_INT = """
def tri(k):
    t = 0
    for i in range(k):
        t += i * i
    return t
"""
RANGE_26 = """
def letters(s):
    cnt = [0] * 26
    for c in s:
        cnt[ord(c) - 97] += 1
    best = 0
    for i in range(26):
        best = max(best, cnt[i])
    return best
"""
PAIRS = """
def pairs(nums):
    n = len(nums)
    c = 0
    for i in range(n):
        for j in range(i + 1, n):
            c += nums[i] == nums[j]
    return c
"""
TRIANGLE = """
def tri(n):
    t = 0
    for i in range(n):
        for j in range(i):
            t += j
    return t
"""
LINKED = """
def walk(head):
    s = 0
    while head:
        s += head.val
        head = head.next
    return s
"""
FIB = """
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)
"""
DEPTH = """
def depth(root):
    if not root:
        return 0
    return 1 + max(depth(root.left), depth(root.right))
"""
HELPER_NODE = """
def count(root):
    def dfs(node):
        if node is None:
            return 0
        return 1 + dfs(node.left) + dfs(node.right)
    return dfs(root)
"""
INTERVALS = """
def merge(intervals, k):
    out = []
    for i in range(len(intervals)):
        if intervals[i][0] > 0:
            out.append(intervals[i][1])
    return out[:k]
"""
SUBSETS = """
def subsets(nums):
    for mask in range(1 << len(nums)):
        pass
"""
ROWS_OF_GRID_ONLY = """
def first_column(grid):
    return [grid[i][0] for i in range(len(grid))]
"""
HALVING = """
def bits(n):
    c = 0
    while n:
        n //= 2
        c += 1
    return c
"""


def _read(code: str, *a) -> param_kinds.Kinds:
    return param_kinds.read(preprocess.apply("canon_v1", code), *a)


def _f(r: param_kinds.Kinds) -> dict:
    return dict(zip(param_kinds.FEATURES, r.features()))


@pytest.mark.parametrize("code,kinds", [
    (GRID_INDEXED, ("grid",)), (GRID_ROWS, ("grid",)), (RANGE_INT, ("integer",)), (RANGE_26, ("string",)),
    (PAIRS, ("list",)), (LINKED, ("node",)), (FIB, ("integer",)), (HELPER_NODE, ("node",)),
    (INTERVALS, ("list", "integer")), (ROWS_OF_GRID_ONLY, ("list",)),
])
def test_kind_of_each_parameter_from_its_use(code, kinds):
    assert _read(code).params == kinds


@pytest.mark.parametrize("code,time,by_kind", [
    (GRID_INDEXED, 1.0, {"npow_grid": 1.0}),     # rows by columns of one grid: n cells, one power
    (GRID_ROWS, 1.0, {"npow_grid": 1.0}),
    (RANGE_INT, 1.0, {"npow_integer": 1.0}),     # range over an integer parameter: one power
    (RANGE_26, 1.0, {"npow_string": 1.0}),       # the loop over s is n; range(26) adds nothing
    (PAIRS, 2.0, {"npow_list": 2.0}),            # nested loops over a list: two powers
    (TRIANGLE, 2.0, {"npow_integer": 2.0}),      # range(i) with i up to n: still n²
    (LINKED, 1.0, {"npow_node": 1.0}),
    (HALVING, 0.0, {"log_loops": 1.0}),          # a halving while is log n: no power
])
def test_loop_nests_in_powers_of_n(code, time, by_kind):
    f = _f(_read(code))
    assert f["npow_time"] == time
    for k, v in by_kind.items():
        assert f[k] == v


def test_a_constant_loop_counts_no_power():
    f = _f(_read(RANGE_26))
    assert f["const_loops"] == 1.0 and f["npow_loops"] == 1.0


def test_a_grid_row_alone_is_half_a_power():
    # only the rows of a grid walked: about √n of its n cells
    f = _f(_read("def f(g):\n    return sum(g[i][j] for i in range(len(g)) for j in range(3))\n"))
    assert f["npow_time"] == 0.5


def test_exponential_recursion_over_an_integer_not_over_a_tree():
    assert _f(_read(FIB))["exp_rec_int"] == 1.0 and _f(_read(FIB))["rec_branch"] == 2.0
    assert _f(_read(DEPTH))["exp_rec_int"] == 0.0 and _f(_read(DEPTH))["rec_branch"] == 2.0
    memo = "from functools import cache\n@cache\n" + FIB.lstrip()
    assert _f(_read(memo))["rec_branch"] == 0.0


def test_shift_of_a_size_is_flagged_exponential():
    assert _f(_read(SUBSETS))["exp_pow"] == 1.0
    assert _f(_read(PAIRS))["exp_pow"] == 0.0


def test_memory_in_powers_of_n():
    table = "def f(nums):\n    n = len(nums)\n    return [[0] * n for _ in range(n)]\n"
    assert _f(_read(table))["npow_mem"] == 2.0
    assert _f(_read("def f(nums):\n    return set(nums)\n"))["npow_mem"] == 1.0
    assert _f(_read(RANGE_INT))["npow_mem"] == 0.0


def test_the_kinds_given_from_outside_replace_the_inference():
    # the oracle: the ladder's generator says k is not scaled -> its loop is a constant one
    assert _f(_read(INTERVALS, ["list", "integer"], {0}))["npow_time"] == 1.0
    assert _f(_read(RANGE_INT, ["integer"], set()))["npow_time"] == 0.0
    assert _read(GRID_ROWS, ["list"], {0}).params == ("list",)
    assert _f(_read(GRID_ROWS, ["list"], {0}))["npow_time"] == 1.0  # a list of rows: the rows are n


def test_renames_and_hints_change_nothing():
    renamed = GRID_INDEXED.replace("grid", "xs").replace(": list[list[int]]", "").replace("rows", "a")
    assert _read(renamed).features() == _read(GRID_INDEXED).features()


@pytest.mark.parametrize("code", ["", "def (:", "x = 1\n", "def f():\n    return 1\n"])
def test_no_function_or_bad_code_reads_as_zeros(code):
    r = param_kinds.read(code)
    assert len(r.features()) == len(param_kinds.FEATURES) and sum(r.features()) == 0.0
