"""The cost analyzer's time reading of loops that narrow, shrink or share their steps (time-v10):
textbook functions and the growth the analyzer gives them (`cost_front.read(...).growth("latency")`)."""

from __future__ import annotations

import textwrap

import pytest

from rlm_lsp.python.cost_front import read

CASES = {
    # a binary search whose probe is annotated
    "annotated_binary_search": ('''
        def search(nums: list, target: int) -> bool:
            start: int = 0
            end: int = len(nums) - 1
            while start <= end:
                mid: int = start + (end - start) // 2
                if nums[mid] == target:
                    return True
                if nums[mid] > target:
                    end = mid - 1
                else:
                    start = mid + 1
            return False
    ''', 0.25),
    # interpolation search: the probe is set by a division between the two bounds
    "interpolation_search": ('''
        def search(xs, x):
            lo, hi = 0, len(xs) - 1
            while lo <= hi and xs[lo] <= x <= xs[hi]:
                if xs[hi] == xs[lo]:
                    return lo if xs[lo] == x else -1
                pos = lo + (hi - lo) * (x - xs[lo]) // (xs[hi] - xs[lo])
                if xs[pos] == x:
                    return pos
                if xs[pos] < x:
                    lo = pos + 1
                else:
                    hi = pos - 1
            return -1
    ''', 0.25),
    # a Fenwick tree's walks: a bit a turn
    "fenwick_prefix_sum": ('''
        def prefix_sum(tree, i):
            total = 0
            i += 1
            while i > 0:
                total += tree[i]
                i -= i & -i
            return total
    ''', 0.25),
    "fenwick_build": ('''
        def build(xs):
            tree = [0] * (len(xs) + 1)
            for k, x in enumerate(xs):
                i = k + 1
                while i < len(tree):
                    tree[i] += x
                    i = i + (i & -i)
            return tree
    ''', 1.25),
    # comb sort whose gap shrinks by a factor in a helper: log n passes of n
    "comb_sort_helper": ('''
        def next_gap(gap):
            gap = (gap * 10) // 13
            return max(gap, 1)


        def comb_sort(a):
            gap = len(a)
            swapped = True
            while gap != 1 or swapped:
                gap = next_gap(gap)
                swapped = False
                for i in range(len(a) - gap):
                    if a[i] > a[i + gap]:
                        a[i], a[i + gap] = a[i + gap], a[i]
                        swapped = True
            return a
    ''', 1.25),
    # comb sort under a flag: the gap shrinks by a factor each turn
    "comb_sort_flag": ('''
        def comb_sort(a):
            gap = len(a)
            done = False
            while not done:
                gap = int(gap / 1.3)
                if gap <= 1:
                    gap = 1
                    done = True
                i = 0
                while i + gap < len(a):
                    if a[i] > a[i + gap]:
                        a[i], a[i + gap] = a[i + gap], a[i]
                        done = False
                    i += 1
            return a
    ''', 1.25),
    # bubble sort under a flag stays quadratic (nothing shrinks by a factor)
    "bubble_sort_flag": ('''
        def bubble_sort(a):
            swapped = True
            while swapped:
                swapped = False
                for i in range(len(a) - 1):
                    if a[i] > a[i + 1]:
                        a[i], a[i + 1] = a[i + 1], a[i]
                        swapped = True
            return a
    ''', 2.0),
    # pigeonhole sort: the inner while drains the counts, n in all
    "pigeonhole_sort": ('''
        def pigeonhole_sort(a):
            lo, hi = min(a), max(a)
            holes = [0] * (hi - lo + 1)
            for x in a:
                holes[x - lo] += 1
            i = 0
            for c in range(len(holes)):
                while holes[c] > 0:
                    holes[c] -= 1
                    a[i] = c + lo
                    i += 1
            return a
    ''', 1.0),
    # merge of two sorted lists through an iterator made before the loop: each item once
    "merge_with_iterator": ('''
        def merge(left, right):
            it = iter(right)
            y = next(it)
            out = []
            for x in left:
                while y < x:
                    out.append(y)
                    y = next(it)
                out.append(x)
            return out
    ''', 1.0),
    # a monotone deque of the file's own class: each index pushed and popped once
    "monotone_deque_methods": ('''
        class Deque:
            def __init__(self):
                self.items = []

            def push_back(self, x):
                self.items.append(x)

            def pop_back(self):
                self.items.pop()

            def back(self):
                return self.items[-1]

            def is_empty(self):
                return not self.items


        def window_max(arr, k):
            dq = Deque()
            out = []
            for i in range(len(arr)):
                while not dq.is_empty() and dq.back() < arr[i]:
                    dq.pop_back()
                dq.push_back(arr[i])
                out.append(dq.back())
            return out
    ''', 1.0),
    # expand around each centre: the match stops after a few turns on typical text; the copy of a
    # new longest palindrome is made a few times, as long as the best
    "expand_around_centre": ('''
        def longest_palindrome(s):
            best, length = "", 0
            for c in range(len(s)):
                lo, hi = c, c
                while lo >= 0 and hi < len(s) and s[lo] == s[hi]:
                    if hi - lo + 1 > length:
                        length = hi - lo + 1
                        best = s[lo:hi + 1]
                    lo -= 1
                    hi += 1
            return best
    ''', 1.0),
    # a Z-array: the box is extended by matching characters
    "z_array": ('''
        def z_array(s):
            z = [0] * len(s)
            for i in range(1, len(s)):
                while i + z[i] < len(s) and s[z[i]] == s[i + z[i]]:
                    z[i] += 1
            return z
    ''', 1.0),
    # a copy made every turn, not only for a new best, stays quadratic
    "copy_every_turn": ('''
        def prefixes(s):
            out = []
            for i in range(len(s)):
                out.append(s[:i])
            return out
    ''', 2.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_time_growth_of_textbook_loops(name):
    code, growth = CASES[name]
    s = read(textwrap.dedent(code), code.split("def ")[-1].split("(")[0])
    assert s is not None
    assert s.growth("latency") == pytest.approx(growth), s.text("latency")
