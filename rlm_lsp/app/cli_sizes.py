"""Which input size n `rlm predict` gives each row's values at, and the table's line that says it.

    a function (or the <module> row):  --n  >  its `# rlm: n=...` comment  >  n in [tool.rlm]  >  the model's
    the <script> row (its stdin's bytes): --input FILE (its size, never its text) or --input-bytes N  >  the model's

"The model's" is the reference n its predictions come with (`Prediction.n`); a model that
predicts no growth has none, and its values stay "per call, for a typical large input".
`[tool.rlm]` is read from the nearest pyproject.toml above each file, as the editor reads it.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from rlm_lsp.policy import project_config
from rlm_lsp.runtime import at_n, growth, sizes, source_text
from rlm_lsp.runtime.prediction import Prediction

REFERENCE = "the model's reference size"
WHOLE_RUN = ("script", "module")  # rows that read the whole file: their n is the input's bytes


@dataclasses.dataclass(frozen=True)
class Size:
    n: float
    source: str  # "--n", "# rlm: n=", "[tool.rlm] n", "--input data.txt", "--input-bytes", REFERENCE


@dataclasses.dataclass
class Sizes:
    """The sizes asked for on the command line, and the n each predicted row got (`used`).
    `project_n` raises `ConfigError` for a malformed n in `[tool.rlm]`."""

    n: float | None = None  # --n
    input_n: Size | None = None  # --input / --input-bytes
    used: dict[tuple[str, int, str], Size] = dataclasses.field(default_factory=dict)  # (file, line, function) ->
    _projects: dict[Path | None, float | None] = dataclasses.field(default_factory=dict)

    def project_n(self, path: Path) -> float | None:
        """n in the `[tool.rlm]` above `path`, read once per pyproject.toml."""
        pyproject = project_config.nearest_pyproject(path)
        if pyproject not in self._projects:
            table = project_config.read_table(pyproject) if pyproject is not None else {}
            self._projects[pyproject] = (project_config.parse_n(table["n"], f"{pyproject}: [tool.rlm] n")
                                         if "n" in table else None)
        return self._projects[pyproject]

    def asked(self, path: Path, kind: str, pragma: float | None) -> Size | None:
        """The size a row of `kind` in `path` is asked at (None: the model's reference n)."""
        if kind in WHOLE_RUN and self.input_n is not None:
            return self.input_n
        if kind == "script":
            return None
        if self.n is not None:
            return Size(self.n, "--n")
        if pragma is not None:
            return Size(pragma, "# rlm: n=")
        project = self.project_n(path)
        return Size(project, "[tool.rlm] n") if project is not None else None

    def move(self, key: tuple[str, int, str], result: dict[str, Prediction],
             asked: Callable[[], Size | None],
             at_n: Callable[[float], dict[str, Prediction]] | None = None) -> dict[str, Prediction]:
        """`result` at the size `asked()` gives (`growth.at`; None: the model's reference n), and the n
        its row is for recorded. Where the model predicts no growth, `result` unchanged and nothing
        asked (so a project's n is not even read). `at_n`, for a model that reads n (its template's
        {n}): the model asked at that n, whose numbers there are its own rather than moved along its growth."""
        n = next((p.n for p in result.values() if p.n is not None), None)
        if n is None:
            return result
        size = asked()
        self.used[key] = size if size is not None else Size(n, REFERENCE)
        if size is None or size.n == n:
            return result
        if at_n is not None:
            return at_n(size.n)
        return {m: growth.at(p, size.n) for m, p in result.items()}


def asker(predictor, code: str, context: dict | None = None) -> Callable[[float], dict[str, Prediction]] | None:
    """For a model that reads n (its template's {n}, `rlm_lsp.runtime.template.n_field`): `code`'s
    predictions asked at a given n (`Sizes.move`'s `at_n`); None for any other model."""
    if not at_n.reads_n(predictor):
        return None
    return lambda n: predictor.predict([code], context=at_n.context_at(predictor, n, context))[0]


def parse_n(text: str, flag: str) -> float:
    """A size given on the command line; ValueError naming the flag."""
    try:
        return sizes.parse_n(text)
    except ValueError as exc:
        raise ValueError(f"{flag} {text}: {exc}") from None


def from_args(n: str | None, input_file: Path | None, input_bytes: str | None) -> Sizes:
    """The sizes of `--n`, `--input` and `--input-bytes`; ValueError with a one-line reason."""
    if input_file is not None and input_bytes is not None:
        raise ValueError("give --input or --input-bytes, not both")
    out = Sizes(n=parse_n(n, "--n") if n is not None else None)
    if input_bytes is not None:
        out.input_n = Size(parse_n(input_bytes, "--input-bytes"), "--input-bytes")
    elif input_file is not None:
        out.input_n = Size(file_bytes(input_file), f"--input {input_file}: its size in bytes")
    return out


def file_bytes(path: Path) -> float:
    """The size of the input file `path` in bytes, from its metadata (a stat: the file is never
    opened, read or run); a FIFO, a device or a kernel pseudo-file is refused, as `source_text`
    refuses them."""
    try:
        info = os.stat(path)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the name
        raise ValueError(f"--input {path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = source_text.NOT_REGULAR.get(stat.S_IFMT(info.st_mode), "unknown kind")
        raise ValueError(f"--input {path}: not a regular file ({kind})")
    if info.st_size == 0 and source_text._pseudo(info.st_dev):
        raise ValueError(f"--input {path}: not a regular file (a kernel pseudo-file)")
    try:
        return sizes.parse_n(info.st_size)
    except ValueError:
        raise ValueError(f"--input {path}: an empty file has no size to predict for; "
                         "use --input-bytes 1 for an empty input") from None


def pragma(lines: list[str], start_line: int, path: Path, notes: list[str] | None,
           language: str = "python") -> float | None:
    """The `# rlm: n=...` (`// rlm: n=...` in C++, Java, Go) above a function whose first line (decorator
    or def) is `start_line` (0-based); a malformed one is a note in `notes`, and the function keeps the
    default n."""
    comment = sizes.comment_of(language)
    try:
        return sizes.pragma_n(lines, start_line, comment=comment)
    except ValueError as exc:
        if notes is not None:
            notes.append(f"note: {path}:{start_line}: `{comment} rlm: n=` ignored: {exc}")
        return None


def closing_line(sizes_: Sizes, rows: list[dict]) -> str | None:
    """`values at n = 10⁴, the model's reference size (set it with --n)`, and where the rows marked
    `@ n=...` (`marked`) got their own n; None where no row has an n."""
    used, main = _used(sizes_, rows)
    if main is None:
        return None
    how = {REFERENCE: f", {REFERENCE} (set it with --n)", "--n": " (--n)"}.get(main.source, f" ({main.source})")
    text = f"values at n = {sizes.format_n(main.n)}{how}"
    own = dict.fromkeys(u.source for u in used.values() if u != main)
    if own:
        text += "; @: a row's own n (" + ", ".join(own) + ")"
    return text


def marked(sizes_: Sizes, rows: list[dict]) -> dict[tuple[str, int, str], str]:
    """(file, line, function) -> ` @ n=10⁶` for the rows whose n is not the closing line's."""
    used, main = _used(sizes_, rows)
    return {k: f" @ n={sizes.format_n(u.n)}" for k, u in used.items() if u != main}


def _used(sizes_: Sizes, rows: list[dict]) -> tuple[dict[tuple[str, int, str], Size], Size | None]:
    """Each row's size, and the closing line's: the most common among the functions' (a script's
    input is its own size), else the scripts'."""
    used = {key(r): sizes_.used[key(r)] for r in rows if key(r) in sizes_.used}
    functions = [sizes_.used[key(r)] for r in rows if key(r) in sizes_.used and r.get("kind") not in WHOLE_RUN]
    return used, (Counter(functions or used.values()).most_common(1)[0][0] if used else None)


def key(row: dict) -> tuple[str, int, str]:
    return (row["file"], row["line"], row["function"])
