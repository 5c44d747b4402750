"""Fuzz the language server over stdio (issue 23): 10,000 malformed messages and framing errors.

A real `python -m rlm_lsp` with the tiny model gets 20 batches of 500 bad items
(seeded, so a failure replays). Half break the framing (wrong, missing, glued or
huge Content-Length, junk bytes), half are framed right but are not valid messages
(bad JSON, not JSON-RPC, bad ids and methods, mutated params). After each batch a
real inlay-hint request must get the same hints as before the fuzzing; the server
must never exit (it resynchronises rather than exiting), and its stderr stays under 1 MB.
"""

from __future__ import annotations

import json
import random
import time

import pytest
from lsp_client import LspClient, file_uri

pytestmark = pytest.mark.timeout(240)

BATCHES, PER_BATCH = 20, 500
DEMO = """def make_table(n):
    return [[i * j for j in range(n)] for i in range(n)]


class Parser:
    def parse(self, text: str) -> list[str]:
        return text.split()
"""
# Methods a fuzzed message may carry. Not initialize, initialized, shutdown, exit or
# didChangeConfiguration: valid ones of those change the session on purpose.
METHODS = ["textDocument/inlayHint", "textDocument/hover", "textDocument/codeLens", "textDocument/didOpen",
           "textDocument/didChange", "textDocument/didClose", "$/cancelRequest", "$/setTrace", "rlm/unknown"]


def frame(body: bytes, length: int | None = None) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % (len(body) if length is None else length) + body


class Fuzz:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def value(self, depth: int = 0):
        r = self.r
        plain = [None, True, -1, 0, 2**70, 1.5, "", "x" * r.randrange(1, 300), {"uri": self.uri()}]
        if depth < 3 and r.random() < 0.2:
            return r.choice([[self.value(depth + 1)], {"k": self.value(depth + 1)}])
        return r.choice(plain)

    def uri(self) -> str:
        r = self.r
        return r.choice([f"file:///fuzz/{r.randrange(20)}.py", "untitled:x", "", "file://", "%%%",
                         "file:///\u00e9\ud800"])

    def params(self, method: str) -> dict:
        r = self.r
        doc = {"uri": self.uri(), "version": r.randrange(100)}
        pos = {"line": r.choice([0, 3, -1, 2**31]), "character": r.choice([0, 5, -7])}
        return {
            "textDocument/didOpen": {"textDocument": {**doc, "languageId": "python",
                                                      "text": r.choice(["def f(x):\n    return x\n", "", "(("])}},
            "textDocument/didChange": {"textDocument": doc, "contentChanges": [
                {"text": "x = 1\n"}, {"range": {"start": pos, "end": pos}, "text": "y"}][: r.randrange(3)]},
            "$/cancelRequest": {"id": self.value()},
        }.get(method, {"textDocument": doc, "position": pos, "range": {"start": pos, "end": pos}})

    def message(self) -> dict:
        r = self.r
        method = r.choice(METHODS)
        msg = {"jsonrpc": "2.0", "method": method, "params": self.params(method)}
        if r.random() < 0.6:
            msg["id"] = r.choice([r.randrange(10**6), str(r.random()), None, {"a": 1}, [1], 1.5, True])
        for _ in range(r.randrange(1, 4)):  # mutate: drop, retype or add a field, at any depth
            node = msg
            while r.random() < 0.6 and any(isinstance(v, dict) for v in node.values()):
                node = r.choice([v for v in node.values() if isinstance(v, dict)])
            key = r.choice(list(node) + ["extra"])
            if r.random() < 0.3:
                node.pop(key, None)
            else:
                node[key] = self.value()
        if r.random() < 0.1:
            msg = r.choice([{"id": 1, "result": None}, {"jsonrpc": "1.0", "method": method},
                            {"jsonrpc": "2.0", "id": r.randrange(9), "result": self.value()},
                            {"jsonrpc": "2.0", "id": 3, "error": {"code": "x"}}])
        return msg

    def body(self) -> bytes:
        """A framed body that is not a valid message."""
        r = self.r
        text = json.dumps(self.message()).encode()
        kind = r.randrange(8)
        if kind == 0:
            return text[: r.randrange(1, len(text))]  # truncated JSON
        if kind == 1:
            return bytes(r.randrange(256) for _ in range(r.randrange(1, 64)))
        if kind == 2:
            return b"[" * r.randrange(1000, 20000)  # deep nesting
        if kind == 3:
            return json.dumps(r.choice([[], 3, "s", None, [{"jsonrpc": "2.0"}]])).encode()
        if kind == 4:
            return text.replace(b'"', b"\xff", 1)  # invalid UTF-8
        return text  # well-formed JSON, mutated message

    def framing(self) -> bytes:
        """Bytes with a framing error."""
        r = self.r
        body = json.dumps(self.message()).encode()
        n = len(body)
        kind = r.randrange(12)
        return [
            lambda: frame(body, max(1, n - r.randrange(1, 40))),
            lambda: frame(body, n + r.randrange(1, 40)),
            lambda: frame(body, n + r.randrange(1000, 10**7)),
            lambda: frame(body, 0),
            lambda: b"Content-Length: %s\r\n\r\n" % r.choice([b"-4", b"abc", b"", b"1e3", b"0x10", b"99999999999"])
            + body,
            lambda: b"Content-Length: %d\r\nContent-Length: %d\r\n\r\n" % (n, n + 5) + body,
            lambda: body,  # no header
            lambda: b"Content-Length: %d\r\n" % n + body,  # no blank line
            lambda: b"Content-Length: %d" % r.randrange(1, 99),  # header cut short
            lambda: b"Content-Length: %d\r\n\r\n" % r.randrange(1, 300),  # header without its body
            lambda: bytes(r.randrange(256) for _ in range(r.randrange(1, 200))),
            lambda: b"Content-Type: x\r\n\r\n" + body + b"\r\n\r\n\n\n",
        ][kind]()

    def batch(self, count: int) -> bytes:
        return b"".join(self.framing() if self.r.random() < 0.5 else frame(self.body()) for _ in range(count))


def test_fuzz_10000_bad_messages_and_frames(tiny_model_dir, tmp_path):
    err_path = tmp_path / "server.err"
    fuzz = Fuzz(seed=23)
    started = time.monotonic()
    with open(err_path, "wb") as err:
        with LspClient(settings={"modelPath": str(tiny_model_dir), "debounceMs": 0}, cwd=tmp_path, stderr=err) as c:
            c.initialize(tmp_path)
            uri = file_uri(tmp_path / "demo.py")
            c.open(uri, DEMO)
            hints = c.wait_hints(uri, 2, timeout=60)
            sent = 0
            for batch in range(BATCHES):
                c.send_raw(fuzz.batch(PER_BATCH))
                sent += PER_BATCH
                assert c.inlay_hints(uri) == hints, f"wrong answer after batch {batch}"
                assert c.proc.poll() is None, f"server exited after batch {batch}"
            assert sent >= 10_000
            assert c.hover(uri, 0, 5) is not None  # make_table: hover works too
            assert c.close() == 0  # a clean shutdown + exit at the end
    size = err_path.stat().st_size
    assert size < 1_000_000, size
    text = err_path.read_bytes()
    assert b"Traceback" not in text and b"MemoryError" not in text
    assert time.monotonic() - started < 180
