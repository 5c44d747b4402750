"""Read-only git plumbing for the gate: which files a change touches, and their two versions.

The gate judges the staged content (the index) against HEAD by default, a ref against a ref
in CI, or the working tree against a ref. Every command here only reads: `git diff --raw`
lists the changed files with their blob ids, `git cat-file --batch` reads the blobs, and
`GIT_OPTIONAL_LOCKS=0` keeps git from refreshing the index behind our back. The
environment is passed through untouched, so a `GIT_INDEX_FILE` that `git commit` sets for
its hooks is the index we read.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from rlm_lsp.runtime import source_text
from rlm_lsp.runtime.errors import GitError  # noqa: F401 - its old home; callers import it from here

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # `git hash-object -t tree /dev/null`
INDEX = ":index"  # the staged content, as a `head`
WORKTREE = ":worktree"  # the files on disk, as a `head`
FILE_MODES = ("100644", "100755")  # regular files; symlinks (120000) and submodules (160000) are not code
# CI checkouts are shallow by default (actions/checkout: depth 1), and a commit at a shallow clone's
# edge looks like a root commit: judged against the empty tree, everything new, nothing fails.
FETCH_MORE = "fetch more history (actions/checkout: `fetch-depth: 0`; or `git fetch --deepen=50`)"


@dataclass(frozen=True)
class Change:
    """One changed file, as `git diff --raw -M` lists it."""

    status: str  # "A" added, "M" modified, "D" deleted, "R" renamed, "C" copied, "T" type changed, "U" unmerged
    path: str  # the path after the change (the old path for a deletion), repository-relative, posix
    old_path: str | None  # the path before; None for an added file
    old_blob: str | None  # blob id before; None for an added file
    new_blob: str | None  # blob id after; None for a deleted file or one to read from the working tree
    old_mode: str
    new_mode: str
    similarity: int | None = None  # rename/copy score, 0-100


def run_git(args: Sequence[str], cwd: str | os.PathLike[str], stdin: bytes | None = None) -> bytes:
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, input=stdin, capture_output=True, env=env, check=False)
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip() or f"exit {proc.returncode}"
        raise GitError(f"git {' '.join(args)}: {message}")
    return proc.stdout


def toplevel(cwd: str | os.PathLike[str] = ".") -> Path:
    return Path(run_git(["rev-parse", "--show-toplevel"], cwd).decode().strip())


def resolve(ref: str, cwd: str | os.PathLike[str]) -> str:
    """The commit id of `ref`; GitError naming the ref when it is unknown (and, in a shallow
    clone, saying to fetch more history)."""
    try:
        out = run_git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"], cwd)
    except GitError:
        hint = f" in this shallow clone: {FETCH_MORE}" if is_shallow(cwd) else ""
        raise GitError(f"unknown git revision {ref!r}{hint}") from None
    return out.decode().strip()


def merge_base(a: str, b: str, cwd: str | os.PathLike[str]) -> str:
    """The fork point of `a` and `b`; GitError when they share no history (a shallow clone)."""
    commits = [resolve(a, cwd), resolve(b, cwd)]
    try:
        return run_git(["merge-base", *commits], cwd).decode().strip()
    except GitError:
        if is_shallow(cwd):
            raise GitError(f"{a} and {b} share no commit in this shallow clone: {FETCH_MORE}") from None
        raise


def parent(ref: str, cwd: str | os.PathLike[str]) -> str:
    """The first parent of commit `ref`, or EMPTY_TREE for a root commit; GitError for a commit
    whose parents a shallow clone left out."""
    commit = resolve(ref, cwd)
    parents = run_git(["rev-list", "--parents", "-n", "1", commit], cwd).decode().split()[1:]
    if not parents and commit in shallow_edge(cwd):
        raise GitError(f"the parent of {ref} is not in this shallow clone: {FETCH_MORE}")
    return parents[0] if parents else EMPTY_TREE


def is_shallow(cwd: str | os.PathLike[str]) -> bool:
    try:
        return run_git(["rev-parse", "--is-shallow-repository"], cwd).decode().strip() == "true"
    except GitError:
        return False


def shallow_edge(cwd: str | os.PathLike[str]) -> set[str]:
    """The commits whose parents a shallow clone did not fetch (`.git/shallow`); empty otherwise."""
    path = Path(cwd) / run_git(["rev-parse", "--git-path", "shallow"], cwd).decode().strip()
    try:
        return set(path.read_text().split())
    except OSError:
        return set()


def has_head(cwd: str | os.PathLike[str]) -> bool:
    try:
        run_git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], cwd)
    except GitError:
        return False
    return True


def changes(cwd: str | os.PathLike[str], base: str | None = None, head: str = INDEX) -> list[Change]:
    """Files that differ between `base` (default HEAD, or the empty tree before the first
    commit; EMPTY_TREE itself is allowed) and `head` (INDEX, WORKTREE or a ref), renames detected."""
    if base is None:
        base_tree = "HEAD" if has_head(cwd) else EMPTY_TREE
    elif base == EMPTY_TREE:
        base_tree = EMPTY_TREE
    else:
        base_tree = resolve(base, cwd)
    args = ["diff", "--raw", "-z", "-M", "--no-color", "--no-ext-diff", "--no-textconv", "--abbrev=40"]
    if head == INDEX:
        args += ["--cached", base_tree]
    elif head == WORKTREE:
        args += [base_tree]
    else:
        args += [base_tree, resolve(head, cwd)]
    return parse_raw(run_git([*args, "--"], cwd))


def parse_raw(out: bytes) -> list[Change]:
    """Parse `git diff --raw -z` output."""
    fields = out.split(b"\0")
    result: list[Change] = []
    i = 0
    while i < len(fields) and fields[i]:
        meta = fields[i].decode().lstrip(":").split()
        old_mode, new_mode, old_sha, new_sha, status_field = meta[:5]
        status = status_field[0]
        score = int(status_field[1:]) if status_field[1:].isdigit() else None
        if status in "RC":
            old_path, new_path = (
                fields[i + 1].decode("utf-8", "surrogateescape"),
                fields[i + 2].decode("utf-8", "surrogateescape"),
            )
            i += 3
        else:
            new_path = fields[i + 1].decode("utf-8", "surrogateescape")
            old_path = new_path
            i += 2
        zero = set("0")
        result.append(
            Change(
                status=status,
                path=new_path,
                old_path=None if status == "A" else old_path,
                old_blob=None if status == "A" or set(old_sha) <= zero else old_sha,
                new_blob=None if status == "D" or set(new_sha) <= zero else new_sha,
                old_mode=old_mode,
                new_mode=new_mode,
                similarity=score,
            )
        )
    return result


def blob_sizes(blob_ids: Iterable[str], cwd: str | os.PathLike[str]) -> dict[str, int]:
    """The size in bytes of each blob, from one `git cat-file --batch-check` call (nothing is read)."""
    wanted = sorted(set(blob_ids))
    if not wanted:
        return {}
    out = run_git(["cat-file", "--batch-check"], cwd, stdin="".join(f"{b}\n" for b in wanted).encode())
    sizes: dict[str, int] = {}
    for blob_id, line in zip(wanted, out.decode().splitlines(), strict=False):
        header = line.split()
        if len(header) < 3 or header[1] != "blob":
            raise GitError(f"git cat-file: cannot read blob {blob_id}: {line}")
        sizes[blob_id] = int(header[2])
    return sizes


def read_blobs(blob_ids: Iterable[str], cwd: str | os.PathLike[str]) -> dict[str, bytes]:
    """The contents of the given blobs, read in one `git cat-file --batch` call."""
    wanted = sorted(set(blob_ids))
    if not wanted:
        return {}
    out = run_git(["cat-file", "--batch"], cwd, stdin="".join(f"{b}\n" for b in wanted).encode())
    blobs: dict[str, bytes] = {}
    pos = 0
    for blob_id in wanted:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode().split()
        pos = end + 1
        if len(header) < 3 or header[1] != "blob":
            raise GitError(f"git cat-file: cannot read blob {blob_id}: {' '.join(header)}")
        size = int(header[2])
        blobs[blob_id] = out[pos : pos + size]
        pos += size + 1  # content, then a newline
    return blobs


def show(ref: str, path: str, cwd: str | os.PathLike[str], max_bytes: int = source_text.MAX_FILE_BYTES) -> bytes | None:
    """The bytes of `path` (relative to the top) at `ref`; None where it has no such file."""
    try:
        out = run_git(["cat-file", "-s", f"{ref}:{path}"], cwd)
        if int(out.strip() or 0) > max_bytes:
            return None
        return run_git(["show", f"{ref}:{path}"], cwd)
    except (GitError, ValueError):
        return None


def read_worktree(path: str, cwd: str | os.PathLike[str], max_bytes: int = source_text.MAX_FILE_BYTES) -> bytes:
    """A working-tree file; FileProblem (one line) for a FIFO, a device or a file over `max_bytes`,
    checked before a byte is read."""
    return source_text.read_bytes(Path(cwd) / path, max_bytes)
