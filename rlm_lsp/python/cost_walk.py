"""The cost analyzer's Python front end, its ast walks: `ast.walk` and `ast.iter_child_nodes`, each
node's children read once and kept on the node.

The front end reads one function many times over (each predicate walks it, each loop walks its
body, each argument its names); `ast.walk`'s generators re-read every node's fields each time.
Here a node's children are read once (`children`, in `ast.iter_child_nodes` order, less the
operator and context leaves no reader looks for) and a walk (`walk`, in `ast.walk` order: breadth
first) is a list built from them, kept on the node it starts from. The caches live on the tree's
nodes, so they go with the tree; a tree must not change after it is walked.
"""

from __future__ import annotations

import ast
from itertools import chain
from operator import attrgetter

AST = ast.AST
# fields that never hold a node, and the operator and context fields (`op`, `ops`, `ctx`: leaves no
# reader here looks for in a walk, a third of a tree's nodes): they are not read for children
_NOT_NODES = {"ctx", "op", "ops", "id", "arg", "attr", "name", "module", "kind", "level", "is_async", "conversion",
              "type_comment", "lineno", "col_offset", "end_lineno", "end_col_offset"}
_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}
_kids = attrgetter("_cost_kids")


def children(node: ast.AST) -> list:
    """`list(ast.iter_child_nodes(node))` less operators and contexts (`Add()`, `Load()`), read once."""
    try:
        return node._cost_kids  # type: ignore[attr-defined]
    except AttributeError:
        pass
    fields = _FIELDS.get(type(node))
    if fields is None:
        fields = _FIELDS[type(node)] = tuple(f for f in node._fields if f not in _NOT_NODES)
    out: list = []
    for f in fields:
        v = getattr(node, f, None)
        if v is None:
            continue
        if type(v) is list:
            out += [x for x in v if isinstance(x, AST)]
        elif isinstance(v, AST):
            out.append(v)
    node._cost_kids = out  # type: ignore[attr-defined]
    return out


def walk(node: ast.AST) -> list:
    """`list(ast.walk(node))` less operators and contexts; what lies below the node is walked once and
    kept on it (not the node itself: a node holding itself would be a reference cycle, and a tree
    that only the garbage collector can free)."""
    try:
        below = node._cost_below  # type: ignore[attr-defined]
    except AttributeError:
        below = node._cost_below = walk_all(children(node))  # type: ignore[attr-defined]
    return [node, *below]


def walk_all(start: list) -> list:
    """`ast.walk` from several nodes at once (a queue that starts with them): breadth first, a level at
    a time (the same order as one queue)."""
    out = list(start)
    level = out
    while level:
        try:
            level = list(chain.from_iterable(map(_kids, level)))
        except AttributeError:
            level = list(chain.from_iterable(map(children, level)))
        out += level
    return out


def nodes_of(node: ast.AST, types: tuple) -> list:
    """The nodes of `walk(node)` of these types, in its order, kept on the node per tuple of types."""
    try:
        cache = node._cost_of  # type: ignore[attr-defined]
    except AttributeError:
        cache = node._cost_of = {}  # type: ignore[attr-defined]
    out = cache.get(types)
    if out is None:
        out = [n for n in walk(node) if isinstance(n, types)]
        if not isinstance(node, types):  # kept only where the node is not in it (no cycle)
            cache[types] = out
    return out
