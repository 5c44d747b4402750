"""Our own JSON-RPC framing for stdio and TCP, in place of pygls' reader.

pygls' loop reads header lines with `readline()` and trusts `Content-Length`. A body
does not end with a newline, so after one wrong length the next header is glued to
the leftover of a body, never matches again, and the server stays alive but deaf.

`Framer` instead searches the byte stream for a `Content-Length` header (any case,
CRLF or LF), so junk before a header is skipped and reading resumes at the next
valid header. A frame whose body is not JSON is rescanned from its first body byte,
so a length that was too long does not swallow the frame after it; a body that is
still incomplete when a complete new header line shows up (which no JSON text can
contain) is dropped at that header. Bodies over `MAX_BODY` are refused unread.

Each parsed message goes to the same pygls protocol object pygls' own loop feeds
(`protocol.handle_message`), so every handler behaves as before. Every bad frame or
message costs one log line, and `LogLimit` caps the log at a few lines per second.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams, JsonRpcInvalidRequest
from pygls.io_ import StdoutWriter

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024 * 1024
MAX_HEADER = 8192
_CHUNK = 65536
_START = re.compile(rb"content-length[ \t]*:", re.I)
_LINE = re.compile(rb"([!#$%&'*+.^_`|~0-9A-Za-z-]+)[ \t]*:[ \t]*([^\r\n]*?)[ \t]*\r?\n")  # name: value
# A complete Content-Length line. No JSON text holds one (a string cannot hold a raw
# newline), so one inside a body means the body's own length was wrong.
_NEXT = re.compile(rb"content-length[ \t]*:[ \t]*\d+[ \t]*\r?\n", re.I)


class Framer:
    """Bytes in, (message, None) for each JSON body and (None, why) for each bad frame out."""

    def __init__(self, max_body: int = MAX_BODY) -> None:
        self.max_body = max_body
        self._buf = bytearray()
        self._length: int | None = None  # Content-Length of the frame whose body is being read
        self._scanned = 0  # body bytes already searched for a header
        self._skipped = 0  # junk bytes skipped since the last report
        self._after_bad = False

    def feed(self, data: bytes) -> list[tuple[Any, str | None]]:
        self._buf += data
        out: list[tuple[Any, str | None]] = []
        while self._body(out) if self._length is not None else self._header(out):
            pass
        return out

    def close(self) -> list[tuple[Any, str | None]]:
        """At end of input: what is left is a truncated frame or junk."""
        out: list[tuple[Any, str | None]] = []
        if self._length is not None or (self._buf.strip() and not self._after_bad):
            self._bad(out, f"input ended inside a frame ({len(self._buf)} bytes left)")
        self._buf.clear()
        self._length = None
        return out

    def _skip(self, n: int) -> None:
        if not self._after_bad and self._buf[:n].strip():
            self._skipped += n  # junk right after a bad frame is that frame's leftover: not counted
        del self._buf[:n]

    def _bad(self, out: list, why: str) -> bool:
        if self._skipped:
            why += f" (after {self._skipped} bytes of junk)"
            self._skipped = 0
        out.append((None, why))
        self._after_bad = True
        return True

    def _header(self, out: list) -> bool:
        buf = self._buf
        found = _START.search(buf)
        if found is None:
            self._skip(max(0, len(buf) - 64))  # keep a tail: a header may be cut in two
            return False
        self._skip(found.start())
        lengths: list[bytes] = []
        i = 0
        while True:
            if buf.startswith(b"\n", i) or buf.startswith(b"\r\n", i):
                i += 1 if buf[i] == 10 else 2
                break
            line = _LINE.match(buf, i)
            if line is None:
                if buf.find(b"\n", i) < 0 and len(buf) <= MAX_HEADER:
                    return False  # the header is not complete yet
                self._bad(out, "malformed header")
                del buf[:1]  # not a header after all: search again from the next byte
                return True
            if line.group(1).lower() == b"content-length":
                lengths.append(line.group(2))
            i = line.end()
        value = lengths[0]
        why = None
        if len(set(lengths)) > 1:
            why = "conflicting Content-Length headers"
        elif not value.isdigit():
            why = f"Content-Length is not a number: {value[:20]!r}"
        elif int(value) == 0:
            why = "Content-Length 0"
        elif int(value) > self.max_body:
            why = f"Content-Length {int(value)} is over the {self.max_body} byte limit"
        if why is not None:
            # Search again from the next byte: a valid header may be glued to this bad one
            # ("Content-Length: 1Content-Length: 57", or a header that lost its blank line).
            self._bad(out, why)
            del buf[:1]
            return True
        del buf[:i]
        self._after_bad = False
        self._length, self._scanned = int(value), 0
        return True

    def _body(self, out: list) -> bool:
        buf, length = self._buf, self._length
        assert length is not None
        nxt = _NEXT.search(buf, max(0, self._scanned - 64), min(len(buf), length + 64))
        if nxt is not None and nxt.start() < length:
            self._length = None
            self._bad(out, "frame shorter than its Content-Length")
            del buf[: nxt.start()]
            return True
        self._scanned = min(len(buf), length)
        if len(buf) < length:
            return False
        self._length = None
        try:
            message = json.loads(bytes(buf[:length]).decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            # Not JSON: maybe the length was too long and ate the next header. Rescan from here.
            self._bad(out, f"body is not JSON ({type(exc).__name__}: {str(exc)[:80]})")
            del buf[:1]
            return True
        del buf[:length]
        if self._skipped:
            out.append((None, f"skipped {self._skipped} bytes that are not a frame"))
            self._skipped = 0
        out.append((message, None))
        return True


def dispatch(protocol: Any, raw: Any) -> None:
    """Hand one decoded message to the pygls protocol; a bad one costs one log line."""
    if not isinstance(raw, dict) or raw.get("jsonrpc") != "2.0":
        _refuse(protocol, raw, JsonRpcInvalidRequest, "not a JSON-RPC 2.0 message")
        return
    if "method" in raw and not isinstance(raw["method"], str):
        _refuse(protocol, raw, JsonRpcInvalidRequest, "method is not a string")
        return
    try:
        message = protocol.structure_message(raw)
    except Exception as exc:  # noqa: BLE001 - bad params, bad id: the client's fault
        cause = exc.__cause__ or exc
        _refuse(protocol, raw, JsonRpcInvalidParams, f"{type(cause).__name__}: {str(cause)[:120]}")
        return
    try:
        protocol.handle_message(message)
    except Exception as exc:  # noqa: BLE001 - never let one message end the loop
        logger.error("cannot handle %s: %s: %s", raw.get("method", "a response"), type(exc).__name__, str(exc)[:120])


def _refuse(protocol: Any, raw: Any, error: type[JsonRpcException], why: str) -> None:
    method = raw.get("method") if isinstance(raw, dict) else None
    logger.warning("bad message (%s): %s", str(method)[:60], why)
    if isinstance(raw, dict) and "id" in raw and "method" in raw:  # a request: it gets an answer
        msg_id = raw["id"]
        if not isinstance(msg_id, (int, str)) or isinstance(msg_id, bool):
            msg_id = None  # JSON-RPC: null when the id cannot be read
        try:
            protocol._send_response(msg_id, error=error(why).to_response_error())
        except Exception as exc:  # noqa: BLE001
            logger.error("cannot answer a bad request: %s", exc)


async def serve(protocol: Any, read: Callable[[], Awaitable[bytes]], max_body: int = MAX_BODY,
                claim: Callable[[], bool] | None = None) -> int:
    """Read, frame and dispatch until end of input; how many messages came. `exit` ends it with SystemExit.

    `claim`, when given, is asked before the first message is dispatched; if it says no,
    nothing is dispatched and serve returns -1.
    """
    framer = Framer(max_body)
    messages = 0
    while True:
        data = await read()
        for message, problem in framer.feed(data) if data else framer.close():
            if problem is not None:
                logger.warning("bad frame: %s", problem)
                continue
            if messages == 0 and claim is not None and not claim():
                return -1
            messages += 1
            dispatch(protocol, message)
        if not data:
            return messages


def _run(main: Callable[[], Coroutine[Any, Any, None]], protocol: Any) -> int:
    try:
        asyncio.run(main())
    except SystemExit as exc:  # the `exit` notification: 0 after shutdown, else 1
        return exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        return 1
    return 0 if getattr(protocol, "_shutdown", False) else 1  # input closed


def run_stdio(server: Any, stdin_fd: int, stdout: Any) -> int:
    """Serve on a file descriptor and a binary stream until `exit` or end of input; the exit code."""
    protocol = server.protocol
    protocol.set_writer(StdoutWriter(stdout))

    async def main() -> None:
        loop = asyncio.get_running_loop()
        chunks: asyncio.Queue[bytes] = asyncio.Queue(maxsize=4)

        def pump() -> None:  # a daemon thread: a blocking read never holds up the exit
            while True:
                try:
                    data = os.read(stdin_fd, _CHUNK)
                except OSError:
                    data = b""
                try:
                    asyncio.run_coroutine_threadsafe(chunks.put(data), loop).result()
                except Exception:  # noqa: BLE001 - the loop is gone
                    return
                if not data:
                    return

        threading.Thread(target=pump, name="rlm-stdin", daemon=True).start()
        await serve(protocol, chunks.get)

    return _run(main, protocol)


BUSY = "rlm serve --tcp already serves one client; start another `rlm serve --tcp` for a second editor"


def run_tcp(server: Any, host: str, port: int) -> int:
    """Serve one client over TCP until `exit` or that client hangs up; refuse every other connection.

    The server holds one session (documents, settings, one reply channel), so a second
    client must never share it. The first connection to send a message owns the session;
    any other connection is told why in one `window/showMessage` and closed (at once if the
    session is taken, else at its first message), and its hang-up does not touch the owner's
    session. A connection that hangs up without a message (a port probe) changes nothing.
    """
    protocol = server.protocol

    async def main() -> None:
        done = asyncio.get_running_loop().create_future()
        owner: list[asyncio.StreamWriter] = []  # the client's writer, from its first message on

        async def connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            if owner or done.done():
                await _refuse_connection(writer)
                return

            def claim() -> bool:
                if owner:
                    return False
                owner.append(writer)
                protocol.set_writer(writer)
                return True

            async def read() -> bytes:
                try:
                    return await reader.read(_CHUNK)
                except OSError:
                    return b""

            served = await serve(protocol, read, claim=claim)
            if served < 0:
                await _refuse_connection(writer)
            elif served == 0:
                writer.close()  # said nothing: no session to end
            elif not done.done():
                done.set_result(None)  # the client hung up: its session ends, and so does the server

        listener = await asyncio.start_server(connection, host, port)
        async with listener:
            await done

    return _run(main, protocol)


async def _refuse_connection(writer: asyncio.StreamWriter) -> None:
    logger.warning("refused a second TCP connection from %s: one client per server", writer.get_extra_info("peername"))
    body = json.dumps({"jsonrpc": "2.0", "method": "window/showMessage",
                       "params": {"type": 1, "message": BUSY}}).encode()
    try:
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await asyncio.wait_for(writer.drain(), 5)
    except (OSError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


class LogLimit(logging.Filter):
    """At most `per_second` log lines a second, each one line; the next line says how many were dropped.

    Tracebacks shrink to their last line unless the level is DEBUG. pygls' own
    "Unable to deserialize message" (with a traceback) is dropped: dispatch() logs it.
    """

    def __init__(self, per_second: int = 20, max_chars: int = 400) -> None:
        super().__init__()
        self.per_second, self.max_chars = per_second, max_chars
        self._second, self._count, self._dropped = 0, 0, 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("pygls") and str(record.msg).startswith("Unable to deserialize message"):
            return False
        with self._lock:
            second = int(time.monotonic())
            if second != self._second:
                self._second, self._count = second, 0
            self._count += 1
            if self._count > self.per_second:
                self._dropped += 1
                return False
            dropped, self._dropped = self._dropped, 0
        if logging.getLogger().level > logging.DEBUG:
            try:
                text = record.getMessage()[: 4 * self.max_chars]
            except Exception:  # noqa: BLE001 - a bad format string must not break the caller
                text = str(record.msg)[: 4 * self.max_chars]
            if record.exc_info and record.exc_info[1] is not None:
                exc = record.exc_info[1]
                text += f" ({type(exc).__name__}: {exc})"
            text = " ".join(text.split())  # one line
            if len(text) > self.max_chars:
                text = text[: self.max_chars] + "..."
            record.msg, record.args, record.exc_info, record.exc_text, record.stack_info = text, None, None, None, None
        if dropped:
            record.msg = f"({dropped} log lines dropped) {record.msg}"
        return True
