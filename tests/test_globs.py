"""`rlm.exclude` globs match in linear time (issue 52, item 5), and mean what they meant before.

`**/**/.../zz.py` against a path 30 folders deep took 41 s per match as a backtracking regex,
holding the GIL. The reference below is that regex, kept for small inputs only, where it is fast.
"""

from __future__ import annotations

import random
import re

import pytest

from rlm_lsp.server.globs import MAX_PATTERN, compile_glob
from rlm_lsp.server.settings import Settings

DEEP = "/".join(f"d{i}" for i in range(30)) + "/zz.pyc"  # 30 folders; the name almost matches


def reference(pattern: str) -> re.Pattern:
    """The former translation (rlm_lsp/server/settings.py before issue 52): right, but exponential."""
    pattern = pattern.replace("\\", "/").removeprefix("./")
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    if pattern.endswith("/"):
        pattern += "**"
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] in "*?":
            out.append("[^/]*" if pattern[i] == "*" else "[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out))


def test_same_answers_as_the_former_regex_on_small_inputs():
    rng = random.Random(52)
    pieces = ["a", "b", "/", "*", "?", "**", "**/", ".py", "a/"]
    for _ in range(4000):
        pattern = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 6)))
        path = "".join(rng.choice(["a", "b", "/", ".py", "ab/"]) for _ in range(rng.randint(0, 7)))
        assert compile_glob(pattern).match(path) == bool(reference(pattern).fullmatch(path)), (pattern, path)


@pytest.mark.parametrize("pattern, path, matched", [
    ("**/tests/**", "pkg/tests/test_x.py", True),
    ("gen_*.py", "a/b/gen_x.py", True),
    ("build/", "build/lib/x.py", True),
    ("build/", "src/build/x.py", True),  # no `/` inside: a folder of that name anywhere
    ("/build/", "src/build/x.py", False),
    ("src/*.py", "src/a/b.py", False),
    ("src/**.py", "src/a/b.py", True),
])
def test_examples(pattern, path, matched):
    assert compile_glob(pattern).match(path) is matched


@pytest.mark.timeout(60)  # before the fix this one match took minutes
def test_repeated_double_stars_cost_steps_linear_in_the_path():
    pattern = "/".join(["**"] * 12) + "/zz.py"
    glob = compile_glob(pattern)
    matched, steps = glob.match_steps(DEEP)
    assert not matched
    assert steps <= len(DEEP) * (len(glob.tokens) + 1)
    assert glob.tokens == compile_glob("**/zz.py").tokens  # the twelve `**/` collapsed to one
    many = compile_glob("**/d1/**/d2/**/d3/**/d4/**/d5/**/d6/**/zz.py")  # no collapse possible
    matched, steps = many.match_steps(DEEP)
    assert not matched and steps <= len(DEEP) * (len(many.tokens) + 1)
    assert Settings.from_dict({"exclude": [pattern]}).excluded(DEEP) is None


def test_an_overlong_glob_is_refused_as_a_setting():
    base = Settings.from_dict({"exclude": ["gen/"]})
    assert Settings.from_dict({"exclude": ["*" * (MAX_PATTERN + 1)]}, base).exclude == ("gen/",)
