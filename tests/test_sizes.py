"""How users write n (rlm_lsp.runtime.sizes): a table of accepted and refused sizes, the pragma, the format."""
import pytest

from rlm_lsp.runtime.sizes import MAX_N, format_n, parse_n, pragma_n, setting_n


@pytest.mark.parametrize("text, n", [
    ("100000", 1e5), ("1e5", 1e5), ("10**5", 1e5), ("10^5", 1e5), ("100_000", 1e5), ("100k", 1e5), ("2M", 2e6),
    ("1", 1.0), (250, 250.0), (1e12, 1e12), (" 10 ** 3 ", 1e3),
])
def test_sizes_as_written(text, n):
    assert parse_n(text) == n


@pytest.mark.parametrize("text", ["0", "-5", "1e999", "10**99", "99999**64", "abc", "", "1e-3", True, float("nan"), 2 * MAX_N])
def test_bad_sizes_are_one_line(text):
    with pytest.raises(ValueError) as exc:
        parse_n(text)
    assert "\n" not in str(exc.value)


def test_the_pragma_above_a_function_and_its_decorators():
    lines = ["# rlm: n=10**6", "@cache", "def f(xs):", "    return xs"]
    assert pragma_n(lines, 2, decorators=1) == 1e6
    assert pragma_n(["x = 1", "def f(xs):"], 1) is None
    with pytest.raises(ValueError):
        pragma_n(["# rlm: n=lots", "def f(xs):"], 1)


def test_format_and_settings():
    assert format_n(1e5) == "10⁵" and format_n(25_000) == "25,000" and format_n(7) == "7"
    assert setting_n({"n": "1e4"}) == 1e4 and setting_n({}) is None
