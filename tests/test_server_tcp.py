"""`rlm serve --tcp` with two real clients at once (issue 52, item 2).

The server holds one session, so the first client owns it: a second connection is told why
in one `window/showMessage` and closed, never sees the first client's replies, cannot query its
documents, and its hang-up leaves the first client's session running.
"""

from __future__ import annotations

import itertools
import json
import socket
import subprocess
import sys
import time

import pytest

from rlm_lsp.server.transport import Framer

pytestmark = pytest.mark.timeout(120)


class TcpClient:
    """A blocking LSP client on a socket: answers the server's requests, keeps everything else."""

    def __init__(self, port: int, timeout: float = 20) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server never listened"
                time.sleep(0.1)
        self.framer = Framer()
        self.seen: list[dict] = []
        self.closed = False
        self._ids = itertools.count(1)

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        self.sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def pump(self, timeout: float) -> None:
        """Read what arrives within `timeout` (or until the server hangs up)."""
        self.sock.settimeout(timeout)
        try:
            data = self.sock.recv(65536)
        except TimeoutError:
            return
        except OSError:
            data = b""
        if not data:
            self.closed = True
        for message, _ in self.framer.feed(data) if data else self.framer.close():
            if message is None:
                continue
            self.seen.append(message)
            if "method" in message and "id" in message:  # the server asks: configuration, progress
                result = [{}] * len(message["params"]["items"]) if message["method"] == "workspace/configuration" else None
                self.send({"id": message["id"], "result": result})

    def request(self, method: str, params: object, timeout: float = 20) -> dict:
        msg_id = next(self._ids)
        self.send({"id": msg_id, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.closed:
            for m in self.seen:
                if m.get("id") == msg_id and "method" not in m:
                    return m
            self.pump(0.2)
        raise TimeoutError(f"no answer to {method}")

    def wait_closed(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while not self.closed and time.monotonic() < deadline:
            self.pump(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hover(uri: str) -> dict:
    return {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 4}}


@pytest.fixture
def server(tmp_path):
    port = free_port()
    err = open(tmp_path / "server.err", "wb")
    proc = subprocess.Popen([sys.executable, "-m", "rlm_lsp", "--tcp", f"127.0.0.1:{port}"],
                            stdout=subprocess.DEVNULL, stderr=err, cwd=tmp_path)
    yield port, proc
    proc.kill()
    proc.wait(10)
    err.close()


def test_second_client_is_refused_and_never_touches_the_first(server, tmp_path):
    port, proc = server
    probe = TcpClient(port)  # connects and hangs up without a word, before the real client
    probe.sock.close()
    a = TcpClient(port)
    init = a.request("initialize", {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {},
                                    "initializationOptions": {"modelPath": str(tmp_path / "no-model")}})
    assert "inlayHintProvider" in init["result"]["capabilities"]
    a.send({"method": "initialized", "params": {}})
    uri = (tmp_path / "secret.py").as_uri()
    a.send({"method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "python", "version": 1, "text": "def secret_name(n):\n    return n\n"}}})

    b = TcpClient(port)  # connects while A is in session
    b.wait_closed()
    assert b.closed
    said = [m for m in b.seen if m.get("method") == "window/showMessage"]
    assert len(said) == 1 and "one client" in said[0]["params"]["message"], b.seen
    assert "result" in a.request("textDocument/hover", hover(uri))  # A's reply comes to A

    c = TcpClient(port)  # a third one that asks for A's document without initialize
    try:
        c.send({"id": 1, "method": "textDocument/hover", "params": hover(uri)})
    except OSError:
        pass  # already closed by the server: just as good
    c.wait_closed()
    assert all("secret_name" not in json.dumps(m) and "result" not in m for m in b.seen + c.seen)
    b.sock.close()
    c.sock.close()

    time.sleep(0.5)
    assert proc.poll() is None  # B's and C's hang-ups did not end A's session
    assert "result" in a.request("textDocument/hover", hover(uri))
    assert a.request("shutdown", None).get("error") is None
    a.send({"method": "exit", "params": None})
    assert proc.wait(20) == 0


def test_bad_tcp_address_is_one_line(tmp_path):
    for arg in ("127.0.0.1:notaport", "127.0.0.1:70000"):
        run = subprocess.run([sys.executable, "-m", "rlm_lsp", "--tcp", arg], capture_output=True, text=True,
                             timeout=60, cwd=tmp_path)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert "--tcp" in run.stderr.strip().splitlines()[-1]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = subprocess.run([sys.executable, "-m", "rlm_lsp", "--tcp", f"127.0.0.1:{port}"], capture_output=True,
                             text=True, timeout=60, cwd=tmp_path)
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert "cannot listen" in run.stderr
