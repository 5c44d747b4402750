"""The C++, Java and Go data card and re-measurement (issue 51): counts, grouped reasons, inputs shared with
Python, growth classes and the re-measurement's figures, on small synthetic packed files (numbers only)."""
from __future__ import annotations

import gzip
import json

import pytest

from training.measuring import polyglot_card as card
from training.measuring import polyglot_remeasure as again


def _gz(path, rows):
    with gzip.open(path, "wt") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def _row(lang, pid, rung, size, lat, mem, status="ok", key=None, **kw):
    return dict({"key": key or "%s-%d" % (lang, pid), "problem_id": pid, "rung": rung, "status": status,
                 "input_size": size, "input_sha1": "sha-%d-%s" % (pid, rung), "input_id": "ladder:%s:s0" % rung,
                 "latency_ms": lat, "memory_bytes": mem, "baseline_cpu_ms": 1.0, "baseline_rss_kb": 900,
                 "reason": None, "error": None, "machine": {"cpu_model": "test"}, "language": lang,
                 "measured_at": "2026-01-01T00:00:00Z"}, **kw)


@pytest.mark.parametrize("row,group", [
    ({"status": "compile_error", "error": "error: ‘ranges’ has not been declared"}, "C++20 library"),
    ({"status": "compile_error", "error": "auto dfs = [&](this auto&& dfs, int i)"}, "self-recursive lambda"),
    ({"status": "compile_error", "error": "./main.go:14:8: undefined: slices\n"}, "Go 1.21 package"),
    ({"status": "compile_error", "error": "./main.go:15:8: undefined: treemap\n"}, "third-party Go package"),
    ({"status": "skipped", "reason": "RLM_UNSUPPORTED_TYPE: std::pair<int, int>"}, "a type the driver cannot express"),
    ({"status": "error", "error": "exit 1: \tat java.base/java.lang.Thread.run(Thread.java:840)"}, "uncaught exception (Java)"),
    ({"status": "error", "error": "exit 2: goroutine 1 [running]:\n\t/sandbox/main.go:12 +0x1d"}, "runtime panic (Go)"),
    ({"status": "wrong_answer"}, "output differs"),
    ({"status": "compile_error", "error": "x.cpp:3: error: something new"}, "other compile error"),
    ({"status": "error", "error": "exit 9: /work/x/y 123 strange"}, "other: exit N: PATH N strange"),
])
def test_reasons_are_grouped(row, group):
    assert card.why(row).startswith(group)


def test_the_card_counts_languages_reasons_shared_inputs_and_classes(tmp_path):
    sizes = {"1/16": 100, "1/4": 400, "1": 1600}
    cpp = [_row("cpp", 1, k, n, 1.0 + n / 100, 1000 * n) for k, n in sizes.items()]        # linear
    cpp += [_row("cpp", 2, k, n, 1.5, 0) for k, n in sizes.items()]                          # flat
    cpp += [_row("cpp", 3, "1/16", 100, None, None, status="compile_error", error="error: ‘views’ has not been declared")]
    go = [_row("go", 1, k, n, 1.0 + (n / 100) ** 2, 64 * n * n) for k, n in sizes.items()]  # quadratic
    go[0]["input_sha1"] = "different"
    _gz(tmp_path / "leetcode_cpp.jsonl.gz", cpp)
    _gz(tmp_path / "leetcode_go.jsonl.gz", go)
    _gz(tmp_path / "leetcode_v2.jsonl.gz", [_row("python", 1, k, n, 1, 1) for k, n in sizes.items()])
    text = card.section(tmp_path)
    assert "| C++ | 7 | 3 | 3 | 6 | 2 | 2 | 0 | 1 | 0 | 0 | 0 | 0 |" in text
    assert "| Java | 0 | 0 | 0 | 0 | 0 | 0 |" in text
    assert "compile_error / C++20 library (ranges, contains) at -std=c++17: 1 (1)" in text
    # rungs, programs with 3 rungs, problems also in Python, pairs with Python, identical inputs
    assert "| C++ | 2 | 2 | 2 | 2 | 1 | 3 | 3 |" in text
    assert "| Go | 1 | 1 | 1 | 1 | 1 | 3 | 2 |" in text
    assert "C++ + Go 1" in text
    assert "| C++ | time | 1 | 0 | 1 | 0 | 0 | 0 | 0 |" in text
    assert "| Go | memory | 0 | 0 | 0 | 0 | 1 | 0 | 0 |" in text
    assert "Re-measurement" not in text
    (tmp_path / "remeasure_polyglot.json").write_text(json.dumps({"go": {"summary": dict(
        again.summary([{"status": "ok", "latency_ms": [1.0, 1.1], "memory_bytes": [5, 5], "same_output": True}] * 3, 3),
        source="leetcode_go.jsonl.gz", when="2026-01-02T00:00:00Z", first_measured="2026-01-01T00:00:00Z")}}))
    assert "| Go | 3 | 3 |" in card.section(tmp_path)


def test_the_card_reads_a_running_stream_without_its_torn_last_line(tmp_path):
    _gz(tmp_path / "leetcode_cpp.jsonl.gz", [_row("cpp", 1, "1", 10, 1.0, 10)])
    live = tmp_path / "leetcode-java.jsonl"
    live.write_text(json.dumps(_row("java", 7, "1", 10, 50.0, 10)) + "\n" + '{"key": "half')
    text = card.section(tmp_path, {"java": str(live)})
    assert "Java is being measured again by a running stream" in text and "1 rows of 1 programs" in text


def test_the_card_is_written_between_its_markers(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# head\n\n%s\nold\n%s\ntail\n" % (card.START, card.END))
    card.write("new", readme)
    assert readme.read_text() == "# head\n\n%s\nnew\n%s\ntail\n" % (card.START, card.END)


def test_the_remeasure_summary():
    pairs = [{"status": "ok", "latency_ms": [float(i), float(i) * 1.1], "memory_bytes": [100 * i, 100 * i if i % 2 else 130 * i],
              "same_output": True} for i in range(1, 11)]
    pairs.append({"status": "timeout", "latency_ms": [5.0, None], "memory_bytes": [5, None], "same_output": False})
    s = again.summary(pairs, 11)
    assert s["again_ok"] == 10 and s["not_ok_again"] == {"timeout": 1}
    assert s["latency_spearman"] == 1.0 and s["latency_within_15pct"] == 1.0
    assert s["memory_within_15pct"] == 0.5 and s["memory_identical"] == 0.5


def test_the_remeasure_resumes_and_keeps_other_languages(tmp_path, monkeypatch):
    from training.measuring import compiled
    monkeypatch.setattr(compiled, "WORK", tmp_path / "work")
    _gz(tmp_path / "leetcode_go.jsonl.gz", [_row("go", i, "1", 10, float(i), 1000 * i, output_digest="d") for i in range(1, 6)])
    out = tmp_path / "remeasure.json"
    out.write_text(json.dumps({"cpp": {"summary": {}, "pairs": []}}))
    calls = []
    monkeypatch.setattr(again, "codes", lambda keys: {k: "code" for k in keys})

    def fake(row, code):
        calls.append(row["key"])
        return {"status": "ok", "memory_bytes": row["memory_bytes"], "latency_ms": row["latency_ms"] * 1.05,
                "output_digest": "d"}
    monkeypatch.setattr(again, "again", fake)
    args = ["--language", "go", "--rows", "3", "--from", str(tmp_path / "leetcode_go.jsonl.gz"), "--out", str(out)]
    assert again.main(args) == 0
    assert again.main(args) == 0  # the second run finds every pair in the work file
    assert len(calls) == 3
    whole = json.loads(out.read_text())
    assert set(whole) == {"cpp", "go"}
    assert whole["go"]["summary"]["again_ok"] == 3 and whole["go"]["summary"]["same_output"] == 1.0


def test_the_card_sets_each_tried_java_protocols_check_beside_the_one_in_use(tmp_path):
    _gz(tmp_path / "leetcode_java.jsonl.gz", [_row("java", 1, "1", 10, 50.0, 10)])
    pair = {"status": "ok", "latency_ms": [1.0, 1.1], "memory_bytes": [5, 5], "same_output": True}
    (tmp_path / "remeasure_polyglot.json").write_text(json.dumps({"java": {"summary": dict(
        again.summary([pair] * 3, 3), source="leetcode-java.jsonl", when="2026-01-02T00:00:00Z",
        first_measured="2026-01-01T00:00:00Z")}}))
    assert "None passed both bars" in card.section(tmp_path)  # the cause and the outcome, before any check file
    figures = {"latency_spearman": 0.5, "latency_within_15pct": 0.25, "memory_spearman": 0.75, "memory_within_15pct": 0.5}
    (tmp_path / "remeasure_java_protocol.json").write_text(json.dumps({"java": {
        "adopted": card.FIRST_JAVA, "protocols": {
            card.FIRST_JAVA: dict(figures, memory_spearman=0.25, memory_ratio_median=1.2),
            "jvm-median10-fixed-1": dict(figures, what="a median baseline")}}}))
    text = card.section(tmp_path)
    assert f"| **{card.FIRST_JAVA}** (in use) | 0.5 | 25% | 0.25 | 50% | 1.2 |" in text
    assert "| jvm-median10-fixed-1: a median baseline | 0.5 | 25% | 0.75 | 50% | - |" in text
