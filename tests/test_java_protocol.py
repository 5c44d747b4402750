"""Java's measuring protocol is the first one (C2, the kernel's address-space randomisation, ergonomics' initial
heap, a baseline of the min of 5 empty runs): the protocols tried to hold its baseline still failed their bars
(training/data/remeasure_java_protocol.json), so the rows measured the first way stay valid.

Unit-level: no sandbox, no JVM (the sandboxed runs are in test_polyglot_measure.py)."""
from __future__ import annotations

import json
from pathlib import Path

from training.measuring import compiled, workfiles


def test_java_runs_the_first_protocols_flags():
    argv, _binds, address = compiled._argv(compiled.Build("java", True, Path("/b")), 2048)
    assert argv[1:] == ["-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:auto", "-Xmx1024m",
                        "-XX:ReservedCodeCacheSize=64m", "-XX:CompressedClassSpaceSize=128m", "-cp",
                        compiled.BOX + "/.rlm/prog", compiled.JAVA_MAIN]
    assert address == (2048 << 20) + 3 * compiled.GiB


def test_the_java_baseline_is_the_min_of_five_empty_runs(monkeypatch):
    asked = {}
    rss = iter([36400, 36100, 36500, 36300, 36200])  # the median (36,300) or the last run would differ from the min

    def fake_run(b, stdin, *, runs, memory_mb, **kw):
        asked[b.language] = runs
        return compiled.Run("ok", runs=[(0, next(rss), 0.04) for _ in range(runs)])
    monkeypatch.setattr(compiled, "build", lambda source, language: compiled.Build(language, True, Path("/b")))
    monkeypatch.setattr(compiled, "run", fake_run)
    monkeypatch.setattr(compiled, "_BASELINES", {})
    base = compiled.baseline("java")
    assert asked["java"] == 5 and base["runs"] == 5 and base["rss_kb"] == 36100
    assert compiled.baseline("java") is base  # once per process


def test_stream_rows_of_java_without_a_protocol_are_resumed_and_packed(tmp_path):
    # the rows measured the first way carry no protocol field: they are the current protocol's rows
    rows = [{"key": "py", "harness": workfiles.HARNESS},
            {"key": "java", "language": "java", "harness": workfiles.HARNESS},
            {"key": "old-harness", "language": "java", "harness": "measure-v0"}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert [r["key"] for r in workfiles.read_rows(path)] == ["py", "java"]
