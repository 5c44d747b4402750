"""Files -> source bytes -> text, as Python reads a file (PEP 263): `rlm predict` and the gate alike.

`read_bytes` opens without blocking and checks what it opened (a regular file, not over the
size limit, not a kernel pseudo-file) before reading a byte, so a FIFO, a device, /proc/kmsg
or a 2 GB sparse file costs one line, never a hang or the whole file in memory.
A BOM or a `# -*- coding: latin-1 -*-` line names the encoding; without one it is UTF-8.
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
