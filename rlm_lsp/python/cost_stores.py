"""The cost analyzer's Python front end, what a function stores: appends, entries and `+=` on its
names, and what of it outlives the call.

    a container the function made          a `Store` of what it keeps, times the loops since it was made
    a container the caller holds           a kept `Store` (`rlm_lsp.cost.form`): its size each time the
      (a parameter it only adds to, self's    line runs; the analyzer adds it up over every loop and every
      state, a module's or an enclosing       call of a recursion (an accumulator filled by a recursive
      function's name)                        helper holds every node)

`Stores` is the walker's half that grows names (`cost_front._Walker` reads statements, `cost_exprs`
expressions); it emits steps of the loop-and-call form as it goes.
"""

from __future__ import annotations

import ast
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.form import Store
from rlm_lsp.python import cost_library as lib
from rlm_lsp.python.cost_library import ONE, UNKNOWN, Val, length
from rlm_lsp.python.cost_shapes import is_char
from rlm_lsp.python.cost_walk import nodes_of, walk

SHRINKING = {"pop", "popleft", "remove", "clear", "discard", "popitem"}


class Stores:
    # The walker's state and steps these methods use (`cost_front._Walker` defines them).
    env: dict[str, Val]
    front: Any
    node: Any
    params: list
    trips: list[Cost]

    if TYPE_CHECKING:
        def work(self, e: lib.Effect, line: int, what: str) -> None: ...
        def emit(self, step: Any) -> None: ...
        def ev(self, e: Any) -> Val: ...

    def grow(self, name: str, by: Cost, line: int, what: str) -> None:
        """`name` grows by `by` elements each time this line runs (an append): it keeps them."""
        v = self.env.get(name)
        if self.outlives(name, v):
            self.emit(Store(by, line, what + " (the caller's container)", kept=True))
            added = by
        else:
            depth = v.depth if v is not None and v.depth >= 0 else 0
            added = by.times(Cost.product(self.trips[depth:]))
            self.emit(Store(added, line, what))
        if v is not None:
            self.env[name] = replace(v, length=length(v).plus(added) if v.length is not None else added)

    def outlives(self, name: str, v: Val | None) -> bool:
        """`name` is a container the caller holds (a parameter, or a name of the module or of an
        enclosing function) that this function adds to and never takes from (an accumulator, not a backtracking path) nor adds to only while it is short
        (`if len(res) == level: res.append(x)`, one per level)."""
        if v is None or name in _shrunk(self.node) or name in _capped(self.node):
            return False
        if name not in {p.arg for p in self.params}:
            return name not in _local(self.node)  # an enclosing function's or the module's
        return v.param == name or name not in _rebound(self.node)

    def keep(self, target, by: Cost, line: int, what: str) -> None:
        """Self's state (`self.items.append(x)`, `target` the `self.items`) grows by `by` each time this
        line runs. A function that also takes from it counts too: moving items from one of self's
        stacks to another grows the other's list while the first one's keeps its room."""
        self.emit(Store(by, line, what + " (self's state)", kept=True))

    def concat(self, s, name: str, added, prepend: bool) -> None:
        """`s = s + x` (as `s += x`: grown in place) or `s = x + s` (a new copy of s each time)."""
        cur = self.env.get(name, UNKNOWN)
        v = self.ev(added)
        if cur.kind not in ("str", "list", "tuple"):
            self.ev(s.value)
            return
        self.work(lib.Effect(length(v)), s.lineno, "+")
        self.grow(name, length(v), s.lineno, "+ (it grows)")
        if prepend:
            self.work(lib.Effect(length(self.env[name])), s.lineno, "x + s (a copy of s each time)")

    def aug(self, s: ast.AugAssign) -> None:
        v = self.ev(s.value)
        if isinstance(s.target, ast.Subscript) and isinstance(s.target.value, ast.Name):
            base = self.ev(s.target.value)
            key = self.ev(s.target.slice)
            if base.kind == "dict" and not is_char(key) and key.kind != "int":
                self.grow(s.target.value.id, ONE, s.lineno, "a counter's entry")
            return
        if not isinstance(s.target, ast.Name):
            self.ev(s.target)
            return
        name = s.target.id
        cur = self.env.get(name, UNKNOWN)
        if cur.mag is not None and any(t.exp for t in cur.mag.terms):
            self.work(lib.Effect(cur.mag.log()), s.lineno, "arithmetic on a big integer")
        if cur.kind in ("str", "list") and isinstance(s.op, ast.Add):
            self.work(lib.Effect(length(v)), s.lineno, "+=")
            self.grow(name, length(v), s.lineno, "+= (it grows)")


def self_attr(e) -> bool:
    """`self.x`: a container of the object's state."""
    return isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name) and e.value.id == "self"


def _named(e) -> str:
    """`xs` -> "xs", `self.xs` -> "self.xs", anything else ""."""
    if isinstance(e, ast.Name):
        return e.id
    return "self." + e.attr if self_attr(e) else ""


def _shrunk(fn) -> set:
    """Names (`xs`, `self.xs`) a function takes from (`.pop()`, `.remove()`, `del xs[i]`): a stack or a
    path, not an accumulator."""
    out = set()
    for n in nodes_of(fn, (ast.Call, ast.Delete)):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in SHRINKING:
            out.add(_named(n.func.value))
        if isinstance(n, ast.Delete):
            out |= {_named(t.value) for t in n.targets if isinstance(t, ast.Subscript)}
    return out - {""}


def _capped(fn) -> set:
    """Names added to only under a test of their own length (`if len(res) == level: res.append(x)`)."""
    out = set()
    for n in nodes_of(fn, (ast.If,)):
        sized = {c.args[0].id for c in walk(n.test) if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and
                 c.func.id == "len" and c.args and isinstance(c.args[0], ast.Name)}
        out |= sized
    return out


def _local(fn) -> set:
    """Names a function binds itself (assigned, a loop's target, `with ... as`): not the caller's."""
    out = set()
    for n in walk(fn):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            return out - set(n.names)
    return out


def rebuilt(s):
    """(name, what is added, False) of a string rebuilt around itself, as `s += x` grows it:
    `s = f"{s} {x}"`, `s = sep.join([s, x])`; None for any other statement."""
    if not (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)):
        return None
    name, v = s.targets[0].id, s.value
    if isinstance(v, ast.JoinedStr) and any(isinstance(p, ast.FormattedValue) and isinstance(p.value, ast.Name)
                                            and p.value.id == name for p in v.values):
        return name, v, False
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "join" and \
            len(v.args) == 1 and isinstance(v.args[0], (ast.List, ast.Tuple)):
        elts = v.args[0].elts
        others = [e for e in elts if not (isinstance(e, ast.Name) and e.id == name)]
        if len(others) < len(elts) and others:
            return name, others[0], False
    return None


def _rebound(fn) -> set:
    """Names assigned anything but what a call handed the name itself gives back
    (`keys = self._keys(node.left, keys)` keeps the same accumulator)."""
    out = set()
    for n in nodes_of(fn, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target]
        for t in targets:
            if not isinstance(t, ast.Name):
                continue
            v = n.value
            passed = isinstance(n, ast.Assign) and isinstance(v, ast.Call) and \
                any(isinstance(a, ast.Name) and a.id == t.id for a in v.args)
            if not passed:
                out.add(t.id)
    return out
