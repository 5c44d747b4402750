"""Language server parts that need no process: settings, worker, analysis, features."""

from __future__ import annotations

import dataclasses
import subprocess
import threading
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

import pytest
from lsprotocol import types
from pygls.workspace import Workspace

from rlm_lsp.runtime.predictor import Prediction
from rlm_lsp.server import diagnostics, hints, hover, lens
from rlm_lsp.server.analysis import Analyzer, skip_reason, still_valid
from rlm_lsp.server.git_head import HeadSource
from rlm_lsp.server.server import DocResults, RlmServer
from rlm_lsp.server.settings import Settings, parse_quantity
from rlm_lsp.server.worker import Worker

SOURCE = """import triton


def small(n):
    return n + 1


class Box:
    def grow(self, n):
        return [0] * n


@triton.jit
def add_kernel(x_ptr, n):
    pass
"""


@dataclass
class FakePredictor:
    """Predicts len(code) bytes and len(code)/10 ms; records what it was asked."""

    metrics: tuple = ("memory", "latency")
    calls: list = field(default_factory=list)

    @property
    def config(self):
        units = {"memory": "bytes", "latency": "ms", "kernel_latency": "ms"}
        return SimpleNamespace(
            metrics=[SimpleNamespace(name=m, unit=units[m], definition=f"{m} meaning") for m in self.metrics],
            model_version="fake-1",
        )

    def predict(self, codes, language="python", metrics=None, context=None):
        self.calls.append(list(codes))
        out = []
        for code in codes:
            preds = {}
            for m in metrics or self.metrics:
                v = float(len(code)) * (1e6 if m == "memory" else 0.1)
                preds[m] = Prediction(m, v, v / 2, v * 2, "bytes" if m == "memory" else "ms")
            out.append(preds)
        return out


# --- settings ------------------------------------------------------------------------------


def test_settings_from_dict_and_fallbacks():
    s = Settings.from_dict(
        {
            "rlm": {
                "device": "cpu",
                "threads": 2,
                "debounceMs": 10,
                "metrics": {"latency": False},
                "features": {"codeLens": False},
                "budgets": {"memory": "512 MB", "latency": 20},
                "regressionRatio": 2,
            }
        }
    )
    assert (s.device, s.threads, s.debounce_ms, s.regression_ratio) == ("cpu", 2, 10, 2.0)
    assert not s.metric_enabled("latency") and s.metric_enabled("memory")
    assert not s.feature_enabled("codeLens") and s.feature_enabled("inlayHints")
    assert s.budget("memory", "bytes") == 512e6 and s.budget("latency", "ms") == 20
    # bad values keep the previous value, unknown keys are ignored
    t = Settings.from_dict({"device": "tpu", "threads": -1, "regressionRatio": 0.5, "bogus": 1}, s)
    assert (t.device, t.threads, t.regression_ratio) == ("cpu", 2, 2.0)
    assert Settings.from_dict(None, s) == s
    assert Settings.from_dict({"gpu": "H100"}).model_key() != Settings().model_key()  # a new GPU reloads


@pytest.mark.parametrize(
    "raw, unit, value",
    [
        ("512 MB", "bytes", 512e6),
        ("1.5GB", "bytes", 1.5e9),
        ("2 KiB", "bytes", 2048),
        (100, "bytes", 100.0),
        ("200 ms", "ms", 200.0),
        ("2 s", "ms", 2000.0),
        ("300us", "ms", 0.3),
        ("7", "ms", 7.0),
    ],
)
def test_parse_quantity(raw, unit, value):
    assert parse_quantity(raw, unit) == pytest.approx(value)


@pytest.mark.parametrize("raw, unit", [("512 MB", "ms"), ("2 s", "bytes"), ("lots", "ms"), (True, "ms")])
def test_parse_quantity_rejects(raw, unit):
    with pytest.raises(ValueError):
        parse_quantity(raw, unit)


# --- worker ----------------------------------------------------------------------------------


def test_worker_debounces_per_key_and_runs_calls_first():
    ran: list = []
    done = threading.Event()

    def job(key, payload):
        ran.append((key, payload))
        if len(ran) == 3:
            done.set()

    w = Worker(job)
    try:
        for v in range(10):
            w.schedule("a", v, 0.15)  # each edit restarts the delay: only the last runs
        w.schedule("b", "x", 0.05)
        w.call(lambda: ran.append(("call", None)))
        assert done.wait(5)
        assert ran == [("call", None), ("b", "x"), ("a", 9)]
        w.schedule("c", 1, 0.05)
        w.cancel("c")
        time.sleep(0.2)
        assert len(ran) == 3 and w.idle()
    finally:
        w.stop()


def test_worker_survives_a_failing_job():
    ran = threading.Event()

    def job(key, payload):
        if payload == "boom":
            raise RuntimeError("boom")
        ran.set()

    w = Worker(job)
    try:
        w.schedule("a", "boom", 0)
        w.schedule("b", "ok", 0.05)
        assert ran.wait(5)
    finally:
        w.stop()


# --- analysis --------------------------------------------------------------------------------


def test_skip_reason():
    assert skip_reason("def f():\n    pass\n") is None
    assert skip_reason("x\0y") == "binary"
    assert skip_reason("\ufffd" * 50 + "abc") == "not UTF-8"
    assert skip_reason("#" * 1_000_001) == "larger than 1 MB"
    assert skip_reason("é" * 600_000) == "larger than 1 MB"  # 1.2 MB in UTF-8


def test_only_changed_functions_are_predicted_again():
    fake = FakePredictor()
    a = Analyzer(fake)
    first = a.analyze("u", SOURCE, None)
    assert [r.snippet.qualname for r in first] == ["small", "Box.grow", "add_kernel"]
    assert a.predicted == 2  # the kernel is not sent: the model has no kernel metric
    edited = SOURCE.replace("return n + 1", "return n + 2")
    second = a.analyze("u", edited, None)
    assert a.predicted == 3 and fake.calls[-1] == [second[0].snippet.code]
    assert second[1].predictions == first[1].predictions
    a.analyze("u", edited, None)
    assert a.predicted == 3  # nothing changed: no model call at all


def test_limited_analysis_predicts_visible_functions_first():
    fake = FakePredictor()
    a = Analyzer(fake)
    partial = a.analyze("u", SOURCE, None, limit=1, visible=(8, 10))  # Box.grow's header is line 8
    assert a.pending == 1 and fake.calls == [[partial[1].snippet.code]]
    assert partial[0].predictions == {} and partial[1].predictions
    full = a.analyze("u", SOURCE, None, limit=1)
    assert a.pending == 0 and fake.calls[-1] == [full[0].snippet.code]
    assert full[0].predictions and full[1].predictions == partial[1].predictions


def test_triton_kernels_get_nothing_without_a_kernel_metric_and_a_hint_with_one():
    without = Analyzer(FakePredictor()).analyze("u", SOURCE, None)
    assert without[2].snippet.kind == "triton_kernel" and without[2].predictions == {}
    assert hints.label(without[2], Settings()) is None
    with_kernel = Analyzer(FakePredictor(metrics=("memory", "latency", "kernel_latency"))).analyze("u", SOURCE, None)
    assert list(with_kernel[2].predictions) == ["kernel_latency"]
    assert list(with_kernel[0].predictions) == ["memory", "latency"]


def test_head_states_and_regression_diagnostic():
    head = SOURCE.replace("return [0] * n", "return n")  # Box.grow changed since HEAD
    head = head.replace("def small(n):\n    return n + 1\n", "")  # small is new
    results = Analyzer(FakePredictor()).analyze("u", SOURCE, head)
    states = {r.snippet.qualname: r.head_state for r in results}
    assert states == {"small": "new", "Box.grow": "changed", "add_kernel": "same"}
    grow = results[1]
    assert grow.head["memory"].value < grow.predictions["memory"].value
    msgs = diagnostics.messages(grow, Settings(regression_ratio=1.05))
    assert [code for code, _ in msgs] == ["regression"]  # one per function, naming both metrics
    text = msgs[0][1]
    ratio = grow.predictions["memory"].value / grow.head["memory"].value
    assert "Box.grow" in text and f"{ratio:.1f}×" in text and "at HEAD" in text and "now" in text
    assert "memory" in text and "latency" in text
    assert diagnostics.messages(grow, Settings(regression_ratio=0)) == []
    assert diagnostics.messages(grow, Settings()) == []  # 1.3x is under the gate's default 2.0
    assert "HEAD" in hover.change_vs_head(grow, "memory")
    assert hover.change_vs_head(results[0], "memory") == "new since HEAD"
    assert hover.change_vs_head(results[2], "memory") == "unchanged"


def test_renamed_or_reformatted_function_is_the_same_as_head_and_never_predicted_twice():
    head = SOURCE.replace("def grow(self, n):\n        return [0] * n", "def grow(self, size):\n        return [0]*size")
    assert head != SOURCE
    fake = FakePredictor()
    results = Analyzer(fake).analyze("u", SOURCE, head)
    grow = results[1]
    assert grow.head_state == "same" and diagnostics.messages(grow, Settings(regression_ratio=1.01)) == []
    assert all("size" not in code for batch in fake.calls for code in batch)  # HEAD's version not predicted


def test_a_file_with_every_local_and_function_renamed_shows_no_regression():
    import random
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import rewrites

    head = SOURCE.replace("return n + 1", "return grow_by(n, 1)") + "\n\ndef grow_by(n, k):\n    return n + k\n"
    rng = random.Random(1)
    text = rewrites.rename_functions(rewrites.rename_locals(head, rng), rng)
    assert "grow_by" not in text and "small" not in text
    fake = FakePredictor()
    results = Analyzer(fake).analyze("u", text, head)
    assert [r.head_state for r in results] == ["same"] * 4  # matched by canonical code, as the gate does
    asked = sorted(code for call in fake.calls for code in call)  # every function asked, each with its file names (`at_n.ask_each`)
    assert asked == sorted(r.snippet.code for r in results if r.snippet.kind != "triton_kernel")  # not HEAD's
    for r in results:
        assert diagnostics.messages(r, Settings(regression_ratio=1.01)) == []


def test_pragma_and_project_ratio_are_the_gates(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.rlm]\nratio = 1.1\nmemory-budget = '1 kB'\n")
    head = SOURCE.replace("return [0] * n", "return n")
    uri = (tmp_path / "m.py").as_uri()
    grow = Analyzer(FakePredictor()).analyze(uri, SOURCE, head)[1]
    assert grow.project is not None and grow.project.ratio("memory") == 1.1
    codes = [c for c, _ in diagnostics.messages(grow, Settings())]
    assert codes == ["budget", "regression"]  # [tool.rlm]'s 1.1 and its budget apply
    allowed = SOURCE.replace("    def grow(self, n):", "    # rlm: allow-regression it must grow\n    def grow(self, n):")
    grow = Analyzer(FakePredictor()).analyze(uri, allowed, head)[1]
    assert grow.allowed == "it must grow"
    assert [c for c, _ in diagnostics.messages(grow, Settings())] == ["budget"]


def test_budget_diagnostic_states_value_budget_and_ratio():
    [r, *_] = Analyzer(FakePredictor()).analyze("u", SOURCE, None)
    memory = r.predictions["memory"].value  # len(code) MB
    msgs = diagnostics.messages(r, Settings(budgets={"memory": memory / 2}))
    assert len(msgs) == 1 and msgs[0][0] == "budget"
    assert "exceeds the budget" in msgs[0][1] and "2.0×" in msgs[0][1]
    assert diagnostics.messages(r, Settings(budgets={"memory": memory * 2})) == []
    assert diagnostics.messages(r, Settings(budgets={"memory": memory / 2}, metrics={"memory": False})) == []


def test_feature_views_follow_settings_and_validity():
    results = Analyzer(FakePredictor()).analyze("u", SOURCE, None)
    lines = SOURCE.splitlines(True)
    col = lambda line, c: c  # noqa: E731
    everything = types.Range(types.Position(0, 0), types.Position(1000, 0))
    got = hints.inlay_hints(results, lines, everything, Settings(), col)
    assert [h.label for h in got] == ["≈ mem 31 MB · time 3.1 ms", "≈ mem 38 MB · time 3.8 ms"]  # len(code) = 31, 38
    assert [(h.position.line, h.position.character) for h in got] == [(3, 13), (8, 22)]
    only_memory = hints.inlay_hints(results, lines, everything, Settings(metrics={"latency": False}), col)
    assert [h.label for h in only_memory] == ["≈ mem 31 MB", "≈ mem 38 MB"]
    assert "for a typical large input; hover" in got[0].tooltip
    told = hints.inlay_hints(results, lines, everything, Settings(), col, unsized="per call (n ≈ 10⁴)")
    assert told[0].tooltip.startswith("rlm: predicted for ") and ", per call (n ≈ 10⁴); hover" in told[0].tooltip
    assert lens.title(results[0], Settings()) == "rlm likely: mem 15.5 MB–62 MB · time 1.6 ms–6.2 ms (p10–p90)"
    md = hover.markdown(results[0], Settings(), {"memory": "memory meaning"}, "the shipped model on CPU")
    assert "per call, for a typical large input" in md and "**peak memory** ≈ 31 MB" in md
    sized = hover.markdown(results[0], Settings(), {}, "m", unsized="per call, for a typical large input (n ≈ 10⁴)")
    assert "rlm's estimate per call, for a typical large input (n ≈ 10⁴)" in sized  # `sizes.per_call`
    assert "fairly sure: likely between 15.5 MB and 62 MB (p10–p90, a 4× range)" in md
    assert "measures: memory meaning" in md and "by the shipped model on CPU" in md and "|" not in md
    # a line inserted above moves every function: cached results stop showing until re-analysed
    moved = ["\n"] + lines
    assert hints.inlay_hints(results, moved, everything, Settings(), col) == []
    assert not still_valid(results[0], moved) and still_valid(results[0], lines)
    assert hover.find(results, lines, types.Position(3, 6), col) is results[0]
    assert hover.find(results, lines, types.Position(3, 0), col) is None


def test_stale_results_are_dropped():
    server = RlmServer()
    server.protocol._workspace = Workspace(None)  # what `initialize` sets up
    fake = FakePredictor()
    server.analyzer = Analyzer(fake)
    server.versions["file:///x.py"] = 2
    server.analyze_job("file:///x.py", (1, SOURCE))  # outdated before it starts
    assert fake.calls == [] and "file:///x.py" not in server.results

    real_analyze = server.analyzer.analyze

    def analyze_while_user_types(*args, **kwargs):
        out = real_analyze(*args, **kwargs)
        server.versions["file:///x.py"] = 3  # a newer edit arrives during inference
        return out

    server.analyzer.analyze = analyze_while_user_types
    server.analyze_job("file:///x.py", (2, SOURCE))
    assert fake.calls and "file:///x.py" not in server.results
    server.analyzer.analyze = real_analyze
    server.analyze_job("file:///x.py", (3, SOURCE))
    assert isinstance(server.results["file:///x.py"], DocResults) and server.results["file:///x.py"].version == 3


# --- git HEAD ---------------------------------------------------------------------------------


def test_head_source_reads_the_committed_text(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (tmp_path / "a.py").write_text("def f():\n    return 1\n")
    git("add", "a.py")
    git("commit", "-qm", "a")
    (tmp_path / "a.py").write_text("def f():\n    return 2\n")
    head = HeadSource()
    assert head.text(str(tmp_path / "a.py")) == "def f():\n    return 1\n"
    assert head.text(str(tmp_path / "untracked.py")) is None
    assert head.text("/nonexistent/dir/x.py") is None
    (tmp_path / "a.py").write_text("def f():\n    return 3\n")
    git("commit", "-qam", "b")
    assert HeadSource().text(str(tmp_path / "a.py")) == "def f():\n    return 3\n"


def test_client_columns_count_utf16_units():
    server = RlmServer()
    server.protocol._workspace = Workspace(None, position_encoding=types.PositionEncodingKind.Utf16)
    source = 'def smile(face="😀"):\n    return face\n'
    [r] = Analyzer(FakePredictor()).analyze("u", source, None)
    lines = source.splitlines(True)
    col = server.client_col(lines)
    everything = types.Range(types.Position(0, 0), types.Position(9, 0))
    [hint] = hints.inlay_hints([r], lines, everything, Settings(), col)
    assert r.snippet.header_end_col == 20 and hint.position.character == 21  # the emoji is 2 UTF-16 units


def test_hover_says_when_the_model_read_only_the_start_of_a_long_function():
    @dataclass
    class Limited(FakePredictor):
        limit: int = 4

        @property
        def config(self):
            return SimpleNamespace(**vars(super().config), max_input_tokens=self.limit)

        def read_limit(self, code, language="python"):  # a "token" per word, as Predictor.read_limit
            n = len(code.split())
            return (self.limit, n) if n > self.limit else None

    results = Analyzer(Limited()).analyze("u", SOURCE, None)
    long_one = max(results, key=lambda r: len(r.snippet.code.split()))
    n = len(long_one.snippet.code.split())
    assert n > 4
    note = hover.reading_note(long_one, Limited())
    assert note == (f"_Only part of this function was read: 4 of its {n} tokens, from its start "
                    "and its end; the middle is not in the prediction._")
    md = hover.markdown(long_one, Settings(), {}, "fake-1", note=note)
    assert md.rstrip().endswith(note)
    assert hover.reading_note(long_one, Limited(limit=10_000)) == ""
    assert hover.reading_note(long_one, FakePredictor()) == ""  # no tokenizer: no note, no error


def test_hover_does_not_tokenize_again_when_the_prediction_counted_its_input():
    from rlm_lsp.runtime.prediction import Prediction

    class Counting(FakePredictor):
        calls = 0

        def read_limit(self, code, language="python"):
            Counting.calls += 1
            return (4, 9)

    [r, *_] = Analyzer(FakePredictor()).analyze("u", SOURCE, None)
    whole = {"memory": Prediction("memory", 1.0, 0.5, 2.0, "bytes", tokens=120)}
    assert hover.reading_note(dataclasses.replace(r, predictions=whole), Counting()) == ""
    assert Counting.calls == 0
    cut = {"memory": Prediction("memory", 1.0, 0.5, 2.0, "bytes", tokens=900, truncated=True)}
    assert "4 of its 9 tokens" in hover.reading_note(dataclasses.replace(r, predictions=cut), Counting())
    assert Counting.calls == 1


def test_words_label_each_number_flag_large_and_mark_unsure_ones():
    from rlm_lsp.server import words

    small = Prediction("memory", 1100.0, 1000.0, 1300.0, "bytes")
    big = Prediction("memory", 250e6, 100e6, 400e6, "bytes")
    wide = Prediction("latency", 0.0192, 0.0001, 0.5, "ms")  # p10–p90 spans 5000×
    assert words.short("memory", small) == "mem 1.1 kB"
    assert words.short("memory", big) == "⚠ mem 250 MB"
    assert words.short("latency", wide) == "time ~20 µs?"
    assert words.hint_label({"memory": small, "latency": wide}, ["memory", "latency"]) == "mem 1.1 kB · time ~20 µs?"
    assert words.hint_label({"memory": small}, []) is None
    assert words.sureness(small).startswith("fairly sure")
    assert words.sureness(Prediction("memory", 5e3, 1e3, 3e5, "bytes")).startswith("unsure: likely between 1 kB and 300 kB")
    assert words.sureness(wide).startswith("very unsure") and "5000× range" in words.sureness(wide)
    assert words.model_words("python-v3-small-2026+triton", "", "cpu") == "the shipped model on CPU"
    assert words.model_words("x", "/models/my-model/", "cuda") == "model in my-model on GPU"


def test_one_line_def_gets_its_hint_at_the_end_of_the_line():
    source = "def f(x): return [x] * 3\n\n\ndef g(x):\n    return x\n"
    results = Analyzer(FakePredictor()).analyze("u", source, None)
    lines = source.splitlines(True)
    everything = types.Range(types.Position(0, 0), types.Position(100, 0))
    got = hints.inlay_hints(results, lines, everything, Settings(), lambda line, c: c)
    assert [(h.position.line, h.position.character) for h in got] == [(0, 24), (3, 9)]


def test_opt_out_comment_and_exclude_globs():
    assert skip_reason("# rlm: skip-file\ndef f():\n    pass\n") == "the file says `# rlm: skip-file`"
    assert skip_reason("x = '# rlm: skip-file'\n") is None  # only a comment line counts
    s = Settings.from_dict({"exclude": ["**/tests/**", "gen_*.py", "build/"]})
    assert s.excluded("/w/tests/a.py", "/w") == "**/tests/**"
    assert s.excluded("/w/src/gen_x.py", "/w") == "gen_*.py"
    assert s.excluded("/w/build/a/b.py", "/w") == "build/"
    assert s.excluded("/w/src/a.py", "/w") is None
    assert Settings.from_dict({"exclude": "x.py"}).exclude == ("x.py",)
    assert Settings.from_dict({"exclude": 3}).exclude == ()  # a bad value falls back to the default


def test_new_settings_parse_and_lens_is_off_by_default():
    assert not Settings().feature_enabled("codeLens") and Settings().feature_enabled("inlayHints")
    assert Settings.from_dict({"features": {"codeLens": True}}).feature_enabled("codeLens")
    s = Settings.from_dict({"logLevel": "INFO", "showNotifications": "onerror", "settleMs": 10})
    assert (s.log_level, s.show_notifications, s.settle_ms) == ("info", "onError", 10)
    assert Settings.from_dict({"logLevel": "loud"}).log_level == ""  # the command line's stands


def test_plain_hover_keeps_names_and_drops_markup():
    md = "**make_table**: rlm's estimate\n\n- **peak memory** ≈ 1 kB\n\n_Predicted by `m`._\n"
    assert hover.plain(md) == "make_table: rlm's estimate\n\n- peak memory ≈ 1 kB\n\nPredicted by m.\n"


def test_folder_settings_follow_the_document():
    server = RlmServer()
    server.folder_settings = {"file:///w/a": Settings(debounce_ms=1), "file:///w/ab": Settings(debounce_ms=2)}
    assert server.settings_for("file:///w/a/x.py").debounce_ms == 1
    assert server.settings_for("file:///w/ab/x.py").debounce_ms == 2
    assert server.settings_for("file:///elsewhere/x.py") is server.settings


def test_a_new_regression_warning_waits_until_the_edit_settles():
    server = RlmServer()
    server.protocol._workspace = Workspace(None)
    published = []
    server.text_document_publish_diagnostics = lambda params: published.append(params.diagnostics)
    later = []
    server.bridge.later = lambda delay, fn: later.append((delay, fn))
    old = Analyzer(FakePredictor()).analyze("u", "def f(n):\n    return n\n", None)[0]
    grown = FakePredictor().predict(["x" * 400])[0]
    r = dataclasses.replace(old, head_state="changed", head=old.predictions, predictions=grown)
    res = DocResults(1, (r,), ("def f(n):\n", "    return n\n"))
    server.versions["u"], server.results["u"] = 1, res
    server.settings = Settings(regression_ratio=1.5, settle_ms=700)
    assert server._publish("u", res, settled=False) and published[-1] == []  # held back
    server._settle("u", res)
    [d] = published[-1]
    assert d.code == "regression" and "memory" in d.message and "latency" in d.message  # one, naming both
    assert not server._publish("u", res, settled=False) and len(published[-1]) == 1  # already out: stays


def test_server_package_is_split_by_stage_and_ships_no_test_client():
    """#26: no file of rlm_lsp/server/ over about 400 lines; the test client lives in tests/."""
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "rlm_lsp" / "server"
    long = {p.name: n for p in folder.glob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert not long, long
    assert not (folder / "client.py").exists()
