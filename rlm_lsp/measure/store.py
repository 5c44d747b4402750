"""Measured curves kept: `.rlm/measured.jsonl` at the repository root, one JSON line per curve, appended.

    rlm measure, rlm gate --measure -> Curve -> `keep` (a row keyed by `code_hash`)
    rlm predict                     -> `kept(path, source)` -> per function whose hash matches: its row

A row: the code hash, the file and function, the input kinds (or the generator), the sizes, the
figures, per metric the exponent and class, when, the machine (CPU model) and the Python version.
The code hash is the function's text as measured plus its helpers' (`code_hash`): what the file
defines at its top level and the function names, directly or through another helper (a node class,
a function it calls, a method called on `self`), so an edit to any of them is a new hash.  The
generator's module is not hashed: a row made with `[tool.rlm.inputs]` names it.

Rows are only appended (the file is a log: the latest row of a hash wins), through
`source_text.write_regular`: never through a symlink, `.rlm` itself included.  Outside a git
repository nothing is kept.
"""

from __future__ import annotations

import ast
import datetime
import functools
import hashlib
import json
import os
import platform
from pathlib import Path

from rlm_lsp.measure.run import Curve
from rlm_lsp.runtime import machine, source_text
from rlm_lsp.runtime.errors import FileProblem

FOLDER, FILE = ".rlm", "measured.jsonl"
MAX_STORE_BYTES = 64_000_000  # a log of some 100,000 curves; past it, rows are no longer read
FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)


def repository_root(path: Path) -> Path | None:
    """The nearest folder at or above `path` that holds `.git` (a folder, or a worktree's file)."""
    start = path.resolve()
    for folder in (start, *start.parents) if start.is_dir() else start.parents:
        if (folder / ".git").exists():
            return folder
    return None


def store_path(root: Path) -> Path:
    return root / FOLDER / FILE


def code_hash(source: str, qualname: str) -> str | None:
    """`sha256:…` of the function `qualname` (`name` or `Class.method`) of `source` and of its
    helpers, each as written; None where the source has no such top-level function or method."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    top = {n.name: n for n in tree.body if isinstance(n, (*FUNCS, ast.ClassDef))}
    owner_name, _, name = qualname.rpartition(".")
    owner = top.get(owner_name) if owner_name else None
    if owner_name and not isinstance(owner, ast.ClassDef):
        return None
    scope = owner.body if isinstance(owner, ast.ClassDef) else tree.body
    fn = next((n for n in scope if isinstance(n, FUNCS) and n.name == name), None)
    if fn is None:
        return None
    methods = {n.name: n for n in owner.body if isinstance(n, FUNCS)} if isinstance(owner, ast.ClassDef) else {}
    seen: dict[str, ast.AST] = {qualname: fn}
    todo: list[ast.AST] = [fn]
    while todo:
        for node in ast.walk(todo.pop()):
            found = None
            if isinstance(node, ast.Name) and node.id in top:
                key, found = node.id, top[node.id]
            elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                    and node.attr in methods:
                key, found = f"{owner_name}.{node.attr}", methods[node.attr]
            if found is not None and key not in seen:
                seen[key] = found
                todo.append(found)
    parts = [f"{key}\n{ast.get_source_segment(source, node) or ast.dump(node)}" for key, node in sorted(seen.items())]
    return "sha256:" + hashlib.sha256("\n\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def row(curve: Curve, source: str, file: str, tool: str) -> dict | None:
    """The row kept for a measured curve of the function in `source`; None for an unmeasured one."""
    digest = code_hash(source, curve.plan.function)
    if curve.status != "measured" or digest is None:
        return None
    return {"code_hash": digest, "file": file, "function": curve.plan.function,
            "inputs": curve.plan.inputs, "kinds": [e.get("kind") for e in curve.plan.recipe],
            "generator": curve.plan.generator, "sizes": [r.n for r in curve.rungs],
            "time_s": [r.time_s for r in curve.rungs], "memory_bytes": [r.memory_bytes for r in curve.rungs],
            "time": curve.growth["time"].as_json(), "memory": curve.growth["memory"].as_json(),
            "when": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "machine": machine.cpu_model(platform.machine()), "python": platform.python_version(), "tool": tool}


def keep(root: Path, rows: list[dict]) -> None:
    """Append `rows` to `root`'s `.rlm/measured.jsonl`; FileProblem (one line) when it cannot be written."""
    if not rows:
        return
    folder = root / FOLDER
    if folder.is_symlink() or folder.exists() and not folder.is_dir():
        raise FileProblem(f"{folder}: not a folder (a symlink or a file): nothing kept")
    try:
        folder.mkdir(exist_ok=True)
    except OSError as exc:
        raise FileProblem(f"{folder}: {exc.strerror or exc}") from None
    body = "".join(json.dumps(r, ensure_ascii=False, allow_nan=False) + "\n" for r in rows)
    try:
        source_text.write_regular(store_path(root), body, append=True)
    except FileProblem as exc:
        raise FileProblem(f"{store_path(root)}: {exc}") from None


def read(root: Path) -> dict[str, dict]:
    """code hash -> its latest row; {} without a store, or where it cannot be read as one."""
    path = store_path(root)
    if (root / FOLDER).is_symlink() or not path.is_file():
        return {}
    info = path.stat()
    return _read(str(path), info.st_mtime_ns, info.st_size)  # `rlm predict a.py b.py ...`: read once


@functools.lru_cache(maxsize=4)
def _read(path: str, mtime_ns: int, size: int) -> dict[str, dict]:
    try:
        data = source_text.read_bytes(path, MAX_STORE_BYTES, what="measured store")
    except FileProblem:
        return {}
    out: dict[str, dict] = {}
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue  # a line cut by a crash, or written by hand: the others still count
        if isinstance(item, dict) and isinstance(item.get("code_hash"), str):
            out[item["code_hash"]] = item
    return out


def kept(path: Path, source: str, qualnames: list[str]) -> dict[str, dict]:
    """qualname -> the kept row whose code hash matches that function of `source` (the file `path`)."""
    root = repository_root(path)
    rows = read(root) if root is not None else {}
    if not rows:
        return {}
    out = {}
    for name in qualnames:
        digest = code_hash(source, name)
        if digest in rows:
            out[name] = rows[digest]
    return out


def relative(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return os.fspath(path)


MEASURED_OF = {"latency": "time", "memory": "memory"}  # a predicted metric -> the measured one


def add_measured(row: dict, kept: dict) -> None:
    """Beside each predicted metric, `"measured": {...}` from the row `rlm_lsp.measure.store` kept for this code."""
    for metric, what in MEASURED_OF.items():
        fit = kept.get(what)
        if isinstance(row.get(metric), dict) and isinstance(fit, dict) and fit.get("class"):
            row[metric]["measured"] = {"class": fit["class"], "exponent": fit.get("exponent"), "r2": fit.get("r2"),
                                       "sizes": kept.get("sizes"), "inputs": kept.get("inputs"),
                                       "when": kept.get("when"), "machine": kept.get("machine"),
                                       "python": kept.get("python"), "code_hash": kept.get("code_hash")}
