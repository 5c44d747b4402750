"""Controlled variants with their parents on the same inputs (issue 24, item 3), as measuring tasks.

``tasks(corpus, per_kind, kattis_inputs)`` takes programs from every source (LeetCode on its ladder's
``1/4`` rung, Kattis on up to ``kattis_inputs`` of the package's inputs spread over sizes, Project
Euler and Rosetta Code as scripts), round-robin over the sources in their hashed orders, and asks
``training.measuring.mutations.mutate(code, kind, seed=0)`` for each kind until every kind has ``per_kind``
candidates (or the programs run out).  Candidates are then interleaved by kind (the i-th candidate
of every kind before the (i+1)-th of any), so a partial run has about as many pairs of each kind.
Each candidate gives the parent's tasks (once per parent: several kinds share them) followed by the
variant's tasks on the same inputs.

Most (program, kind) attempts give no variant, and trying them all took about 16 minutes at each
start. With ``scan_cache`` (``measure_v2`` keeps it in its work folder), the attempts that gave
none are remembered by hashes only (no code): ``{"mutations": <sha1 of training/measuring/mutations.py>,
"none": [<sha1(code)[:16]>:<kind>, ...]}``. A changed mutation engine starts the cache afresh, so
the candidates are always those a full scan would find.

Rows: the parent's row as its own source makes it plus ``role: "parent"``; a variant's row has
``key = "<parent key>#<kind>"``, ``parent``, ``mutation``, ``expected_direction`` (regression / improvement /
neutral), ``expected_metrics``, ``mutation_line`` and ``role: "variant"``.  Both carry
``output_digest``, so ``measure_v2 pack`` pairs them (``variants_v2.pairs.jsonl.gz``) and says
whether the outputs agree (``same_output``).  No code is stored.
"""
from __future__ import annotations

import ast
import hashlib
import itertools
import json
import os
from pathlib import Path

from training.measuring import mutations
from training.measuring.mutations import EXPECTED, KINDS, mutate

SOURCES = ("leetcode", "kattis", "euler", "rosetta")


def _programs(source: str, corpus, kattis_inputs: int):
    """(key, code, [parent tasks]) per program of ``source`` that is measured, in the source's order."""
    if source == "leetcode":
        from training.measuring import leetcode_ladders as leetcode
        by: dict = {}
        for t in leetcode.ladder_tasks(labels=("1/4",)):
            by.setdefault(t["row"]["key"], []).append(t)
        for key, ts in by.items():
            fn = ts[0]["fn"]
            yield key, leetcode.program(fn["pid"], key).code, ts
        return
    from training.measuring import sources
    by = {}
    for t in sources.tasks(source, corpus, kattis_inputs):
        if not t.get("skip") and t.get("code"):
            by.setdefault(t["row"]["key"], []).append(t)
    for key, ts in by.items():
        yield key, ts[0]["code"], ts


def _variant_task(t: dict, kind: str, v) -> dict:
    exp, metrics = EXPECTED[kind]
    row = dict(t["row"], key="%s#%s" % (t["row"]["key"], kind), parent=t["row"]["key"], mutation=kind,
               expected_direction=exp, expected_metrics=list(metrics), mutation_line=v.line, role="variant")
    return dict(t, row=row, code=v.code)


def _parent_task(t: dict) -> dict:
    return dict(t, row=dict(t["row"], parent=None, mutation=None, role="parent"))


def _engine_digest() -> str:
    return hashlib.sha1(Path(mutations.__file__).read_bytes()).hexdigest()


def _read_cache(path: Path | None, engine: str) -> set:
    if path is None or not path.exists():
        return set()
    try:
        raw = json.loads(path.read_text())
    except (OSError, ValueError):
        return set()
    return set(raw.get("none", ())) if raw.get("mutations") == engine else set()


def _write_cache(path: Path | None, engine: str, none: set) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps({"mutations": engine, "none": sorted(none)}))
    os.replace(tmp, path)  # never a torn cache


def candidates(corpus=None, per_kind: int = 600, kattis_inputs: int = 3, scan_cache: Path | None = None) -> dict:
    """kind -> [(parent tasks, variant)] in the scanning order, at most ``per_kind`` each."""
    engine = _engine_digest()
    known_none = _read_cache(scan_cache, engine)
    none = set(known_none)
    found: dict = {k: [] for k in KINDS}
    streams = [_programs(s, corpus, kattis_inputs) for s in SOURCES]
    for item in itertools.chain.from_iterable(itertools.zip_longest(*streams)):
        if item is None:
            continue
        if all(len(v) >= per_kind for v in found.values()):
            break
        key, code, ts = item
        digest = hashlib.sha1(code.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        todo = [k for k in KINDS if len(found[k]) < per_kind and "%s:%s" % (digest, k) not in known_none]
        if not todo:
            continue
        try:
            tree = ast.parse(code)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        for kind in todo:
            try:
                v = mutate(code, kind, seed=0, tree=tree)
            except (RecursionError, ValueError, SyntaxError):  # a pathological parent: no variant
                v = None
            if v is not None and v.code != code:
                found[kind].append((ts, v))
            else:
                none.add("%s:%s" % (digest, kind))
    if none != known_none:
        _write_cache(scan_cache, engine, none)
    return found


SCARCE_KATTIS_INPUTS = 12  # Kattis inputs per program for a kind the corpus has few candidates of


def _more_inputs(found: dict, scarce: list, corpus) -> dict:
    """For the `scarce` kinds (fewer candidates than asked: ``add_memo`` and ``drop_memo`` here, 123
    and 316 programs), their parents' tasks on more inputs: a LeetCode program on its ladder's
    other rungs (1/16 and 1), a Kattis one on up to ``SCARCE_KATTIS_INPUTS`` of its package's inputs.
    parent key -> its tasks. Scripts (Euler, Rosetta) have one input."""
    keys = {ts[0]["row"]["key"] for k in scarce for ts, _ in found[k]}
    out: dict = {}
    if not keys:
        return out
    from training.measuring import leetcode_ladders as leetcode
    from training.measuring import sources
    more = [t for t in leetcode.ladder_tasks(labels=("1/16", "1"))
            if t["row"]["key"] in keys] if "leetcode" in SOURCES else []
    more += [t for t in sources.tasks("kattis", corpus, SCARCE_KATTIS_INPUTS)
             if t["row"]["key"] in keys and not t.get("skip") and t.get("code")] if "kattis" in SOURCES else []
    for t in more:
        out.setdefault(t["row"]["key"], []).append(t)
    return out


def _add(out: list, seen: set, ts: list, kind: str, v) -> None:
    """A candidate's tasks: its parent on each input once (for all its kinds), then the variant."""
    for t in ts:
        pid = (t["row"]["key"], t["row"]["input_id"])
        if pid not in seen:
            seen.add(pid)
            out.append(_parent_task(t))
    out.extend(_variant_task(t, kind, v) for t in ts)


def tasks(corpus=None, per_kind: int = 600, kattis_inputs: int = 3, scan_cache: Path | None = None) -> list:
    """The measuring tasks: first the scarce kinds on their parents' other inputs (`_more_inputs`),
    interleaved by kind, then every candidate on its own inputs, interleaved by kind."""
    found = candidates(corpus, per_kind, kattis_inputs, scan_cache)
    out: list = []
    seen: set = set()
    scarce = [k for k in KINDS if len(found[k]) < per_kind]
    more = _more_inputs(found, scarce, corpus)
    for i in range(max((len(found[k]) for k in scarce), default=0)):
        for kind in scarce:
            if i < len(found[kind]):
                ts, v = found[kind][i]
                own = {t["row"]["input_id"] for t in ts}  # the same program: the same variant
                _add(out, seen, [t for t in more.get(ts[0]["row"]["key"], []) if t["row"]["input_id"] not in own],
                     kind, v)
    for i in range(max((len(v) for v in found.values()), default=0)):
        for kind in sorted(KINDS, key=lambda k: hashlib.sha1(("%d:%s" % (i, k)).encode()).hexdigest()):
            if i < len(found[kind]):
                ts, v = found[kind][i]
                _add(out, seen, ts, kind, v)
    return out
