"""`rlm.exclude` globs, matched in time linear in the path: no regular-expression backtracking.

The syntax is gitignore-like: `*` within a folder, `**` across folders, `**/` zero or more
whole folders, `?` one character (not `/`); a pattern without `/` matches a name in any
folder, one ending in `/` everything below. As a backtracking regex, `**/**/.../zz.py`
against a path 30 folders deep took 41 s per match with ten `**` (a repository's settings
can carry that). Here a pattern becomes a small automaton whose set of live states
advances one path character at a time, so a match costs at most len(path) x len(pattern)
steps; patterns over MAX_PATTERN characters are refused when the settings are read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

MAX_PATTERN = 1000

# Token kinds. DS_OPT/DS_BODY are `**/`: skip it, or consume anything that ends with `/`.
_LIT, _ONE, _STAR, _DSTAR, _DS_OPT, _DS_BODY = range(6)


@dataclass(frozen=True)
class Glob:
    pattern: str
    tokens: tuple[tuple[int, str], ...]

    def match(self, path: str) -> bool:
        return self.match_steps(path)[0]

    def match_steps(self, path: str) -> tuple[bool, int]:
        """(whether the whole `path` matches, how many state steps it took)."""
        tokens, end = self.tokens, len(self.tokens)
        steps = 0
        states = self._closure({0})
        for ch in path:
            nxt: set[int] = set()
            for p in states:
                steps += 1
                if p == end:
                    continue
                kind, lit = tokens[p]
                if kind == _LIT:
                    if ch == lit:
                        nxt.add(p + 1)
                elif kind == _ONE:
                    if ch != "/":
                        nxt.add(p + 1)
                elif kind == _STAR:
                    if ch != "/":
                        nxt.add(p)
                elif kind == _DSTAR:
                    nxt.add(p)
                elif kind == _DS_BODY:
                    nxt.add(p)
                    if ch == "/":
                        nxt.add(p + 1)
            if not nxt:
                return False, steps
            states = self._closure(nxt)
        return end in states, steps

    def _closure(self, states: set[int]) -> set[int]:
        """`states` plus every state reachable without consuming a character."""
        out, todo = set(states), list(states)
        while todo:
            p = todo.pop()
            if p == len(self.tokens):
                continue
            kind = self.tokens[p][0]
            reach = (p + 1,) if kind in (_STAR, _DSTAR) else (p + 1, p + 2) if kind == _DS_OPT else ()
            for q in reach:
                if q not in out:
                    out.add(q)
                    todo.append(q)
        return out


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> Glob:
    pattern = pattern.replace("\\", "/").removeprefix("./")
    if "/" not in pattern.rstrip("/"):
        pattern = "**/" + pattern
    if pattern.endswith("/"):
        pattern += "**"
    tokens: list[tuple[int, str]] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            if tokens[-2:] != [(_DS_OPT, ""), (_DS_BODY, "")]:  # `**/**/` is `**/`: fewer states
                tokens += [(_DS_OPT, ""), (_DS_BODY, "")]
            i += 3
        elif pattern.startswith("**", i):
            tokens.append((_DSTAR, ""))
            i += 2
        elif pattern[i] == "*":
            tokens.append((_STAR, ""))
            i += 1
        elif pattern[i] == "?":
            tokens.append((_ONE, ""))
            i += 1
        else:
            tokens.append((_LIT, pattern[i]))
            i += 1
    return Glob(pattern, tuple(tokens))
