"""Program shape: how a piece of Python is run, which is what a shaped model's number is for.

    "function"  only definitions at the top level (imports, functions, classes, constants,
                docstrings), or code that does not parse: something calls it; the number is
                per call. Every function snippet the editor, the gate and the CLI score is one.
    "stdin"     top-level code that reads standard input: run as a process on its input
                (a judge's script).
    "script"    top-level code that reads no input: run as a process as it is.

An `if __name__ == "__main__":` guard is top-level code: running the file runs it. Training
labels its rows with the same three words (LeetCode functions, Kattis stdin scripts, Euler and
Rosetta scripts) and skips programs that compute nothing (`definitions_only`), so the two sides
share this module.
"""

from __future__ import annotations

import ast
import warnings

from rlm_lsp.python.source import Source

FUNCTION, STDIN, SCRIPT = "function", "stdin", "script"
SHAPES = (FUNCTION, STDIN, SCRIPT)

_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Calls a constant may be built with: they compute nothing worth a process (`INF = float("inf")`).
_CONSTANT_CALLS = {"float", "int", "str", "bytes", "bool", "complex", "tuple", "list", "dict", "set",
                   "frozenset", "object", "TypeVar", "namedtuple", "NamedTuple", "defaultdict", "deque",
                   "Counter", "OrderedDict", "compile"}
# Top-level calls that only set the interpreter up (`sys.setrecursionlimit(10**6)` above a solution).
_SETUP_CALLS = {"setrecursionlimit", "set_int_max_str_digits"}
_STDIN_MODULES = {"fileinput"}


def program_shape(module_source: str | Source) -> str:
    """FUNCTION, STDIN or SCRIPT for a whole module's text, or the module parsed once
    (`rlm_lsp.python.source`; see the module docstring)."""
    tree = module_source.tree if isinstance(module_source, Source) else _parse(module_source)
    if tree is None or all(_is_definition(s) for s in tree.body):
        return FUNCTION
    return STDIN if reads_stdin(tree) else SCRIPT


def definitions_only(code: str) -> bool:
    """Only imports, functions, classes and docstrings at the top level: running it computes
    nothing. Training's filter (`training.measuring.sources`): stricter than `program_shape` (a constant
    assignment is code here) and False for code that does not parse, which is still measured."""
    tree = _parse(code)
    if tree is None:
        return False
    return all(isinstance(s, _DEFINITIONS) or _is_docstring(s) for s in tree.body)


def reads_stdin(tree: ast.AST) -> bool:
    """Whether the code reads standard input anywhere: `input(`, `sys.stdin`, `from sys import
    stdin`, `open(0` (also `io.open`, `os.fdopen`), `os.read(0`, or the `fileinput` module."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _call_name(node.func)
            if name in ("input", "raw_input") and isinstance(node.func, ast.Name):
                return True
            if name in ("open", "fdopen") and node.args and _is_zero(node.args[0]):
                return True
            if name == "read" and _is_os(node.func) and node.args and _is_zero(node.args[0]):
                return True
        elif isinstance(node, ast.Attribute):
            if node.attr in ("stdin", "__stdin__") and isinstance(node.value, ast.Name) and node.value.id == "sys":
                return True
            if isinstance(node.value, ast.Name) and node.value.id in _STDIN_MODULES:
                return True
        elif isinstance(node, ast.ImportFrom):
            if node.module == "sys" and any(a.name in ("stdin", "__stdin__") for a in node.names):
                return True
            if node.module in _STDIN_MODULES:
                return True
        elif isinstance(node, ast.Import):
            if any(a.name in _STDIN_MODULES for a in node.names):
                return True
    return False


# -- helpers ----------------------------------------------------------------------------------


def _parse(code: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is the user's business
            return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)


def _is_definition(s: ast.stmt) -> bool:
    """A top-level statement that runs no program of its own."""
    if isinstance(s, (*_DEFINITIONS, ast.Pass)) or _is_docstring(s):
        return True
    if isinstance(s, ast.Assign):
        return all(_is_target(t) for t in s.targets) and _is_constant(s.value)
    if isinstance(s, ast.AnnAssign):
        return isinstance(s.target, ast.Name) and (s.value is None or _is_constant(s.value))
    if isinstance(s, getattr(ast, "TypeAlias", ())):
        return True
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call):
        return _call_name(s.value.func) in _SETUP_CALLS
    if isinstance(s, ast.If):
        if _is_main_guard(s.test):
            return False
        return all(_is_definition(x) for x in s.body + s.orelse)
    if isinstance(s, ast.Try):  # try: import numpy / except ImportError: ...
        parts = s.body + s.orelse + s.finalbody + [x for h in s.handlers for x in h.body]
        return all(_is_definition(x) for x in parts)
    return False


def _is_target(t: ast.expr) -> bool:
    if isinstance(t, ast.Name):
        return True
    return isinstance(t, (ast.Tuple, ast.List)) and all(_is_target(e) for e in t.elts)


def _is_constant(e: ast.expr) -> bool:
    """A value built of literals, names, operators and containers: `MOD = 10**9 + 7`,
    `DIRS = [(0, 1), (1, 0)]`, `INF = float("inf")`, `sq = lambda x: x * x`. A comprehension or
    any other call computes something, so it is code."""
    if isinstance(e, (ast.Constant, ast.Name, ast.Lambda)):
        return True
    if isinstance(e, ast.Attribute):  # also `input = sys.stdin.readline`: an alias reads nothing yet
        return _is_constant(e.value)
    if isinstance(e, ast.UnaryOp):
        return _is_constant(e.operand)
    if isinstance(e, ast.BinOp):
        return _is_constant(e.left) and _is_constant(e.right)
    if isinstance(e, ast.BoolOp):
        return all(_is_constant(v) for v in e.values)
    if isinstance(e, ast.Compare):
        return _is_constant(e.left) and all(_is_constant(c) for c in e.comparators)
    if isinstance(e, (ast.Tuple, ast.List, ast.Set)):
        return all(_is_constant(x) for x in e.elts)
    if isinstance(e, ast.Dict):
        return all(k is None or _is_constant(k) for k in e.keys) and all(_is_constant(v) for v in e.values)
    if isinstance(e, ast.Subscript):
        return _is_constant(e.value) and _is_constant(e.slice)
    if isinstance(e, ast.Call):
        return (_call_name(e.func) in _CONSTANT_CALLS and all(_is_constant(a) for a in e.args)
                and all(_is_constant(k.value) for k in e.keywords))
    return False


def _is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"`, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    sides = [test.left, test.comparators[0]]
    return (any(isinstance(x, ast.Name) and x.id == "__name__" for x in sides)
            and any(isinstance(x, ast.Constant) and x.value == "__main__" for x in sides))


def _call_name(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_os(func: ast.expr) -> bool:
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "os"


def _is_zero(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and e.value == 0 and not isinstance(e.value, bool)
