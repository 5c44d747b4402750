"""Load the LeetCode corpus (../shared/corpora/leetcode) and its tests.

* programs: Python rows of ``solutions.jsonl.gz`` (doocs, walkccc, kamyu) with
  a problem id; kamyu files with ``py2: true`` go through ``training.measuring.py2to3``.
* tests: LeetCodeDataset ``test`` asserts (the version with most asserts) when
  the problem has them, otherwise the ``examples`` of ``problems.jsonl.gz``.
* entry point: LeetCodeDataset ``entry_point`` (``Solution().name``), else the
  first public method of ``class Solution`` in the reference program.
"""
from __future__ import annotations

import ast
import glob
import gzip
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from training.measuring.py2to3 import convert

CORPUS = Path(os.environ.get("RLM_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpora"))
LEETCODE = CORPUS / "leetcode"

COMMITS = {
    "doocs": "b6ee4f59f28bcf325b7ec535d0a0e12b409e70f4",
    "walkccc": "552deaf00d50db9b20d4821fc1526e26faa02d41",
    "kamyu": "a42318b19416b86d301d01db278172da59490a69",
    "leetcodedataset": "182cd19fd53161efd70a1ef074fe1056b659bfa3",
}


@dataclass
class Program:
    key: str
    source: str
    path: str
    problem_id: int
    code: str            # runnable (converted) code
    py2: bool
    converted: bool
    variant: int | None = None
    slug: str | None = None


@dataclass
class Problem:
    problem_id: int
    slug: str | None
    entry: str | None
    tests: list = field(default_factory=list)       # harness test dicts
    test_source: str = ""                             # "leetcodedataset:<file>" | "examples" | ""
    reference: str | None = None                      # LeetCodeDataset completion (not stored)
    constraints: str = ""
    programs: list = field(default_factory=list)
    arg_names: list = field(default_factory=list)
    node_args: dict = field(default_factory=dict)     # arg index -> "tree_node" | "list_node"


# -------------------------------------------------------------- literals

class _NotLiteral(Exception):
    pass


def lit(node):
    """Evaluate a literal AST allowing null/true/false; raises _NotLiteral."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        m = {"null": None, "None": None, "true": True, "True": True, "false": False, "False": False}
        if node.id in m:
            return m[node.id]
        raise _NotLiteral(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [lit(e) for e in node.elts]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = lit(node.operand)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v if isinstance(node.op, ast.USub) else v
    raise _NotLiteral(type(node).__name__)


def _json_ok(v) -> bool:
    try:
        return json.loads(json.dumps(v)) == v
    except (TypeError, ValueError):
        return False


def arg_spec(node, wrap_hint: str | None = None) -> dict:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("tree_node", "list_node") \
            and len(node.args) == 1:
        try:
            v = lit(node.args[0])
            if _json_ok(v):
                return {"json": v, "wrap": node.func.id}
        except _NotLiteral:
            pass
        return {"expr": ast.unparse(node)}
    try:
        v = lit(node)
        if _json_ok(v):
            if wrap_hint and isinstance(v, list):
                return {"json": v, "wrap": wrap_hint}
            return {"json": v}
    except _NotLiteral:
        pass
    return {"expr": ast.unparse(node)}


# -------------------------------------------------------------- LeetCodeDataset

def _lcd_tests(test_src: str):
    tree = ast.parse(test_src)
    fn = tree.body[0]
    tests, names = [], None
    for st in fn.body:
        if not isinstance(st, ast.Assert):
            continue
        t = st.test
        call = expected = None
        if isinstance(t, ast.Compare) and len(t.ops) == 1 and isinstance(t.ops[0], ast.Eq) \
                and isinstance(t.left, ast.Call) and getattr(t.left.func, "id", None) == "candidate":
            call, expected = t.left, t.comparators[0]
        elif isinstance(t, ast.Call) and getattr(t.func, "id", None) in ("is_same_list", "is_same_tree") \
                and len(t.args) == 2 and isinstance(t.args[0], ast.Call):
            call, expected = t.args[0], t.args[1]
        if call is None or call.args:
            continue
        names = [k.arg for k in call.keywords]
        exp = arg_spec(expected)
        if exp.get("wrap"):
            exp = {"json": exp["json"]}  # outputs are compared as lists
        tests.append({"args": [arg_spec(k.value) for k in call.keywords], "expected": exp})
    return tests, names or []


def load_lcd() -> dict:
    """slug (task_id) -> dict(entry, tests, file, completion, names) (version with most tests).

    Joined by slug: ``meta.question_id`` is LeetCode's internal question id in
    some versions (e.g. 972 for problem 935 knight-dialer), not the frontend id.
    """
    out = {}
    for f in sorted(glob.glob(str(LEETCODE / "leetcodedataset" / "*.jsonl.gz"))):
        with gzip.open(f, "rt") as fh:
            for line in fh:
                r = json.loads(line)
                qid = r.get("task_id")
                ep = r.get("entry_point", "")
                if not ep.startswith("Solution()."):
                    continue
                try:
                    tests, names = _lcd_tests(r["test"])
                except SyntaxError:
                    continue
                if not tests:
                    continue
                cur = out.get(qid)
                if cur is None or len(tests) > len(cur["tests"]):
                    out[qid] = {"entry": ep.split(".", 1)[1], "tests": tests, "file": os.path.basename(f),
                                "completion": r.get("completion", ""), "names": names}
    return out


# -------------------------------------------------------------- problems.jsonl examples

def _example_tests(examples, node_args):
    tests, names = [], []
    for ex in examples or []:
        inp, outp = ex.get("input"), ex.get("output")
        if not inp or outp is None:
            continue
        if "\n" in inp.strip() and inp.strip().startswith("["):
            continue  # design problem: call list + argument list
        try:
            call = ast.parse("f(%s)" % inp.replace("\n", " "), mode="eval").body
        except SyntaxError:
            continue
        if call.args or not call.keywords:
            continue
        try:
            exp_node = ast.parse(outp.strip(), mode="eval").body
            exp = arg_spec(exp_node)
            if "expr" in exp:
                exp = None
        except SyntaxError:
            exp = None
        args = [arg_spec(k.value, node_args.get(i)) for i, k in enumerate(call.keywords)]
        if any("expr" in a for a in args):
            continue
        tests.append({"args": args, "expected": exp})
        names = [k.arg for k in call.keywords]
    return tests, names


def _signature(code: str):
    """(method name, {arg index: wrapper}) of class Solution's first public method."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None, {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Solution":
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and not f.name.startswith("_"):
                    wraps = {}
                    for i, a in enumerate(f.args.args[1:]):
                        ann = ast.unparse(a.annotation) if a.annotation else ""
                        if "TreeNode" in ann:
                            wraps[i] = "tree_node"
                        elif "ListNode" in ann:
                            wraps[i] = "list_node"
                    return f.name, wraps
    return None, {}


def load_programs():
    progs = []
    with gzip.open(LEETCODE / "solutions.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            if r["language"] != "python" or r.get("problem_id") is None:
                continue
            code = r["code"]
            if re.search(r"^\s*(import pandas|from pandas|import numpy|from numpy)", code, re.M):
                continue  # database / pandas problems: not runnable under -S (no site-packages)
            converted = False
            if r["source"] == "kamyu" and r.get("py2"):
                code = convert(code)
                converted = True
            progs.append(Program(key="%s:%s" % (r["source"], r["path"]), source=r["source"], path=r["path"],
                                 problem_id=r["problem_id"], code=code, py2=bool(r.get("py2")),
                                 converted=converted, variant=r.get("variant"), slug=r.get("slug")))
    return progs


def reference_program(pr: Problem):
    """The program whose outputs define 'expected' for generated inputs."""
    order = {"doocs": 0, "walkccc": 1, "kamyu": 2}
    cands = sorted(pr.programs, key=lambda p: (order[p.source], p.variant or 1, p.path))
    return cands[0] if cands else None


def load_problems() -> dict:
    lcd = load_lcd()
    meta = {}
    with gzip.open(LEETCODE / "problems.jsonl.gz", "rt") as fh:
        for line in fh:
            r = json.loads(line)
            meta[r["problem_id"]] = r
    problems: dict[int, Problem] = {}
    for p in load_programs():
        pr = problems.get(p.problem_id)
        if pr is None:
            m = meta.get(p.problem_id, {})
            pr = problems[p.problem_id] = Problem(problem_id=p.problem_id, slug=m.get("slug") or p.slug,
                                                  entry=None,
                                                  constraints=m.get("constraints") or "")
        pr.programs.append(p)
    for pid, pr in problems.items():
        ref = reference_program(pr)
        name, wraps = _signature(ref.code) if ref else (None, {})
        if pr.slug and pr.slug in lcd:
            d = lcd[pr.slug]
            pr.entry, pr.tests, pr.test_source = d["entry"], d["tests"], "leetcodedataset:" + d["file"]
            pr.reference = d["completion"]
            pr.arg_names = d["names"]
            pr.node_args = {i: a.get("wrap") for i, a in enumerate(pr.tests[0]["args"]) if a.get("wrap")}
        else:
            pr.entry = name
            pr.node_args = wraps
            tests, names = _example_tests(meta.get(pid, {}).get("examples"), wraps)
            pr.tests, pr.arg_names = tests, names
            pr.test_source = "examples" if tests else ""
    return problems
