"""Canonical names (`preprocess.canon_v1`): table tests, and invariance under any consistent renaming."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

from rlm_lsp import preprocess

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
import rewrites  # noqa: E402


def canon(code: str) -> str:
    return preprocess.apply("canon_v1", textwrap.dedent(code))


def expect(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


TABLE = [
    (  # locals and parameters, by first appearance; builtins stay
        """
        def total(values):
            out = 0
            for v in values:
                out += v
            return len(values), out
        """,
        """
        def f0(v0):
            v1 = 0
            for v2 in v0:
                v1 += v2
            return (len(v0), v1)
        """,
    ),
    (  # imports and what is taken from them stay; so do their attributes
        """
        import heapq
        from collections import defaultdict as dd
        def run(items):
            heap = []
            seen = dd(list)
            heapq.heappush(heap, items[0])
            return seen
        """,
        """
        import heapq
        from collections import defaultdict as dd

        def f0(v0):
            v1 = []
            v2 = dd(list)
            heapq.heappush(v1, v0[0])
            return v2
        """,
    ),
    (  # a free name (defined elsewhere in the file) stays; a module global the code binds is renamed
        """
        LIMIT = 10
        def f(x):
            return helper(x) + LIMIT
        """,
        """
        v0 = 10

        def f0(v1):
            return helper(v1) + v0
        """,
    ),
    (  # `global` and `nonlocal` follow the variable they name
        """
        count = 0
        def outer(n):
            acc = 0
            def inner(k):
                global count
                nonlocal acc
                count += 1
                acc += k
            inner(n)
            return acc
        """,
        """
        v0 = 0

        def f0(v1):
            v2 = 0

            def f1(v3):
                global v0
                nonlocal v2
                v0 += 1
                v2 += v3
            f1(v1)
            return v2
        """,
    ),
    (  # nested scopes: the same name in two functions is two variables
        """
        def a(x):
            return x
        def b(x):
            return x
        """,
        """
        def f0(v0):
            return v0

        def f1(v1):
            return v1
        """,
    ),
    (  # classes, methods and the attributes the code defines; dunders and foreign attributes stay
        """
        class Stack:
            def __init__(self):
                self.items = []
            def push(self, x):
                self.items.append(x)
                return len(self.items)
        s = Stack()
        s.push(3)
        """,
        """
        class C0:

            def __init__(v0):
                v0.a0 = []

            def f0(v1, v2):
                v1.a0.append(v2)
                return len(v1.a0)
        v3 = C0()
        v3.f0(3)
        """,
    ),
    (  # f-strings, the walrus (binds in the enclosing function), comprehension targets
        """
        def g(data):
            out = [y for x in data if (y := x * 2) > 1]
            return f"{out!r} {y}"
        """,
        """
        def f0(v0):
            v1 = [v2 for v3 in v0 if (v2 := (v3 * 2)) > 1]
            return f'{v1!r} {v2}'
        """,
    ),
    (  # keyword arguments follow the parameter of a function the code defines; others stay
        """
        def area(width, height=1):
            return width * height
        def main(xs):
            return sorted(xs, key=len), area(width=2, height=3)
        """,
        """
        def f0(v0, v1=1):
            return v0 * v1

        def f1(v2):
            return (sorted(v2, key=len), f0(v0=2, v1=3))
        """,
    ),
    (  # docstrings, hints, comments, `pass` beside other statements: gone
        '''
        def h(n: int) -> list[int]:
            """Doc."""
            pass  # nothing
            return [0] * n
        ''',
        """
        def f0(v0):
            return [0] * v0
        """,
    ),
    (  # except-as, with-as, lambda parameters (a parameter that looks canonical is renamed too)
        """
        def k(path, v0):
            try:
                with open(path) as fh:
                    return list(map(lambda line: line.strip(), fh))
            except OSError as err:
                return str(err)
        """,
        """
        def f0(v0, v1):
            try:
                with open(v0) as v2:
                    return list(map(lambda v3: v3.strip(), v2))
            except OSError as v4:
                return str(v4)
        """,
    ),
]


@pytest.mark.parametrize(("code", "expected"), TABLE, ids=range(len(TABLE)))
def test_canonical_table(code, expected):
    out = canon(code)
    assert out == expect(expected)
    assert canon(out) == out  # idempotent


def test_a_free_name_that_looks_canonical_is_never_captured():
    # `v0` is free here (a global of the file): no local may be called v0 as well
    out = canon("def f(a):\n    return a + v0\n")
    assert out == "def f0(v1):\n    return v1 + v0\n"


def test_class_body_names_are_attributes_and_solution_is_unwrapped():
    out = canon("class Solution:\n    def twoSum(self, nums, target):\n        return self.helper(nums)\n")
    assert out == "def f0(v0, v1):\n    return helper(v0)\n"  # self.helper -> helper, free: it stays
    both = "class Solution:\n    def a(self, n):\n        return self.b(n)\n    def b(self, n):\n        return n\n"
    assert canon(both) == "def f0(v0):\n    return f1(v0)\n\ndef f1(v1):\n    return v1\n"


def test_unparsable_code_falls_back_to_strip_v1():
    code = "print 'hello'\nx = 1\n"
    assert canon(code) == preprocess.apply("strip_v1", code)


PROGRAMS = [TABLE[i][0] for i in range(len(TABLE))] + [
    """
    class Solution:
        def numIslands(self, grid: list[list[str]]) -> int:
            rows, cols = len(grid), len(grid[0])
            seen = set()
            def dfs(r, c):
                if r < 0 or c < 0 or r >= rows or c >= cols or (r, c) in seen or grid[r][c] == "0":
                    return
                seen.add((r, c))
                for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                    dfs(r + dr, c + dc)
            count = 0
            for r in range(rows):
                for c in range(cols):
                    if grid[r][c] == "1" and (r, c) not in seen:
                        dfs(r, c)
                        count += 1
            return count
    """,
    """
    import sys
    from functools import lru_cache
    def main():
        data = sys.stdin.read().split()
        n = int(data[0])
        @lru_cache(maxsize=None)
        def fib(k):
            return k if k < 2 else fib(k - 1) + fib(k - 2)
        total = sum(fib(i) for i in range(n))
        print(total)
    main()
    """,
]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("program", range(len(PROGRAMS)))
def test_any_consistent_renaming_or_neutral_rewrite_gives_the_same_input(program, seed):
    """The rewrites come from bench/rewrites.py, which finds names with the compiler's `symtable`,
    not with our resolver; fresh random names each seed."""
    code = textwrap.dedent(PROGRAMS[program])
    rng = random.Random(seed)
    base = canon(code)
    tried = 0
    for name in rewrites.EXACT:
        new = rewrites.REWRITES[name](code, rng)
        if new is None:
            continue
        tried += 1
        assert canon(new) == base, name
    assert tried >= 3
