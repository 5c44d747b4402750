"""The cost analyzer's time reading of loops whose steps the whole run shares, and of scans that grow
(time-v11): textbook functions and the growth the analyzer gives them
(`cost_front.read(...).growth("latency")`; the entry is the last function of each snippet)."""

from __future__ import annotations

import textwrap

import pytest

from rlm_lsp.python.cost_front import read

CASES = {
    # expand around a centre, leaving at the first mismatch of two elements of one string
    "palindromes_around_centres": ('''
        def count_palindromes(s):
            res = 0
            for i in range(len(s)):
                l, r = i, i
                while l >= 0 and r < len(s):
                    if s[l] != s[r]:
                        break
                    res += 1
                    l -= 1
                    r += 1
            return res
    ''', 1.0),
    # counter-case: a text against a pattern (brute-force search) stays n·m
    "brute_force_search": ('''
        def search(text, pattern):
            t = 0
            while t <= len(text) - len(pattern):
                p = 0
                while p < len(pattern):
                    if text[t + p] != pattern[p]:
                        break
                    p += 1
                if p == len(pattern):
                    return t
                t += 1
            return -1
    ''', 2.0),
    # a sliding window whose left end the inner while moves (not named in its test)
    "at_most_two_distinct": ('''
        def longest_two_distinct(s):
            counts = {}
            left = 0
            best = 0
            for right in range(len(s)):
                counts[s[right]] = counts.get(s[right], 0) + 1
                while len(counts) > 2:
                    counts[s[left]] -= 1
                    if counts[s[left]] == 0:
                        del counts[s[left]]
                    left += 1
                best = max(best, right - left + 1)
            return best
    ''', 1.0),
    # a search from every cell, its marks shared: each cell entered once in all
    "island_count": ('''
        def explore(grid, r, c, visited):
            if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
                return False
            if grid[r][c] == "W" or (r, c) in visited:
                return False
            visited.add((r, c))
            explore(grid, r - 1, c, visited)
            explore(grid, r + 1, c, visited)
            explore(grid, r, c - 1, visited)
            explore(grid, r, c + 1, visited)
            return True

        def island_count(grid):
            visited = set()
            count = 0
            for r in range(len(grid)):
                for c in range(len(grid[0])):
                    if explore(grid, r, c, visited):
                        count += 1
            return count
    ''', 1.0),
    # gnome sort: a step back for each inversion
    "gnome_sort": ('''
        def gnome_sort(a):
            i = 0
            while i < len(a):
                if i == 0 or a[i] >= a[i - 1]:
                    i += 1
                else:
                    a[i], a[i - 1] = a[i - 1], a[i]
                    i -= 1
            return a
    ''', 2.0),
    # counter-case: the Dutch national flag steps back in a branch, then forward every turn
    "dutch_flag": ('''
        def sort012(a):
            lo, i, hi = 0, 0, len(a) - 1
            while i <= hi:
                if a[i] == 0:
                    a[lo], a[i] = a[i], a[lo]
                    lo += 1
                elif a[i] == 2:
                    a[hi], a[i] = a[i], a[hi]
                    hi -= 1
                    i -= 1
                i += 1
            return a
    ''', 1.0),
    # shell sort: insertion by the gap, the gap halved: n·log n
    "shell_sort": ('''
        def shell_sort(arr):
            n = len(arr)
            gap = n // 2
            while gap > 0:
                for i in range(gap, n):
                    temp = arr[i]
                    j = i
                    while j >= gap and arr[j - gap] > temp:
                        arr[j] = arr[j - gap]
                        j -= gap
                    arr[j] = temp
                gap //= 2
            return arr
    ''', 1.25),
    # the gap shrunk by a factor, or set to 1 at the end
    "shell_sort_ratio_gap": ('''
        def shell(seq):
            inc = len(seq) // 2
            while inc:
                for i, element in enumerate(seq):
                    while i >= inc and seq[i - inc] > element:
                        seq[i] = seq[i - inc]
                        i -= inc
                    seq[i] = element
                inc = 1 if inc == 2 else int(inc * 5.0 / 11)
            return seq
    ''', 1.25),
    # a breadth-first search that keeps what it has seen in a list: each `in` scans it
    "bfs_visited_list": ('''
        from collections import deque

        def bfs(graph, root):
            visited = []
            queue = deque([root])
            while queue:
                node = queue.popleft()
                if node not in visited:
                    visited.append(node)
                    queue.extend(graph[node])
            return visited
    ''', 2.0),
    # counter-case: a list of letters holds an alphabet at most
    "isogram": ('''
        def is_isogram(word):
            letters = []
            for letter in word.lower():
                if letter in letters:
                    return False
                letters.append(letter)
            return True
    ''', 1.0),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_time_growth_of_shared_steps(name):
    code, growth = CASES[name]
    s = read(textwrap.dedent(code), code.split("def ")[-1].split("(")[0])
    assert s is not None
    assert s.growth("latency") == pytest.approx(growth), s.text("latency")
