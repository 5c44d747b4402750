"""The `{n}` field (issue 48): a model that reads the size its numbers are for."""

import json

import pytest

from rlm_lsp.runtime import template
from rlm_lsp.runtime.errors import InputError, ModelError
from rlm_lsp.runtime.predictor import Predictor

CODE = "def f(xs):\n    return sorted(xs)\n"


def test_n_field_is_log10_with_one_decimal_whatever_form_n_comes_in():
    assert template.n_field(10_000) == template.n_field(1e4) == template.n_field("10000.0") == "4.0"
    assert template.n_field(200_000) == "5.3"
    assert template.n_field(1) == "0.0"
    for bad in (0, -5, "ten", float("nan"), None):
        with pytest.raises(ValueError, match="n must be a number of at least 1"):
            template.n_field(bad)


def test_render_writes_n_only_where_the_template_reads_it():
    text = template.render(template.CURVE_TEMPLATE, ["memory"], "python", CODE, n=1_000_000)
    assert text.startswith("<metrics> memory <lang> python n 6.0 size 2 <code>\n")
    # a template without {n} renders as before, whatever n the caller states (even none a size has)
    plain = template.render(template.SIZED_TEMPLATE, ["memory"], "python", CODE)
    assert template.render(template.SIZED_TEMPLATE, ["memory"], "python", CODE, n="no") == plain
    assert "n" not in template.extra_fields(template.CURVE_TEMPLATE, "python")


def _n_model(model_copy, **config_changes):
    path = model_copy / "rlm_config.json"
    config = json.loads(path.read_text())
    config.update(input_template=template.CURVE_TEMPLATE, **config_changes)
    path.write_text(json.dumps(config))
    return model_copy


def test_a_model_that_reads_n_renders_its_reference_n_unless_told_one(model_copy):
    p = Predictor.from_dir(_n_model(model_copy, reference_n=10_000), samples=4)
    assert " n 4.0 size " in p.render(CODE)
    assert " n 6.0 size " in p.render(CODE, context={"n": 10 ** 6})
    assert p.render(CODE, context={"n": "1e6"}) == p.render(CODE, context={"n": 1_000_000})  # stable text
    at_reference = p.predict([CODE])[0]
    assert {pr.n for pr in at_reference.values()} == {10_000.0}
    at_million = p.predict([CODE], context={"n": 10 ** 6})[0]
    assert {pr.n for pr in at_million.values()} == {1e6}
    assert p.predict([CODE])[0]["memory"].n == 10_000.0  # the cache keeps the two apart
    with pytest.raises(InputError, match="n must be a number of at least 1"):
        p.predict([CODE], context={"n": 0})


def test_a_model_without_n_keeps_no_n(model_copy):
    p = Predictor.from_dir(model_copy, samples=2)
    assert p.config.n_for({"n": 5}) is None
    assert p.predict([CODE], context={"n": 10 ** 6})[0]["memory"].n is None


def test_a_template_with_n_needs_a_reference_n(model_copy):
    with pytest.raises(ModelError, match="reference_n: missing, and the input_template reads {n}"):
        Predictor.from_dir(_n_model(model_copy))
    with pytest.raises(ModelError, match="reference_n: expected a whole number of at least 1"):
        Predictor.from_dir(_n_model(model_copy, reference_n=0))


def test_rlm_predict_asks_a_model_that_reads_n_at_the_stated_n(model_copy, tmp_path, capsys):
    from rlm_lsp.app import cli

    model = _n_model(model_copy, reference_n=10_000)
    path = tmp_path / "prog.py"
    path.write_text(CODE)
    assert cli.main(["predict", str(path), "--model", str(model), "--n", "1000000", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)[0]
    assert row["memory"]["n"] == row["latency"]["n"] == 1e6  # its own numbers at 10⁶, not the reference's
    assert cli.main(["predict", str(path), "--model", str(model), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["memory"]["n"] == 10_000
