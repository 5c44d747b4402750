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


# --- neutral rewrites: same work, other text ---------------------------------------------------
#
# Invariance by training where canonical names cannot make it exact (issue: stable predictions).
# Each keeps what the program computes and, to the grain of the measurement, what it costs; the
# measured values are kept. `neutral` applies one or two, chosen at random.

_PURE_CALLS = {"len", "range", "int", "float", "abs", "min", "max", "str", "bool", "ord", "chr"}


def _functions(tree: ast.AST) -> list[ast.FunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _bodies(tree: ast.AST) -> list[list[ast.stmt]]:
    out = []
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                out.append(body)
    return out


def _unused_assignment(tree, rng):
    fns = _functions(tree)
    if not fns:
        return False
    name = rng.choice(("_x", "_", "_unused", "_tmp", "_i"))
    value = rng.choice(("0", "None", "1", "[]", "''"))
    for fn in fns if rng.random() < 0.5 else [rng.choice(fns)]:
        fn.body.insert(0, ast.parse(f"{name} = {value}").body[0])
    return True


def _assert(tree, rng):
    fns = _functions(tree)
    if not fns:
        return False
    fn = rng.choice(fns)
    params = [a.arg for a in fn.args.args]
    test = f"{rng.choice(params)} is not None" if params and rng.random() < 0.5 else "True"
    fn.body.insert(0, ast.parse(f"assert {test}").body[0])
    return True


def _names(node: ast.AST, ctx) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ctx)}


def _simple(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, (ast.Assign, ast.AugAssign)):
        return False
    targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
    if not all(isinstance(t, (ast.Name, ast.Tuple)) for t in targets):
        return False
    for n in ast.walk(stmt):
        if isinstance(n, ast.Call) and not (isinstance(n.func, ast.Name) and n.func.id in _PURE_CALLS):
            return False
        if isinstance(n, (ast.NamedExpr, ast.Yield, ast.Await, ast.Attribute, ast.Subscript)):
            return False
    return True


def _swap(tree, rng):
    """Swap two adjacent assignments that neither read nor write what the other writes."""
    spots = []
    for body in _bodies(tree):
        for i in range(len(body) - 1):
            a, b = body[i], body[i + 1]
            if _simple(a) and _simple(b):
                wa, wb = _names(a, ast.Store), _names(b, ast.Store)
                ra, rb = _names(a, ast.Load), _names(b, ast.Load)
                if isinstance(a, ast.AugAssign):
                    ra |= wa
                if isinstance(b, ast.AugAssign):
                    rb |= wb
                if not (wa & (wb | rb)) and not (wb & ra):
                    spots.append((body, i))
    if not spots:
        return False
    body, i = rng.choice(spots)
    body[i], body[i + 1] = body[i + 1], body[i]
    return True


def _aug_assign(tree, rng):
    """`x += 1` <-> `x = x + 1`, for a name and a number (a list's `+=` works in place, so not that)."""
    spots = []
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if not isinstance(body, list):
                continue
            for i, s in enumerate(body):
                if (isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name)
                        and isinstance(s.value, ast.Constant) and isinstance(s.value.value, (int, float))):
                    spots.append((body, i))
    if not spots:
        return False
    body, i = rng.choice(spots)
    s = body[i]
    load = ast.Name(id=s.target.id, ctx=ast.Load())
    body[i] = ast.Assign(targets=[s.target], value=ast.BinOp(left=load, op=s.op, right=s.value), lineno=0)
    return True


def _index_loop(tree, rng):
    """`for x in a:` -> `for i in range(len(a)): x = a[i]`, for a plain name `a` and target `x`."""
    spots = [n for n in ast.walk(tree) if isinstance(n, ast.For) and isinstance(n.iter, ast.Name)
             and isinstance(n.target, ast.Name)]
    if not spots:
        return False
    loop = rng.choice(spots)
    index = rng.choice(("i", "j", "k", "idx", "_i"))
    if index in _names(loop, ast.Load) | _names(loop, ast.Store):
        return False
    seq, target = loop.iter.id, loop.target.id
    loop.body.insert(0, ast.parse(f"{target} = {seq}[{index}]").body[0])
    loop.target = ast.Name(id=index, ctx=ast.Store())
    loop.iter = ast.parse(f"range(len({seq}))", mode="eval").body
    return True


NEUTRAL = {"unused_assignment": _unused_assignment, "assert": _assert, "swap": _swap,
           "aug_assign": _aug_assign, "index_loop": _index_loop}


def neutral(code: str, rng: random.Random, kinds=tuple(NEUTRAL)) -> str:
    """One or two neutral rewrites of `code` (those that apply); `code` when none does."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return code
    changed = False
    for kind in rng.sample(list(kinds), k=min(len(kinds), rng.choice((1, 1, 2)))):
        changed |= NEUTRAL[kind](tree, rng)
    if not changed:
        return code
    try:
        return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    except (ValueError, RecursionError):
        return code
