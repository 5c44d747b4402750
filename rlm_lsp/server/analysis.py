"""Document text -> one FunctionResult per function: its predictions and its HEAD baseline.

Runs in the worker thread only. Knows nothing of LSP: the feature modules (hints,
lens, hover, diagnostics) turn FunctionResults into protocol objects.

Only functions whose text changed reach the model: each document keeps a memo
code -> predictions, rebuilt after every analysis from the functions it still has,
so it stays the size of the document however many edits come in (the Predictor
has its own content cache on top).

A model that reads n (its template's `{n}`, `rlm_lsp.runtime.at_n`) is asked at each function's
own n (`curves.choose`: its `# rlm: n=` comment, the `rlm.n` setting, `[tool.rlm]`'s n, else its
reference n), the HEAD version at the same n; the memo then keys by (code, n). Any other model is
asked as always, and the hint moves its values along their growth.

Every function is read with the names of its file it uses (`Snippet.outside`, the context entry
`readers.OUTSIDE`), the HEAD version with HEAD's: so the memo keys by (code, n, file names), and
two functions that differ only in the names of their helpers get the same hint.
"""

from __future__ import annotations

import logging
import re
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from rlm_lsp.policy import rules, sources
from rlm_lsp.python import leave_out
from rlm_lsp.python.snippets import Snippet, context_of
from rlm_lsp.python.source import Source
from rlm_lsp.runtime import at_n
from rlm_lsp.runtime.attribution import Attribution, Attributor
from rlm_lsp.runtime.lines import split_lines
from rlm_lsp.server import curves

logger = logging.getLogger(__name__)
Key = tuple[str, "float | None", str]  # (code, the n it is asked at, its file's names and helpers: `Snippet.reading`)

MAX_BYTES = 1_000_000  # larger files get no hints: generated or data, and slow to parse
TOO_LARGE = "larger than 1 MB"
KERNEL_PREFIX = "kernel_"  # metrics for @triton.jit kernels are named kernel_*
_SAMPLE = 8192
OPT_OUT = re.compile(r"^[ \t]*#[ \t]*rlm:[ \t]*skip-file\b", re.MULTILINE)  # a file's own opt-out comment
_MAX_HEADS = 64


@dataclass(frozen=True)
class FunctionResult:
    snippet: Snippet
    predictions: Mapping[str, Any]  # metric -> Prediction; empty when no model covers this kind
    head: Mapping[str, Any] | None  # predictions of the HEAD version; None when there is none
    head_state: str  # "same" | "changed" | "new" (not in HEAD) | "unknown" (no git / untracked)
    header_text: str  # the header line as predicted; features show the result while it is unchanged
    name_text: str  # the line holding the name (hover, diagnostics)
    allowed: str | None = None  # the `# rlm: allow-regression <reason>` pragma's reason (rules.pragma)
    project: Any = None  # the document's `[tool.rlm]` (rlm_lsp.policy.project_config.GateConfig), None when there is none
    language: str = "python"  # what the model read it as: "cpp", "java", "go" too (rlm_lsp.policy.sources)


def skip_reason(text: str) -> str | None:
    """Why a document gets no hints at all, or None. Cheap: no full scan of a small file."""
    if len(text) > MAX_BYTES or len(text.encode("utf-8", "surrogatepass")) > MAX_BYTES:
        return TOO_LARGE
    head = text[:_SAMPLE]
    if "\0" in head:
        return "binary"
    if head.count("\ufffd") > max(3, len(head) // 100):
        return "not UTF-8"
    if "skip-file" in text and OPT_OUT.search(text):
        return "the file says `# rlm: skip-file`"
    return None


class Analyzer:
    """Predictions for documents, re-predicting only functions whose text changed."""

    def __init__(self, predictor: Any) -> None:
        self.predictor = predictor
        self.reads_n = at_n.reads_n(predictor)
        self.drivers = Attributor(predictor, leave_out.leave_each_out)  # the hover's "mostly from line 12"
        self._memo: dict[str, dict[Key, Mapping[str, Any]]] = {}  # uri -> (code, n, file names) ->
        metrics = [m.name for m in predictor.config.metrics]
        self.kernel_metrics = [m for m in metrics if m.startswith(KERNEL_PREFIX)]
        self.function_metrics = [m for m in metrics if not m.startswith(KERNEL_PREFIX)]
        self.predicted = 0  # number of codes sent to the model, for tests and the benchmark
        self.pending = 0  # codes the last analyze() left out because of its limit
        self.pending_visible = 0  # of those, the codes of functions inside its `visible` lines
        # keyed by (language, HEAD text)
        self._heads: OrderedDict[tuple[str, str], dict[str, str]] = OrderedDict()  # -> qualname -> code
        self._head_names: dict[tuple[str, str], frozenset[str]] = {}  # -> the names it defines
        self._head_canon: dict[tuple[str, str], dict[str, str]] = {}  # -> canonical form -> code (renames)
        self._head_outside: dict[tuple[str, str], dict[str, str]] = {}  # -> code -> its file names (`Snippet.outside`)

    def _head_functions(self, head_text: str, language: str = sources.PYTHON) -> dict[str, str]:
        """qualname -> code of the HEAD text; parsed once per HEAD text, not once per keystroke."""
        key = (language, head_text)
        found = self._heads.get(key)
        if found is None:
            found = {}
            outside: dict[str, str] = {}
            head = sources.parse(head_text, language)  # once: its functions and its names read one tree
            for s in _safe_extract(head or head_text, language):
                found.setdefault(s.qualname, s.code)
                outside.setdefault(s.code, s.reading)
            self._heads[key] = found
            self._head_outside[key] = outside
            names = self._head_names[key] = _file_names(head)
            self._head_canon[key] = {rules.canonical(code, names, language): code for code in found.values()}
            while len(self._heads) > _MAX_HEADS:
                gone = self._heads.popitem(last=False)[0]
                self._head_names.pop(gone, None)
                self._head_canon.pop(gone, None)
                self._head_outside.pop(gone, None)
        else:
            self._heads.move_to_end(key)
        return found

    def explain(self, r: FunctionResult) -> Attribution | None:
        """Which statements drive `r`'s values (leave each out, predict again), or None where there
        is nothing to say: no predictions, another language, a Triton kernel (its statements are
        not the ones the function model reads), or the model failed (logged; a hover goes on)."""
        if not r.predictions or r.language != sources.PYTHON or r.snippet.kind == "triton_kernel":
            return None
        try:
            return self.drivers(r.snippet.code, r.language, at_n.n_of(r.predictions), r.snippet.context())
        except Exception:  # noqa: BLE001 - a hover line is never worth a failed hover
            logger.exception("attribution failed for %s", r.snippet.qualname)
            return None

    def forget(self, uri: str) -> None:
        self._memo.pop(uri, None)

    def analyze(
        self,
        uri: str,
        text: str,
        head_text: str | None,
        snippets: Sequence[Snippet] | None = None,
        limit: int | None = None,
        visible: tuple[int, int] | None = None,
        language: str = sources.PYTHON,
        n: float | None = None,
        parsed: Source | None = None,
    ) -> list[FunctionResult]:
        """Results for every function of `text`. `n`: the `rlm.n` setting (a model that reads n).
        `parsed`: `text` parsed once (`sources.parse`, Python), which its functions, names and pragmas
        read; without it, `text` is parsed here where one of them needs it (once a call).

        With `limit`, at most that many new codes go to the model, functions inside `visible`
        (the lines the editor last asked hints for) first; the others come back without
        predictions and `self.pending` says how many codes were left for the next call
        (`self.pending_visible`: how many of them are the visible functions').
        """
        if parsed is not None and parsed.text is not text:
            parsed = None  # another version's: never read
        if parsed is None and (snippets is None or head_text is not None or "rlm:" in text):
            parsed = sources.parse(text, language)  # None for another language
        snippets = sources.extract(parsed or text, language) if snippets is None else snippets
        head_code = self._head_functions(head_text, language) if head_text is not None else {}
        head_outside = self._head_outside.get((language, head_text), {}) if head_text is not None else {}
        # (names HEAD defines, names this text defines): what a rename may not touch
        names: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        renamed: dict[str, str] = {}
        if head_text is not None and head_code:
            names = (self._head_names.get((language, head_text), frozenset()), _file_names(parsed))
            renamed = self._head_canon.get((language, head_text), {})

        def head_of(s: Snippet) -> str | None:
            """HEAD's version: same qualified name, else the same canonical code (a renamed function)."""
            base = head_code.get(s.qualname)
            if base is None and renamed:
                base = renamed.get(rules.canonical(s.code, names[1], language))
            return base

        lines = parsed.lines if parsed is not None else split_lines(text)
        project = project_rules(uri)

        def choose(s: Snippet) -> float | None:
            """The n `s` is asked at: None (its reference n) for a model that does not read n, or a kernel."""
            if not self.reads_n or _group(s) == "kernel":
                return None
            return curves.choose(lines, s.start_line, n, project, language).n

        sizes = {id(s): choose(s) for s in snippets}  # read once: both loops below ask

        memo = self._memo.get(uri, {})
        wanted: dict[str, list[Key]] = {"function": [], "kernel": []}
        shown: set[Key] = set()  # (code, n, file names) of the functions inside `visible`
        order = sorted(snippets, key=lambda s: not _inside(s, visible)) if visible else snippets
        for s in order:
            group = _group(s)
            if group == "kernel" and not self.kernel_metrics:
                continue
            codes = [(s.code, sizes[id(s)], s.reading)]
            base = head_of(s)
            if base is not None and rules.changed(base, s.code, *names, language):
                codes.append((base, codes[0][1], head_outside.get(base, "")))
            if _inside(s, visible):
                shown.update(codes)
            for code in codes:
                if code not in memo and code not in wanted[group]:
                    wanted[group].append(code)
        self.pending = self.pending_visible = 0
        if limit is not None:
            room = limit
            for group, codes in wanted.items():
                self.pending += max(0, len(codes) - room)
                self.pending_visible += sum(code in shown for code in codes[max(room, 0):])
                wanted[group] = codes[:room]
                room -= len(wanted[group])
        fresh: dict[Key, Mapping[str, Any]] = {}
        for group, keys in wanted.items():
            metrics = self.function_metrics if group == "function" else self.kernel_metrics
            if not keys or not metrics:
                continue
            only = metrics if self.kernel_metrics else None  # None: every metric of the model
            for at in dict.fromkeys(k[1] for k in keys):  # one batch per n; one batch for a model without n
                batch = [k for k in keys if k[1] == at]
                contexts = [context_of(k[2]) or None for k in batch]
                results = at_n.ask_each(self.predictor, [k[0] for k in batch], contexts, language, at, metrics=only)
                self.predicted += len(batch)
                fresh.update(zip(batch, results, strict=True))

        def preds(key: Key, group: str) -> Mapping[str, Any]:
            if group == "kernel" and not self.kernel_metrics:
                return {}
            return memo.get(key) or fresh.get(key) or {}

        found = rules.comments(parsed) if parsed is not None and "rlm:" in text else {}
        out: list[FunctionResult] = []
        keep: dict[Key, Mapping[str, Any]] = {}
        for s in snippets:
            group = _group(s)
            at = sizes[id(s)]
            current = preds((s.code, at, s.reading), group)
            keep[(s.code, at, s.reading)] = current
            base = head_of(s)
            if head_text is None:
                state, head = "unknown", None
            elif base is None:
                state, head = "new", None
            elif not rules.changed(base, s.code, *names, language):
                state, head = "same", current  # the same canonical code: a rename or a reformat is no change
            else:
                key = (base, at, head_outside.get(base, ""))
                state, head = "changed", preds(key, group)
                keep[key] = head
            out.append(
                FunctionResult(
                    snippet=s,
                    predictions=current,
                    head=head,
                    head_state=state,
                    header_text=_line(lines, s.header_end_line),
                    name_text=_line(lines, s.name_line),
                    allowed=rules.pragma(s, found, lines) or None if found else None,
                    project=project,
                    language=language,
                )
            )
        self._memo[uri] = {key: p for key, p in keep.items() if p}
        return out


def project_rules(uri: str):
    """The `[tool.rlm]` table of the pyproject.toml above a file: URI, as the gate reads it (cached
    by file and modification time); None for other URIs, no pyproject, or a table with an error
    (logged once)."""
    if not uri.startswith("file://"):
        return None
    from rlm_lsp.policy import project_config as config

    path = Path(unquote(urlparse(uri).path))
    pyproject = next((found for d in path.parents if (found := config.find_pyproject(d))), None)
    if pyproject is None:
        return None
    try:
        key = (str(pyproject), pyproject.stat().st_mtime_ns)
    except OSError:
        return None
    if key not in _PROJECTS:
        try:
            _PROJECTS[key] = config.load(pyproject)
        except (config.ConfigError, OSError, ValueError) as exc:
            logger.warning("ignoring [tool.rlm] of %s: %s", pyproject, exc)
            _PROJECTS[key] = None
        while len(_PROJECTS) > _MAX_HEADS:
            _PROJECTS.pop(next(iter(_PROJECTS)))
    return _PROJECTS[key]


_PROJECTS: dict[tuple[str, int], Any] = {}


def _inside(s: Snippet, lines: tuple[int, int] | None) -> bool:
    return lines is not None and lines[0] <= s.header_end_line <= lines[1]


def _group(s: Snippet) -> str:
    return "kernel" if s.kind == "triton_kernel" else "function"


def _file_names(parsed: Source | None) -> frozenset[str]:
    """What a file defines, for canonical renames: Python only (other languages, no `parsed`, keep their names)."""
    return rules.file_names(parsed) if parsed is not None else frozenset()


def _safe_extract(text: str | Source, language: str = sources.PYTHON) -> list[Snippet]:
    try:
        return sources.extract(text, language)
    except Exception:  # noqa: BLE001 - HEAD text is whatever was committed; never fail on it
        logger.debug("could not extract functions from HEAD text", exc_info=True)
        return []


def _line(lines: Sequence[str], i: int) -> str:
    return lines[i] if 0 <= i < len(lines) else ""


def still_valid(result: FunctionResult, lines: Sequence[str]) -> bool:
    """True while the document's header and name lines are the ones the result was made for.

    Between an edit and its re-analysis the cached results are for an older version;
    a function whose lines did not move keeps its hint, one that moved or changed
    loses it until fresh results land (no hint is ever drawn on the wrong line).
    """
    s = result.snippet
    return _strip_eol(lines, s.header_end_line) == result.header_text and (
        s.name_line == s.header_end_line or _strip_eol(lines, s.name_line) == result.name_text
    )


def _strip_eol(lines: Sequence[str], i: int) -> str | None:
    if not 0 <= i < len(lines):
        return None
    return lines[i].rstrip("\r\n")
