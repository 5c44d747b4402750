"""#60's sample file on the shipped default: constant, linear, nested, triple, sort, BFS, binary search,
`pop(0)` in a loop and merge sort get their textbook time classes (and memory classes), through
`rlm predict --json` as a user runs it."""

from __future__ import annotations

import contextlib
import io
import json

import pytest

from rlm_lsp.app import cli

NINE = 'from collections import deque\n\n\ndef constant(xs):\n    return xs[0] + xs[-1]\n\n\ndef linear(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return total\n\n\ndef nested(xs):\n    count = 0\n    for a in xs:\n        for b in xs:\n            if a < b:\n                count += 1\n    return count\n\n\ndef triple(xs):\n    count = 0\n    for a in xs:\n        for b in xs:\n            for c in xs:\n                if a + b == c:\n                    count += 1\n    return count\n\n\ndef sort_it(xs):\n    return sorted(xs)\n\n\ndef bfs(graph, start):\n    seen = {start}\n    queue = deque([start])\n    order = []\n    while queue:\n        node = queue.popleft()\n        order.append(node)\n        for nxt in graph[node]:\n            if nxt not in seen:\n                seen.add(nxt)\n                queue.append(nxt)\n    return order\n\n\ndef binary_search(xs, target):\n    lo, hi = 0, len(xs) - 1\n    while lo <= hi:\n        mid = (lo + hi) // 2\n        if xs[mid] < target:\n            lo = mid + 1\n        elif xs[mid] > target:\n            hi = mid - 1\n        else:\n            return mid\n    return -1\n\n\ndef drain(xs):\n    out = []\n    while xs:\n        out.append(xs.pop(0))\n    return out\n\n\ndef merge_sort(xs):\n    if len(xs) <= 1:\n        return xs\n    mid = len(xs) // 2\n    left, right = merge_sort(xs[:mid]), merge_sort(xs[mid:])\n    out, i, j = [], 0, 0\n    while i < len(left) and j < len(right):\n        if left[i] <= right[j]:\n            out.append(left[i])\n            i += 1\n        else:\n            out.append(right[j])\n            j += 1\n    return out + left[i:] + right[j:]\n'

# function -> (time class, memory class)
EXPECTED = {"constant": ("1", "1"), "linear": ("n", "1"), "nested": ("n²", "1"), "triple": ("n³", "1"),
            "sort_it": ("n log n", "n"), "bfs": ("n", "n"), "binary_search": ("log n", "1"),
            "drain": ("n²", "n"), "merge_sort": ("n log n", "n")}


@pytest.fixture(scope="module")
def rows(tmp_path_factory) -> dict[str, dict]:
    path = tmp_path_factory.mktemp("nine") / "nine.py"
    path.write_text(NINE, encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["predict", str(path), "--json"]) == 0
    return {r["function"]: r for r in json.loads(out.getvalue())}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_function_gets_its_textbook_classes(rows, name):
    time_class, memory_class = EXPECTED[name]
    assert rows[name]["latency"]["growth_class"] == time_class, rows[name]["latency"]
    assert rows[name]["memory"]["growth_class"] == memory_class, rows[name]["memory"]


def test_values_at_the_reference_n_rank_as_their_growth(rows):
    time = {n: rows[n]["latency"]["value"] for n in EXPECTED}
    assert time["constant"] < time["linear"] < time["nested"] < time["triple"]
    assert time["binary_search"] < time["linear"]
