"""Files -> source bytes -> text, as Python reads a file (PEP 263): `rlm predict` and the gate alike.

`read_bytes` opens without blocking and checks what it opened (a regular file, not over the
size limit, not a kernel pseudo-file) before reading a byte, so a FIFO, a device, /proc/kmsg
or a 2 GB sparse file costs one line, never a hang or the whole file in memory.
A BOM or a `# -*- coding: latin-1 -*-` line names the encoding; without one it is UTF-8.

`write_regular` is the other way round, the one way rlm writes a file it is told to or keeps (the
gate's report and summary, `.rlm/measured.jsonl`): only a regular file, never through a symlink
(a repository can track one pointing anywhere), never into a FIFO or a device (issue 61.4).
"""

from __future__ import annotations

import io
import os
import stat
import tokenize

from rlm_lsp.runtime.errors import FileProblem

MAX_FILE_BYTES = 1_000_000  # bigger "source" files are generated code
NOT_REGULAR = {stat.S_IFDIR: "a directory", stat.S_IFIFO: "a FIFO", stat.S_IFCHR: "a character device",
               stat.S_IFBLK: "a block device", stat.S_IFSOCK: "a socket"}
_PSEUDO_ROOTS = ("/proc", "/sys")  # their files claim size 0 and may block or be consumed by a read


def read_bytes(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES, what: str = "file") -> bytes:
    """The bytes of the regular file `path`; FileProblem with a one-line reason otherwise."""
    too_big = f"{what} is larger than {size_text(max_bytes)}"
    try:
        # O_NONBLOCK: opening a FIFO (even one swapped in after a stat) must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except OSError as exc:
        raise FileProblem(exc.strerror or str(exc)) from None
    try:
        info = os.fstat(fd)  # what was opened, not what the name pointed to a moment ago
        if not stat.S_ISREG(info.st_mode):
            raise FileProblem(f"not a regular file ({NOT_REGULAR.get(stat.S_IFMT(info.st_mode), 'unknown kind')})")
        if info.st_size > max_bytes:
            raise FileProblem(too_big)
        if info.st_size == 0 and _pseudo(info.st_dev):
            raise FileProblem("not a regular file (a kernel pseudo-file)")
        chunks, total = [], 0
        while total <= max_bytes:  # it may have grown since the fstat
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except BlockingIOError:
        raise FileProblem("not a regular file (reading it would block)") from None
    except OSError as exc:
        raise FileProblem(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)
    if total > max_bytes:
        raise FileProblem(too_big)
    return b"".join(chunks)


def decode(data: bytes) -> str:
    """The text of `data`; ValueError with a one-line reason when it cannot be read as Python would."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except SyntaxError as exc:  # an unknown codec, a BOM that contradicts the coding line, or bytes
        try:                    # in the first two lines that are not UTF-8 and no coding line
            data.decode("utf-8")
        except UnicodeDecodeError as bad:
            raise ValueError(f"not UTF-8 text (byte {bad.start})") from None
        raise ValueError(f"bad coding cookie: {exc.msg}") from None
    except LookupError:  # a codec that is not a text encoding, e.g. rot13
        raise ValueError(f"bad coding cookie: {encoding!r} is not a text encoding") from None
    except UnicodeDecodeError as exc:
        name = "UTF-8" if encoding.startswith("utf-8") else encoding
        raise ValueError(f"not {name} text (byte {exc.start})") from None


def write_regular(path: str | os.PathLike[str], body: str, append: bool = False) -> None:
    """Write `body` to the regular file `path` (replacing it, or at its end with `append`), creating it
    if need be; FileProblem with a one-line reason for a symlink, a FIFO, a device or a folder there,
    or a write that fails. Nothing is written through the last component's symlink (O_NOFOLLOW), and
    what was opened is checked, not what the name pointed to a moment before."""
    if os.path.islink(path):
        raise FileProblem("it is a symlink")
    if os.path.exists(path) and not os.path.isfile(path):
        raise FileProblem("not a regular file (a FIFO, a device or a folder)")
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | (os.O_APPEND if append else 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        raise FileProblem("it is a symlink" if os.path.islink(path) else exc.strerror or str(exc)) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise FileProblem("not a regular file")
        if not append:
            os.ftruncate(fd, 0)
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", closefd=False) as fh:
            fh.write(body)
    except OSError as exc:
        raise FileProblem(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def size_text(n: int) -> str:
    return f"{n // 1_000_000} MB" if n >= 1_000_000 and n % 1_000_000 == 0 else f"{n} bytes"


def _pseudo(device: int) -> bool:
    for root in _PSEUDO_ROOTS:
        try:
            if os.stat(root).st_dev == device:
                return True
        except OSError:
            continue
    return False
