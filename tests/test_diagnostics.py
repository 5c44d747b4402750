"""Compiler and run messages in committed rows: the diagnostics' words, never the program's lines or host paths."""
import gzip
import json
import re
from pathlib import Path

import pytest

from training.measuring import diagnostics, polyglot_card
from training.measuring.packing import quoted_lines_cut

DATA = Path(__file__).resolve().parents[1] / "training" / "data"

GXX = """/tmp/rlm-build-d8b7pw09/prog.cpp: In member function 'int Solution::count(std::vector<int>&)':
/tmp/rlm-build-d8b7pw09/prog.cpp:181:19: error: 'class std::unordered_map<int, int>' has no member named 'contains'
  181 |             if (seen.contains(secret_value)) {
      |                   ^~~~~~~~
/tmp/rlm-build-d8b7pw09/prog.cpp:179:20: note: candidate: 'Solution::count(std::vector<int>&)::<lambda(int)>'
"""
JAVAC = """/sandbox/build/Solution.java:38: error: cannot find symbol
        return new Pair<>(secretRoot, depth + 1);
                   ^
  symbol:   class Pair
  location: class Solution
1 error
"""
GO = "# command-line-arguments\n./main.go:15:14: undefined: slices\n"


def test_gxx_keeps_the_error_line_only():
    assert diagnostics.compiler(GXX) == "prog.cpp:181:19: error: 'class std::unordered_map<int, int>' has no member named 'contains'"


def test_javac_drops_the_quoted_line_and_its_caret():
    out = diagnostics.compiler(JAVAC)
    assert out == "Solution.java:38: error: cannot find symbol\n  symbol:   class Pair\n  location: class Solution\n1 error"
    assert "secretRoot" not in out


def test_go_keeps_its_one_line():
    assert diagnostics.compiler(GO) == "# command-line-arguments\nmain.go:15:14: undefined: slices"


def test_runtime_message_loses_quoted_lines_and_directories():
    text = "exit -6: prog.cpp:12: int f(): Assertion `x > 0' failed.\n   12 |   assert(secret_value > 0);\n/work/x/y/prog.cpp"
    assert diagnostics.runtime(text) == "exit -6: prog.cpp:12: int f(): Assertion `x > 0' failed.\nprog.cpp"
    assert diagnostics.runtime(None) is None and diagnostics.compiler(None) is None


def test_the_pack_keeps_the_group_it_read_before_the_cut():
    rows = [{"status": "compile_error", "reason": None,
             "error": "~\n  179 |   auto dfs = [&](this auto&& dfs, int i) -> int {\n      |   ^\n"
                      "/work/poly-work/b/prog.cpp:179:20: note:   candidate expects 1 argument, 2 provided\n"}]
    group = polyglot_card.why(rows[0])
    quoted_lines_cut(rows)
    assert rows[0]["error"] == "" and rows[0]["reason"] == group
    assert polyglot_card.why(rows[0]) == group == "self-recursive lambda (C++23 deducing this) at -std=c++17"


QUOTE = re.compile(r"^\s*\d*\s*\|", re.M)


@pytest.mark.parametrize("name", ["leetcode_cpp", "leetcode_java", "leetcode_go"])
def test_committed_compiled_rows_quote_no_program_line_and_no_host_path(name):
    path = DATA / f"{name}.jsonl.gz"
    if not path.exists():
        pytest.skip(f"{path.name} is not packed")
    bad = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            text = r.get("error") or ""
            if QUOTE.search(text) or re.search(r"/(?:work|tmp|root|sandbox)/", text):
                bad.append((r["key"], text[:80]))
    assert not bad, bad[:3]
