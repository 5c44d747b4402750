"""Generate larger inputs for a LeetCode problem by scaling up a base test.

Recipe (deterministic given the problem's tests, constraints and ``seed``):

* base test = the largest test (by JSON size) of the problem's tests;
* per argument, by the type of its base value:
  - list of ints -> length L, values uniform in the parsed ``lo <= name[i] <= hi``
    bounds (else the examples' min..max); sorted if every example is sorted,
    a permutation if every example is one, distinct if every example is;
  - string -> length L over the examples' alphabet (a-z if the constraints
    say lowercase letters and the alphabet is a subset);
  - list of strings -> about L characters in total, word lengths as in the examples;
  - rectangular 2-D list (grid) -> about L cells, values from the examples'
    value set (<= 3 distinct values or characters) or their range;
  - list of short rows (pairs such as edges/intervals) -> L rows, columns
    drawn from each column's range, row order kept when every example row is sorted;
    node ids scaled when an int argument bounds them (``n``);
  - tree / linked-list args -> L node values (complete tree);
  - an int equal to the length of a scaled list/string -> the new length;
    ints when the test has only scalars -> L (capped by its bound);
  - anything else -> kept as in the base test.
* lengths are capped by parsed ``.length`` / ``m, n`` bounds.
The ladder of sizes is probed with the reference solution (see
``training.measuring.build_dataset``).
"""
from __future__ import annotations

import json
import math
import random
import re
import string

LADDER = [100, 1000, 10_000, 100_000, 1_000_000]
DEFAULT_CAP = 10_000
VAL_CAP = 10**9


def _num(s: str):
    s = s.strip().replace("^", "**").replace("×", "*").replace(",", "")
    s = re.sub(r"\s+", "", s)
    if not re.fullmatch(r"[-+*0-9()]+", s) or len(s) > 30:
        return None
    try:
        v = eval(s, {"__builtins__": {}})  # digits and + - * ** only
    except Exception:
        return None
    return int(v) if isinstance(v, int) else None


def parse_constraints(text: str) -> dict:
    """Return {"len": {name: (lo, hi)}, "val": {...}, "inner": {...}, "scalar": {...}, "lower": set()}."""
    out = {"len": {}, "val": {}, "inner": {}, "scalar": {}, "lower": set(), "nodes": None, "nodeval": None}
    for raw in (text or "").split("\n"):
        line = raw.strip().lstrip("-").strip().rstrip(".")
        line = line.replace("&lt;", "<").replace("&gt;", ">").replace("≤", "<=")
        m = re.search(r"number of nodes.*?range\s*\[([^,\]]+),\s*([^\]]+)\]", line, re.I)
        if m:
            out["nodes"] = (_num(m.group(1)), _num(m.group(2)))
            continue
        if "lowercase" in line.lower():
            for name in re.findall(r"([A-Za-z_]\w*)(?:\[i\])?\s+(?:consists|contains|is)", line):
                out["lower"].add(name)
            if "consist" in line.lower():
                for name in re.findall(r"([A-Za-z_]\w*)", line.split("consist")[0]):
                    out["lower"].add(name)
        parts = re.split(r"\s*<=?\s*", line)
        if len(parts) == 3:
            lo, mid, hi = _num(parts[0]), parts[1], _num(parts[2])
        elif len(parts) == 2:
            a, b = _num(parts[0]), _num(parts[1])
            if a is not None:
                lo, mid, hi = a, parts[1], None
            elif b is not None:
                lo, mid, hi = None, parts[0], b
            else:
                continue
        else:
            continue
        for name in [n.strip() for n in mid.split(",")]:
            if re.fullmatch(r"Node\.val", name):
                out["nodeval"] = (lo, hi)
            elif m2 := re.fullmatch(r"(\w+)\.length", name):
                out["len"][m2.group(1)] = (lo, hi)
            elif m2 := re.fullmatch(r"(\w+)\[i\]\.length", name):
                out["inner"][m2.group(1)] = (lo, hi)
            elif m2 := re.fullmatch(r"(\w+)\[i\](?:\[j\])?(?:\[\d\])?", name):
                out["val"][m2.group(1)] = (lo, hi)
            elif re.fullmatch(r"\w+", name):
                out["scalar"][name] = (lo, hi)
    # "n == nums.length" / "m == grid.length": symbolic dims
    for raw in (text or "").split("\n"):
        for a, b in re.findall(r"(\w+)\s*==\s*(\w+)\.length", raw):
            if a in out["scalar"] and b not in out["len"]:
                out["len"][b] = out["scalar"][a]
        for a, b in re.findall(r"(\w+)\s*==\s*(\w+)\[i\]\.length", raw):
            if a in out["scalar"] and b not in out["inner"]:
                out["inner"][b] = out["scalar"][a]
    return out


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def _kind(v, wrap):
    if wrap:
        return "nodes" if isinstance(v, list) and all(x is None or _is_int(x) for x in v) else None
    if _is_int(v):
        return "int"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list) and v:
        if all(_is_int(x) for x in v):
            return "ints"
        if all(isinstance(x, str) for x in v):
            return "strs"
        if all(isinstance(x, list) for x in v):
            lens = {len(x) for x in v}
            flat = [y for x in v for y in x]
            if not flat or not all(_is_int(y) or (isinstance(y, str) and len(y) == 1) for y in flat):
                return None
            if len(lens) == 1 and next(iter(lens)) <= 3 and len(v) != next(iter(lens)) and all(_is_int(y) for y in flat):
                return "pairs"
            if len(lens) == 1:
                return "grid"
    return None


class Scaler:
    """Scales the base test of one problem; ``make(L, seed)`` -> list of arg specs or None."""

    def __init__(self, tests: list, names: list, constraints: str, version: int = 2):
        """``version`` 1 = gen-v1 rules; 2 adds the pairs/fixed-vector/fixed-width rules below."""
        self.ok = False
        self.version = version
        if not tests:
            return
        base_i = max(range(len(tests)), key=lambda i: len(json.dumps(tests[i]["args"])))
        self.base_index = base_i
        self.base = tests[base_i]["args"]
        if any("json" not in a for a in self.base):
            return
        self.names = list(names) + ["_a%d" % i for i in range(len(names), len(self.base))]
        self.c = parse_constraints(constraints)
        self.kinds = [_kind(a["json"], a.get("wrap")) for a in self.base]
        # per-arg statistics over all tests
        self.stats = []
        for i, k in enumerate(self.kinds):
            vals = []
            for t in tests:
                if i < len(t["args"]) and "json" in t["args"][i]:
                    vals.append(t["args"][i]["json"])
            self.stats.append(vals)
        # a "grid" whose rows have the same short width (<= 3 ints) in every test is a list of
        # pairs/triples (edges, intervals), even when it happens to be square in the base test
        for i, k in enumerate(self.kinds if version >= 2 else []):
            if k == "grid":
                rows = [r for s in self.stats[i] if isinstance(s, list) for r in s]
                widths = {len(r) for r in rows if isinstance(r, list)}
                if len(widths) == 1 and next(iter(widths)) <= 3 and \
                        all(_is_int(y) for r in rows for y in r) and len(self.stats[i]) > 1:
                    self.kinds[i] = "pairs"
            if k in ("ints", "grid"):
                # fixed-size vectors (points, [r, c] positions, a 2x2 board): every test has the
                # same short length -> not a size parameter; keep as is
                lens = {len(s) for s in self.stats[i] if isinstance(s, list)}
                if len(lens) == 1 and next(iter(lens)) <= 4 and len(self.stats[i]) > 1 and k == "ints":
                    self.kinds[i] = "fixed"
        self.grid_width = {}
        for i, k in enumerate(self.kinds if version >= 2 else []):
            if k == "grid":
                widths = {len(r) for s in self.stats[i] if isinstance(s, list) for r in s if isinstance(r, list)}
                if len(widths) == 1 and next(iter(widths)) <= 3 and len(self.stats[i]) > 1:
                    self.grid_width[i] = next(iter(widths))  # rows of fixed width: scale rows only
        scalable = [k for k in self.kinds if k in ("ints", "str", "strs", "grid", "pairs", "nodes")]
        self.only_scalars = not scalable and any(k == "int" for k in self.kinds)
        self.ok = bool(scalable) or self.only_scalars
        # ints tied to a length
        self.tied = {}
        for i, k in enumerate(self.kinds):
            if k != "int":
                continue
            v = self.base[i]["json"]
            for j, k2 in enumerate(self.kinds):
                if k2 in ("ints", "str", "strs", "grid", "pairs", "nodes") and v > 1 and len(self.base[j]["json"]) == v:
                    self.tied[i] = j
                    break
        # node-count ints for pairs
        self.node_count = {}
        for j, k in enumerate(self.kinds):
            if k == "pairs":
                flat = [y for x in self.base[j]["json"] for y in x]
                for i, k2 in enumerate(self.kinds):
                    if k2 == "int" and i not in self.tied and flat and self.base[i]["json"] >= max(flat) \
                            and self.base[i]["json"] <= max(flat) + 1 and min(flat) >= 0:
                        self.node_count[j] = i
                        break

    # ------------------------------------------------------------------ helpers
    def cap(self) -> int:
        caps = []
        for i, k in enumerate(self.kinds):
            n = self.names[i]
            if k in ("ints", "str", "strs", "pairs", "nodes"):
                hi = (self.c["nodes"] or (None, None))[1] if k == "nodes" else self.c["len"].get(n, (None, None))[1]
                caps.append(hi if hi else DEFAULT_CAP)
            elif k == "grid":
                r = self.c["len"].get(n, (None, None))[1]
                c = self.c["inner"].get(n, (None, None))[1]
                caps.append((r or 100) * (c or 100))
            elif k == "int" and self.only_scalars:
                hi = self.c["scalar"].get(n, (None, None))[1]
                caps.append(hi if hi else DEFAULT_CAP)
        return max(2, min(caps)) if caps else DEFAULT_CAP

    def ladder(self) -> list:
        cap = self.cap()
        rungs = [x for x in LADDER if x < cap]
        if self.only_scalars:
            rungs = [10**e for e in range(2, 10) if 10**e < cap]
        if cap <= (10**9 if self.only_scalars else LADDER[-1]):
            rungs.append(cap)
        return sorted(set(rungs))

    def _vrange(self, i, flat_vals, bound_key="val"):
        n = self.names[i]
        lo, hi = self.c[bound_key].get(n, (None, None)) if bound_key else (None, None)
        if flat_vals:
            elo, ehi = min(flat_vals), max(flat_vals)
        else:
            elo, ehi = 0, 100
        lo = elo if lo is None else lo
        hi = ehi if hi is None else hi
        if lo > hi:
            lo, hi = hi, lo
        lo, hi = max(lo, -VAL_CAP), min(hi, VAL_CAP)
        if elo >= 0:
            lo = max(lo, 0)
        return lo, hi

    def _alphabet(self, i, strings):
        chars = sorted(set("".join(strings)))
        n = self.names[i]
        if n in self.c["lower"] and set(chars) <= set(string.ascii_lowercase):
            chars = list(string.ascii_lowercase)
        return chars or list(string.ascii_lowercase)

    # ------------------------------------------------------------------ generation
    def make(self, L: int, seed: int):
        if not self.ok:
            return None
        rnd = random.Random(seed * 1_000_003 + L)
        out = [None] * len(self.base)
        new_len = {}
        for i, k in enumerate(self.kinds):
            base = self.base[i]
            v = base["json"]
            n = self.names[i]
            if k == "ints":
                m = self._len(i, L)
                flat = [x for s in self.stats[i] if isinstance(s, list) for x in s if _is_int(x)]
                lo, hi = self._vrange(i, flat)
                lists = [s for s in self.stats[i] if isinstance(s, list) and len(s) >= 2]
                perm0 = lists and all(sorted(s) == list(range(len(s))) for s in lists)
                perm1 = lists and all(sorted(s) == list(range(1, len(s) + 1)) for s in lists)
                if perm0 or perm1:
                    arr = list(range(m)) if perm0 else list(range(1, m + 1))
                    rnd.shuffle(arr)
                elif lists and all(len(set(s)) == len(s) for s in lists) and hi - lo + 1 >= m:
                    arr = rnd.sample(range(lo, hi + 1), m)
                else:
                    arr = [rnd.randint(lo, hi) for _ in range(m)]
                if lists and all(s == sorted(s) for s in lists) and not (perm0 or perm1):
                    arr.sort()
                out[i] = {"json": arr}
                new_len[i] = m
            elif k == "nodes":
                m = self._len(i, L, nodes=True)
                flat = [x for s in self.stats[i] if isinstance(s, list) for x in s if _is_int(x)]
                lo, hi = self.c["nodeval"] or (None, None)
                elo, ehi = (min(flat), max(flat)) if flat else (0, 100)
                lo, hi = (elo if lo is None else lo), (ehi if hi is None else hi)
                arr = [rnd.randint(max(lo, -VAL_CAP), min(hi, VAL_CAP)) for _ in range(m)]
                lists = [s for s in self.stats[i] if isinstance(s, list) and len(s) >= 2]
                if base.get("wrap") == "list_node" and lists and all(s == sorted(s) for s in lists):
                    arr.sort()
                out[i] = {"json": arr, "wrap": base["wrap"]}
                new_len[i] = m
            elif k == "str":
                m = self._len(i, L)
                alpha = self._alphabet(i, [s for s in self.stats[i] if isinstance(s, str)])
                out[i] = {"json": "".join(rnd.choice(alpha) for _ in range(m))}
                new_len[i] = m
            elif k == "strs":
                words = [w for s in self.stats[i] if isinstance(s, list) for w in s if isinstance(w, str)]
                wl = [len(w) for w in words] or [3]
                lo_w, hi_w = max(1, min(wl)), max(1, max(wl))
                ih = self.c["inner"].get(n, (None, None))[1]
                if ih:
                    hi_w = min(max(hi_w, min(ih, 10)), ih)
                avg = (lo_w + hi_w) / 2
                cnt = self._len(i, max(2, int(L / avg)))
                alpha = self._alphabet(i, words)
                out[i] = {"json": ["".join(rnd.choice(alpha) for _ in range(rnd.randint(lo_w, hi_w)))
                                   for _ in range(cnt)]}
                new_len[i] = cnt
            elif k == "grid":
                rows, cols = len(v), len(v[0])
                rhi = self.c["len"].get(n, (None, None))[1] or 10**9
                chi = self.c["inner"].get(n, (None, None))[1] or 10**9
                if i in self.grid_width:
                    C = self.grid_width[i]
                    R = max(rows, min(rhi, L))
                else:
                    f = math.sqrt(max(1.0, L / max(1, rows * cols)))
                    R = max(rows, min(rhi, int(rows * f)))
                    C = max(cols, min(chi, int(cols * f)))
                flat = [y for s in self.stats[i] if isinstance(s, list) for x in s if isinstance(x, list) for y in x]
                distinct = sorted(set(flat), key=repr)
                if len(distinct) <= 3 or all(isinstance(y, str) for y in flat):
                    choose = lambda: rnd.choice(distinct)  # noqa: E731
                else:
                    lo, hi = self._vrange(i, [y for y in flat if _is_int(y)])
                    choose = lambda: rnd.randint(lo, hi)  # noqa: E731
                out[i] = {"json": [[choose() for _ in range(C)] for _ in range(R)]}
                new_len[i] = R
            elif k == "pairs":
                m = self._len(i, L)
                width = len(v[0])
                rows_all = [r for s in self.stats[i] if isinstance(s, list) for r in s if isinstance(r, list) and len(r) == width]
                sorted_rows = rows_all and all(r == sorted(r) for r in rows_all)
                cols = []
                ni = self.node_count.get(i)
                for c in range(width):
                    colv = [r[c] for r in rows_all if _is_int(r[c])]
                    if ni is not None:
                        base_id = min(y for r in v for y in r)
                        cols.append((base_id, base_id + m - 1))
                    else:
                        lo, hi = self._vrange(i, colv)
                        cols.append((lo, hi))
                rows_new = []
                for _ in range(m):
                    r = [rnd.randint(lo, hi) for lo, hi in cols]
                    if sorted_rows:
                        r.sort()
                    rows_new.append(r)
                out[i] = {"json": rows_new}
                new_len[i] = m
                if ni is not None:
                    out[ni] = {"json": m}  # node ids are base_id .. base_id + m - 1
        for i, k in enumerate(self.kinds):
            if out[i] is not None:
                continue
            if k == "int" and i in self.tied and self.tied[i] in new_len:
                out[i] = {"json": new_len[self.tied[i]]}
            elif k == "int" and self.only_scalars:
                hi = self.c["scalar"].get(self.names[i], (None, None))[1]
                out[i] = {"json": min(L, hi) if hi else L}
            else:
                out[i] = dict(self.base[i])
        return out

    def _len(self, i, L, nodes=False):
        n = self.names[i]
        lo, hi = (self.c["nodes"] or (None, None)) if nodes else self.c["len"].get(n, (None, None))
        m = L
        if hi:
            m = min(m, hi)
        if lo:
            m = max(m, lo)
        return max(1, m)
