"""A one-line census of a Python program, for templates with a `{census}` field
(`graph_text.census` is the same idea for network graphs).

    'def f(n):\n    a = [[0] * n for _ in range(n)]\n    a.sort()\n    return a\n'
        -> 'loop 1 depth 1 comp 1 call 2 list* 1 nested 2 sort 1'

Why: an encoder this small averages over its input and sees every construct as a few tokens
among hundreds. The graph-text models gained most from a first line that counts what is in
the graph; this is the same idea for code: how many loops, how deep, which costly builtins.
Only non-zero counts are written, in a fixed order, each capped at 99. Code that does not parse
gets `noparse` and the regex markers only.
"""

from __future__ import annotations

import ast
import math
import re

CAP = 99
_MARKERS = (  # (word, regex on the code)
    ("list*", r"\]\s*\*"),
    ("nested", r"\[\[|\]\s*\*\s*\w+\s+for\b"),
    ("append", r"\.append\("),
    ("sort", r"\bsort(?:ed)?\("),
    ("heap", r"\bheap(?:q|push|pop|ify)"),
    ("deque", r"\bdeque\("),
    ("dict", r"\b(?:dict|defaultdict|Counter)\(|\{\}"),
    ("set", r"\bset\("),
    ("cache", r"@(?:functools\.)?(?:cache|lru_cache)"),
    ("join", r"\.join\("),
    ("bisect", r"\bbisect"),
    ("slice", r"\[[^\]\[]*:[^\]\[]*\]"),
)
_MARKER_RES = tuple((word, re.compile(rx)) for word, rx in _MARKERS)


def code_census(code: str) -> str:
    counts: dict[str, int] = {}
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
        counts["noparse"] = 1
    if tree is not None:
        counts.update(_tree_counts(tree))
    for word, rx in _MARKER_RES:
        counts[word] = len(rx.findall(code))
    return " ".join(f"{k} {min(v, CAP)}" for k, v in counts.items() if v) or "none"


def _tree_counts(tree: ast.AST) -> dict[str, int]:
    loops = comps = calls = whiles = recursive = 0
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)):
            loops += 1
        elif isinstance(node, ast.While):
            loops += 1
            whiles += 1
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            comps += 1
            loops += len(node.generators)
        elif isinstance(node, ast.Call):
            calls += 1
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names = {c.func.id for c in ast.walk(node) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
            recursive += node.name in names
    return {"loop": loops, "depth": loop_depth(tree), "while": whiles, "comp": comps, "call": calls,
            "recursive": recursive}


def loop_depth(tree: ast.AST) -> int:
    """The deepest nesting of loops (for, while, comprehension clauses) in the tree."""
    best, stack = 0, [(tree, 0)]
    while stack:  # iterative: deeply nested code must not hit the recursion limit
        node, depth = stack.pop()
        best = max(best, depth)
        for child in ast.iter_child_nodes(node):
            deeper = isinstance(child, (ast.For, ast.AsyncFor, ast.While, ast.comprehension))
            stack.append((child, depth + deeper))
    return best


# -- Triton kernels ------------------------------------------------------------------------

_KERNEL_COUNTS = (  # (word, regex on the kernel text), the words of the `{kops}` field
    ("jit", r"@(?:triton\.)?jit\b"),
    ("load", r"\btl\.load\("),
    ("store", r"\btl\.store\("),
    ("dot", r"\btl\.dot\("),
    ("loop", r"\bfor\b|\bwhile\b"),
    ("atomic", r"\btl\.atomic_\w+\("),
    ("exp", r"\btl\.(?:exp2?|log2?|math\.\w+)\("),
    ("sqrt", r"\btl\.(?:sqrt|rsqrt)\(|libdevice\.\w*sqrt"),
    ("reduce", r"\btl\.(?:sum|max|min|argmax|argmin|reduce|cumsum|associative_scan)\("),
    ("where", r"\btl\.where\("),
    ("config", r"\btriton\.Config\("),
    ("grid", r"\btl\.program_id\("),
)
_KERNEL_RES = tuple((word, re.compile(rx)) for word, rx in _KERNEL_COUNTS)


def kernel_census(code: str) -> str:
    """A one-line count of what a Triton kernel text does, for kernel templates with a `{kops}`
    field: loads, stores, dots, loops, math and reductions, then its length in lines as
    round(2 * log2(lines)). Only non-zero counts, in a fixed order, each capped at 99.

        '@triton.jit\\ndef k(x, y, n):\\n    v = tl.load(x)\\n    tl.store(y, tl.exp(v))\\n'
            -> 'jit 1 load 1 store 1 exp 1 lines 4'
    """
    counts = [(word, len(rx.findall(code))) for word, rx in _KERNEL_RES]
    lines = sum(1 for line in code.splitlines() if line.strip())
    words = [f"{w} {min(n, CAP)}" for w, n in counts if n]
    words.append(f"lines {round(2 * math.log2(max(lines, 1)))}")
    return " ".join(words)
