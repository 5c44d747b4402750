"""Inputs of size n, by kind: what `rlm measure` hands a function at each rung of its ladder.

Standard library only: this module also runs inside the sandbox (`child.py` loads it by path
under ``python -S``), where nothing of rlm_lsp or its dependencies is importable.

A recipe is one entry per argument, ``{"kind": ..., ...}``; ``build(recipe, n, ns)`` gives the
tuple of arguments.  What n is, per kind (as ``rlm_lsp.python.param_kinds`` reads it):

    ints, floats, strs, sorted_ints, set   n elements           (ints in [0, n], words of 3-8 letters)
    permutation                            0..n-1 shuffled (1..n where ``base`` is 1), for a list whose
                                           elements index itself or a table of its length
    string, digits                         n characters
    int                                    the value n
    budget                                 the value n²/4: what about half the n ints (mean n/2) add up to,
                                           for an integer the elements use up (`coins -= cost`)
    bits                                   an integer of n bits
    dict                                   n keys 0..n-1, int values
    grid, grid_chars                       n cells, √n by √n    (cells 0/1, or "0"/"1")
    rows                                   n rows of ``width`` ints in [0, n), each sorted (pairs,
                                           intervals, edges u, v, w: what `for a, b in xs` unpacks);
                                           in [0, ``bound``) where the rows index a table held that size
    graph_dict, graph_list                 n nodes, 4n random distinct undirected edges, adjacency lists
    linked, tree                           n nodes of the file's own class (``cls`` in ``ns``): a chain
                                           through ``next``, a balanced search tree through ``left``/``right``;
                                           LeetCode's ``ListNode``/``TreeNode`` (below) where the file
                                           uses them without defining them; else ``PlainNode``
    const                                  ``value``, the same at every n (a key, a flag, a small count)

Every maker is deterministic (fixed seeds), so two runs, and the two versions a gate compares,
see the same inputs.
"""

from __future__ import annotations

import math
import random

KINDS = ("ints", "permutation", "floats", "strs", "sorted_ints", "set", "string", "digits", "int", "budget", "bits", "dict", "grid",
         "grid_chars", "rows", "graph_dict", "graph_list", "linked", "tree", "const")
FLAT = ("ints", "permutation", "floats", "strs", "sorted_ints", "set", "dict")  # containers of immutable values: a shallow copy is fresh
NESTED = ("grid", "grid_chars", "rows", "graph_list", "graph_dict")  # one level of containers of immutable values
WORD_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def build(recipe: list, n: int, ns: dict | None = None) -> tuple:
    """The arguments for size ``n``: one per recipe entry (``ns``: the measured file's namespace,
    where ``linked`` and ``tree`` find their node class)."""
    return tuple(make(entry, n, ns or {}, seed=i + 1) for i, entry in enumerate(recipe))


def copies(recipe: list):
    """A function that gives a fresh copy of arguments built from `recipe`, or None where only
    `copy.deepcopy` (or building again) will do.  Shallow copies cost a fraction of a deepcopy,
    which matters when a cheap call is repeated thousands of times a sample."""
    kinds = [e["kind"] for e in recipe]
    if any(k not in FLAT + NESTED + ("const", "int", "budget", "bits", "string", "digits") for k in kinds):
        return None

    def fresh(args: tuple) -> tuple:
        return tuple(_copy(k, a) for k, a in zip(kinds, args))
    return fresh


def _copy(kind: str, value):
    if kind in FLAT:
        return value.copy()
    if kind == "graph_dict":
        return {k: v[:] for k, v in value.items()}
    if kind in NESTED:
        return [row[:] for row in value]
    return value  # immutable


def make(entry: dict, n: int, ns: dict, seed: int = 1):
    kind = entry["kind"]
    r = random.Random(seed)
    if kind == "const":
        return entry["value"]
    if kind == "int":
        return n
    if kind == "budget":
        return n * n // 4
    if kind == "bits":
        return r.getrandbits(n) | (1 << (n - 1))
    if kind in ("ints", "sorted_ints", "set"):
        xs = [r.randint(0, n) for _ in range(n)]
        return sorted(xs) if kind == "sorted_ints" else set(xs) if kind == "set" else xs
    if kind == "permutation":
        xs = list(range(entry.get("base", 0), n + entry.get("base", 0)))
        r.shuffle(xs)
        return xs
    if kind == "floats":
        return [r.random() * n for _ in range(n)]
    if kind == "strs":
        return [_word(r) for _ in range(n)]
    if kind == "string":
        return "".join(r.choice(WORD_LETTERS) for _ in range(n))
    if kind == "digits":
        return "".join(r.choice("0123456789") for _ in range(n)).lstrip("0") or "0"
    if kind == "dict":
        return {i: r.randint(0, n) for i in range(n)}
    if kind in ("grid", "grid_chars"):
        side = max(1, math.isqrt(n))
        cells = ("0", "1") if kind == "grid_chars" else (0, 1)
        return [[r.choice(cells) for _ in range(side)] for _ in range(side)]
    if kind == "rows":
        bound = entry.get("bound") or n
        return [sorted(r.randrange(bound) for _ in range(entry["width"])) for _ in range(n)]
    if kind in ("graph_dict", "graph_list"):
        adjacent = _graph(n, r)
        return adjacent if kind == "graph_list" else dict(enumerate(adjacent))
    if kind == "linked":
        return _chain(_cls(entry, ns), n, r)
    if kind == "tree":
        return _tree(_cls(entry, ns), sorted(r.randint(0, n) for _ in range(n)))
    raise ValueError(f"unknown input kind {kind!r}")


def _word(r: random.Random) -> str:
    return "".join(r.choice(WORD_LETTERS) for _ in range(r.randint(3, 8)))


def _graph(n: int, r: random.Random) -> list:
    """Adjacency lists of n nodes joined by 4n distinct undirected edges (fewer where n is tiny)."""
    edges = min(4 * n, n * (n - 1) // 2)
    seen: set = set()
    adjacent: list = [[] for _ in range(n)]
    while len(seen) < edges:
        u, v = r.randrange(n), r.randrange(n)
        if u != v and (min(u, v), max(u, v)) not in seen:
            seen.add((min(u, v), max(u, v)))
            adjacent[u].append(v)
            adjacent[v].append(u)
    return adjacent


def _cls(entry: dict, ns: dict):
    name = entry.get("cls")
    return PlainNode if not name else ns.get(name) or STANDARD[name] if name in STANDARD else ns[name]


class ListNode:
    """LeetCode's singly linked list node, as its judge defines it for solutions that only use it."""

    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next


class TreeNode:
    """LeetCode's binary tree node, as its judge defines it."""

    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right


STANDARD = {"ListNode": ListNode, "TreeNode": TreeNode}


class PlainNode:
    """A node for code that defines none of its own (it imports a TreeNode or ListNode): `val`, and
    `left`/`right` or `next` as built; its value also answers to the usual other names."""

    ALIASES = frozenset({"data", "key", "value", "item", "elem"})

    def __getattr__(self, name):  # only for names not set on the node
        if name in PlainNode.ALIASES:
            return self.__dict__.get("val")
        raise AttributeError(name)


def _node(cls, val):
    """A node of the file's own class without calling its constructor (whose arguments are unknown)."""
    node = cls.__new__(cls)
    node.val = val
    return node


def _chain(cls, n: int, r: random.Random):
    head = None
    for _ in range(n):  # built from the tail: no recursion, any length
        node = _node(cls, r.randint(0, n))
        node.next = head
        head = node
    return head


def _tree(cls, values: list):
    """A balanced search tree of `values` (sorted), built without recursion."""
    if not values:
        return None
    root = _node(cls, None)
    todo = [(root, 0, len(values))]
    while todo:
        node, lo, hi = todo.pop()
        mid = (lo + hi) // 2
        node.val = values[mid]
        node.left = node.right = None
        if lo < mid:
            node.left = _node(cls, None)
            todo.append((node.left, lo, mid))
        if mid + 1 < hi:
            node.right = _node(cls, None)
            todo.append((node.right, mid + 1, hi))
    return root
