"""Code far longer than the model reads is cut before it is normalised (issue #52, item 8): a
256 kB input of `x=1` lines took 150 MB (and a 3.9 MB `--jsonl` row 2 GB) to canonicalise
whole, for a model that reads 384 tokens of it. Memory is measured with tracemalloc."""

from __future__ import annotations

import ast
import io
import json
import tracemalloc

import pytest

from rlm_lsp.app.cli_jsonl import score_jsonl
from rlm_lsp.python import long_input, preprocess
from rlm_lsp.runtime import template
from rlm_lsp.runtime.predictor import Predictor

BIG = "x=1\n" * 64_000  # 256 kB
BOUND = 64 << 20  # bytes: the cut input's passes, with room; the whole input's were over 150 MB


@pytest.fixture(scope="module")
def predictor():
    return Predictor.default()


def peak_bytes(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_long_input_is_rendered_in_bounded_memory(predictor):
    assert predictor.config.preprocess == "canon_v1"  # the shipped model normalises: the costly case
    assert peak_bytes(lambda: predictor.render(BIG)) < BOUND


def test_a_long_jsonl_row_is_scored_in_bounded_memory(predictor):
    out = io.StringIO()
    row = json.dumps({"id": "big", "code": BIG})
    assert peak_bytes(lambda: score_jsonl(predictor, [row], out)) < BOUND
    got = json.loads(out.getvalue())
    assert got["id"] == "big" and got["truncated"] is True and got["memory"]["value"] > 0


def test_the_cut_keeps_the_whole_codes_size_field(predictor):
    text = predictor.render(BIG)
    assert f" size {template.size_bucket(BIG)} <code>" in text


def test_code_up_to_the_limit_is_read_whole(predictor):
    code = "def f(n):\n    return n\n\n\n" + "y = 2\n" * ((long_input.MAX_CHARS - 25) // 6)
    assert len(code) <= long_input.MAX_CHARS and long_input.cut(code) is code
    whole = preprocess.apply("canon_v1", code)
    assert predictor.render(code).endswith(whole)


def test_the_cut_is_at_top_level_statements_and_parses():
    code = "import sys\n\n" + "".join(f"def f{i}(n):\n    if n:\n        return {i}\n    else:\n        return n\n\n"
                                      for i in range(5000))
    kept = long_input.cut(code)
    assert len(kept) <= long_input.MAX_CHARS and kept.startswith("import sys\n") and kept.endswith(code[-200:])
    ast.parse(kept)


def test_one_huge_line_is_cut_too():
    kept = long_input.cut("x = [" + "1, " * 100_000 + "]\n")
    assert len(kept) <= long_input.MAX_CHARS
