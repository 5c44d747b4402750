"""#62: a function that changes its input gets a fresh copy per timed call. Sorting in place by
swaps (`a[i], a[j] = a[j], a[i]`) or in a helper it hands the list to is a change: timed on the list
the memory call had sorted, bubble sort read ~1 (one pass over a sorted list)."""

from __future__ import annotations

import json
import os

import pytest

from rlm_lsp.app import cli
from rlm_lsp.measure import inputs, sandbox

WHY = None if os.environ.get("CI") == "true" else sandbox.unavailable()
needs_bwrap = pytest.mark.skipif(WHY is not None, reason=f"{WHY}; with CI=true this fails")

SOURCE = '''
def bubble(a):
    for i in range(len(a)):
        for j in range(len(a) - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


def _heapify(xs, end):
    xs[0], xs[end] = xs[end], xs[0]


def heap_sort(a):
    for i in range(len(a) - 1, 0, -1):
        _heapify(a, i)
    return a


def _merge(left, right, merged):
    for i, x in enumerate(left + right):
        merged[i] = x


def merge_sort(a):
    if len(a) <= 1:
        return a
    _merge(merge_sort(a[:len(a) // 2]), merge_sort(a[len(a) // 2:]), a)
    return a


def starred(a):
    first, *a[1:] = a
    return first


def reads(a):
    x, y = a[0], a[-1]
    for v in a:
        x += v
    return x + y


def _collect(node, out):
    if node is not None:
        out.append(node.val)
        _collect(node.left, out)


def collects(root):
    out = []
    _collect(root, out)
    return out


def pushes(h, x):
    import heapq
    heapq.heappush(h, x)
'''


def test_a_swap_and_a_helper_that_writes_its_parameter_are_changes():
    plans = {p.function: p for p in inputs.plans(SOURCE)}
    assert plans["bubble"].mutates
    assert plans["heap_sort"].mutates
    assert plans["merge_sort"].mutates
    assert plans["starred"].mutates
    assert not plans["reads"].mutates
    assert not plans["collects"].mutates  # `out.append(node.val)` changes out, not the tree
    assert plans["pushes"].mutates


SORTS = '''
def bubble(a: list[int]) -> list[int]:
    for i in range(len(a)):
        for j in range(len(a) - 1 - i):
            if a[j] > a[j + 1]:
                a[j], a[j + 1] = a[j + 1], a[j]
    return a


def digit_sum(num: int) -> int:
    return sum(int(d) for d in str(num))
'''


@needs_bwrap
def test_a_sort_by_swaps_is_timed_on_fresh_copies_and_a_big_int_prints(tmp_path, capsys):
    (tmp_path / "sorts.py").write_text(SORTS)
    code = cli.main(["measure", f"{tmp_path / 'sorts.py'}::bubble", "--budget", "8", "--max-n", "1024", "--json"])
    row = json.loads(capsys.readouterr().out)[0]
    assert code == 0 and row["mutates"] and row["time"]["class"] == "n²", row
    # an int of n bits passes CPython's 4300-digit limit on str() at n ≈ 14300: the ladder's limit, not the code's
    code = cli.main(["measure", f"{tmp_path / 'sorts.py'}::digit_sum", "--budget", "8", "--max-n", str(1 << 16),
                     "--json"])
    row = json.loads(capsys.readouterr().out)[0]
    assert code == 0 and row["status"] == "measured" and row["sizes"][-1] == 1 << 16, row
