"""The loop-and-call form: what a language's front end makes of a function, and all the analyzer reads.

    Fn(name, params, body)      body: a tuple of steps, in source order
      Loop(trip, body)          `trip` times its body (a for, a while, a comprehension)
      Work(time, memory)        one operation's own cost (a sort, a slice, `x in list`), and what it
                                allocates for a while (freed again: not multiplied by enclosing loops)
      Store(size)               what stays allocated (appends, `d[k] = v`), in all: the front end has
                                multiplied it by the loops it ran in since its container was made
      Store(size, kept=True)    what outlives the call (printed text, appends to a container the caller
                                holds): its size each time the line runs; the analyzer multiplies it
                                by every loop around it and by the calls of a recursion
      Call(callee, args)        a call of a function of the same file, with each of its parameters' sizes;
                                a call of the function itself says how its arguments shrink

Sizes are `Cost`s over the size symbols (`algebra`). A front end resolves what it can (which
parameters scale, the trip count of each loop, a library call's cost); what it cannot it marks
`known=False`, which lowers the summary's confidence and never counts as free.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlm_lsp.cost.algebra import Cost

# How a call of a function by itself shrinks its input: by a constant (n - 1, i + 1, xs[1:],
# node.next), by half (n // 2, mid, xs[:mid]), to a subtree (node.left), or not at all as far as
# the front end can tell ("").
SHRINKS = ("const", "half", "tree", "")


@dataclass(frozen=True)
class Work:
    time: Cost
    memory: Cost
    line: int
    what: str
    known: bool = True


@dataclass(frozen=True)
class Store:
    size: Cost
    line: int
    what: str
    kept: bool = False  # outlives the call (stdout, self's state, the caller's container): see above


@dataclass(frozen=True)
class Loop:
    trip: Cost
    body: tuple
    line: int
    what: str
    known: bool = True


@dataclass(frozen=True)
class Call:
    callee: str
    args: dict = field(hash=False)  # callee's size symbol -> the caller's size for it
    line: int
    shrink: str = ""
    depth: Cost = field(default_factory=Cost.zero, hash=False)  # a self-call: how deep it goes (const shrink)
    alternative: bool = False  # a self-call that is one of several alternatives (each `return f(...)`)
    # "" the whole call; "time": its time and peak only; "kept": what it keeps only. A search from every
    # cell whose marks the loop shares comes as both: "kept" in the loop, "time" once after it
    part: str = ""


@dataclass(frozen=True)
class Fn:
    name: str
    params: tuple[str, ...]
    body: tuple
    line: int = 0
    # Memoised (functools.cache, a memo dict checked first): the number of distinct states it can be
    # called with; None where it is not memoised.
    states: Cost | None = None
    # Size symbol -> what it stands for ("len(text)", "the value of n"); only the entry's are shown.
    symbols: tuple[tuple[str, str], ...] = ()
    scaled: frozenset = frozenset()  # the symbols that grow with the input (a pattern or a k does not)
    frame: Cost = field(default_factory=Cost.one)  # what one call keeps alive while its callees run
