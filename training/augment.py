"""Training-time rewrites that keep what a program does but change its LeetCode surface.

The training programs are LeetCode functions; the model is also used on plain
scripts that read stdin and print. `rewrite` turns a normalised program into one
of those shapes, keeping the measured values (the work done is the same):

- the entry function gets a generic name (`solve`, `main`, `f`, ...), calls renamed too;
- a stdin driver is appended: each parameter read with `input()` / `sys.stdin`,
  the result printed; sometimes inside `def main(): ... main()`.

Only applied to training rows (never to validation or at inference).
"""

from __future__ import annotations

import ast
import random
import re

_NAMES = ("solve", "main", "f", "run", "calc", "answer", "work", "compute")
_READERS = (
    "int(input())",
    "list(map(int, input().split()))",
    "input().strip()",
    "[int(x) for x in input().split()]",
    "int(sys.stdin.readline())",
    "list(map(int, sys.stdin.readline().split()))",
    "sys.stdin.readline().strip()",
)


def _entry(tree: ast.Module) -> ast.FunctionDef | None:
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef):
            return stmt
    return None


def rewrite(code: str, rng: random.Random, p_rename: float = 0.7, p_driver: float = 0.6) -> str:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return code
    fn = _entry(tree)
    if fn is None:
        return code
    name = fn.name
    out = code
    if rng.random() < p_rename:
        new = rng.choice(_NAMES)
        if not re.search(rf"\b{new}\b", code):
            out = re.sub(rf"\b{re.escape(name)}\b", new, out)
            name = new
    if rng.random() < p_driver:
        params = [a.arg for a in fn.args.args]
        reads = [f"{p} = {rng.choice(_READERS)}" for p in params]
        call = f"print({name}({', '.join(params)}))"
        body = reads + [call]
        uses_sys = any("sys." in r for r in reads)
        if rng.random() < 0.4 and name != "main" and "def main" not in out:
            driver = "def main():\n" + "".join(f"    {line}\n" for line in body) + "main()\n"
        else:
            driver = "".join(f"{line}\n" for line in body)
        if uses_sys and "import sys" not in out:
            out = "import sys\n" + out
        out = out.rstrip("\n") + "\n" + driver
    return out
