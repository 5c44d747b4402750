"""The committed (git HEAD) text of a file, for "change against HEAD" in hovers and diagnostics.

Two small git calls: `rev-parse HEAD:./name` gives the blob id of the committed file
(cheap; asked again after 2 s, so a new commit is seen almost at once), and `cat-file blob`
reads it once per blob id. Everything runs in the analysis thread, never the protocol
thread, with stdin closed so git can never read the server's JSON-RPC pipe.
"""

from __future__ import annotations

import logging
import os
import subprocess
import time
from collections import OrderedDict

logger = logging.getLogger(__name__)

_TIMEOUT_S = 5.0
_MAX_BLOBS = 256
_BLOB_ID_TTL_S = 2.0  # while typing, analyses come faster than commits: ask git at most this often


class HeadSource:
    """`HeadSource().text(path)` -> the file's text at HEAD, or None (no repo, untracked, binary)."""

    def __init__(self) -> None:
        self._blobs: OrderedDict[tuple[str, str], str | None] = OrderedDict()
        self._blob_ids: dict[str, tuple[float, str | None]] = {}  # path -> (when asked, blob id)
        self._no_git = False

    def text(self, path: str) -> str | None:
        if self._no_git or not path:
            return None
        directory, name = os.path.split(os.path.abspath(path))
        now = time.monotonic()
        asked, blob = self._blob_ids.get(path, (-_BLOB_ID_TTL_S, None))
        if now - asked >= _BLOB_ID_TTL_S:
            blob = None
            if os.path.isdir(directory):
                blob = self._git(directory, "rev-parse", "--verify", "-q", f"HEAD:./{name}")
            if len(self._blob_ids) > 4 * _MAX_BLOBS:
                self._blob_ids.clear()
            self._blob_ids[path] = (now, blob)
        if not blob:
            return None
        key = (directory, blob.strip())
        if key in self._blobs:
            self._blobs.move_to_end(key)
            return self._blobs[key]
        data = self._git(directory, "cat-file", "blob", key[1], binary=True)
        text = None
        if data is not None and b"\0" not in data[:8192]:
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                text = None
        self._blobs[key] = text
        while len(self._blobs) > _MAX_BLOBS:
            self._blobs.popitem(last=False)
        return text

    def _git(self, cwd: str, *args: str, binary: bool = False):
        try:
            proc = subprocess.run(
                ["git", *args],
                cwd=cwd,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_TIMEOUT_S,
                check=False,
            )
        except FileNotFoundError:
            logger.info("git not found: no comparison against HEAD")
            self._no_git = True
            return None
        except (OSError, subprocess.SubprocessError) as exc:
            logger.debug("git %s failed: %s", args[0], exc)
            return None
        if proc.returncode != 0:
            return None
        return proc.stdout if binary else proc.stdout.decode("utf-8", "replace")
