"""`bench/curve.py` times the cost curve of each model family through the runtime: the
prediction, and the hover's values at n = 10² … 10⁶ (a model reading n asked at each size; a model
with growth moving its value along it), beside the shipped default."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from test_n_surfaces import _reading_n  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("curve_bench", ROOT / "bench" / "curve.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    return bench


def test_the_curve_bench_times_each_family_and_says_how_it_gives_its_curve(tiny_model_dir, growth_model_dir,
                                                                              tmp_path, monkeypatch):
    bench = _bench()
    reads_n = _reading_n(tiny_model_dir, tmp_path / "n")
    monkeypatch.setattr(bench, "TOKENS", 40)  # the tiny models read 256 tokens at most
    dirs = {"shipped default": tiny_model_dir, "trees": growth_model_dir, "reads n": reads_n}
    from rlm_lsp.runtime import at_n

    asked = []
    real_curve = at_n.curve
    monkeypatch.setattr(at_n, "curve", lambda model, code, sizes, *a, **k: asked.append(tuple(sizes))
                        or real_curve(model, code, sizes, *a, **k))
    res = bench.measure(dirs, repeats=2, samples=2)
    assert res["shipped default"]["family"] == "no growth"
    assert res["trees"]["family"] == "growth trees"
    assert res["reads n"]["family"].startswith("reads n")
    for r in res.values():
        assert 0 < r["prediction"] <= r["whole"] and r["mb"] > 0 and r["tokens"] >= 40
    # only the model that reads n is asked at the table's five sizes (warm-up and two functions)
    assert asked == [bench.SIZES] * 3
    text = bench.markdown(res, ["x"], 2, 2)
    assert text.count("\n| ") == 4  # the header and one row a model
    assert "| trees | growth trees |" in text and "30 ms p50" in text and "Within the budget: " in text


def test_a_p10s_copy_for_timing_reads_the_same_graphs_in_the_other_format(tiny_model_dir, tmp_path):
    import json

    from rlm_lsp.runtime import numbers
    from rlm_lsp.runtime.predictor import Predictor

    copy = _bench().as_p10s(tiny_model_dir, 2, tmp_path / "copy")
    config = json.loads((copy / "rlm_config.json").read_text())
    assert config["number_format"]["kind"] == "P10S" and config["model_version"].endswith("timing-only")
    assert (copy / "decoder_model.onnx").read_bytes() == (tiny_model_dir / "decoder_model.onnx").read_bytes()
    p = Predictor.from_dir(copy, samples=2)
    assert p.config.number_format == numbers.P10S and p.predict(["def f(x):\n    return x\n"])[0]
