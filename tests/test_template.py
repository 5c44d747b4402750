"""The input template: fixed fields, caller context, and fields derived from the code."""

import pytest

from rlm_lsp import template


def test_plain_template_renders_metrics_language_code():
    text = template.render(template.DEFAULT_TEMPLATE, ["memory", "latency"], "python", "x = 1\n")
    assert text == "<metrics> memory latency <lang> python <code>\nx = 1\n"


@pytest.mark.parametrize("lines, bucket", [(0, "0"), (1, "0"), (2, "2"), (10, "7"), (100, "13"), (1000, "20")])
def test_size_bucket_is_twice_log2_of_nonblank_lines(lines, bucket):
    code = "".join(f"x{i} = {i}\n\n" for i in range(lines))  # blank lines do not count
    assert template.size_bucket(code) == bucket


def test_sized_template_fills_size_from_the_code():
    code = "".join(f"x{i} = {i}\n" for i in range(10))
    text = template.render(template.SIZED_TEMPLATE, ["memory"], "python", code)
    assert text.startswith("<metrics> memory <lang> python size 7 <code>\n")
    assert text.endswith(code)


def test_derived_fields_are_not_asked_of_callers():
    assert template.extra_fields(template.SIZED_TEMPLATE) == []
    assert template.extra_fields("<gpu> {gpu} size {size} {code}") == ["gpu"]


def test_context_overrides_and_fills_extra_fields():
    text = template.render("{gpu} {size} {code}", [], "triton", "a\nb\n", gpu="A100", size="9")
    assert text == "A100 9 a\nb\n"
