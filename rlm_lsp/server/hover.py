"""textDocument/hover on a function name: every metric's estimate, what it measures, how sure
the model is (in words, words.py), which model, and the change against the committed (HEAD)
version of the same function. Answered from the cache, like hints.

With growth (curves.py) the estimate is at the function's n, and the hover adds the curve: the
values at n = 10², 10³ … 10⁶ as a table, a text sparkline per metric (every client), a plot (an
SVG data: image, for clients that render markdown) and which lines carry the growth
("grows ~n² from the nested loop, lines 14–16"). From a model that reads n, the estimate is the
model's own at that n and the curve is the model asked at each size (`curve`, computed on hover,
`rlm_lsp.server.drivers.Explainer.curve`), never its growth's.

Which statement drives a value (`rlm_lsp.runtime.attribution`, leaving each statement out and
predicting again) is computed on hover only, once per function text, and said per metric when one
statement's removal takes at least half of it: "mostly from line 12 (`table = ...`): −85% without it".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from lsprotocol import types

from rlm_lsp.runtime import growth
from rlm_lsp.runtime.attribution import Attribution
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.sizes import format_n
from rlm_lsp.runtime.units import format_ratio, format_value
from rlm_lsp.server import curves
from rlm_lsp.server.analysis import FunctionResult, still_valid
from rlm_lsp.server.drivers import PENDING, PENDING_CURVE
from rlm_lsp.server.settings import Settings
from rlm_lsp.server.unsure import FIXED, UsualSpread
from rlm_lsp.server.words import PER_CALL, SHORT, growth_line, long_name, size_words, sureness

# A statement is named when leaving it out takes at least half the value: it then carries "most" of
# it in plain words, and the model's statement-to-statement jitter (often ±30%, a cheap
# `n = len(nums)` among them) stays below.
MOSTLY = 0.5
STILL_WORKING = "Which statement drives each value is still being worked out: hover again in a moment."
CURVE_WORKING = "The curve is still being worked out: hover again in a moment."


def find(
    results: Sequence[FunctionResult],
    lines: Sequence[str],
    position: types.Position,
    client_col: Callable[[int, int], int],
) -> FunctionResult | None:
    """The result whose name is under `position` (client units), if still valid."""
    for r in results:
        s = r.snippet
        if s.name_line != position.line:
            continue
        start = client_col(s.name_line, s.name_col)
        end = client_col(s.name_line, s.name_col + len(s.name))
        if start <= position.character <= end and still_valid(r, lines):
            return r
    return None


def name_range(r: FunctionResult, client_col: Callable[[int, int], int]) -> types.Range:
    s = r.snippet
    return types.Range(
        types.Position(s.name_line, client_col(s.name_line, s.name_col)),
        types.Position(s.name_line, client_col(s.name_line, s.name_col + len(s.name))),
    )


def change_vs_head(r: FunctionResult, metric: str) -> str:
    if r.head_state == "same":
        return "unchanged"
    if r.head_state == "new":
        return "new since HEAD"
    if r.head_state == "unknown" or not r.head or metric not in r.head:
        return "no HEAD version"
    now, base = r.predictions[metric], r.head[metric]
    base_text = format_value(base.unit, base.value)
    if base.value <= 0:
        return f"HEAD {base_text}{_growth_vs_head(now, base)}"
    ratio = now.value / base.value
    sign = "+" if ratio >= 1 else "−"
    return f"{format_ratio(ratio)} ({sign}{abs(ratio - 1) * 100:.0f}%, HEAD {base_text}){_growth_vs_head(now, base)}"


def _growth_vs_head(now, base) -> str:
    """`; grows ~n² now, ~n at HEAD` when both versions have growth in different classes."""
    a, b = getattr(now, "growth", None), getattr(base, "growth", None)
    if a is None or b is None or growth_class(a) == growth_class(b):
        return ""
    return f"; grows {growth_class(a)} now, {growth_class(b)} at HEAD"


def reading_note(r: FunctionResult, predictor) -> str:
    """A line for a function longer than the model's input: the model read only its start and end
    (`predictor.head_and_tail`).
    '' when it read all of it, or when the predictor cannot tell (`read_limit`: None for kernels).
    A prediction that counted its input (`Prediction.tokens`) already says whether it was cut, so the
    code is tokenized again only for a cut one (for the limit), or when nothing was counted."""
    counted = [p for p in r.predictions.values() if getattr(p, "tokens", 0)]
    if counted and not any(getattr(p, "truncated", False) for p in counted):
        return ""
    if not hasattr(predictor, "read_limit"):
        return ""
    try:
        cut = predictor.read_limit(r.snippet.code, r.language)
    except Exception:  # noqa: BLE001 - a note is never worth a failed hover
        return ""
    if cut is None:
        return ""
    return (f"_Only part of this function was read: {cut[0]} of its {cut[1]} tokens, from its "
            "start and its end; the middle is not in the prediction._")


def markdown(r: FunctionResult, settings: Settings, definitions: Mapping[str, str], model: str,
             note: str = "", lines: Sequence[str] = (), usual: UsualSpread = FIXED, images: bool = True,
             drivers: Attribution | None = None, curve: Mapping[str, list] | None = None,
             unsized: str = PER_CALL) -> str | None:
    """The hover in words: per metric the estimate, what it measures, how sure the model is, which
    statement drives it (`drivers`, when one stands out), and the change against HEAD. A list, not
    a table, so it still reads where markdown is not rendered; with growth, the curve after it
    (`images`: with its plot). `model` is the model in words (`the shipped model on CPU`), never its
    id. `lines`: the document's, for a `# rlm: n=` comment. `curve`: from a model that reads n, its
    own values at each of `curves.SIZES` (`at_n.curve`; PENDING_CURVE while being computed); None:
    the curve of its growth. `unsized`: what a number without n is for (`sizes.per_call`)."""
    shown = [(m, p) for m, p in r.predictions.items() if settings.metric_enabled(m)]
    if not shown:
        return None
    grows = curves.sized(r.predictions)
    choice = curves.choose_n(r, lines, settings) if grows else None
    at_n = curves.moved(dict(shown), choice.n) if choice else dict(shown)
    why = curves.carriers(r) if curves.has_growth(r.predictions) else {}
    items = []
    for m, _ in shown:
        p = at_n[m]
        items.append(f"- **{long_name(m)}** ≈ {format_value(p.unit, p.value)}{size_words(p)}")
        if definitions.get(m):
            items.append(f"  - measures: {definitions[m]}")
        items.append(f"  - {sureness(p, m, usual) if p is r.predictions[m] else sureness_moved(r.predictions[m], p, m, usual)}")
        line = growth_line(p, curves.why(p, why.get(m)))
        if line:
            items.append(f"  - {line}")
        driver = driver_line(drivers, m, r.snippet.start_line)
        if driver:
            items.append(f"  - {driver}")
        items.append(f"  - vs the committed version: {change_vs_head(r, m)}")
    n = curves.shown_n(at_n) if grows else None
    title = (f"**{r.snippet.qualname}**: rlm's estimate per call at n = {format_n(n)} ({choice.source})"
             if n and choice else f"**{r.snippet.qualname}**: rlm's estimate {unsized}")
    return (
        "\n".join(
            [
                title,
                "",
                *items,
                *(curve_section(at_n, images, curve) if grows else []),
                *(["", f"_{CURVE_WORKING}_"] if curve is PENDING_CURVE else []),
                *(["", f"_{choice.problem}_"] if choice and choice.problem else []),
                "",
                f"_Predicted from the code's text by {model}; read it as a rough size, not a measurement._",
                *(["", note] if note else []),
                *(["", f"_{STILL_WORKING}_"] if drivers is PENDING else []),
            ]
        ).rstrip()
        + "\n"
    )


def driver_line(drivers: Attribution | None, metric: str, start_line: int) -> str:
    """`mostly from line 12 (`table = ...`): −85% without it` for the statement whose removal lowers
    `metric` most, when it takes at least MOSTLY of it; '' otherwise. `start_line`: the function's
    0-based first document line (its code's line k is document line start_line + k)."""
    found = drivers.effects.get(metric, ()) if drivers else ()
    if drivers is None or not found or found[0].drop < MOSTLY:
        return ""
    part = found[0].part
    first, last = start_line + part.line, start_line + part.end_line
    where = f"line {first}" if first == last else f"lines {first}–{last}"
    text = part.text.replace("`", "'")
    cut = f" (of its first {drivers.tried} statements)" if drivers.tried < drivers.total else ""
    return f"mostly from {where} (`{text}`): −{found[0].drop * 100:.0f}% without it{cut}"


def sureness_moved(ref, p, metric: str, usual: UsualSpread) -> str:
    """How sure, for a value moved to another n: the words judged at the reference n (where the
    usual spread was measured), the range at this n (wider: the growth is not sure either)."""
    words = sureness(ref, metric, usual).split(":", 1)[0]
    return (f"{words}: likely between {format_value(p.unit, p.low)} and {format_value(p.unit, p.high)} "
            f"at this n (p10–p90)")


def curve_section(at_n: Mapping, images: bool, asked: Mapping[str, list] | None = None) -> list[str]:
    """The curve of every metric with growth: table, sparklines, plot. `asked`: the model's own
    values at each size (a model that reads n), in place of its growth's curve."""
    if asked is None:
        curves_of = {m: growth.curve(p, curves.SIZES) for m, p in at_n.items() if getattr(p, "growth", None) is not None}
    else:
        curves_of = {m: list(c) for m, c in asked.items() if m in at_n}
    curves_of = {m: c for m, c in curves_of.items() if c}
    if not curves_of:
        return []
    units = {m: at_n[m].unit for m in curves_of}
    names = {m: long_name(m) for m in curves_of}
    sparks = " · ".join(f"{SHORT.get(m, m)} `{curves.sparkline([v for _, v in c])}`{_class(at_n[m])}"
                        for m, c in curves_of.items())
    out = ["", "**How it grows** (n = 10² … 10⁶): " + sparks, "", curves.table(curves_of, units, names)]
    plot = curves.svg(curves_of, names) if images else ""
    if plot:
        out += ["", f"![cost curve: each metric relative to its value at n = 10², log scales]({curves.data_uri(plot)})"]
    return out


def _class(p) -> str:
    """` ~n²` after a sparkline: the growth's class, where the model predicts one."""
    grows = getattr(p, "growth", None)
    return "" if grows is None else f" {growth_class(grows)}"


def plain(md: str) -> str:
    """The hover for a client that cannot render markdown: the same lines without the markup (and
    without the plot, an image; a table's rows read as `| n | 10² | ...`)."""
    md = re.sub(r"(?m)^!\[[^\]]*\]\([^)]*\)\n?", "", md)
    md = re.sub(r"(?m)^\|---.*\n", "", md)
    return re.sub(r"(?m)^_(.*)_$", r"\1", md.replace("**", "").replace("`", "")).strip() + "\n"
