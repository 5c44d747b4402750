"""Rosetta Code's C, C++, Go and Java programs measured as compiled scripts (issue 51): which programs can run
as they are, Java's main class, and a sandboxed compile-and-run of a small hand-written script per language."""
from __future__ import annotations

import pytest

from tests.test_polyglot_measure import needs_compiler
from training.measuring import compiled
from training.measuring import rosetta_compiled as rc

COMPILER = {"c": "gcc", "cpp": "g++", "go": "go", "java": "javac"}


@pytest.mark.parametrize("language,code,reason", [
    ("c", "int add(int a, int b) { return a + b; }", "no main function"),
    ("c", "/* main( */ int f(void);", "no main function"),
    ("cpp", "#include <cstdio>\nint main() { puts(\"x\"); }", None),
    ("go", "package mylib\nfunc F() {}", "not package main"),
    ("go", "package main\nfunc main() {}", None),
    ("java", "package org.x;\npublic class A { public static void main(String[] a) {} }", "declares a package"),
    ("java", "public class A { int f() { return 1; } }", "no main method"),
    ("java", "class A {}\nclass B { public static void main(String[] a) {} }", None),
])
def test_which_programs_run_as_they_are(language, code, reason):
    got = rc.skip_reason(code, language)
    assert (got is None) if reason is None else got.startswith(reason)


@pytest.mark.parametrize("code,main", [
    ("import java.util.*;\npublic class Hello { public static void main(String[] a) {} }", "Hello"),
    ("class Helper {}\nclass Prog {\n  public static void main(String[] a) {} }", "Prog"),
    ("public final class Fin { public static void main(String... a) {} }", "Fin"),
    ('// public class Nope\nclass Real { static public void main(String[] a) { String s = "class X"; } }', "Real"),
])
def test_the_java_class_to_run(code, main):
    assert rc.java_main(code) == main


SCRIPTS = {
    "c": '#include <stdio.h>\n#include <math.h>\nint main(void) { double s = 0; for (int i = 1; i <= 1000; i++) '
         's += sqrt(i); printf("%.3f\\n", s); return 0; }\n',
    "cpp": '#include <iostream>\n#include <vector>\nint main() { std::vector<int> v(1 << 20, 1); long s = 0; '
           'for (int x : v) s += x; std::cout << s << "\\n"; }\n',
    "go": 'package main\n\nimport "fmt"\n\nfunc main() { s := 0; for i := 0; i < 1000; i++ { s += i }; fmt.Println(s) }\n',
    "java": 'import java.util.*;\npublic class Sum { public static void main(String[] a) { long s = 0; '
            'for (int i = 0; i < 1000; i++) s += i; System.out.println(s); } }\n',
}


@pytest.mark.needs_bwrap
@pytest.mark.parametrize("language", ["c", "cpp", "go", "java"])
def test_a_script_compiles_and_runs_in_the_sandbox(language, tmp_path, monkeypatch):
    if language != "c":
        needs_compiler(language)
    monkeypatch.setattr(compiled, "WORK", tmp_path / "work")
    task = {"row": {"key": "k", "input_id": ""}, "code": SCRIPTS[language], "compiled_script": language,
            "skip": rc.skip_reason(SCRIPTS[language], language)}
    row = rc.measure(task, {"time_limit": 10, "memory_mb": 2048})
    assert row["status"] == "ok", row
    assert row["sandbox"] in ("bwrap", "bwrap-root") and len(row["cpu_runs_ms"]) == 3
    assert row["latency_ms"] == min(row["cpu_runs_ms"]) and row["memory_bytes"] >= 0 and row["output_bytes"] > 0
    if language == "cpp":  # 4 MiB of ints touched
        assert row["memory_bytes"] >= 4 << 20


@pytest.mark.needs_bwrap
def test_a_script_that_fails_is_a_row_with_the_reason(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "WORK", tmp_path / "work")
    bad = {"row": {"key": "k"}, "code": "int main(void) { return 3; }", "compiled_script": "c", "skip": None}
    row = rc.measure(bad, {"time_limit": 5, "memory_mb": 2048})
    assert row["status"] == "error" and "3" in row["error"]
    broken = dict(bad, code="int main(void) { return undefined_name; }")
    assert rc.measure(broken, {"time_limit": 5, "memory_mb": 2048})["status"] == "compile_error"


def test_the_streams_know_the_rosetta_compiled_sources():
    from training.measuring import sources, streams, workfiles
    if not (sources.CORPUS / "rosetta" / "programs.jsonl.gz").exists():
        pytest.skip("the Rosetta corpus is not here (../shared/corpora/rosetta)")
    ts = streams.source_tasks("rosetta-go", None)
    assert len(ts) == sum(r["language"] == "go" for r in rc._programs()) > 1000
    assert {t["row"]["source"] for t in ts} == {"rosetta-go"} and all(t["row"]["input_id"] == "" for t in ts)
    assert workfiles.data_path("rosetta-go").name == "rosetta_go.jsonl.gz"
    skipped = next(t for t in ts if t["skip"])
    row = streams._measure((skipped, {"time_limit": 5, "memory_mb": 2048}))
    assert row["status"] == "skipped" and row["reason"] == skipped["skip"]
