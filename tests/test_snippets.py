from rlm_lsp.snippets import extract

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
