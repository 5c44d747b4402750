"""What n is: each parameter's kind, read from its use, and loop nests counted in powers of n.

    def f0(v0):                       v0 is indexed twice: a grid, and n is its number of CELLS
        for v1 in range(len(v0)):     rows: half a power (a grid of n cells is about √n by √n)
            for v2 in range(len(v0[0])):  columns: the other half -> the nest is n¹, not n²
                ...
        for v3 in range(26):          a constant bound: no power at all

The measuring ladder's n is the largest extent of the scaled arguments: the elements of a list,
the characters of a string, the cells of a grid, the value of an integer
(``training.measuring.ladders.input_size``).  ``loop_nests`` counts loop levels; this module
counts the powers of *that* n a nest multiplies (the sizes and nests themselves: ``n_powers``).  It reads the canonical code (``preprocess.canon_v1``:
names are v0, v1..., hints are gone), so every kind is inferred from use, never from a name:

* node: ``p.val``/``.left``/``.next`` or an attribute the code itself defines (renamed ``a0``...);
* grid: indexed twice ``p[i][j]`` (a variable second index), ``len(p[0])``, a row of it walked;
* string: string methods, compared with a one-character constant, ``ord``;
* list: any other container use (len, iteration, index, slice); integer: ``range(p)``, arithmetic,
  compared with a number; a parameter with no telling use is a list.

``read(code)`` -> ``Kinds`` (``features()`` in the order of ``FEATURES``).  ``read(code, kinds=...,
scaled=...)`` takes the kinds and the scaled parameters from outside (the ladder's generator: an
oracle for experiments, never available for a user's code).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from rlm_lsp.python.n_powers import COPIES, COUNTS, KINDS, Nests, Sizes, call_name, name_of, recursion

FEATURES = (*(f"pk_{k}" for k in KINDS), *COUNTS, "rec_branch", "exp_rec_int", "exp_pow")
NODE_ATTRS = {"val", "left", "right", "next", "children", "random", "neighbors", "prev"}
CHAR_METHODS = {"isdigit", "isalpha", "isalnum", "isupper", "islower", "isspace", "lower", "upper"}
STR_METHODS = CHAR_METHODS | {"split", "strip", "lstrip", "rstrip", "startswith", "endswith", "find", "rfind",
                              "replace", "swapcase", "zfill", "partition", "capitalize", "title"}


@dataclass(frozen=True)
class Kinds:
    params: tuple  # the kind of each parameter of the first function, in order
    counts: dict

    def features(self) -> list[float]:
        return [float(self.counts.get(k, 0)) for k in FEATURES]


def _first(tree):
    return next((n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))), None)


def _const(node) -> bool:
    return isinstance(node, ast.Constant) or isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant)


def infer(fn, params: list[str], walked: list | None = None) -> dict:
    """param -> kind, from how the function body uses it (see the module's docstring). `walked`: `fn`'s
    nodes in `ast.walk` order where the caller has them (operators and contexts may be left out)."""
    alias = {p: p for p in params}  # a name that is the parameter itself (cur = head) or one element of it
    elem: dict[str, str] = {}
    walked = list(ast.walk(fn)) if walked is None else walked
    own = {f.name: [a.arg for a in f.args.args] for f in walked if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for node in [*walked, *walked]:  # twice: a helper's call may come before its body's aliases
        if isinstance(node, ast.Call) and name_of(node.func) in own:  # dfs(root): dfs's parameter is root
            for a, q in zip(node.args, own[name_of(node.func)]):
                if name_of(a) in alias:
                    alias.setdefault(q, alias[name_of(a)])
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = node.value
            if name_of(v) in alias:
                alias.setdefault(node.targets[0].id, alias[name_of(v)])
            elif isinstance(v, ast.Subscript) and name_of(v.value) in params and not isinstance(v.slice, ast.Slice):
                elem.setdefault(node.targets[0].id, name_of(v.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            it = node.iter.args[0] if isinstance(node.iter, ast.Call) and call_name(node.iter) == "enumerate" \
                and node.iter.args else node.iter
            tgt = node.target.elts[-1] if call_name(node.iter) == "enumerate" and isinstance(node.target, ast.Tuple) \
                else node.target
            if name_of(it) in params and isinstance(tgt, ast.Name):
                elem.setdefault(tgt.id, name_of(it))
    ev: dict[str, set[str]] = {p: set() for p in params}

    def of(node) -> str:  # the parameter a name or p[i] stands for, "" if none; elements marked "*"
        if name_of(node) in alias:
            return alias[name_of(node)]
        if name_of(node) in elem:
            return elem[name_of(node)] + "*"
        if isinstance(node, ast.Subscript) and name_of(node.value) in params and not isinstance(node.slice, ast.Slice):
            return name_of(node.value) + "*"
        return ""

    def mark(node, what: str, on_elem: str | None = None) -> None:
        p = of(node)
        if p.endswith("*") and on_elem:
            ev[p[:-1]].add(on_elem)
        elif p and not p.endswith("*"):
            ev[p].add(what)

    for node in walked:
        if isinstance(node, ast.Attribute):
            called = False
            if node.attr in NODE_ATTRS or re.fullmatch(r"a\d+", node.attr):
                mark(node.value, "node")
            elif node.attr in STR_METHODS:
                mark(node.value, "string", "string" if node.attr in CHAR_METHODS else "container")
                called = True
            if not called:
                mark(node.value, "container", "grid")  # a method of a row: the rows are containers
        elif isinstance(node, ast.Subscript):
            mark(node.value, "container", "container" if _const(node.slice) else "grid")
            for i in ([node.slice] if not isinstance(node.slice, ast.Slice) else  # xs[k], xs[:k]: k is a count
                      [node.slice.lower, node.slice.upper, node.slice.step]):
                if name_of(i) in params:
                    ev[name_of(i)].add("integer")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            for a in node.args:
                if call_name(node) == "range":
                    mark(a, "integer")
                elif call_name(node) == "ord":
                    mark(a, "string", "string")
                elif call_name(node) in COPIES or call_name(node) == "len":
                    mark(a, "container", "grid" if call_name(node) == "len" else None)
        elif isinstance(node, (ast.For, ast.comprehension)):
            mark(node.iter, "container", "grid")
        elif isinstance(node, ast.Compare):
            for x in (node.left, *node.comparators):
                others = [c for c in (node.left, *node.comparators) if c is not x]
                text = [c.value for c in others if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                if text:  # a one-character constant (or `c in "aeiou"`): x is a character of a string
                    char = any(len(t) == 1 for t in text) or (x is node.left and isinstance(node.ops[0], ast.In))
                    mark(x, "string", "string" if char else "container")
                elif any(isinstance(c, ast.Constant) and type(c.value) in (int, float) for c in others):
                    mark(x, "integer")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)):
            pair = (node.left, node.right) if isinstance(node, ast.BinOp) else (node.target, node.value)
            if any(isinstance(x, ast.Constant) and isinstance(x.value, str) for x in pair):
                for x in pair:
                    mark(x, "string")
            elif not any(isinstance(x, (ast.ListComp, ast.Tuple)) for x in pair):
                for x in pair:  # [0] * n: n is a count; xs + [x] is a list
                    if not isinstance(node.op, ast.Add) or not isinstance(pair[0 if x is pair[1] else 1], ast.List):
                        mark(x, "integer")
    out = {}
    for p in params:
        e = ev[p]
        strong = [k for k in ("node", "grid", "string") if k in e]
        out[p] = strong[0] if strong else "integer" if "integer" in e and "container" not in e else "list"
    return out


def read(code: str, kinds: list | None = None, scaled: set | None = None) -> Kinds:
    """Kinds and powers of n of the first function in ``code`` (canonical text); ``kinds`` (per
    parameter) and ``scaled`` (indices of the parameters the ladder grows) replace the inference."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Kinds((), {})
    fn = _first(tree)
    if fn is None:
        return Kinds((), {})
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")]
    try:
        kind = dict(zip(params, kinds)) if kinds is not None else infer(fn, params)
        grow = {p for i, p in enumerate(params) if scaled is None or i in scaled}
        size = Sizes(fn, kind, grow)
        r = Nests(size, {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))})
        for stmt in fn.body:
            r.visit(stmt)
    except RecursionError:
        return Kinds((), {})
    c = r.c
    c.update(recursion(tree))
    c["exp_pow"] = int(any("exp" in s.kinds for s in size.names.values()))
    for k in KINDS:
        c[f"pk_{k}"] = sum(1 for p in params if kind.get(p) == k)
    return Kinds(tuple(kind.get(p, "list") for p in params), c)
