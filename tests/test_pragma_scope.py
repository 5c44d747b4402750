"""Issue 61.5 and 61.9: a pragma belongs to the function it sits above, at that function's
indentation; a reason of invisible characters is no reason; a metric named twice is an error."""

from __future__ import annotations

import io
import textwrap
import tokenize

import pytest

from rlm_lsp.policy import rules
from rlm_lsp.python import snippets


def _comments(source: str) -> dict[int, str]:
    return {tok.start[0] - 1: tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.COMMENT}


def _reason(source: str, name: str):
    s = next(x for x in snippets.extract(source) if x.name == name)
    return rules.pragma(s, _comments(source), source.splitlines())


def test_a_pragma_in_the_previous_body_is_not_the_next_functions():
    source = textwrap.dedent("""\
        def first(xs):
            return xs
            # rlm: allow-regression we know
        def second(xs):
            return [x for x in xs for _ in xs]
        """)
    assert _reason(source, "second") is None


def test_a_pragma_at_the_functions_indentation_is_its_own():
    source = "x = 1\n# rlm: allow-regression cache warms up\ndef second(xs):\n    return xs\n"
    assert _reason(source, "second") == "cache warms up"


def test_an_invisible_reason_is_no_reason():
    source = "# rlm: allow-regression \u200b\ndef f(xs):\n    return xs\n"
    assert _reason(source, "f") == ""


def test_a_metric_named_twice_is_an_error():
    with pytest.raises(ValueError, match="second time"):
        rules.pragma_limits("memory<=4x, memory<=8x")
