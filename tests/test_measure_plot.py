"""`rlm measure` shows the shipped model's prediction beside each measured curve (issue 62, "a plot of
the measured curve, the prediction's curve beside it"): in the table, in --json and in --plot.

No test here runs bubblewrap: the curves are built by hand (`run.Curve`), and the command's
measuring step is replaced where the command itself is run.
"""

from __future__ import annotations

import json
import sys

import pytest

from rlm_lsp.app import cli, cli_measure
from rlm_lsp.measure import inputs, report, run, sandbox
from rlm_lsp.runtime.errors import ModelError

SOURCE = '''def total(xs):
    s = 0
    for x in xs:
        s += x
    return s
'''
SIZES = (16, 64, 256, 1024)


def _curve(path, function="total", line=1) -> run.Curve:
    rungs = tuple(run.Rung(n, n * 1e-7, 112, 1.0, 0.1) for n in SIZES)
    growth = {"time": run.Growth(1.0, "n", 1.0), "memory": run.Growth(0.0, "1", 1.0)}
    return run.Curve(str(path), inputs.Plan(function, line, inputs="xs: list of ints"), "measured", "", rungs,
                     "max n (1024)", growth, 1.5)


# One function's `rlm predict --n N --json` rows at each size: memory moved along its growth, latency
# with no growth and no n (the shipped model's shape of output).
ROWS = [{"function": "total", "line": 1, "kind": "function",
         "memory": {"value": 100.0 * (n / 16) ** 0.5, "unit": "bytes", "n": float(n), "growth": 0.5,
                    "growth_low": 0.4, "growth_high": 0.6},
         "latency": {"value": 2.0, "unit": "ms"}} for n in SIZES]


def test_the_rows_at_each_n_become_a_curve_and_a_metric_without_growth_keeps_one_value():
    p = cli_measure.predicted(ROWS)
    assert p["memory"].values == pytest.approx([100.0, 200.0, 400.0, 800.0])
    assert (p["memory"].growth_class, p["memory"].label, p["memory"].exponent) == ("log n", "~log n", 0.5)
    assert p["time"].values == () and p["time"].value == pytest.approx(2e-3)  # ms -> s, as the measured time
    assert p["time"].label is None and p["time"].metric == "latency"
    table = report.format_curve(_curve("f.py"), p)
    assert "predicted memory" in table.splitlines()[1] and "800 B" in table.splitlines()[-4]
    assert "predicted ~log n (exponent 0.50)" in table
    assert "predicted 2 ms per call, no growth (for a typical large input)" in table


def test_the_prediction_is_the_one_rlm_predict_gives_at_each_n(tmp_path, capsys):
    path = tmp_path / "f.py"
    path.write_text(SOURCE)
    p = cli_measure.Predictions().of(path, _curve(path))
    assert cli.main(["predict", str(path), "--n", "1024", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    for measured, metric in (("memory", "memory"), ("time", "latency")):
        scale = 1e-3 if row[metric]["unit"] == "ms" else 1.0
        if "n" in row[metric]:  # a metric with growth: its value at the largest size, 1024
            assert p[measured].values[-1] == pytest.approx(row[metric]["value"] * scale)
        else:
            assert p[measured].values == () and p[measured].value == pytest.approx(row[metric]["value"] * scale)


def test_a_model_that_cannot_be_loaded_is_one_line_and_the_curves_still_print(tmp_path, monkeypatch, capsys):
    path = tmp_path / "f.py"
    path.write_text(SOURCE)

    def missing():
        raise ModelError("no shipped default model")

    _fake_measuring(monkeypatch)
    from rlm_lsp.runtime.predictor import Predictor
    monkeypatch.setattr(Predictor, "default", staticmethod(missing))
    assert cli_measure.main([str(path)]) == 0
    out, err = capsys.readouterr()
    assert "total(xs: list of ints)  measured" in out and "predicted" not in out
    assert err.strip().splitlines() == ["rlm measure: no prediction beside the measured curves: "
                                        "ModelError: no shipped default model"]


def _fake_measuring(monkeypatch):
    """bubblewrap "present", and each function "measured" to the hand-made curve: no sandbox runs."""
    monkeypatch.setattr(sandbox, "unavailable", lambda: None)
    monkeypatch.setattr(run, "measure", lambda path, source, plan, setup: _curve(path, plan.function, plan.line))
    monkeypatch.setattr(cli_measure, "_keep", lambda *a: None)


def test_json_gives_the_prediction_beside_the_measured_figures(tmp_path, monkeypatch, capsys):
    path = tmp_path / "f.py"
    path.write_text(SOURCE)
    _fake_measuring(monkeypatch)
    assert cli_measure.main([str(path), "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["sizes"] == list(SIZES) and row["memory"]["class"] == "1"  # the measured figures stay
    for measured, metric in (("memory", "memory"), ("time", "latency")):
        p = row["predicted"][measured]
        assert p["metric"] == metric
        if p["values"] is not None:  # with growth: a value at each measured n, and its class
            assert len(p["values"]) == len(SIZES) and p["class"] is not None and p["exponent"] is not None
        else:  # without: its one value
            assert p["value"] > 0 and p["class"] is None


def test_without_matplotlib_the_plot_is_one_line_and_nothing_is_drawn(tmp_path, monkeypatch, capsys):
    path = tmp_path / "f.py"
    path.write_text(SOURCE)
    _fake_measuring(monkeypatch)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    png = tmp_path / "curve.png"
    assert report.plot([_curve(path)], png, [cli_measure.predicted(ROWS)]) is not None
    assert cli_measure.main([str(path), "--plot", str(png)]) == 0
    out, err = capsys.readouterr()
    assert "total(xs: list of ints)  measured" in out
    assert err.strip().splitlines() == ["rlm measure: matplotlib is not installed (pip install matplotlib): "
                                        "no plot drawn"]
    assert not png.exists()


def test_the_plot_draws_the_prediction_dashed_in_its_curves_colour(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed: --plot draws nothing without it")
    import matplotlib.pyplot as plt

    figures, close = [], plt.close
    monkeypatch.setattr(plt, "close", figures.append)  # keep the figure to look at
    png = tmp_path / "curve.png"
    curves = [_curve("f.py"), _curve("f.py", "other", 9)]
    assert report.plot(curves, png, [cli_measure.predicted(ROWS), None]) is None
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (fig,) = figures
    time_ax, memory_ax = fig.axes
    lines = {line.get_label(): line for line in memory_ax.get_lines()}
    measured, guess = lines["total  measured ~1"], lines["total  predicted ~log n"]
    assert guess.get_linestyle() == "--" and measured.get_linestyle() == "-"
    assert guess.get_color() == measured.get_color()
    assert list(guess.get_xdata()) == list(SIZES)
    assert list(guess.get_ydata()) == pytest.approx([100.0, 200.0, 400.0, 800.0])
    assert not any("other  predicted" in label for label in lines)  # no prediction: none drawn
    # latency has no growth: no dashed line for time, and the legend says why
    assert not any(line.get_linestyle() == "--" for line in time_ax.get_lines())
    legend = [t.get_text() for t in time_ax.get_legend().get_texts()]
    assert any(t.startswith("predicted time: not drawn") and "no growth" in t for t in legend)
    close(fig)
