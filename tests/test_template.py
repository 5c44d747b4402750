"""The input template: fixed fields, caller context, and fields derived from the code."""

import pytest

from rlm_lsp.runtime import template


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


def test_census_counts_loops_depth_and_costly_builtins():
    from rlm_lsp.python.code_census import code_census as census  # the template field is {census}

    code = "def f(n):\n    a = [[0] * n for _ in range(n)]\n    a.sort()\n    return a\n"
    assert census(code) == "loop 1 depth 1 comp 1 call 2 list* 1 nested 2 sort 1"
    assert census("def f(n):\n    return f(n - 1) if n else 0\n") == "call 1 recursive 1"
    assert census("def broken(:\n    x = sorted(y)\n") == "noparse 1 sort 1"  # markers still read
    assert census("") == "none"
    deep = "".join("    " * i + f"for i{i} in r:\n" for i in range(60)) + "    " * 60 + "pass\n"
    assert "depth 60" in census(deep)  # nested deeper than any real program; no RecursionError


def test_census_template_derives_its_line():
    text = template.render(template.CENSUS_TEMPLATE, ["memory"], "python", "x = sorted(y)\n")
    assert text.startswith("<metrics> memory <lang> python size 0 call 1 sort 1 <code>\n")
    assert template.extra_fields(template.CENSUS_TEMPLATE) == []
