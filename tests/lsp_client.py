"""A small blocking LSP client over stdio, for the server's end-to-end tests and bench/lsp.py.

It starts the real server process, frames JSON-RPC by Content-Length, answers the
server's own requests (workspace/configuration, progress creation, refreshes) and
keeps every notification and server request it saw, with the time it arrived.
Anything on the server's stdout that is not a well-framed message is recorded in
`garbage`, so a test can assert that stdout carries protocol only.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any


class LspError(Exception):
    def __init__(self, error: dict) -> None:
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error


class LspClient:
    def __init__(
        self,
        settings: dict | None = None,
        cmd: Sequence[str] | None = None,
        env: dict | None = None,
        cwd: str | Path | None = None,
        stderr: Any = subprocess.DEVNULL,
    ) -> None:
        self.settings = settings or {}
        self.folder_settings: dict[str, dict] = {}  # folder URI -> the `rlm` section asked with that scopeUri
        self.proc = subprocess.Popen(
            list(cmd or [sys.executable, "-m", "rlm_lsp"]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            # the model the server preloads while it starts: the one these settings name (as VS Code's extension says)
            env={"RLM_PRELOAD": json.dumps(self.settings), **os.environ, **(env or {})},
            cwd=cwd,
        )
        self._ids = itertools.count(1)
        self._cond = threading.Condition()
        self._responses: dict[Any, dict] = {}
        self.notifications: list[tuple[float, dict]] = []  # (monotonic time, message)
        self.server_requests: list[tuple[float, dict]] = []
        self.garbage: list[bytes] = []
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # --- lifecycle ------------------------------------------------------------------

    def initialize(self, root: str | Path | None = None, capabilities: dict | None = None, timeout: float = 30,
                   folders: list[Path] | None = None, client_name: str = "Visual Studio Code") -> dict:
        caps = capabilities or {
            "workspace": {
                "configuration": True,
                "inlayHint": {"refreshSupport": True},
                "codeLens": {"refreshSupport": True},
                "didChangeConfiguration": {"dynamicRegistration": False},
            },
            "window": {"workDoneProgress": True, "showMessage": {}},
            "textDocument": {
                "inlayHint": {},
                "codeLens": {},
                "hover": {"contentFormat": ["markdown", "plaintext"]},
                "publishDiagnostics": {"versionSupport": True},
            },
        }
        result = self.request(
            "initialize",
            {
                "processId": os.getpid(),
                "rootUri": Path(root).resolve().as_uri() if root else None,
                "capabilities": caps,
                "clientInfo": {"name": client_name},
                "initializationOptions": self.settings,
                **({"workspaceFolders": [{"uri": f.resolve().as_uri(), "name": f.name} for f in folders]}
                   if folders else {}),
            },
            timeout=timeout,
        )
        self.notify("initialized", {})
        return result

    def close(self, timeout: float = 10) -> int | None:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
                self.proc.wait(timeout)
            except Exception:  # noqa: BLE001 - a dead server is closed too
                self.proc.kill()
                self.proc.wait(timeout)
        return self.proc.returncode

    def __enter__(self) -> LspClient:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # --- messages -------------------------------------------------------------------

    def send_raw(self, data: bytes) -> None:
        with self._write_lock:
            assert self.proc.stdin is not None
            self.proc.stdin.write(data)
            self.proc.stdin.flush()

    def _send(self, message: dict) -> None:
        body = json.dumps(message).encode("utf-8")
        self.send_raw(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        msg_id = next(self._ids)
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        response = self.response(msg_id, timeout, method)
        if "error" in response:
            raise LspError(response["error"])
        return response.get("result")

    def response(self, msg_id: Any, timeout: float = 30, what: str = "") -> dict:
        """The server's response message to `msg_id` (an id that is not an int or a string: its JSON text)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while msg_id not in self._responses:
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    rc = self.proc.poll()
                    raise TimeoutError(f"no answer to {what or msg_id} within {timeout}s (server rc={rc})")
                self._cond.wait(min(left, 0.2))
            return self._responses.pop(msg_id)

    def wait_for(self, predicate: Callable[[dict], bool], timeout: float = 30, since: float = 0.0) -> dict:
        """The first notification or server request after `since` (monotonic) matching `predicate`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                for t, msg in self.notifications + self.server_requests:
                    if t >= since and predicate(msg):
                        return msg
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("expected message did not arrive")
                self._cond.wait(min(left, 0.2))

    def messages(self, method: str) -> list[dict]:
        with self._cond:
            return [m for _, m in self.notifications + self.server_requests if m.get("method") == method]

    # --- documents ------------------------------------------------------------------

    def open(self, uri: str, text: str, version: int = 1, language_id: str = "python") -> None:
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": language_id, "version": version, "text": text}},
        )

    def change(self, uri: str, version: int, text: str, range_: dict | None = None) -> None:
        change = {"text": text} if range_ is None else {"range": range_, "text": text}
        self.notify(
            "textDocument/didChange",
            {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
        )

    def inlay_hints(self, uri: str, lines: int = 100_000) -> list[dict]:
        return (
            self.request(
                "textDocument/inlayHint",
                {"textDocument": {"uri": uri}, "range": _range(0, 0, lines, 0)},
            )
            or []
        )

    def code_lenses(self, uri: str) -> list[dict]:
        return self.request("textDocument/codeLens", {"textDocument": {"uri": uri}}) or []

    def hover(self, uri: str, line: int, character: int) -> dict | None:
        return self.request(
            "textDocument/hover",
            {"textDocument": {"uri": uri}, "position": {"line": line, "character": character}},
        )

    def wait_hints(self, uri: str, count: int = 1, timeout: float = 60) -> list[dict]:
        """Poll inlay hints until at least `count` are there (what an editor does on refresh)."""
        deadline = time.monotonic() + timeout
        while True:
            hints = self.inlay_hints(uri)
            if len(hints) >= count:
                return hints
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(hints)} hints after {timeout}s, wanted {count}")
            time.sleep(0.05)

    def diagnostics(self, uri: str) -> list[dict] | None:
        """The latest published diagnostics for `uri`, or None if none were published."""
        found = [m["params"] for m in self.messages("textDocument/publishDiagnostics") if m["params"]["uri"] == uri]
        return found[-1]["diagnostics"] if found else None

    # --- reader ---------------------------------------------------------------------

    def _read_loop(self) -> None:
        out = self.proc.stdout
        assert out is not None
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    self._wake()
                    return
                if line in (b"\r\n", b"\n"):
                    if length is not None:
                        break
                    continue
                name, _, value = line.decode("latin-1").partition(":")
                if name.strip().lower() == "content-length" and value.strip().isdigit():
                    length = int(value.strip())
                elif name.strip().lower() != "content-type":
                    self.garbage.append(line)
            body = out.read(length)
            try:
                message = json.loads(body)
                self._dispatch(message)
            except (ValueError, TypeError, KeyError, AttributeError):
                self.garbage.append(body)

    def _dispatch(self, message: dict) -> None:
        now = time.monotonic()
        if "method" in message and "id" in message:
            with self._cond:
                self.server_requests.append((now, message))
                self._cond.notify_all()
            # Answered from another thread: this one must keep reading, or a server blocked
            # writing to us never reads the message the main thread is blocked writing to it.
            answer = {"jsonrpc": "2.0", "id": message["id"], "result": self._answer(message)}
            threading.Thread(target=self._send_quietly, args=(answer,), daemon=True).start()
        elif "method" in message:
            with self._cond:
                self.notifications.append((now, message))
                self._cond.notify_all()
        else:
            msg_id = message.get("id")
            if not isinstance(msg_id, (int, str, type(None))):
                msg_id = json.dumps(msg_id, sort_keys=True)  # an object or list id: keyed by its JSON text
            with self._cond:
                self._responses[msg_id] = message
                self._cond.notify_all()

    def _send_quietly(self, message: dict) -> None:
        try:
            self._send(message)
        except (OSError, ValueError):  # the server is gone
            pass

    def _answer(self, message: dict) -> Any:
        if message["method"] == "workspace/configuration":
            section = self.settings.get("rlm", self.settings)
            return [self.folder_settings.get(item.get("scopeUri"), section) if item.get("section") == "rlm" else None
                    for item in message["params"]["items"]]
        return None

    def _wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


def file_uri(path: str | Path) -> str:
    return Path(path).resolve().as_uri()


def _range(l0: int, c0: int, l1: int, c1: int) -> dict:
    return {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}}
