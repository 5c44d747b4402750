"""The input size n a prediction is for: how users write it, and where they set it.

    "100000", "1e5", "10**5", "10^5", "100_000", "100k", "2M"  ->  100000.0, ...

n is the size of a function's largest input as the measured ladders count it (elements of a
list, characters of a string, cells of a grid, the value of an integer argument), or the bytes of
a script's standard input. It is set, from the most specific to the least:

1. a comment `# rlm: n=10**6` on the lines just above a function (or its decorators);
2. the editor's `rlm.n` setting, `--n` on the command line, `n` in `[tool.rlm]`;
3. the model's reference n (`Prediction.n` as predicted: the inputs its training rows ran on).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from rlm_lsp.runtime.prediction import PER_CALL

MAX_N = 10 ** 12  # sizes past this are refused: no curve was measured within six decades of it
_NUMBER = re.compile(r"^\s*(\d[\d_]*(?:\.\d+)?)\s*(?:(?:\*\*|\^)\s*(\d+)|[eE]([+-]?\d+)|([kKmMgG]))?\s*$")
_SUFFIX = {"k": 1e3, "m": 1e6, "g": 1e9}
PRAGMA = re.compile(r"#\s*rlm:\s*n\s*=\s*(?P<n>[^\s#]+)")
SLASHES = re.compile(r"//\s*rlm:\s*n\s*=\s*(?P<n>[^\s/]+)")  # C++, Java and Go: `// rlm: n=10**6`


def parse_n(text: str | int | float) -> float:
    """A size as users write it -> a float in [1, MAX_N]; ValueError with a one-line reason."""
    if isinstance(text, bool):
        raise ValueError(f"n must be a size like 100000, 1e5 or 10**5, not {text!r}")
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        m = _NUMBER.match(str(text))
        if not m:
            raise ValueError(f"n must be a size like 100000, 1e5 or 10**5, not {text!r}")
        base = float(m.group(1).replace("_", ""))
        if m.group(2) is not None:
            if int(m.group(2)) > 64:
                raise ValueError(f"n={text} is past the largest size, {MAX_N:.0e}")
            try:
                value = base ** int(m.group(2))
            except OverflowError:
                raise ValueError(f"n must be from 1 to {MAX_N:.0e}, not {text!r}") from None
        elif m.group(3) is not None:
            e = int(m.group(3))
            if e > 12 or e < -12:  # also keeps 10.0 ** e from overflowing
                raise ValueError(f"n must be from 1 to {MAX_N:.0e}, not {text!r}")
            value = base * 10.0 ** e
        elif m.group(4) is not None:
            value = base * _SUFFIX[m.group(4).lower()]
        else:
            value = base
    if not math.isfinite(value) or not 1 <= value <= MAX_N:
        raise ValueError(f"n must be from 1 to {MAX_N:.0e}, not {text!r}")
    return value


def comment_of(language: str) -> str:
    """How `language` starts the line comment an `rlm: n=` pragma sits in: `#` for Python, `//` for C++, Java, Go."""
    return "#" if language == "python" else "//"


def pragma_n(lines: Sequence[str], def_line: int, decorators: int = 0, comment: str = "#") -> float | None:
    """The `# rlm: n=...` comment (`// rlm: n=...` where `comment` is "//") on the comment lines just
    above a function (0-based `def_line`, with `decorators` lines of decorators above it); None without
    one. A malformed value raises ValueError naming it."""
    line = def_line - decorators - 1
    pattern = SLASHES if comment == "//" else PRAGMA
    while 0 <= line < len(lines) and lines[line].lstrip().startswith(comment):
        m = pattern.search(lines[line])
        if m:
            return parse_n(m.group("n"))
        line -= 1
    return None


def format_n(n: float) -> str:
    """`10⁵` for powers of ten, else `25,000` (the hint's `@ n=...`)."""
    if n >= 100 and float(n).is_integer():
        e = round(math.log10(n))
        if 10 ** e == n:
            return "10" + str(e).translate(str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻"))
    return f"{n:,.0f}" if n >= 1 else f"{n:g}"


def setting_n(raw: Mapping, key: str = "n") -> float | None:
    """`n` of a settings table (`[tool.rlm]`, the editor's `rlm.*`), parsed; None when absent."""
    value = raw.get(key)
    return None if value in (None, "") else parse_n(value)


def per_call(config) -> str:
    """What a function's number is for, from a model that predicts no growth: `PER_CALL`, with the n
    of its training inputs where its directory records them (`typical_n` in rlm_config.json, written
    by `python -m training.judging.typical_n`), so "a typical large input" can be checked."""
    raw = getattr(config, "raw", None)
    typical = raw.get("typical_n") if isinstance(raw, Mapping) else None
    if not isinstance(typical, Mapping) or not all(isinstance(typical.get(k), (int, float)) and typical[k] >= 1
                                                   for k in ("median", "p10", "p90")):
        return PER_CALL
    return (f"{PER_CALL} (n ≈ {format_n(typical['median'])}, the median size of the inputs it learnt from; "
            f"80% of them from {format_n(typical['p10'])} to {format_n(typical['p90'])})")
