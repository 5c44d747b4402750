"""A Python function is read with the names its file defines (O2): a helper reads as `f1`, as the
file's own text would name it, so two functions that differ only in their helpers' names (heapq's
`heapify` and `_heapify_max`) are predicted alike on every surface, and renaming a helper moves
no caller's number (experiments/log/12-2026-12-06-sessions-34-on.md, "Result of O2")."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from rlm_lsp.python import outside, snippets

# heapq's shape: two mirror callers, each calling its own helper
MIRROR = '''LIMIT = 10


def _sift(heap, pos):
    while pos > 0:
        parent = (pos - 1) >> 1
        if heap[pos] < heap[parent]:
            heap[pos], heap[parent] = heap[parent], heap[pos]
        pos = parent


def _sift_max(heap, pos):
    while pos > 0:
        parent = (pos - 1) >> 1
        if heap[pos] > heap[parent]:
            heap[pos], heap[parent] = heap[parent], heap[pos]
        pos = parent


def heapify(x):
    n = len(x)
    for i in reversed(range(n // 2)):
        _sift(x, i)
    return x[:LIMIT]


def _heapify_max(x):
    n = len(x)
    for i in reversed(range(n // 2)):
        _sift_max(x, i)
    return x[:LIMIT]
'''
CALLERS = ("heapify", "_heapify_max")


@pytest.fixture(scope="module")
def canon_model_dir(tiny_model_dir, tmp_path_factory):
    """The tiny model reading canonical code (`canon_v1`, as the shipped one does), with growth trees."""
    from conftest import write_growth_trees

    dest = tmp_path_factory.mktemp("tiny") / "model-canon"
    shutil.copytree(tiny_model_dir, dest)
    config = json.loads((dest / "rlm_config.json").read_text())
    config["preprocess"] = "canon_v1"
    (dest / "rlm_config.json").write_text(json.dumps(config, indent=2))
    write_growth_trees(dest)
    return dest


@pytest.fixture(scope="module")
def predictor(canon_model_dir):
    from rlm_lsp.runtime.predictor import Predictor

    return Predictor.from_dir(canon_model_dir)


def by_name(source: str) -> dict[str, snippets.Snippet]:
    return {s.name: s for s in snippets.extract(source)}


def values(result) -> dict:
    return {m: (p.value, p.low, p.high, p.growth) for m, p in result.items()}


def test_each_snippet_carries_the_file_names_it_uses_by_kind():
    found = by_name(MIRROR)
    assert {n: s.outside for n, s in found.items()} == {
        "_sift": "", "_sift_max": "", "heapify": "LIMIT=v _sift=f", "_heapify_max": "LIMIT=v _sift_max=f"}
    assert outside.kinds_for("LIMIT=v _sift=f heapify=f", found["heapify"].code) == {"LIMIT": "v", "_sift": "f"}
    # a half-typed edit elsewhere: the same names, so no hint moves while it is typed
    assert by_name(MIRROR + "\ndef typing(\n")["heapify"].outside == "LIMIT=v _sift=f"
    # a function added that it does not call: its line (and the editor's memo of it) stays
    assert by_name(MIRROR + "\ndef other():\n    return 1\n")["heapify"].outside == "LIMIT=v _sift=f"


def test_mirror_functions_read_the_same_text_and_get_the_same_numbers(predictor):
    found = by_name(MIRROR)
    a, b = (found[n] for n in CALLERS)
    assert predictor.render(a.code) != predictor.render(b.code)  # without the file: `_sift` vs `_sift_max`
    assert predictor.render(a.code, context=a.context()) == predictor.render(b.code, context=b.context())
    assert "f1(v0, v2)" in predictor.render(a.code, context=a.context())
    pa, pb = (predictor.predict([s.code], context=s.context())[0] for s in (a, b))
    assert values(pa) == values(pb) and pa["memory"].growth is not None  # the growth trees read the same too


def test_rlm_predict_json_gives_mirror_functions_identical_rows(canon_model_dir, tmp_path):
    (tmp_path / "heap.py").write_text(MIRROR)
    out = subprocess.run([sys.executable, "-m", "rlm_lsp", "predict", str(tmp_path / "heap.py"), "--json",
                          "--model", str(canon_model_dir)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    rows = {r["function"]: r for r in json.loads(out.stdout)}
    for metric in ("memory", "latency"):
        assert rows["heapify"][metric] == rows["_heapify_max"][metric]


def test_the_editor_hints_mirror_functions_alike_and_explains_them_with_the_names(predictor):
    from lsprotocol import types

    from rlm_lsp.server import hints
    from rlm_lsp.server.analysis import Analyzer
    from rlm_lsp.server.settings import Settings

    analyzer = Analyzer(predictor)
    results = {r.snippet.name: r for r in analyzer.analyze("u", MIRROR, None)}
    a, b = (results[n] for n in CALLERS)
    assert values(a.predictions) == values(b.predictions)
    lines = MIRROR.splitlines(True)
    everything = types.Range(types.Position(0, 0), types.Position(1000, 0))
    [ha], [hb] = (hints.inlay_hints([r], lines, everything, Settings(), lambda line, c: c) for r in (a, b))
    assert ha.label == hb.label
    # attribution: the function and each statement left out are read with the same names
    ea, eb = analyzer.explain(a), analyzer.explain(b)
    assert ea is not None and ea.tried > 0
    assert {m: [(e.part.line, e.log_ratio) for e in es] for m, es in ea.effects.items()} == \
        {m: [(e.part.line, e.log_ratio) for e in es] for m, es in eb.effects.items()}
    base = predictor.predict([a.snippet.code], context=a.snippet.context())[0]
    assert values(base) == values(a.predictions)  # the hint's numbers are the named ones


def test_renaming_a_helper_is_no_change_and_moves_no_callers_number(predictor):
    from rlm_lsp.gate import compare, languages

    renamed = MIRROR.replace("_sift(", "_bubble_up(")
    old, new = compare.parse_functions("heap.py", MIRROR), compare.parse_functions("heap.py", renamed)
    matching = compare.match({"heap.py": old}, {"heap.py": new}, {})
    assert matching.changed == [] and [(o.qualname, n.qualname) for o, n in matching.renamed] == [("_sift", "_bubble_up")]
    # the caller's two versions as the gate predicts them: one number
    old_fn, new_fn = ({f.qualname: f for f in fns}["heapify"] for fns in (old, new))
    assert old_fn.snippet.code != new_fn.snippet.code
    got = languages.predict(predictor, [compare.FunctionChange("modified", new_fn, old_fn)], ["memory", "latency"])
    assert values(got[old_fn.snippet.code]) == values(got[new_fn.snippet.code])



def test_the_stability_bench_reads_a_caller_alone_after_its_helpers_are_renamed(predictor):
    import importlib.util
    from pathlib import Path

    bench_dir = Path(__file__).resolve().parents[1] / "bench"
    spec = importlib.util.spec_from_file_location("stability_bench", bench_dir / "stability.py")
    bench = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(bench_dir))
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(bench_dir))
    rewritten = bench.variants([MIRROR])
    [(index, (before, after))] = rewritten[bench.rewrites.CALLER_ALONE]
    assert index == 0 and before.name == "heapify" and "_sift(" not in after.code  # the caller, its helper renamed
    res = bench.moved(predictor, [MIRROR], rewritten)[bench.rewrites.CALLER_ALONE]
    assert res["programs"] == 1 and res["gate"] == 0.0
    assert res["memory"] == res["latency"] == {"1.25x": 0.0, "2x": 0.0}
    assert res["memory_growth"] == {"0.25": 0.0, "0.5": 0.0}
