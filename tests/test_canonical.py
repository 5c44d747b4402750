"""Canonical names (`preprocess.canon_v1`): table tests, and invariance under any consistent renaming."""

from __future__ import annotations

import random
import sys
import textwrap
from pathlib import Path

import pytest

from rlm_lsp.python import preprocess

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


def exact_rewrites(code: str, rng: random.Random) -> list[tuple[str, str]]:
    """(rewrite name, rewritten code) for each of bench/rewrites.py's exact rewrites that applies.
    bench/rewrites.py finds names with the compiler's `symtable`, not with our resolver."""
    out = []
    for name in rewrites.EXACT:
        new = rewrites.REWRITES[name](code, rng)
        if new is not None:
            out.append((name, new))
    return out


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("program", range(len(PROGRAMS)))
def test_any_consistent_renaming_or_neutral_rewrite_gives_the_same_input(program, seed):
    """Fresh random names each seed."""
    code = textwrap.dedent(PROGRAMS[program])
    done = exact_rewrites(code, random.Random(seed))
    assert len(done) >= 3
    for name, new in done:
        assert canon(new) == canon(code), name


SHIPPED = Path(__file__).resolve().parents[1] / "rlm_lsp" / "models" / "default"


def _shipped():
    if not (SHIPPED / "rlm_config.json").is_file():
        pytest.skip("shipped model not present (rlm_lsp/models/default)")
    from rlm_lsp.runtime.predictor import Predictor

    return Predictor.from_dir(SHIPPED, threads=1)


def _numbers(prediction: dict) -> dict:
    return {m: (p.value, p.low, p.high, p.samples, p.smooth_samples) for m, p in prediction.items()}


@pytest.mark.parametrize("seed", range(2))
def test_the_shipped_default_gives_renamed_and_reformatted_code_the_same_numbers(seed):
    """Issue 22: the default reads canonical names, so a consistent renaming (by bench/rewrites.py,
    which does not use our resolver), reformatting, hints and docstrings move none of its numbers,
    to the last bit."""
    plain, other = _shipped(), _shipped()  # two predictors: no cache shared between the two sides
    assert plain.config.preprocess == "canon_v1"
    rng = random.Random(seed)
    codes, rewritten = [], []
    for program in PROGRAMS:
        code = textwrap.dedent(program)
        for _, new in exact_rewrites(code, rng):
            if new != code:
                codes.append(code)
                rewritten.append(new)
    assert len(rewritten) >= 20
    for a, b in zip(plain.predict(codes), other.predict(rewritten)):
        assert _numbers(a) == _numbers(b)


# -- canon_v2: typed names ------------------------------------------------------------------------


def canon2(code: str) -> str:
    return preprocess.apply("canon_v2", textwrap.dedent(code))


TYPED = [
    (  # each kind a first plain assignment shows; parameters, loop targets and unpackings stay v
        """
        def f(nums, k):
            seen = set()
            memo = {}
            out = []
            total = 0
            label = f"{k}"
            for x in nums:
                if x in seen:
                    total += 1
                seen.add(x)
            dp = [0] * (k + 1)
            q = collections.deque(nums)
            cnt = Counter(nums)
            a, b = 1, 2
            pair = (a, b)
            return total, memo, out, dp, label, q, cnt, pair
        """,
        """
        def f0(v0, v1):
            s0 = set()
            d0 = {}
            l0 = []
            n0 = 0
            c0 = f'{v1}'
            for v2 in v0:
                if v2 in s0:
                    n0 += 1
                s0.add(v2)
            l1 = [0] * (v1 + 1)
            q0 = collections.deque(v0)
            d1 = Counter(v0)
            v3, v4 = (1, 2)
            t0 = (v3, v4)
            return (n0, d0, l0, l1, c0, q0, d1, t0)
        """,
    ),
    (  # the first binding decides: a later assignment of another kind does not rename it again
        """
        def g(n):
            best = None
            best = []
            size = len(range(n))
            grid = [[0] * n for _ in range(n)]
            if (m := len(grid)) > size:
                return m
            return best
        """,
        """
        def f0(v0):
            v1 = None
            v1 = []
            n0 = len(range(v0))
            l0 = [[0] * v0 for v2 in range(v0)]
            if (n1 := len(l0)) > n0:
                return n1
            return v1
        """,
    ),
    (  # a function of the code's own called `sorted` says nothing about its value's kind
        """
        def sorted(x):
            return x
        def h(n):
            y = sorted(n)
            z = list(n)
            return y, z
        """,
        """
        def f0(v0):
            return v0

        def f1(v1):
            v2 = f0(v1)
            l0 = list(v1)
            return (v2, l0)
        """,
    ),
]


@pytest.mark.parametrize(("code", "expected"), TYPED, ids=range(len(TYPED)))
def test_typed_canonical_table(code, expected):
    out = canon2(code)
    assert out == expect(expected)
    assert canon2(out) == out  # idempotent


def test_typed_names_never_capture_a_free_name_and_v1_is_unchanged():
    assert canon2("def f(a):\n    s = set()\n    return s0 + len(s)\n") == \
        "def f0(v0):\n    s1 = set()\n    return s0 + len(s1)\n"
    code = textwrap.dedent(TYPED[0][0])
    assert "s0" not in canon(code) and canon(code) != canon2(code)  # canon_v1 models read what they did


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("program", range(len(PROGRAMS) + len(TYPED)))
def test_typed_names_are_invariant_under_any_consistent_renaming(program, seed):
    code = textwrap.dedent((PROGRAMS + [c for c, _ in TYPED])[program])
    done = exact_rewrites(code, random.Random(seed))
    assert len(done) >= 3
    for name, new in done:
        assert canon2(new) == canon2(code), name


def test_a_class_defined_inside_a_method_keeps_its_self_under_canon_v2():
    """canon_v1 turned a nested class's `self.find(x)` into a free `find(x)`, which a rename of
    `find` then moved; canon_v2 keeps it an attribute of the nested class's own `self`."""
    code = """
    class Solution:
        def solve(self, n):
            class UF:
                def find(self, x):
                    return x
                def union(self, x, y):
                    return self.find(x), self.find(y)
            return UF().union(n, self.limit)
    """
    renamed = code.replace("find", "root_of")
    assert canon2(code) == canon2(renamed)
    assert "return (v3.f1(v4), v3.f1(v5))" in canon2(code)  # self.find: the nested class's method
    assert canon(code) != canon(renamed)  # the old version's known miss, kept for its models


def test_nodes_lists_what_ast_walk_yields_in_its_order_but_the_ctx_markers():
    import ast

    from rlm_lsp.python import canonical

    tree = ast.parse(textwrap.dedent("""
        import os.path as p
        from a import (b as c, d)
        class A(B, metaclass=M):
            def f(self, x: int = 1, /, y=2, *a, k=2, **kw) -> int:
                global g
                def inner():
                    nonlocal x
                    return lambda q: q
                return [y for y in x if (z := y)] or {1: f"{x!r:>{w}}"}
            async def h(self):
                async for i in aiter():
                    del self.v[i], w
                async with l as (m, *n):
                    await m
        try:
            pass
        except E as e:
            raise
        match v:
            case {"k": K(a=[1, *rest]), **others} | None if rest:
                pass
            case _:
                x: int = 3
    """))
    walked = [n for n in ast.walk(tree) if not isinstance(n, ast.expr_context)]
    assert [id(n) for n in canonical.nodes(tree)] == [id(n) for n in walked]


@pytest.mark.parametrize("code, expected", [
    # self.x goes innermost first, as a post-order visit would: self.self.x is x
    ("class Solution:\n    def f(self):\n        return self.self.x + self.a.b\n", "def f():\n    return x + a.b\n"),
    ("class Solution:\n    def f(self):\n        self.seen[self.k] = [self.g(i) for i in self.items]\n",
     "def f():\n    seen[k] = [g(i) for i in items]\n"),
    ("class Solution:\n    limit = self.n\n", "limit = n\n"),  # a class-level statement too
])
def test_strip_v1_drops_self_everywhere_in_an_unwrapped_method(code, expected):
    assert preprocess.apply("strip_v1", code) == expected


def _canon_by_separate_passes(code: str) -> str:
    """canon_v1 as it was written before its passes were merged (strip, unwrap, fill the empty
    definitions, drop the no-ops, rename), each pass a walk of its own."""
    import ast

    from rlm_lsp.python import canonical

    tree = preprocess._strip(ast.parse(textwrap.dedent(code)))
    preprocess._unwrap_classes(tree)
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and not node.body:
            node.body = [ast.Pass()]
    return preprocess._normalise_whitespace(ast.unparse(canonical.canonicalize(tree)))


@pytest.mark.parametrize("code", [
    "class Solution:\n    pass\n",
    "class Solution:\n    '''doc'''\n    x: int\n    ...\n    def f(self):\n        pass\n",
    "@dataclass\nclass P:\n    x: int\n    y: float\n\ndef f(p):\n    '''doc'''\n    return p.x\n",
    "def f(a: int) -> int:\n    x: int\n",
    "def f(a):\n    if a:\n        y: int\n    else:\n        pass\n    return 1\n",
    "def f(a):\n    try:\n        ...\n    except E:\n        0\n    finally:\n        'note'\n",
    "def f(a):\n    for i in a:\n        pass\n    else:\n        ...\n    while a:\n        1\n",
    "class Solution:\n    def f(self, n):\n        class Node:\n            pass\n        return Node()\n    3\n",
    "x: int = 1\npass\n'doc'\nasync def g():\n    async with a as b:\n        ...\n",
])
def test_the_merged_passes_write_what_the_separate_ones_did(code):
    # the models read what canon_v1 wrote at training: merging its passes must not move a character
    assert preprocess.canon_v1(code) == _canon_by_separate_passes(code)


def test_the_files_names_by_their_kind_make_mirror_functions_read_the_same():
    """O2 (session 35): a helper the file defines is named as the file's own text would name it (`f1`
    for a function, `C0` for a class, `v..` for a module variable), so two functions that differ only
    in which helper they call read the same, and renaming a helper moves no caller."""
    import ast

    from rlm_lsp.python import preprocess
    from rlm_lsp.python.canonical_scopes import defined_kinds

    source = ("LIMIT = 3\n\nclass Box:\n    pass\n\ndef _up(x, i):\n    pass\n\ndef _up_max(x, i):\n    pass\n\n"
              "def heapify(x):\n    for i in range(len(x) // 2):\n        _up(x, i)\n\n"
              "def heapify_max(x):\n    for i in range(len(x) // 2):\n        _up_max(x, i)\n")
    kinds = defined_kinds(ast.parse(source))
    assert kinds == {"LIMIT": "v", "Box": "C", "_up": "f", "_up_max": "f", "heapify": "f", "heapify_max": "f"}
    a = "def heapify(x):\n    for i in range(len(x) // 2):\n        _up(x, i)\n"
    b = "def heapify_max(x):\n    for i in range(len(x) // 2):\n        _up_max(x, i)\n"
    assert preprocess.canon_v1(a) != preprocess.canon_v1(b)  # today's snippet text: the helper's name
    ca, cb = preprocess.canon_v1(a, kinds), preprocess.canon_v1(b, kinds)
    assert ca == cb and "f1(v0, v1)" in ca and "def f0(v0)" in ca
    assert "g0(v0, v1)" in preprocess.canon_v1(a, frozenset(kinds))  # a set of names: the gate's `g`
    c = "def make():\n    return Box(LIMIT)\n"
    assert preprocess.canon_v1(c, kinds) == "def f0():\n    return C0(v0)\n"
