"""Cost curves in the editor: the n a function's numbers are for, the values moved there, and the
curve for the hover (a table, a text sparkline, a plot) with the lines that carry the growth.

    n, from the most specific:  `# rlm: n=10**6` above the function  >  the editor's `rlm.n`
                                 >  `n` in `[tool.rlm]`  >  the model's reference n (`Prediction.n`)

Only predictions with growth move (`rlm_lsp.runtime.growth.at`); a model without growth keeps
its numbers "per call, for a typical large input" and nothing here shows. A model that reads n
(its template's `{n}`, `rlm_lsp.runtime.at_n`) is asked at each function's n instead (the Analyzer
does, `choose`), so its values are already for that n and nothing moves; its hover's curve is the
model asked at each of SIZES (`rlm_lsp.server.drivers.Explainer.curve`).
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rlm_lsp.python import loop_nests
from rlm_lsp.runtime import growth
from rlm_lsp.runtime.prediction import growth_class
from rlm_lsp.runtime.sizes import comment_of, format_n, pragma_n
from rlm_lsp.runtime.units import format_value

SIZES = (10 ** 2, 10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6)
BARS = "▁▂▃▄▅▆▇█"
# The sparkline's height is decades above its value at n=10²: at least a ~n³ curve's twelve, so
# every line is on one scale and the steeper line is the faster growth (~1 stays flat: ▁▁▁▁▁).
MIN_DECADES = 12.0
NEST_OF = {"memory": "memory", "latency": "time"}  # which loop nest (loop_nests.Reading) carries a metric


@dataclass(frozen=True)
class SizeChoice:
    n: float | None  # None: the model's own reference n
    source: str  # "`# rlm: n=` comment", "rlm.n", "[tool.rlm] n", "the model's reference n"
    problem: str = ""  # a malformed `# rlm: n=` comment, in words ('' when none)


def has_growth(predictions: Mapping[str, Any]) -> bool:
    return any(getattr(p, "growth", None) is not None and getattr(p, "n", None) is not None
               for p in predictions.values())


def sized(predictions: Mapping[str, Any]) -> bool:
    """Whether the values are for a size n: with growth (`has_growth`), or from a model that reads n
    (each of its Predictions says the n it read). Without growth, n is only ever set by the latter."""
    return any(getattr(p, "n", None) is not None for p in predictions.values())


def choose_n(result: Any, lines: Sequence[str], settings: Any) -> SizeChoice:
    """The n of `result`'s function: its pragma, else `rlm.n`, else `[tool.rlm]`'s n, else the model's."""
    return choose(lines, result.snippet.start_line, getattr(settings, "n", None), result.project,
                  getattr(result, "language", "python"))


def choose(lines: Sequence[str], start_line: int, setting_n: float | None, project: Any,
           language: str = "python") -> SizeChoice:
    """`choose_n` for the function whose first line is `start_line` (0-based), before it has a result;
    C++, Java and Go write the comment `// rlm: n=...`."""
    problem = ""
    comment = comment_of(language)
    try:
        n = pragma_n(lines, start_line, comment=comment)
        if n is not None:
            return SizeChoice(n, f"its `{comment} rlm: n=` comment")
    except ValueError as exc:
        problem = f"the `{comment} rlm: n=` comment above it is ignored: {exc}"
    if setting_n is not None:
        return SizeChoice(setting_n, "the rlm.n setting", problem)
    project_n = getattr(project, "n", None)
    if project_n is not None:
        return SizeChoice(float(project_n), "`n` in [tool.rlm]", problem)
    return SizeChoice(None, "the model's reference n", problem)


def moved(predictions: Mapping[str, Any], n: float | None) -> dict[str, Any]:
    """Each prediction with growth at size `n` (None: as predicted, at the model's reference n)."""
    if n is None:
        return dict(predictions)
    return {m: growth.at(p, n) if getattr(p, "growth", None) is not None else p for m, p in predictions.items()}


def shown_n(predictions: Mapping[str, Any]) -> float | None:
    """The size the (moved, or asked) values are for: the first prediction's that has one (`sized`)."""
    return next((p.n for p in predictions.values() if getattr(p, "n", None)), None)


# -- the hover's curve -------------------------------------------------------------------------


def table(curves: Mapping[str, list[tuple[int, float]]], units: Mapping[str, str], names: Mapping[str, str]) -> str:
    """| | n=10² | ... | 10⁶ | with one row per metric; '' without curves."""
    rows = [(m, c) for m, c in curves.items() if c]
    if not rows:
        return ""
    sizes = [n for n, _ in rows[0][1]]
    head = "| n | " + " | ".join(format_n(n) for n in sizes) + " |"
    rule = "|---|" + "---:|" * len(sizes)
    body = [f"| {names[m]} | " + " | ".join(format_value(units[m], v) for _, v in c) + " |" for m, c in rows]
    return "\n".join([head, rule, *body])


def sparkline(values: Sequence[float]) -> str:
    """`▁▂▃▄▅`: decades above the first value, on a scale of at least MIN_DECADES."""
    logs = [math.log10(v) if v > 0 else -math.inf for v in values]
    if not logs or not all(math.isfinite(x) for x in logs):
        return ""
    base = logs[0]
    span = max(MIN_DECADES, max(x - base for x in logs))
    return "".join(BARS[max(0, min(len(BARS) - 1, round((x - base) / span * (len(BARS) - 1))))] for x in logs)


COLORS = ("#3b82f6", "#f59e0b", "#10b981")


def svg(curves: Mapping[str, list[tuple[int, float]]], names: Mapping[str, str]) -> str:
    """A small log-log plot of each curve relative to its value at the smallest n (so memory and
    time share one axis: decades of growth), as an SVG document; '' without curves."""
    rows = [(m, c) for m, c in curves.items() if c and all(v > 0 for _, v in c)]
    if not rows:
        return ""
    w, h, left, bottom, top = 240, 110, 30, 18, 8
    lo_n, hi_n = math.log10(rows[0][1][0][0]), math.log10(rows[0][1][-1][0])
    rises = [[math.log10(v / c[0][1]) for _, v in c] for _, c in rows]
    span = max(4.0, max(max(r) for r in rises))

    def xy(n: float, rise: float) -> str:
        x = left + (math.log10(n) - lo_n) / (hi_n - lo_n) * (w - left - 6)
        y = h - bottom - max(0.0, rise) / span * (h - bottom - top)
        return f"{x:.1f},{y:.1f}"

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" '
             'font-size="9">', f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - 4}" y2="{h - bottom}" stroke="#888"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="#888"/>',
             f'<text x="2" y="{top + 8}" fill="#555">×{format_n(10 ** round(span))}</text>',
             f'<text x="4" y="{h - bottom}" fill="#555">×1</text>']
    for n, _ in rows[0][1]:
        x = xy(n, 0).split(",")[0]
        parts.append(f'<text x="{float(x) - 8:.1f}" y="{h - 4}" fill="#555">{format_n(n)}</text>')
    for i, ((m, c), rise) in enumerate(zip(rows, rises, strict=True)):
        color = COLORS[i % len(COLORS)]
        points = " ".join(xy(n, r) for (n, _), r in zip(c, rise, strict=True))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{color}" stroke-width="2"/>')
        parts.append(f'<text x="{left + 6}" y="{top + 10 + 11 * i}" fill="{color}">{_xml(names[m])}</text>')
    return "".join(parts) + "</svg>"


IMAGE_CLIENTS = ("code", "codium", "cursor", "windsurf")  # VS Code and its forks render hover images


def draws_images(client_name: str) -> bool:
    """Whether a client of this clientInfo.name shows a markdown image as a picture."""
    name = client_name.lower()
    return any(word in name for word in IMAGE_CLIENTS)


def data_uri(svg_text: str) -> str:
    # base64, not percent-encoded: VS Code's hover renders base64 data: images, SVG among them (as a
    # picture, never inline markup; microsoft/vscode#51290, #212565)
    return "data:image/svg+xml;base64," + base64.b64encode(svg_text.encode("utf-8")).decode("ascii")


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# -- why it grows ------------------------------------------------------------------------------


def carriers(result: Any) -> dict[str, tuple[str, int, int]]:
    """metric -> (what, first line, last line), 1-based document lines of the loop nest that carries
    its growth (`loop_nests.read` on the function's own text); metrics without a nest are left out."""
    s = result.snippet
    reading = loop_nests.read(s.code)
    out = {}
    for metric, kind in NEST_OF.items():
        nest = getattr(reading, kind)
        if nest.depth > 0 and nest.lines:
            first, last = nest.lines
            # s.code is the function's lines from its first decorator, dedented: line k is document line start + k
            out[metric] = (nest.what, s.start_line + first, s.start_line + last)
    for metric, p in result.predictions.items():  # the cost analyzer's lines, where it gave the growth
        lines = getattr(p, "cost_lines", ())
        if getattr(p, "cost", ""):
            out[metric] = ("cost", s.start_line + min(lines), s.start_line + max(lines)) if lines else ("cost", 0, 0)
    return out


def why(p: Any, carrier: tuple[str, int, int] | None) -> str:
    """`from the nested loop, lines 14–16` (what carries the growth of `p`); '' when flat or nothing does."""
    grows = getattr(p, "growth", None)
    if grows is None or carrier is None or growth_class(grows) in ("~1", "?"):
        return ""
    what, first, last = carrier
    if what == "cost":  # `with the input, read as n·m from line 15 (n = len(text), m = len(pattern))`
        legend = ", ".join(f"{k} = {v}" for k, v in getattr(p, "cost_legend", ()) if k in p.cost)
        where = "" if not first else f" from line {first}" if first == last else f" from lines {first}–{last}"
        return f"with the input, read as {p.cost}{where}" + (f" ({legend})" if legend else "")
    where = f"line {first}" if first == last else f"lines {first}–{last}"
    return f"from the {what}, {where}"
