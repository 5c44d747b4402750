from rlm_lsp.python.snippets import extract

SOURCE = '''import triton
import triton.language as tl


class Parser:
    @staticmethod
    def parse(text,
              sep=None) -> list:  # header over two lines
        def helper(x):
            return x
        return text.split(sep)

    class Inner:
        async def fetch(self): return 1


@triton.jit
def add_kernel(x_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)


def top(n):
    return [i for i in range(n)]
'''


def by_name(snippets):
    return {s.qualname: s for s in snippets}


def test_functions_methods_and_kernels():
    found = by_name(extract(SOURCE))
    assert list(found) == ["Parser.parse", "Parser.Inner.fetch", "add_kernel", "top"]  # nested `helper` belongs to parse
    parse = found["Parser.parse"]
    assert parse.kind == "method"
    assert parse.start_line == 5 and parse.end_line == 10  # decorator included
    assert (parse.name_line, parse.name_col) == (6, 8)
    assert (parse.header_end_line, parse.header_end_col) == (7, 32)  # just after the ':' on the second header line
    assert parse.code.startswith("@staticmethod\ndef parse(text,")  # dedented
    assert found["add_kernel"].kind == "triton_kernel"
    assert found["top"].kind == "function"
    fetch = found["Parser.Inner.fetch"]
    assert fetch.header_end_line == fetch.name_line == 13
    assert SOURCE.splitlines()[13][: fetch.header_end_col].endswith("fetch(self):")


def test_syntax_error_keeps_functions_that_still_parse():
    broken = SOURCE + "\n\ndef half_typed(a, :\n    return\n"
    found = by_name(extract(broken))
    assert {"Parser.parse", "add_kernel", "top"} <= set(found)
    assert "half_typed" not in found
    assert found["Parser.parse"].start_line == 5 and found["top"].name_line == 21


def test_broken_function_body_is_skipped_others_kept():
    source = "def good():\n    return 1\n\ndef bad():\n    return (\n\ndef also_good(x):\n    return x\n"
    assert [s.qualname for s in extract(source)] == ["good", "also_good"]


def test_empty_and_other_languages():
    assert extract("") == []
    assert extract("x = 1\n") == []
    assert extract("int main() { return 0; }", language="cpp") == []


def test_is_kernel_is_the_rule_snippet_kind_uses():
    """#26.2: one kernel-vs-function decision: `is_kernel(code)` (the router's) == `Snippet.kind` (the CLI's,
    the server's); numba's bare `@jit` is not a Triton kernel."""
    from rlm_lsp.python.snippets import extract, is_kernel
    from rlm_lsp.runtime.model import KERNEL, kind_of

    source = (
        "import triton\nimport triton.language as tl\nfrom numba import jit\n\n"
        "@triton.jit\ndef k1(x):\n    pass\n\n"
        "@triton.autotune(configs=[], key=['n'])\n@triton.jit\ndef k2(x, n):\n    pass\n\n"
        "@jit(nopython=True)\ndef numba_fn(x):\n    return x\n\n"
        "@jit\ndef plain_jit(x):\n    return x\n\n"
        "def plain(x):\n    return x\n\n"
        "class A:\n    @staticmethod\n    def m(x):\n        return x\n"
    )
    found = extract(source)
    assert [s.name for s in found if s.kind == "triton_kernel"] == ["k1", "k2"]
    for s in found:
        assert is_kernel(s.code) == (s.kind == "triton_kernel") == (kind_of(s.code) == KERNEL), s.name
    assert is_kernel("@triton.jit\ndef broken(x:\n    pass\n")  # does not parse: read by its decorator lines
    assert not is_kernel("def f(x):\n    return x @ x\n")
