"""The second corpus set as measuring tasks, one per (program, input); see ``training/data/README.md``, "Data v2".

``tasks(source, corpus, k)`` lists the tasks of ``kattis``, ``euler`` or ``rosetta`` in a fixed order
(programs shuffled by a hash of their key, so a partial run covers many problems; a program's inputs
together, smallest first).  A task carries the program's code and input in memory only; the row
fields it will produce are in ``task["row"]``.  Programs that cannot be measured as they are get a
task with ``skip`` = the reason, and become ``skipped`` rows.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import re
from pathlib import Path

from rlm_lsp.python.shapes import definitions_only  # shared with the runtime's program_shape
from training.measuring.py2to3 import convert

CORPUS = Path(os.environ.get("RLM_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpora"))
SOURCES = ("kattis", "euler", "rosetta")
BLOCKING_RISKS = {"network", "gui_or_plotting", "subprocess_or_multiprocessing"}
HARMLESS_IMPORTS = {"__pypy__"}  # imported inside try/except to detect PyPy
LLM_SETS = {"rayrwang/project-euler", "cirosantilli/project-euler-solvers"}


def _rows(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _true(v) -> bool:
    return v is True or str(v).lower() == "true"


def _order(programs: list) -> list:
    return sorted(programs, key=lambda r: hashlib.sha1(("v2:%s:%s" % (r["source"], r["path"])).encode()).hexdigest())


def _skip_common(r: dict) -> str | None:
    risks = sorted(set(r.get("risk_flags") or []) & BLOCKING_RISKS)
    if risks:
        return "risk: " + ", ".join(risks)
    third = sorted(set(r.get("third_party_imports") or []) - HARMLESS_IMPORTS)
    if third:
        return "third-party import: " + ", ".join(third)
    return None


def measured_code(r: dict) -> str:
    """A corpus row's code as it is measured: Python 2 files (``py2``) after ``training.measuring.py2to3.convert``."""
    return convert(r["code"]) if _true(r.get("py2")) else r["code"]


def _base(source: str, r: dict, problem_id, shape: str) -> tuple[dict, str]:
    code = measured_code(r)
    row = {"source": source, "repo": r["source"], "path": r["path"], "commit": r["commit"],
           "key": "%s:%s" % (r["source"], r["path"]), "problem_id": problem_id, "shape": shape,
           "input_id": "", "input_bytes": 0, "py2_converted": _true(r.get("py2"))}
    return row, code


# ----------------------------------------------------------------- Kattis packages

_LINK = re.compile(r"(\.\./|\./|[\w.-]+/)+[\w.-]+\.in")


def is_link_text(text: str) -> bool:
    """An input whose text is a relative path to another ``.in``: a git symlink read as a blob (~23% of them)."""
    return len(text) < 300 and _LINK.fullmatch(text.strip()) is not None


def kattis_flags(problem: dict) -> dict:
    """The default validator's options from problem.yaml's (uncommented) ``validator_flags``."""
    out = {"abs": None, "rel": None, "case_sensitive": False}
    for line in (problem.get("problem_yaml") or "").splitlines():
        m = re.match(r"\s*validator_flags\s*:\s*(.*)$", line)
        if not m:
            continue
        words = m.group(1).split()
        for i, w in enumerate(words):
            nxt = words[i + 1] if i + 1 < len(words) else ""
            try:
                val = float(nxt)
            except ValueError:
                val = None
            if w == "float_tolerance":
                out["abs"] = out["rel"] = val
            elif w == "float_absolute_tolerance":
                out["abs"] = val
            elif w == "float_relative_tolerance":
                out["rel"] = val
            elif w == "case_sensitive":
                out["case_sensitive"] = True
    return out


def select_inputs(cands: list, k: int) -> list:
    """Up to ``k`` inputs spread evenly over log(input bytes), always with the smallest and the largest."""
    cands = sorted(cands, key=lambda c: (c["input_bytes"], c["path"]))
    if k <= 0 or not cands:
        return []
    by_size: dict = {}
    for c in cands:
        by_size.setdefault(c["input_bytes"], c)
    pool = list(by_size.values()) if len(by_size) >= k else cands
    if len(pool) <= k:
        return pool
    size = [math.log1p(c["input_bytes"]) for c in pool]
    chosen = {len(pool) - 1}
    for i in range(k - 1):
        target = size[0] + (size[-1] - size[0]) * i / (k - 1)
        chosen.add(min((j for j in range(len(pool)) if j not in chosen), key=lambda j: (abs(size[j] - target), j)))
    return [pool[j] for j in sorted(chosen)]


def kattis_tasks(corpus: Path, k: int = 4, max_input_bytes: int = 1 << 20) -> list:
    base = corpus / "kattis_packages"
    problems = {p["problem_id"]: p for p in _rows(base / "problems.jsonl.gz")}
    meta: dict = {}
    for r in _rows(base / "inputs.jsonl.gz"):
        if r.get("answer") is not None and int(r["input_bytes"]) <= max_input_bytes and not is_link_text(r["input"]):
            meta.setdefault(r["problem_id"], []).append(
                {"path": r["path"], "input_bytes": int(r["input_bytes"]), "group": r.get("group")})
    picked = {pid: select_inputs(c, k) for pid, c in meta.items()}
    want = {(pid, c["path"]) for pid, cs in picked.items() for c in cs}
    text = {}
    for r in _rows(base / "inputs.jsonl.gz"):
        if (r["problem_id"], r["path"]) in want:
            text[(r["problem_id"], r["path"])] = (r["input"], r["answer"])
    out = []
    by_name = {}
    for pid, p in problems.items():
        by_name.setdefault(p.get("kattis_shortname"), []).append(pid)
    programs = _order(list(_rows(base / "programs.jsonl.gz")))
    # then Kattis solutions (another repository) of the problems a package has, by short name, on
    # the package's inputs: the package's answers verify that it is the same problem
    solutions = corpus / "kattis_solutions" / "programs.jsonl.gz"
    programs += [dict(r, problem_id=by_name[r["kattis_shortname"]][0], verdict_dir="kattis_solutions")
                 for r in (_order(list(_rows(solutions))) if solutions.exists() else [])
                 if _true(r.get("inputs_in_kattis_packages")) and len(by_name.get(r["kattis_shortname"], ())) == 1]
    for r in programs:
        pid = r["problem_id"]
        pr = problems.get(pid, {})
        row, code = _base("kattis", r, pid, "stdin")
        tl = pr.get("time_limit_s")
        row.update(kattis_shortname=r.get("kattis_shortname"), verdict_dir=r.get("verdict_dir"),
                   scoring=_true(r.get("scoring")), judge_time_limit_s=float(tl) if tl not in (None, "None") else None)
        validation = str(pr.get("validation") or "default")
        skip = None
        if _true(r.get("interactive")) or _true(pr.get("interactive")) or "interactive" in validation:
            skip = "interactive problem (needs its interactor)"
        skip = skip or _skip_common(r)
        if not skip and definitions_only(code):
            skip = "no top-level code (definitions only: a grader calls it)"
        flags = kattis_flags(pr)
        check = None
        if validation.startswith("custom"):
            # the validator is not in the corpus: the package's own answer, token for token, is
            # accepted (a validator accepts its own answer); any other output is `unverified`
            row["validator"] = "custom"
            check = {"kind": "exact_only"}
        elif not flags["case_sensitive"] or flags["abs"] is not None or flags["rel"] is not None:
            check = {"kind": "kattis", "args": [flags["abs"], flags["rel"], flags["case_sensitive"]]}
        inputs = picked.get(pid) or []
        if not inputs:
            out.append({"row": row, "skip": skip or "no input with an answer"})
            continue
        for c in inputs:
            stdin, answer = text[(pid, c["path"])]
            out.append({"row": dict(row, input_id=c["path"], input_bytes=c["input_bytes"], group=c["group"]),
                        "code": code, "stdin": stdin, "expected": answer, "check": check, "skip": skip})
    return out


# ----------------------------------------------------------------- Project Euler, Rosetta Code

def _depth(name: str) -> int:
    parts = os.path.normpath(name).split(os.sep)
    return next((i for i, p in enumerate(parts) if p != ".."), len(parts))


def euler_tasks(corpus: Path) -> list:
    base = corpus / "project_euler"
    answers = {str(a["problem_id"]): a["answer"] for a in _rows(base / "answers.jsonl.gz")}
    out = []
    for r in _order(list(_rows(base / "programs.jsonl.gz"))):
        pid = str(r["problem_id"])
        row, code = _base("euler", r, pid, "script")
        row.update(variant=r.get("variant"), llm_set=r["source"] in LLM_SETS, llm_assisted=r.get("llm_assisted"))
        aux = [(a["name_in_code"], a["text"]) for a in r.get("aux_files") or []]
        skip = _skip_common(r)
        if not skip and _true(r.get("reads_stdin")):
            skip = "reads stdin (a script gets no input)"
        if not skip and any(os.path.isabs(n) for n, _ in aux):
            skip = "data file at an absolute path"
        if not skip and definitions_only(code):
            skip = "no top-level code (definitions only)"
        out.append({"row": row, "code": code, "stdin": "", "expected": answers.get(pid),
                    "check": {"kind": "answer_in_output"}, "skip": skip,
                    "files": [(m["place_as"], m["code"]) for m in r.get("local_modules") or []],
                    "aux": aux, "depth": max([_depth(n) for n, _ in aux] or [0]),
                    "name": os.path.basename(r["path"])})
    return out


REPL_SUFFIX = "#repl"  # the key of a REPL transcript's script, next to the transcript's own key


def repl_script(r: dict) -> str | None:
    """A corpus row whose code is an interactive session (`>>> ` prompts, `... ` continuations,
    printed results between them) and does not parse as a file: the script of its inputs, in
    order (doctest's parser), Python 2 ones converted as any other; None for anything else, or
    when the inputs do not parse either. Rosetta Code keeps 220 of its Python programs this way."""
    import doctest

    code = r["code"]
    if not any(line.startswith(">>>") for line in code.splitlines()):
        return None
    try:
        compile(code, "<program>", "exec")
        return None  # a file that parses is measured as it is
    except (SyntaxError, ValueError):
        pass
    try:
        examples = doctest.DocTestParser().get_examples(code)
    except ValueError:
        return None
    script = "".join(e.source for e in examples)
    if not script.strip():
        return None
    if _true(r.get("py2")):
        script = convert(script)
    try:
        compile(script, "<program>", "exec")
    except (SyntaxError, ValueError):
        return None
    return script


def rosetta_tasks(corpus: Path) -> list:
    """One task per Python program; a REPL transcript (`repl_script`) also gets one for its script,
    keyed `<key>#repl`, with `script_of_transcript` = the transcript's key (whose own row stays
    what it was: the transcript as a file does not parse)."""
    out = []
    progs = [r for r in _rows(corpus / "rosetta" / "programs.jsonl.gz") if r.get("language") == "python"]
    for r in _order(progs):
        row, code = _base("rosetta", r, r["task"], "script")
        row["variant"] = r.get("variant")
        common = _skip_common(r)
        script = repl_script(r)
        versions = [(row, code)] + ([] if script is None else [
            (dict(row, key=row["key"] + REPL_SUFFIX, script_of_transcript=row["key"]), script)])
        for one, text in versions:
            skip = common
            if not skip and _true(r.get("reads_stdin")):
                skip = "reads stdin (a script gets no input)"
            if not skip and definitions_only(text):
                skip = "no top-level code (definitions only)"
            out.append({"row": one, "code": text, "stdin": "", "expected": None, "check": None, "skip": skip,
                        "name": os.path.basename(r["path"])})
    return out


def tasks(source: str, corpus: Path | None = None, k: int = 4) -> list:
    corpus = Path(corpus or CORPUS)
    if source == "kattis":
        return kattis_tasks(corpus, k)
    if source == "euler":
        return euler_tasks(corpus)
    if source == "rosetta":
        return rosetta_tasks(corpus)
    raise ValueError("unknown source %r" % source)
