"""Costs as sums of monomials over the sized parameters: `n·m`, `n² log n`, `2ⁿ`.

A `Term` is one monomial: a power of each size symbol (a parameter's length, or its value for an
integer), a count of log factors, and whether it is exponential. A `Cost` keeps only the terms no
other term dominates, so `n + n²` is `n²` but `n + m` stays `n + m`. Each term remembers the source
lines that produced it (the loop headers, then the operation), so the leading term can point at
its lines.

`degree` is the exponent when every size grows with n together (`n·m` is 2); a log factor adds
`LOG` (a measured n log n curve has a slope of 1.1 to 1.3 over our ladders), an exponential term
is `EXPONENTIAL`.
"""

from __future__ import annotations

from dataclasses import dataclass

LOG = 0.25  # the slope a log factor adds over a measuring ladder
EXPONENTIAL = 4.0  # the exponent an exponential term is given (above every polynomial a ladder tells)
MAX_TERMS = 6
SUPERSCRIPT = str.maketrans("0123456789.", "⁰¹²³⁴⁵⁶⁷⁸⁹·")


@dataclass(frozen=True)
class Term:
    powers: tuple[tuple[str, float], ...] = ()  # sorted (symbol, power > 0)
    logs: int = 0
    exp: bool = False
    lines: tuple[int, ...] = ()

    def degree(self, scaled: frozenset[str] | None = None) -> float:
        if self.exp:
            return EXPONENTIAL
        return sum(p for s, p in self.powers if scaled is None or s in scaled) + LOG * min(self.logs, 2)

    def key(self) -> tuple:
        return (self.powers, min(self.logs, 2), self.exp)

    def dominates(self, o: Term) -> bool:
        """Every symbol's power and the log count at least `o`'s (an exponential beats every polynomial)."""
        if self.exp != o.exp:
            return self.exp
        mine = dict(self.powers)
        return all(mine.get(s, 0.0) >= p - 1e-9 for s, p in o.powers) and min(self.logs, 2) >= min(o.logs, 2)

    def times(self, o: Term) -> Term:
        powers: dict[str, float] = dict(self.powers)
        for s, p in o.powers:
            powers[s] = powers.get(s, 0.0) + p
        return Term(_sorted(powers), self.logs + o.logs, self.exp or o.exp, _lines(self.lines + o.lines))

    def text(self, letters: dict[str, str]) -> str:
        if self.exp:
            return "2ⁿ"
        parts = [letters.get(s, s) + (_sup(p) if p != 1 else "") for s, p in self.powers]
        if self.logs:
            parts.append("log " + (letters.get(self.powers[0][0], "n") if self.powers else "n"))
        return "·".join(parts) if parts else "1"


def _sup(p: float) -> str:
    return ("½" if p == 0.5 else str(int(p)) if p == int(p) else f"{p:g}").translate(SUPERSCRIPT)


def _sorted(powers: dict[str, float]) -> tuple[tuple[str, float], ...]:
    return tuple(sorted((s, round(p, 3)) for s, p in powers.items() if p > 1e-9))


def _lines(lines: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(dict.fromkeys(x for x in lines if x > 0))[:6]


@dataclass(frozen=True)
class Cost:
    terms: tuple[Term, ...] = ()

    # -- building ---------------------------------------------------------------------------------
    @staticmethod
    def one(line: int = 0) -> Cost:
        return Cost((Term(lines=(line,) if line else ()),))

    @staticmethod
    def zero() -> Cost:
        return Cost(())

    @staticmethod
    def sym(name: str, power: float = 1.0, line: int = 0) -> Cost:
        return Cost((Term(((name, power),), lines=(line,) if line else ()),))

    @staticmethod
    def product(costs) -> Cost:
        """The product of `costs` (the trip counts of the loops a line runs in); one where there are none."""
        out = Cost.one()
        for c in costs:
            out = out.times(c)
        return out

    def plus(self, o: Cost) -> Cost:
        return _prune(self.terms + o.terms)

    def times(self, o: Cost) -> Cost:
        if not self.terms or not o.terms:
            return Cost.zero()
        return _prune(tuple(a.times(b) for a in self.terms for b in o.terms))

    def log(self, line: int = 0) -> Cost:
        """log of this size: a log factor of its leading symbol (a constant stays constant)."""
        lead = self.lead()
        if lead is None or not lead.powers:
            return Cost.one(line)
        if lead.exp:  # log of 2ⁿ (a value of n bits) is n
            return Cost((Term(lead.powers, 0, False, _lines(lead.lines + ((line,) if line else ()))),))
        return Cost((Term((), 1, False, (line,) if line else ()),))

    def power(self, k: float) -> Cost:
        """This size to the power k (the leading term's; a sum's power is its leading term's)."""
        lead = self.lead()
        if lead is None:
            return Cost.zero()
        if lead.exp:
            return Cost((lead,))
        return Cost((Term(tuple((s, p * k) for s, p in lead.powers), int(lead.logs * k), False, lead.lines),))

    def exponential(self, line: int = 0) -> Cost:
        lead = self.lead()
        if lead is None or not lead.powers:
            return Cost.one(line)
        return Cost((Term(lead.powers, 0, True, _lines(lead.lines + ((line,) if line else ()))),))

    def at(self, line: int) -> Cost:
        """The same cost with `line` in front of every term's lines (a loop header, a call)."""
        if not line:
            return self
        return Cost(tuple(Term(t.powers, t.logs, t.exp, _lines((line,) + t.lines)) for t in self.terms))

    def substitute(self, sizes: dict[str, Cost]) -> Cost:
        """Each symbol replaced by a size (a callee's parameters by its caller's arguments)."""
        out = Cost.zero()
        for t in self.terms:
            c = Cost((Term((), t.logs, False, t.lines),))
            for s, p in t.powers:
                c = c.times(sizes[s].power(p) if s in sizes else Cost.sym(s, p))
            if t.exp:
                c = c.exponential()
            out = out.plus(c)
        return out

    # -- reading ----------------------------------------------------------------------------------
    def lead(self, scaled: frozenset[str] | None = None) -> Term | None:
        return max(self.terms, key=lambda t: (t.degree(scaled), t.degree(), -len(t.lines)), default=None)

    def degree(self, scaled: frozenset[str] | None = None) -> float:
        lead = self.lead(scaled)
        return 0.0 if lead is None else lead.degree(scaled)

    def symbols(self) -> set[str]:
        return {s for t in self.terms for s, _ in t.powers}

    def is_constant(self) -> bool:
        return all(not t.powers and not t.exp for t in self.terms)

    def is_free(self) -> bool:
        """No sized factor at all, not even a log one (a bisect or a heappush costs log n)."""
        return all(not t.powers and not t.exp and not t.logs for t in self.terms)

    def text(self, letters: dict[str, str], scaled: frozenset[str] | None = None) -> str:
        keep = [t for t in self.terms if scaled is None or t.degree(scaled) > 0 or not t.powers]
        top = max((t.degree(scaled) for t in keep), default=0.0)
        shown = [t.text(letters) for t in sorted(keep, key=lambda t: -t.degree(scaled)) if t.degree(scaled) >= top - 1e-9]
        return " + ".join(dict.fromkeys(shown)) or "1"


def _prune(terms: tuple[Term, ...]) -> Cost:
    if len(terms) <= 1:
        return Cost(terms)
    by_key: dict[tuple, Term] = {}
    for t in terms:
        by_key.setdefault(t.key(), t)
    if len(by_key) == 1:
        return Cost(tuple(by_key.values()))
    kept = [t for t in by_key.values() if not any(o is not t and o.dominates(t) for o in by_key.values())]  # keys differ
    kept.sort(key=lambda t: -t.degree())
    return Cost(tuple(kept[:MAX_TERMS]))
