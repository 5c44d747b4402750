"""Session 41: per real function, several readings of the cost analyzer's time exponent (development only).

    python experiments/time7/readings.py OUT.jsonl

total   every sized input grows with n together (what ships for memory: `Summary.growth`)
single  the most costly single input grows, the others stay fixed
first   only the first sized parameter grows
The measured sets hold every input but the one n names fixed (a pattern, k, a width), except
two-list or two-string functions, where both grow: which reading fits is the question.
"""
import json
import sys

sys.path.insert(0, "/work/main/experiments/time7")
import table  # noqa: E402  (time7's table: time6's sets plus growth-fresh-3)

from rlm_lsp.runtime import readers  # noqa: E402


def readings(s, metric="latency"):
    c = s.cost(metric)
    order = [sym for sym, _ in s.symbols if sym in s.scaled]
    single = max((c.degree(frozenset({sym})) for sym in order), default=c.degree(s.scaled))
    first = c.degree(frozenset(order[:1])) if order else c.degree(s.scaled)
    return {"total": c.degree(s.scaled), "single": single, "first": first,
            "kinds": [m for sym, m in s.symbols if sym in s.scaled]}


def main(out: str) -> None:
    rd = readers.reader()
    with open(out, "w") as fh:
        for name, r in table.rows():
            s = rd.cost(r["code"], r["function"])
            row = {"set": name, "repo": r["repo"], "id": r["id"], "time": r["time_exponent"],
                   "memory": r["memory_exponent"], "nest": None if s is None else s.nest}
            if s is not None:
                row.update({"t_" + k: v for k, v in readings(s, "latency").items()})
                row.update({"m_" + k: v for k, v in readings(s, "memory").items() if k != "kinds"})
            fh.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
