"""Program shape (`rlm_lsp.python.shapes`): function, stdin or script, from a module's text."""

import pytest

from rlm_lsp.python.shapes import definitions_only, program_shape

SOLUTION = "class Solution:\n    def twoSum(self, nums, target):\n        return []\n"
MAIN = "import sys\n\ndef main():\n    n = int(sys.stdin.readline())\n    print(n * n)\n"

CASES = [
    # (source, shape, why)
    ("", "function", "empty"),
    ("def f(n):\n    return n\n", "function", "one def"),
    (SOLUTION, "function", "a LeetCode class"),
    ('"""Doc."""\nimport math\nfrom collections import deque\n\ndef f():\n    return 1\n', "function", "imports, docstring"),
    ("MOD = 10**9 + 7\nINF = float('inf')\nDIRS = [(0, 1), (1, 0)]\nN: int = 5\n\ndef f(x):\n    return x % MOD\n",
     "function", "constants"),
    ("import sys\nsys.setrecursionlimit(10**6)\ninput = sys.stdin.readline\n\ndef f(x):\n    return input()\n",
     "function", "interpreter set-up and an alias: nothing runs"),
    ("try:\n    import numpy as np\nexcept ImportError:\n    np = None\n\ndef f():\n    return np\n",
     "function", "guarded import"),
    ("def f(:\n    print(input())\n", "function", "does not parse"),
    ("print 1\n", "function", "Python 2 does not parse"),
    (MAIN + '\nif __name__ == "__main__":\n    main()\n', "stdin", "a main guard is top-level code"),
    (MAIN + "\nmain()\n", "stdin", "called at the top level; reads stdin inside main"),
    ("n = int(input())\nprint(n)\n", "stdin", "input()"),
    ("import sys\nfor line in sys.stdin:\n    print(line)\n", "stdin", "sys.stdin"),
    ("from sys import stdin\nprint(stdin.read())\n", "stdin", "from sys import stdin"),
    ("data = open(0).read().split()\nprint(len(data))\n", "stdin", "open(0)"),
    ("import os\nbuf = os.read(0, 1 << 20)\nprint(len(buf))\n", "stdin", "os.read(0"),
    ("import fileinput\nfor line in fileinput.input():\n    print(line)\n", "stdin", "fileinput"),
    ("print(sum(range(10**6)))\n", "script", "computes, reads nothing"),
    ("def f(n):\n    return n * n\n\nprint(f(10))\n", "script", "a def and a call"),
    ("x = [i * i for i in range(10**7)]\n", "script", "a comprehension is computed"),
    ('def main():\n    print(1)\n\nif __name__ == "__main__":\n    main()\n', "script", "guard, no stdin"),
    ("def f(self):\n    return self.input()\n\nf(None)\n", "script", "a method named input is not stdin"),
    ("with open('data.txt') as fh:\n    print(fh.read(0))\n", "script", "a file, not fd 0"),
]


@pytest.mark.parametrize("source, shape, why", CASES, ids=[c[2] for c in CASES])
def test_program_shape(source, shape, why):
    assert program_shape(source) == shape, why


@pytest.mark.parametrize("source, expected", [
    ('"""Doc."""\nimport math\n\ndef solve():\n    return 1\n\nclass A:\n    pass\n', True),
    ("def solve():\n    return 1\n\nprint(solve())\n", False),
    ("x = 1\n", False),  # training's filter is stricter than program_shape: a constant is code there
    ("print 1\n", False),  # does not parse: still measured
])
def test_definitions_only_is_trainings_filter(source, expected):
    assert definitions_only(source) is expected


def test_training_uses_the_runtime_rule():
    from training.measuring import sources

    assert sources.definitions_only is definitions_only
