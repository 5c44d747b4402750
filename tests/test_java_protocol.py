"""Java's memory protocol (``compiled.PROTOCOL["java"]``): the JVM flags (a fixed initial heap, C2 kept), the
baseline of 10 empty runs, and stream rows of an older Java protocol left out of resuming and packing.

Unit-level: no sandbox, no JVM (the sandboxed runs are in test_polyglot_measure.py)."""
from __future__ import annotations

import json
from pathlib import Path

from training.measuring import compiled, streams


def test_java_runs_the_normal_tiered_jit_with_a_fixed_initial_heap():
    argv, _binds, _address = compiled._argv(compiled.Build("java", True, Path("/b")), 2048)
    # time is the JVM users run: C2 stays, nothing stops tiering or makes compiles block
    assert not any("TieredStopAtLevel" in a or a == "-Xbatch" or "TieredCompilation" in a for a in argv)
    assert "-Xmx1024m" in argv and "-XX:InitialHeapSize=378m" in argv
    assert argv.index("-XX:InitialHeapSize=378m") < argv.index("-cp")  # a JVM flag, not the program's argument


def test_the_initial_heap_is_never_above_the_maximum():
    # a JVM with InitialHeapSize above Xmx refuses to start: every row would be an error
    argv, _binds, _address = compiled._argv(compiled.Build("java", True, Path("/b")), 256)
    assert "-Xmx128m" in argv and "-XX:InitialHeapSize=128m" in argv


def test_native_programs_keep_their_command_and_layout():
    argv, _binds, _address = compiled._argv(compiled.Build("cpp", True, Path("/b")), 2048)
    assert argv == [compiled.BOX + "/.rlm/prog/prog"]
    assert not compiled.FIXED_LAYOUT.get("cpp") and not compiled.FIXED_LAYOUT.get("go")
    assert compiled.protocol("cpp") == {} and compiled.protocol("java") == {"protocol": compiled.PROTOCOL["java"]}


def test_the_java_baseline_is_the_min_of_ten_empty_runs_others_of_five(monkeypatch):
    asked = {}
    rss = iter(range(36500, 36000, -50))  # each run lower: the min is the last run's

    def fake_run(b, stdin, *, runs, memory_mb, **kw):
        asked[b.language] = runs
        return compiled.Run("ok", runs=[(0, next(rss) if b.language == "java" else 900, 0.04) for _ in range(runs)])
    monkeypatch.setattr(compiled, "build", lambda source, language: compiled.Build(language, True, Path("/b")))
    monkeypatch.setattr(compiled, "run", fake_run)
    monkeypatch.setattr(compiled, "_BASELINES", {})
    base = compiled.baseline("java")
    assert asked["java"] == 10 and base["runs"] == 10 and base["rss_kb"] == 36500 - 9 * 50
    assert compiled.baseline("java") is base  # once per process
    compiled.baseline("cpp")
    assert asked["cpp"] == 5


def test_stream_rows_of_an_older_java_protocol_are_not_resumed_or_packed(tmp_path):
    rows = [{"key": "py", "harness": streams.HARNESS},
            {"key": "cpp", "language": "cpp", "harness": streams.HARNESS},
            {"key": "java-old", "language": "java", "harness": streams.HARNESS},
            {"key": "java-new", "language": "java", "harness": streams.HARNESS, "protocol": compiled.PROTOCOL["java"]},
            {"key": "java-other", "language": "java", "harness": streams.HARNESS, "protocol": "jvm-something-else"}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [r["key"] for r in streams.read_rows(path)] == ["py", "cpp", "java-new"]
