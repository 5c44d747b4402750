"""The editor's cost curves: the hint leads with growth then the value at the function's n, the
hover shows the curve (table, sparkline, plot) and the lines that carry the growth, and the
unsure mark is judged against the model's usual spread (rlm_lsp/server/{curves,hints,hover,unsure}.py).

Functions of known growth come from `conftest.GROWTH_CODES`, predicted by the `growth_model_dir`
fixture (the tiny model with growth trees that follow the loop nest depth, reference n = 10⁴).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from conftest import GROWTH_CODES

from rlm_lsp.runtime import growth
from rlm_lsp.runtime.lines import split_lines_keepends
from rlm_lsp.runtime.prediction import Prediction
from rlm_lsp.runtime.predictor import Predictor
from rlm_lsp.runtime.units import format_value
from rlm_lsp.server import curves, hints, hover, unsure
from rlm_lsp.server.analysis import Analyzer
from rlm_lsp.server.settings import Settings

SHIPPED = Path(__file__).resolve().parent.parent / "rlm_lsp" / "models" / "default"
# Each GROWTH_CODES function's growth class, (memory, time), as its loops say.
KNOWN = {"constant": ("~1", "~1"), "linear_sum": ("~1", "~n"), "count_pairs": ("~1", "~n²"),
         "table": ("~n²", "~n"), "triple": ("~1", "~n³")}
HINT = re.compile(r"^≈ mem (?P<mem>~[^ ?]+(?: log n)?)\?? (?P<memv>~?\S+ \S+?) · "
                  r"time (?P<time>~[^ ?]+(?: log n)?)\?? (?P<timev>~?\S+ \S+?) @ n=(?P<n>\S+)$")


@pytest.fixture(scope="module")
def predictor(growth_model_dir):
    return Predictor.from_dir(growth_model_dir)


def _analyze(predictor, text: str):
    return Analyzer(predictor).analyze("file:///x.py", text, None), split_lines_keepends(text)


def _by_name(results):
    return {r.snippet.name: r for r in results}


# -- the hint ----------------------------------------------------------------------------------


def test_hints_lead_with_each_functions_known_growth_then_the_value_at_the_reference_n(predictor):
    results, lines = _analyze(predictor, "\n\n".join(GROWTH_CODES))
    for name, r in _by_name(results).items():
        label = hints.label(r, Settings(), lines)
        m = HINT.match(label)
        assert m, label
        assert (m["mem"], m["time"]) == KNOWN[name], label
        assert m["n"] == "10⁴"  # the fixture model's reference n
        latency = r.predictions["latency"]
        assert m["timev"].strip("~?") in (format_value("ms", latency.value), format_value("ms", float(f"{latency.value:.0e}")))


def test_a_pragma_moves_the_function_along_its_curve_and_beats_the_setting(predictor):
    code = "\n".join(c for c in GROWTH_CODES if c.startswith("def count_pairs"))
    text = "# rlm: n=10**6\n" + code + "\n\ndef other(xs):\n    return sorted(xs)\n"
    results, lines = _analyze(predictor, text)
    pairs, other = _by_name(results)["count_pairs"], _by_name(results)["other"]
    at_6 = growth.at(pairs.predictions["latency"], 1e6)
    label = hints.label(pairs, Settings(), lines, unsure.UsualSpread({"latency": 30.0, "memory": 30.0}))
    assert label.endswith(f"time ~n² {format_value('ms', at_6.value)} @ n=10⁶"), label
    assert at_6.value > 1000 * pairs.predictions["latency"].value  # 100× the n, ~n²: about 10⁴×
    assert hints.label(pairs, Settings.from_dict({"n": 100}), lines).endswith("@ n=10⁶")  # the pragma wins
    assert hints.label(other, Settings(), lines).endswith("@ n=10⁴")  # only the function below it


def test_the_rlm_n_setting_then_tool_rlm_then_the_models_n(predictor):
    results, lines = _analyze(predictor, GROWTH_CODES[1])
    [r] = results
    assert hints.label(r, Settings.from_dict({"n": "1e5"}), lines).endswith("@ n=10⁵")
    assert hints.label(r, Settings.from_dict({"n": "100k"}), lines).endswith("@ n=10⁵")
    value_5 = format_value("ms", growth.at(r.predictions["latency"], 1e5).value)
    assert f"time ~n {value_5}" in hints.label(r, Settings.from_dict({"n": 1e5}), lines, unsure.UsualSpread(
        {"latency": 30.0, "memory": 30.0}))
    in_project = r.__class__(**{**r.__dict__, "project": SimpleNamespace(n=2500.0)})
    assert hints.label(in_project, Settings(), lines).endswith("@ n=2,500")  # [tool.rlm] n
    assert hints.label(in_project, Settings.from_dict({"n": 1e6}), lines).endswith("@ n=10⁶")  # the setting first
    assert hints.label(r, Settings.from_dict({"n": ""}), lines).endswith("@ n=10⁴")  # empty: the model's


def test_the_n_setting_is_parsed_and_a_bad_one_ignored(caplog):
    assert Settings.from_dict({"n": "10**6"}).n == 1e6
    assert Settings.from_dict({"rlm": {"n": 250}}).n == 250.0
    assert Settings.from_dict({"n": "lots"}).n is None
    assert "rlm.n" in caplog.text
    assert Settings.from_dict({"n": ""}, Settings.from_dict({"n": 5})).n is None


def test_a_malformed_pragma_is_named_in_the_hover_and_the_hint_keeps_its_n(predictor):
    text = "# rlm: n=lots\n" + GROWTH_CODES[1]
    results, lines = _analyze(predictor, text)
    [r] = results
    assert hints.label(r, Settings(), lines).endswith("@ n=10⁴")
    md = hover.markdown(r, Settings(), {}, "m", lines=lines)
    assert "_the `# rlm: n=` comment above it is ignored: n must be a size like 100000" in md


def test_without_growth_the_hint_and_hover_are_as_before(tiny_model_dir):
    text = "# rlm: n=10**6\n" + GROWTH_CODES[2]
    results, lines = _analyze(Predictor.from_dir(tiny_model_dir), text)
    [r] = results
    label = hints.label(r, Settings.from_dict({"n": 100}), lines)
    assert re.fullmatch(r"≈ (⚠ )?mem ~?\S+ \S+?\?? · (⚠ )?time ~?\S+ \S+?\??", label), label
    md = hover.markdown(r, Settings(), {}, "m", lines=lines)
    assert "per call, for a typical large input" in md and "| n |" not in md and "grows" not in md


# -- the hover ---------------------------------------------------------------------------------


def test_the_hover_shows_the_curve_and_the_lines_that_carry_the_growth(predictor):
    text = "import sys\n\n\n" + GROWTH_CODES[2]  # count_pairs: its loops are on lines 7-9 of the document
    results, lines = _analyze(predictor, text)
    [r] = results
    md = hover.markdown(r, Settings.from_dict({"n": "10**5"}), {}, "m", lines=lines)
    assert md.startswith("**count_pairs**: rlm's estimate per call at n = 10⁵ (the rlm.n setting)")
    assert "  - grows ~n² from the nested loop, lines 7–9 (exponent " in md
    assert "| n | 10² | 10³ | 10⁴ | 10⁵ | 10⁶ |" in md
    curve = growth.curve(r.predictions["latency"])
    assert "| run time | " + " | ".join(format_value("ms", v) for _, v in curve) + " |" in md
    spark = re.search(r"time `([▁-█]{5})` ~n²", md)
    assert spark and spark[1] == curves.sparkline([v for _, v in curve])
    plot = re.search(r"!\[cost curve[^\]]*\]\(data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)\)", md)
    assert plot and "<polyline" in base64.b64decode(plot[1]).decode()
    latency = growth.at(r.predictions["latency"], 1e5)
    assert f"**run time** ≈ {format_value('ms', latency.value)}" in md
    text_only = hover.plain(hover.markdown(r, Settings(), {}, "m", lines=lines, images=False))
    assert "data:" not in text_only and "▁" in text_only and "|---" not in text_only


def test_memory_growth_is_carried_by_the_table_it_builds(predictor):
    results, lines = _analyze(predictor, GROWTH_CODES[3])
    md = hover.markdown(results[0], Settings(), {}, "m", lines=lines)
    assert "  - grows ~n² from the n×n table, line 2 (exponent " in md
    assert "  - grows ~n from the loop, line 2 (exponent " in md  # time: one loop builds it


def test_a_flat_function_has_no_why_and_a_flat_sparkline(predictor):
    results, lines = _analyze(predictor, GROWTH_CODES[0])
    md = hover.markdown(results[0], Settings(), {}, "m", lines=lines)
    assert "  - grows" not in md and "time `▁▁▁▁▁` ~1" in md


def test_sparklines_share_one_scale_so_the_steeper_grows_faster():
    sizes = [1e2, 1e3, 1e4, 1e5, 1e6]
    lines = {k: curves.sparkline([n ** k for n in sizes]) for k in (0, 1, 2, 3)}
    assert lines[0] == "▁▁▁▁▁" and lines[3][-1] == "█"
    assert lines[1] < lines[2] < lines[3]  # bars sort by height
    assert curves.sparkline([1.0, 0.0, 2.0]) == ""  # a zero has no log: no line rather than a wrong one


# -- the unsure mark ---------------------------------------------------------------------------


def _wide(metric="latency", spread=2000.0, growth_width=None):
    low = 1.0
    g = {} if growth_width is None else {"growth": 1.0, "growth_low": 1.0 - growth_width / 2,
                                          "growth_high": 1.0 + growth_width / 2}
    return Prediction(metric, 10.0, low, low * spread, "ms", **g)


def test_the_unsure_mark_is_relative_to_the_models_recorded_usual_spread():
    fixed, usual = unsure.FIXED, unsure.UsualSpread({"latency": 3.4, "latency_growth": 0.8})
    p = _wide(spread=2000.0)  # 2000×: over the fixed 1000×, inside this model's usual 10^3.4 ≈ 2500×
    assert fixed.value_unsure("latency", p) and not usual.value_unsure("latency", p)
    assert usual.value_unsure("latency", _wide(spread=5000.0))
    g = _wide(spread=10.0, growth_width=1.0)  # growth p10–p90 1.0: under the fixed 1.5, over this model's 0.8
    assert usual.growth_unsure("latency", g) and not fixed.growth_unsure("latency", g)
    r = SimpleNamespace(predictions={"latency": g}, snippet=None)
    from rlm_lsp.server.words import hint_label

    assert hint_label(r.predictions, ["latency"], usual) == "time ~n? 10 ms"
    assert hint_label(r.predictions, ["latency"], fixed) == "time ~n 10 ms"


def test_the_usual_spread_is_read_from_the_config_and_a_bad_record_ignored():
    config = SimpleNamespace(raw={"usual_spread": {"quantile": 80, "widths": {"memory": 2.9, "latency": "x",
                                                                              "latency_growth": 0.7}}})
    assert unsure.of_config(config).widths == {"memory": 2.9, "latency_growth": 0.7}
    assert unsure.of_config(SimpleNamespace(raw={"usual_spread": [1, 2]})) == unsure.FIXED
    assert unsure.of_config(SimpleNamespace(raw={})) == unsure.FIXED
    assert unsure.of_config(object()) == unsure.FIXED


def test_the_shipped_model_records_its_usual_spread():
    record = json.loads((SHIPPED / "rlm_config.json").read_text())["usual_spread"]
    assert record["quantile"] == 80 and record["rows"] >= 500
    assert set(record["widths"]) >= {"memory", "latency"}


PLAIN = '''import json


def load(path):
    with open(path) as f:
        return json.load(f)


def total(values):
    s = 0
    for v in values:
        s += v
    return s


def mean(values):
    return sum(values) / len(values) if values else 0.0


def words(text):
    counts = {}
    for w in text.split():
        counts[w] = counts.get(w, 0) + 1
    return counts


def pairs(xs):
    out = []
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            out.append((xs[i], xs[j]))
    return out


def clamp(x, lo, hi):
    return max(lo, min(hi, x))


def top(items, k):
    return sorted(items, reverse=True)[:k]


def dedupe(xs):
    seen = set()
    out = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
'''


def test_a_plain_file_gets_few_unsure_marks_from_the_shipped_model():
    p = Predictor.from_dir(SHIPPED)
    results, lines = _analyze(p, PLAIN)
    usual = unsure.of_config(p.config)
    assert usual != unsure.FIXED
    labels = [hints.label(r, Settings(), lines, usual) for r in results]
    marks = sum(label.count("?") for label in labels)
    assert len(labels) == 8 and marks <= 4, labels  # at most a quarter of the 16 numbers


# -- the real server ---------------------------------------------------------------------------


@pytest.mark.timeout(120)
def test_the_server_gives_hints_at_the_set_n_and_the_curve_in_the_hover(growth_model_dir, tmp_path):
    from lsp_client import LspClient, file_uri

    source = "# rlm: n=10**6\n" + GROWTH_CODES[2] + "\n\n" + GROWTH_CODES[1]
    (tmp_path / "g.py").write_text(source)
    client = LspClient(settings={"modelPath": str(growth_model_dir), "debounceMs": 50, "n": "1e5"}, cwd=tmp_path)
    client.initialize(tmp_path)
    with client as c:
        uri = file_uri(tmp_path / "g.py")
        c.open(uri, source)
        labels = sorted(h["label"] for h in c.wait_hints(uri, 2))
        assert labels[0].endswith("@ n=10⁵") and " time ~n " in labels[0] + " ", labels  # linear_sum: rlm.n
        assert labels[1].endswith("@ n=10⁶") and "time ~n² " in labels[1], labels  # count_pairs: its pragma
        text = c.hover(uri, 1, 5)["contents"]["value"]
        assert "grows ~n² from the nested loop, lines 5–7" in text, text
        assert "data:image/svg+xml;base64," in text and "| n | 10² |" in text


@pytest.mark.parametrize("client_name", ["Neovim", ""])
def test_a_client_that_prints_markdown_as_text_gets_the_table_without_the_picture(
        growth_model_dir, tmp_path, client_name):
    from lsp_client import LspClient, file_uri

    source = GROWTH_CODES[2]
    (tmp_path / "g.py").write_text(source)
    client = LspClient(settings={"modelPath": str(growth_model_dir), "debounceMs": 50}, cwd=tmp_path)
    client.initialize(tmp_path, client_name=client_name)
    with client as c:
        uri = file_uri(tmp_path / "g.py")
        c.open(uri, source)
        c.wait_hints(uri, 1)
        text = c.hover(uri, 0, 5)["contents"]["value"]
        assert "| n | 10² |" in text and "data:image" not in text and "base64" not in text, text


def test_only_editors_that_draw_hover_images_get_the_picture():
    assert curves.draws_images("Visual Studio Code") and curves.draws_images("code-server")
    assert curves.draws_images("VSCodium") and not curves.draws_images("Neovim")
    assert not curves.draws_images("") and not curves.draws_images("Helix")
