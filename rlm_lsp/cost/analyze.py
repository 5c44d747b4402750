"""One pass over the loop-and-call form: a function's time and memory as costs over its sized inputs.

    time    = the sum of its steps: a loop's trip count times its body, a work's own cost, a callee's
              summary with its parameters replaced by the caller's sizes (each callee analysed once)
    memory  = what stays stored (appends, entries: all of them) + the temporary allocations
    a call of the function by itself (recursion), from how it shrinks its input and how often it calls:
              memoised         -> states × the work of one call
              to a subtree     -> nodes × the work of one call
              by half, a calls -> the master theorem (one call: the top call's work; two: n log n
                                  with a linear merge, n with constant work)
              by a constant    -> depth × the work of one call (one call), 2ⁿ (two calls or more)
    what outlives a call (`Store(kept=True)`: printed text, appends to the caller's containers) adds up
              over every loop around it and every call of a recursion (as time does), and a callee's
              over the loops around its call

The result is a `Summary`, what every surface reads: the cost per metric, its exponent when every
sized input grows with n together, the lines carrying the leading term, and what it could not read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.cost.form import Call, Fn, Loop, Store, Work

LETTERS = "nmkpqrs"
RECURSIONS = ("memoised", "halving", "over a tree", "down a tree", "one call, one step smaller", "several calls, each one step smaller")
FEATURE_NAMES = ("cost_time", "cost_memory", "cost_time_all", "cost_memory_all", "cost_time_logs", "cost_memory_logs",
                 "cost_time_exp", "cost_time_top_power", "cost_memory_top_power", "cost_sizes", "cost_unknown",
                 *(f"cost_rec_{i}" for i in range(len(RECURSIONS))))
METRICS = ("latency", "memory")


@dataclass(frozen=True)
class Summary:
    time: Cost
    memory: Cost
    symbols: tuple[tuple[str, str], ...] = ()  # (size symbol, what it stands for), the entry's parameters
    scaled: frozenset = frozenset()
    unknown: tuple[str, ...] = ()  # what could not be read (an unknown call, a loop bound), with its line
    recursion: str = ""  # how the entry recurses, in words ("" for none)
    nest: int = 0  # the entry's deepest loop nest as written (for, while, comprehensions), as read
    kept: Cost = field(default_factory=Cost.zero)  # the part of `memory` that outlives the call

    def cost(self, metric: str) -> Cost:
        return self.time if metric == "latency" else self.memory

    def growth(self, metric: str) -> float:
        """The exponent of n when every sized input grows with n together (`n·m` is 2)."""
        return self.cost(metric).degree(self.scaled)

    def letters(self) -> dict[str, str]:
        """Size symbol -> its letter (n, m, k, ...), the most costly first."""
        weight = {s: 0.0 for s, _ in self.symbols if s in self.scaled}
        for c in (self.time, self.memory):
            for t in c.terms:
                for s, p in t.powers:
                    if s in weight:
                        weight[s] = max(weight[s], p)
        order = sorted(weight, key=lambda s: -weight[s])
        # a parameter named by a letter keeps it (`n` stays n); the others take the free letters in order
        out = {s: s.rsplit(".", 1)[-1] for s in order if s.rsplit(".", 1)[-1] in LETTERS}
        if len(set(out.values())) < len(out):
            out = {}
        free = [x for x in LETTERS if x not in out.values()]
        for s in order:
            if s not in out:
                out[s] = free.pop(0) if free else s
        return out

    def text(self, metric: str) -> str:
        """`n·m`, `n log n`, `1`: the leading term(s) over the scaled sizes."""
        return self.cost(metric).text(self.letters(), self.scaled)

    def legend(self) -> list[tuple[str, str]]:
        """(letter, what it stands for) of each size the costs name."""
        meaning = dict(self.symbols)
        used = self.time.symbols() | self.memory.symbols()
        return [(letter, meaning.get(s, s)) for s, letter in self.letters().items() if s in used]

    def lines(self, metric: str) -> tuple[int, ...]:
        lead = self.cost(metric).lead(self.scaled)
        return () if lead is None else lead.lines

    @property
    def sure(self) -> bool:
        return not self.unknown

    def features(self) -> list[float]:
        """What learned growth reads of the summary (`FEATURE_NAMES`)."""
        out = [self.growth("latency"), self.growth("memory"), self.time.degree(), self.memory.degree()]
        leads = [c.lead(self.scaled) for c in (self.time, self.memory)]
        out += [float(min(t.logs, 2)) if t else 0.0 for t in leads]
        out.append(float(bool(leads[0] and leads[0].exp)))
        out += [max((p for _, p in t.powers), default=0.0) if t else 0.0 for t in leads]
        out += [float(len(self.scaled)), float(len(self.unknown))]
        out += [float(self.recursion == r) for r in RECURSIONS]
        return out


@dataclass
class _Acc:
    time: Cost = field(default_factory=Cost.zero)
    store: Cost = field(default_factory=Cost.zero)
    peak: Cost = field(default_factory=Cost.zero)
    kept: Cost = field(default_factory=Cost.zero)  # outlives the call: per run of the block
    self_calls: list = field(default_factory=list)  # (how many times, Call)


class _Analyzer:
    def __init__(self, fns: dict[str, Fn]):
        self.fns = fns
        self.done: dict[str, Summary] = {}
        self.busy: set[str] = set()
        self.unknown: list[str] = []

    def summary(self, name: str) -> Summary:
        if name in self.done:
            return self.done[name]
        fn = self.fns[name]
        self.busy.add(name)
        try:
            acc = self.block(fn, fn.body)
        finally:
            self.busy.discard(name)
        time, memory, how, kept = _recursion(fn, acc, self.unknown)
        s = Summary(time, memory.plus(kept), fn.symbols, fn.scaled, (), how, kept=kept)
        self.done[name] = s
        return s

    def block(self, fn: Fn, steps) -> _Acc:
        acc = _Acc()
        for s in steps:
            if isinstance(s, Work):
                acc.time = acc.time.plus(s.time.at(s.line))
                acc.peak = acc.peak.plus(s.memory.at(s.line))
                if not s.known:
                    self.unknown.append(f"{s.what} (line {s.line})")
            elif isinstance(s, Store) and s.kept:
                acc.kept = acc.kept.plus(s.size.at(s.line))
            elif isinstance(s, Store):
                acc.store = acc.store.plus(s.size.at(s.line))
            elif isinstance(s, Loop):
                inner = self.block(fn, s.body)
                trip = s.trip.at(s.line)
                acc.time = acc.time.plus(trip.times(Cost.one().plus(inner.time)))
                acc.store = acc.store.plus(inner.store)  # a Store's size already counts its loops
                acc.peak = acc.peak.plus(inner.peak)
                acc.kept = acc.kept.plus(trip.times(inner.kept))
                acc.self_calls += [(trip.times(m), c) for m, c in inner.self_calls]
                if not s.known:
                    self.unknown.append(f"{s.what} (line {s.line})")
            elif isinstance(s, Call):
                if s.callee == fn.name:
                    acc.self_calls.append((Cost.one(), s))
                    acc.time = acc.time.plus(Cost.one(s.line))
                elif s.callee in self.fns and s.callee not in self.busy:
                    sub = self.summary(s.callee)
                    if s.part != "kept":
                        acc.time = acc.time.plus(sub.time.substitute(s.args).at(s.line))
                        acc.peak = acc.peak.plus(sub.memory.substitute(s.args).at(s.line))
                    if s.part != "time":
                        acc.kept = acc.kept.plus(sub.kept.substitute(s.args).at(s.line))
                else:
                    self.unknown.append(f"call of {s.callee} (line {s.line})")
                    acc.time = acc.time.plus(Cost.one(s.line))
        return acc


def _recursion(fn: Fn, acc: _Acc, unknown: list[str]) -> tuple[Cost, Cost, str, Cost]:
    """(time, memory less what outlives the call, how it recurses, what outlives the call)."""
    work = Cost.one(fn.line).plus(acc.time)
    mem = fn.frame.plus(acc.store).plus(acc.peak)
    if not acc.self_calls:
        return work, acc.store.plus(acc.peak), "", acc.kept
    calls = [c for _, c in acc.self_calls]
    sites = len([c for c in calls if not c.alternative]) + any(c.alternative for c in calls)
    sized = any(not m.is_constant() for m, _ in acc.self_calls)
    shrinks = {c.shrink for c in calls}
    depth = Cost.zero()
    for c in calls:
        depth = depth.plus(c.depth)
    if depth.is_constant():
        depth = Cost.one()
    line = calls[0].line
    if fn.states is not None:
        return fn.states.at(line).times(work), fn.states.at(line).plus(mem), "memoised", \
            fn.states.at(line).times(acc.kept)
    if "half" in shrinks and not sized:
        top = depth.at(line)

        def halving(per_call: Cost) -> Cost:
            d = per_call.degree(fn.scaled)
            if sites == 1:
                return per_call if d > 0 else top.log(line)
            if d < 0.9:
                return top
            return per_call.times(top.log(line)) if d < 1.1 else per_call
        return halving(work), mem.plus(top.log(line)), "halving", halving(acc.kept) if acc.kept.terms else acc.kept
    if "tree" in shrinks and sites == 1 and not sized:  # one way down (a search tree): a path
        return depth.log(line).times(work), mem.times(depth.log(line)), "down a tree", depth.log(line).times(acc.kept)
    if "tree" in shrinks:
        return depth.at(line).times(work), mem.times(depth.log(line)), "over a tree", depth.at(line).times(acc.kept)
    if "" in shrinks:
        unknown.append(f"recursion (line {line}): how it shrinks")
    if sites == 1 and not sized:
        return depth.at(line).times(work), depth.at(line).times(mem), "one call, one step smaller", \
            depth.at(line).times(acc.kept)
    # what outlives the calls is read as for one chain of them: the analyzer's 2ⁿ is often a
    # search that prunes (a maze, a backtracking that stops at the first answer)
    return depth.exponential(line).times(work), depth.at(line).times(mem), "several calls, each one step smaller", \
        depth.at(line).times(acc.kept)


def analyze(fns: dict[str, Fn], entry: str) -> Summary:
    """The entry's summary, the other functions of `fns` read as its callees."""
    a = _Analyzer(fns)
    s = a.summary(entry)
    return Summary(s.time, s.memory, s.symbols, s.scaled, tuple(dict.fromkeys(a.unknown)), s.recursion, kept=s.kept)
