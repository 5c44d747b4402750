import pytest

from rlm_lsp.runtime.units import format_ratio, format_value


@pytest.mark.parametrize("unit,value,text", [
    ("bytes", 48e6, "48 MB"), ("bytes", 1.5e9, "1.5 GB"), ("bytes", 1234, "1.2 kB"), ("bytes", 512, "512 B"),
    ("bytes", 15.04e6, "15 MB"), ("ms", 120, "120 ms"), ("ms", 3400, "3.4 s"), ("ms", 0.12, "120 µs"),
    ("ms", 5.5e-4, "550 ns"), ("ms", 12.5, "12.5 ms"), ("ms", 9.2, "9.2 ms"), ("ms", 69250e3, "19.2 h"), ("ms", 90e3, "1.5 min"),
])
def test_format_value(unit, value, text):
    assert format_value(unit, value) == text


def test_format_ratio():
    assert format_ratio(8.0) == "8.0×"
    assert format_ratio(250) == "250×"
