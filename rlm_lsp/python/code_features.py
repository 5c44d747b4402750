"""Counts a gradient-boosted tree model reads (`rlm_lsp.runtime.feature_trees`): a second, independent
estimate of a function's cost that the regression rule asks before it flags (`rlm_lsp.policy.rules`).

    canonical code -> [characters, lines, tokens, deepest loop, recursive?, parses?,
                       counts of 26 AST node types, counts of 13 markers (sort, heap, 2-D list...)]

The code is read in its canonical form (`preprocess.canon_v1`), so a rename, a reformat, a type
hint or a docstring changes no count, as it changes nothing the model reads. `training.judging.baseline`
fits its trees on these same counts.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

from rlm_lsp.python import preprocess
from rlm_lsp.python.code_census import loop_depth

NODE_TYPES = (
    "For", "While", "If", "ListComp", "SetComp", "DictComp", "GeneratorExp", "Call", "Subscript",
    "BinOp", "Compare", "FunctionDef", "Lambda", "Return", "List", "Dict", "Set", "Tuple",
    "Attribute", "Name", "Constant", "AugAssign", "Assign", "BoolOp", "Slice", "Yield",
)
MARKERS = {
    "range": r"\brange\(",
    "sort": r"\bsort(?:ed)?\(",
    "heap": r"\bheap(?:q|push|pop|ify)",
    "deque": r"\bdeque\(",
    "dict": r"\b(?:dict|defaultdict|Counter)\(|\{\}",
    "set": r"\bset\(",
    "cache": r"@(?:functools\.)?(?:cache|lru_cache)",
    "list_mul": r"\]\s*\*",
    "nested_list": r"\[\[|\]\s*\*\s*\w+\s+for\b",
    "string_join": r"\.join\(",
    "bisect": r"\bbisect",
    "stdin": r"\binput\(|sys\.stdin",
    "append": r"\.append\(",
}
_MARKER_RES = tuple(re.compile(p) for p in MARKERS.values())
FEATURE_NAMES = (
    ["chars", "lines", "tokens", "max_loop_depth", "recursive", "parse_ok"]
    + [f"n_{t}" for t in NODE_TYPES]
    + [f"m_{k}" for k in MARKERS]
)


def features(code: str) -> list[float]:
    """The counts of `code` as given (already preprocessed), in `FEATURE_NAMES` order."""
    try:
        n_tokens = sum(1 for _ in tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        n_tokens = len(code.split())
    counts = dict.fromkeys(NODE_TYPES, 0)
    depth, recursive, ok = 0, 0, 1
    try:
        tree = ast.parse(code)
        for node in ast.walk(tree):
            name = type(node).__name__
            if name in counts:
                counts[name] += 1
            if isinstance(node, ast.FunctionDef):
                calls = {c.func.id for c in ast.walk(node)
                         if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
                recursive |= int(node.name in calls)
        depth = loop_depth(tree)
    except (SyntaxError, ValueError, RecursionError):
        ok = 0
    row = [len(code), code.count("\n") + 1, n_tokens, depth, recursive, ok]
    row += [counts[t] for t in NODE_TYPES]
    row += [len(rx.findall(code)) for rx in _MARKER_RES]
    return [float(x) for x in row]


def of(code: str, preprocess_name: str) -> list[float]:
    """`features` of `code` after the normaliser `preprocess_name` (`canon_v1` for the trees)."""
    return features(preprocess.apply(preprocess_name, code))
