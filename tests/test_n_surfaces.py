"""Every surface asks a model that reads n (its template's `{n}`, issue 48) at the stated n: the
editor's hint and hover (`# rlm: n=`, `rlm.n`, `[tool.rlm]`), `rlm predict --jsonl` rows, the gate's
`[tool.rlm] n`; a model without `{n}` behaves as before (`rlm_lsp.runtime.at_n`).

"Asked at n" is checked against the model itself: the surface's number equals
`Predictor.predict([code], context={"n": n})`, and differs from the number at the reference n (or
from it moved along the growth), so a surface that still moved or ignored n fails.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
from pathlib import Path

import pytest
from conftest import GROWTH_CODES, write_growth_trees

from rlm_lsp.app.cli_jsonl import score_jsonl
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.runtime import at_n, growth, template
from rlm_lsp.runtime.lines import split_lines_keepends
from rlm_lsp.runtime.model import FUNCTION, Router
from rlm_lsp.runtime.predictor import Predictor
from rlm_lsp.runtime.units import format_value
from rlm_lsp.server import curves, hints, hover, unsure
from rlm_lsp.server.analysis import Analyzer
from rlm_lsp.server.drivers import Explainer
from rlm_lsp.server.settings import Settings

PAIRS = GROWTH_CODES[2]  # count_pairs: ~n² time by the growth trees
OTHER = "def other(xs):\n    return sorted(xs)\n"
REFERENCE = 10_000
SURE = unsure.UsualSpread({"latency": 30.0, "memory": 30.0})  # no `?`: the tiny model's spread is wide


def _reading_n(source: Path, dest: Path, with_growth: bool = False) -> Path:
    shutil.copytree(source, dest)
    if with_growth:
        write_growth_trees(dest)
    path = dest / "rlm_config.json"
    config = json.loads(path.read_text())
    config.update(input_template=template.CURVE_TEMPLATE, reference_n=REFERENCE)
    path.write_text(json.dumps(config))
    return dest


@pytest.fixture(scope="module")
def n_model(tiny_model_dir, tmp_path_factory):
    """The tiny model reading n, without growth."""
    return Predictor.from_dir(_reading_n(tiny_model_dir, tmp_path_factory.mktemp("n") / "model"))


@pytest.fixture(scope="module")
def n_growth_model(tiny_model_dir, tmp_path_factory):
    """The tiny model reading n, with growth trees (`~n²` for count_pairs)."""
    return Predictor.from_dir(_reading_n(tiny_model_dir, tmp_path_factory.mktemp("ng") / "model", True))


def _at(model, code: str, n: float | None, metric: str = "latency"):
    """The model's own prediction of `code` at n (None: its reference n), asked directly."""
    return model.predict([code], context=None if n is None else {"n": n})[0][metric]


# -- the runtime ---------------------------------------------------------------------------------


def test_the_stated_n_reaches_the_input_text_only_of_a_model_that_reads_n(n_model, tiny_model_dir):
    plain = Predictor.from_dir(tiny_model_dir, samples=4)
    assert at_n.reads_n(n_model) and n_model.config.reads_n and not at_n.reads_n(plain)
    assert at_n.reads_n(Router({FUNCTION: n_model}))
    context = at_n.context_at(n_model, 1e6, {"shape": "stdin"})
    assert context == {"shape": "stdin", "n": 1e6} and " n 6.0 size " in n_model.render(OTHER, context=context)
    assert at_n.context_at(n_model, None) is None  # no n stated: the model's reference n
    assert at_n.context_at(plain, 1e6) is None and at_n.context_at(plain, 1e6, {"shape": "x"}) == {"shape": "x"}


def test_codes_with_their_own_file_names_are_asked_in_one_batch(n_model, monkeypatch):
    runs = []
    original = n_model._run
    monkeypatch.setattr(n_model, "_run", lambda items: runs.append(len(items)) or original(items))
    codes = [PAIRS.replace("c = 0", "c = %d" % k) for k in (5, 6, 7)]  # asked nowhere else
    contexts = [{"outside": "f0 f1"}, {"outside": "f2"}, None]          # every function its own names
    got = at_n.ask_each(Router({FUNCTION: n_model}), codes, contexts, n=1e4)
    assert runs == [3]  # one batch, not one per distinct context
    monkeypatch.undo()
    for code, context, result in zip(codes, contexts, got):
        assert result == n_model.predict([code], context={**(context or {}), "n": 1e4})[0]


def test_a_model_of_one_context_is_asked_once_per_distinct_context():
    from rlm_lsp.runtime.model import once_per_context

    calls = []

    class OneContext:  # the kernel and network models take one mapping for every code
        def predict(self, codes, language="python", metrics=None, context=None):
            assert context is None or isinstance(context, dict)
            calls.append(list(codes))
            return [{"latency": (code, context)} for code in codes]

    contexts = [{"gpu": "a"}, None, {"gpu": "a"}]
    got = once_per_context(OneContext(), ["k0", "k1", "k2"], "python", None, contexts)
    assert got == [{"latency": ("k0", {"gpu": "a"})}, {"latency": ("k1", None)}, {"latency": ("k2", {"gpu": "a"})}]
    assert sorted(len(c) for c in calls) == [1, 2]


def test_the_curve_is_the_model_asked_at_each_size_in_one_batch(n_model, tiny_model_dir, monkeypatch):
    sizes = (100, 1e4, 1e6)
    runs = []
    original = n_model._run
    monkeypatch.setattr(n_model, "_run", lambda items: runs.append(len(items)) or original(items))
    code = PAIRS.replace("c = 0", "c = 1")  # asked nowhere else: not in the Predictor's cache
    asked = at_n.curve(n_model, code, sizes)
    assert runs == [3]  # one batch: the code at three sizes
    monkeypatch.undo()
    for metric in ("memory", "latency"):
        assert asked[metric] == [(n, _at(n_model, code, n, metric).value) for n in sizes]
    assert any(len({v for _, v in c}) > 1 for c in asked.values())  # the sizes read differently
    assert at_n.cached_curve(n_model, code, sizes) == asked
    assert at_n.cached_curve(n_model, PAIRS.replace("c = 0", "c = 2"), sizes) is None
    assert at_n.curve(Predictor.from_dir(tiny_model_dir, samples=4), PAIRS, sizes) == {}  # no {n}: its growth's


# -- the editor ----------------------------------------------------------------------------------


def _analyze(model, text: str, n: float | None = None):
    return Analyzer(model).analyze("file:///x.py", text, None, n=n), split_lines_keepends(text)


def _by_name(results):
    return {r.snippet.name: r for r in results}


def test_the_hint_is_the_model_asked_at_the_functions_n(n_growth_model):
    text = "# rlm: n=10**6\n" + PAIRS + "\n\n" + OTHER
    results, lines = _analyze(n_growth_model, text, n=1e5)
    pairs, other = _by_name(results)["count_pairs"], _by_name(results)["other"]
    at_6, at_5 = _at(n_growth_model, PAIRS, 1e6), _at(n_growth_model, OTHER, 1e5)
    assert pairs.predictions["latency"].n == 1e6 and pairs.predictions["latency"].value == at_6.value
    moved = growth.at(_at(n_growth_model, PAIRS, None), 1e6)  # what moving along the growth gives
    assert format_value("ms", moved.value) != format_value("ms", at_6.value)
    label = hints.label(pairs, Settings.from_dict({"n": 1e5}), lines, SURE)
    assert label.endswith(f"time ~n² {format_value('ms', at_6.value)} @ n=10⁶"), label  # the pragma's n
    label = hints.label(other, Settings.from_dict({"n": 1e5}), lines, SURE)
    assert f" {format_value('ms', at_5.value)} @ n=10⁵" in label, label  # the rlm.n setting's
    assert other.predictions["latency"].value == at_5.value
    results, lines = _analyze(n_growth_model, OTHER)  # nothing stated: the reference n
    [r] = results
    assert r.predictions["latency"].value == _at(n_growth_model, OTHER, None).value
    assert hints.label(r, Settings(), lines).endswith("@ n=10⁴")


def test_tool_rlm_n_asks_too_and_the_head_version_is_asked_at_the_same_n(n_model, monkeypatch):
    from types import SimpleNamespace

    from rlm_lsp.server import analysis

    monkeypatch.setattr(analysis, "project_rules", lambda uri: SimpleNamespace(n=100.0))
    old = OTHER.replace("sorted(xs)", "sorted(xs)[::-1]")
    [r] = Analyzer(n_model).analyze("file:///x.py", OTHER, old)
    assert r.head_state == "changed"
    assert r.predictions["memory"].value == _at(n_model, OTHER, 100, "memory").value
    assert r.head["memory"].n == 100.0 and r.head["memory"].value == _at(n_model, old, 100, "memory").value
    label = hints.label(r, Settings(), split_lines_keepends(OTHER), SURE)
    assert label.endswith(f"time {format_value('ms', _at(n_model, OTHER, 100).value)} @ n=10²"), label


def test_the_hover_shows_the_models_own_value_and_curve(n_model):
    text = "# rlm: n=10**6\n" + PAIRS
    results, lines = _analyze(n_model, text)
    [r] = results
    analyzer = SimpleAnalyzer(n_model)
    curve = asyncio.run(Explainer(wait_s=60).curve(analyzer, r))
    assert curve == {m: [(n, _at(n_model, PAIRS, n, m).value) for n in curves.SIZES] for m in ("memory", "latency")}
    md = hover.markdown(r, Settings(), {}, "m", lines=lines, curve=curve)
    assert md.startswith("**count_pairs**: rlm's estimate per call at n = 10⁶ (its `# rlm: n=` comment)"), md
    assert f"**run time** ≈ {format_value('ms', _at(n_model, PAIRS, 1e6).value)}" in md
    assert "| run time | " + " | ".join(format_value("ms", v) for _, v in curve["latency"]) + " |" in md
    assert "| n | 10² | 10³ | 10⁴ | 10⁵ | 10⁶ |" in md
    assert "  - grows" not in md and "` ~" not in md  # no growth predicted: no class, no line
    pending = hover.markdown(r, Settings(), {}, "m", lines=lines, curve=hover.PENDING_CURVE)
    assert "| n |" not in pending and hover.CURVE_WORKING in pending


def test_a_model_without_n_is_moved_along_its_growth_as_before(growth_model_dir):
    model = Predictor.from_dir(growth_model_dir, samples=4)
    text = "# rlm: n=10**6\n" + PAIRS
    results, lines = _analyze(model, text, n=1e5)
    [r] = results
    assert r.predictions["latency"].n == REFERENCE  # predicted at its reference n, never asked at another
    assert r.predictions == _analyze(model, text)[0][0].predictions
    moved = growth.at(r.predictions["latency"], 1e6)
    assert hints.label(r, Settings(), lines, SURE).endswith(f"time ~n² {format_value('ms', moved.value)} @ n=10⁶")
    assert asyncio.run(Explainer().curve(SimpleAnalyzer(model), r)) is None
    md = hover.markdown(r, Settings(), {}, "m", lines=lines, curve=None)
    assert "| run time | " + " | ".join(format_value("ms", v) for _, v in growth.curve(moved)) + " |" in md


class SimpleAnalyzer:
    """What `Explainer.curve` reads of an Analyzer."""

    def __init__(self, predictor):
        self.predictor = predictor


# -- rlm predict --jsonl -------------------------------------------------------------------------


def _jsonl(model, rows) -> list[dict]:
    out = io.StringIO()
    score_jsonl(model, [json.dumps(r) for r in rows], out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_jsonl_rows_with_n_or_input_bytes_ask_a_model_that_reads_n_there(n_model):
    rows = _jsonl(n_model, [{"id": 1, "code": PAIRS, "n": "10**6"}, {"id": 2, "code": PAIRS},
                            {"id": 3, "code": OTHER, "input_bytes": 100}, {"id": 4, "code": OTHER, "n": 1e6}])
    by_id = {r["id"]: r for r in rows}
    for i, code, n in ((1, PAIRS, 1e6), (2, PAIRS, None), (3, OTHER, 100), (4, OTHER, 1e6)):
        p = _at(n_model, code, n, "memory")
        assert by_id[i]["memory"]["value"] == p.value and by_id[i]["memory"]["n"] == (n or REFERENCE), by_id[i]
    assert by_id[1]["memory"]["value"] != by_id[2]["memory"]["value"]


def test_jsonl_rows_of_a_model_without_n_are_as_before(tiny_model_dir, growth_model_dir):
    plain = Predictor.from_dir(tiny_model_dir, samples=4)
    with_n, without = _jsonl(plain, [{"id": 1, "code": PAIRS, "n": 1e6}, {"id": 1, "code": PAIRS}])
    assert with_n == without and "n" not in with_n["memory"]  # no growth, no {n}: n ignored
    grows = Predictor.from_dir(growth_model_dir, samples=4)
    [row] = _jsonl(grows, [{"id": 1, "code": PAIRS, "n": 1e6}])
    assert row["latency"]["value"] == growth.at(_at(grows, PAIRS, None), 1e6).value and row["latency"]["n"] == 1e6


# -- the gate ------------------------------------------------------------------------------------


def _gate_predictions(model, n: float | None) -> dict:
    from rlm_lsp.gate.gate import FileVersions, evaluate
    from rlm_lsp.gate.report import GateResult

    config = GateConfig(default_ratio=1e9, n=n)
    old = OTHER.replace("sorted(xs)", "sorted(xs)[::-1]")
    versions = [FileVersions("mod.py", "mod.py", old.encode(), OTHER.encode())]
    result = evaluate(versions, config, lambda: model, GateResult(config, "HEAD", "index"))
    assert result.error is None, result.error
    return {code: result.predictions[code] for code in (old, OTHER)}


def test_the_gate_asks_a_model_that_reads_n_at_tool_rlm_n_both_versions_alike(n_model, tiny_model_dir):
    at_6 = _gate_predictions(n_model, 1e6)
    for code, predictions in at_6.items():
        assert predictions["memory"].n == 1e6 and predictions["memory"].value == _at(n_model, code, 1e6, "memory").value
    at_reference = _gate_predictions(n_model, None)
    assert {p["memory"].n for p in at_reference.values()} == {REFERENCE}
    plain = Predictor.from_dir(tiny_model_dir, samples=4)  # no {n}: [tool.rlm] n changes nothing
    assert _gate_predictions(plain, 1e6) == _gate_predictions(plain, None)


def test_which_statement_drives_it_is_asked_at_the_n_the_value_is_shown_at(n_model):
    """The hover's "mostly from line N": every statement-left-out variant asked at the function's n
    (its `# rlm: n=` here), the n its value is shown at, not at the reference n."""
    from rlm_lsp.python import leave_out

    analyzer = Analyzer(n_model)
    [r] = analyzer.analyze("file:///w.py", "# rlm: n=10**6\n" + PAIRS, None)
    assert r.predictions["latency"].n == 1e6
    found = analyzer.explain(r)
    variants = [code for _, code in leave_out.leave_each_out(r.snippet.code).items]
    assert variants and all(n_model.cached(c, "python", {"n": 1e6}) is not None for c in variants)
    assert not any(n_model.cached(c, "python") is not None for c in variants)  # none at the reference n
    assert found is analyzer.drivers.cached(r.snippet.code, "python", 1e6, r.snippet.context())
