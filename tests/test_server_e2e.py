"""The real server process over stdio, driven by a real LSP client (tests/lsp_client.py).

Every test also checks that stdout carried nothing but protocol messages.
"""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import HINT
from lsp_client import LspClient, LspError, file_uri

pytestmark = pytest.mark.timeout(120)

DEMO = """import numpy as np


def make_table(n):
    return [[i * j for j in range(n)] for i in range(n)]


class Parser:
    def parse(self, text: str) -> list[str]:
        return text.split()

    async def fetch(self, url):
        return url
"""


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path) -> Path:
    """A git repo with demo.py committed."""
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.com")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "demo.py").write_text(DEMO)
    git(tmp_path, "add", "demo.py")
    git(tmp_path, "commit", "-qm", "demo")
    return tmp_path


def start(model_dir, root: Path, **settings) -> LspClient:
    client = LspClient(settings={"modelPath": str(model_dir), "debounceMs": 50, **settings}, cwd=root)
    client.initialize(root)
    return client


def test_hints_lenses_hover_and_progress(tiny_model_dir, repo):
    with start(tiny_model_dir, repo, features={"codeLens": True}) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        hints = c.wait_hints(uri, 3)
        assert [(h["position"]["line"], h["position"]["character"]) for h in hints] == [(3, 18), (8, 44), (11, 31)]
        assert all(HINT.match(h["label"]) for h in hints), hints

        lenses = c.code_lenses(uri)
        assert [lens["range"]["start"]["line"] for lens in lenses] == [3, 8, 11]
        assert all(lens["command"]["title"].startswith("rlm likely: mem ") for lens in lenses)

        hover = c.hover(uri, 8, 9)  # on "parse"
        text = hover["contents"]["value"]
        assert "**Parser.parse**" in text and "per call, for a typical large input" in text, text
        assert "model in " in text and "p10–p90" in text and "tiny-test-0" not in text  # words, not the id
        assert "tracemalloc peak bytes" in text and "unchanged" in text  # committed as is
        assert hover["range"] == {"start": {"line": 8, "character": 8}, "end": {"line": 8, "character": 13}}
        assert c.hover(uri, 0, 3) is None

        # model load: progress create/begin/end and the status notifications the VS Code status bar uses
        assert c.messages("window/workDoneProgress/create")
        kinds = [m["params"]["value"]["kind"] for m in c.messages("$/progress")]
        assert kinds == ["begin", "end"]
        statuses = [m["params"] for m in c.messages("rlm/status")]
        assert [s["state"] for s in statuses[:2]] == ["loading", "ready"]
        # "model in <the model's folder> on CPU": words, not the model id
        assert statuses[1]["message"] == f"model in {tiny_model_dir.name} on CPU", statuses
        assert "working" in [s["state"] for s in statuses]
        assert statuses[-1] == {"state": "ready", "message": statuses[1]["message"]}
        assert c.messages("workspace/inlayHint/refresh") and c.messages("workspace/codeLens/refresh")
        assert not c.messages("window/showMessage")
        assert c.garbage == []


def test_change_against_head_in_hover(tiny_model_dir, repo):
    changed = DEMO.replace("return text.split()", "return [w.upper() for w in text.split() for _ in range(9)]")
    with start(tiny_model_dir, repo) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, changed)
        c.wait_hints(uri, 3)
        text = c.hover(uri, 8, 9)["contents"]["value"]
        assert re.search(r"\d\.\d×|\d+×", text) and "HEAD " in text, text
        assert "unchanged" in c.hover(uri, 3, 6)["contents"]["value"]


def test_inlay_hint_answers_from_cache_and_refresh_follows(tiny_model_dir, repo):
    with start(tiny_model_dir, repo, debounceMs=1500) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)  # didOpen is not debounced
        before = c.wait_hints(uri, 3)
        refreshes = len(c.messages("workspace/inlayHint/refresh"))
        sent = time.monotonic()
        # edit the body of make_table: its header line is unchanged, the rest did not move
        c.change(
            uri,
            2,
            "    return [[i + j for j in range(n)] for i in range(n)]",
            {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": len(DEMO.splitlines()[4])}},
        )
        t0 = time.monotonic()
        during = c.inlay_hints(uri)
        assert time.monotonic() - t0 < 0.5  # the request never waits for the model
        assert during == before  # cached hints stay where their lines did not change
        c.wait_for(lambda m: m.get("method") == "workspace/inlayHint/refresh", timeout=30, since=sent)
        assert time.monotonic() - sent >= 1.4  # only after the debounce
        assert len(c.messages("workspace/inlayHint/refresh")) == refreshes + 1
        after = c.inlay_hints(uri)
        assert [h["position"] for h in after] == [h["position"] for h in before]
        assert after[1:] == before[1:]  # the other functions were not re-predicted (same numbers)
        # a line inserted above everything: old hints disappear instead of landing on wrong lines
        c.change(uri, 3, "# comment\n", {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}})
        assert c.inlay_hints(uri) == []
        moved = c.wait_hints(uri, 3)
        assert [h["position"]["line"] for h in moved] == [4, 9, 12]
        assert c.garbage == []


def test_debounce_publishes_only_the_last_version(tiny_model_dir, repo):
    with start(tiny_model_dir, repo, debounceMs=300) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        c.wait_hints(uri, 3)
        for v in range(2, 22):
            c.change(uri, v, DEMO + f"\n\ndef extra():\n    return {v}\n")
        c.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 21,
            timeout=30,
        )
        time.sleep(0.5)
        versions = [m["params"].get("version") for m in c.messages("textDocument/publishDiagnostics")]
        # version 1 may be published twice (again when its edit settles, if that comes before the
        # first change on a loaded machine); of the 20 changes only the last is ever published
        assert versions in ([1, 21], [1, 1, 21]), versions
        assert len(c.wait_hints(uri, 4)) == 4
        c.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
        c.wait_for(lambda m: m.get("method") == "textDocument/publishDiagnostics" and "version" not in m["params"])
        assert c.inlay_hints(uri) == [] and c.code_lenses(uri) == []


def test_settings_apply_live(tiny_model_dir, repo):
    settings = {"modelPath": str(tiny_model_dir), "debounceMs": 50}
    with start(tiny_model_dir, repo) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        c.wait_hints(uri, 3)
        assert c.diagnostics(uri) == []

        def reconfigure(**change) -> float:
            settings.update(change)
            c.settings = {"rlm": settings}
            mark = time.monotonic()
            c.notify("workspace/didChangeConfiguration", {"settings": {"rlm": settings}})
            c.wait_for(lambda m: m.get("method") == "workspace/configuration", since=mark)  # pulled
            time.sleep(0.2)
            return mark

        reconfigure(metrics={"latency": False})
        assert all(re.match(r"^≈ mem \S+ \S+$", h["label"]) for h in c.wait_hints(uri, 3))
        reconfigure(features={"inlayHints": False, "codeLens": False})
        assert c.inlay_hints(uri) == [] and c.code_lenses(uri) == []
        mark = reconfigure(features={}, metrics={}, budgets={"latency": "0.000001 ns"})
        c.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["diagnostics"], since=mark
        )
        [diag, *_] = c.diagnostics(uri)
        assert diag["severity"] == 2 and diag["source"] == "rlm" and "exceeds the budget" in diag["message"]
        assert re.search(r"\d×", diag["message"])
        mark = reconfigure(budgets={})
        c.wait_for(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and not m["params"]["diagnostics"],
            since=mark,
        )
        mark = reconfigure(threads=2)  # a model setting: reload, with progress again
        c.wait_for(lambda m: m.get("method") == "$/progress" and m["params"]["value"]["kind"] == "end", since=mark)
        assert len(c.wait_hints(uri, 3)) == 3
        assert c.garbage == []


def test_robustness_each_followed_by_a_successful_request(tiny_model_dir, repo, tmp_path):
    model = tmp_path / "model-copy"
    shutil.copytree(tiny_model_dir, model)
    with start(model, repo) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        c.wait_hints(uri, 3)

        def still_answers():
            assert len(c.inlay_hints(uri)) == 3
            assert c.hover(uri, 3, 6) is not None

        # malformed message: bad JSON, then a body without a method
        c.send_raw(b"Content-Length: 12\r\n\r\n{not json!!}")
        c.send_raw(b"Content-Length: 2\r\n\r\n{}")
        still_answers()
        # unknown method: an error response, not a dead server
        with pytest.raises(LspError, match="-32601"):
            c.request("rlm/doesNotExist", {})
        c.notify("rlm/unknownNotification", {})
        still_answers()
        # syntax errors: the functions that still parse keep their hints
        broken = DEMO.replace("def parse(self, text: str) -> list[str]:", "def parse(self, text: str -> list[str]:")
        bad_uri = file_uri(repo / "broken.py")
        c.open(bad_uri, broken)
        bad_hints = c.wait_hints(bad_uri, 2)
        assert {h["position"]["line"] for h in bad_hints} == {3, 11}
        still_answers()
        # a binary file and a 5 MB file: no hints, no crash
        for name, text in [
            ("blob.py", "\0\1\2 binary \0" * 100),
            ("huge.py", "def f():\n    return 1\n" * 230_000),
            ("latin1.py", "def caf\ufffd():\n    return '\ufffd\ufffd'\n" * 200),
        ]:
            other = file_uri(repo / name)
            c.open(other, text)
            c.wait_for(
                lambda m, uri=other: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
            )
            assert c.inlay_hints(other) == [] and c.code_lenses(other) == []
            still_answers()
        # the model directory deleted under a running server, then a reload (a model setting changed)
        shutil.rmtree(model)
        # the client's answer to the server's workspace/configuration pull must already be the new
        # settings when the notification goes out (else, under load, the pull can see the old ones)
        c.settings = {"rlm": {"modelPath": str(model), "threads": 2, "debounceMs": 50}}
        c.notify("workspace/didChangeConfiguration", {"settings": c.settings})
        msg = c.wait_for(lambda m: m.get("method") == "window/showMessage")
        assert msg["params"]["type"] == 1 and str(model) in msg["params"]["message"]
        assert (
            c.request(
                "textDocument/inlayHint",
                {
                    "textDocument": {"uri": uri},
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 99, "character": 0}},
                },
            )
            == []
        )
        assert c.hover(uri, 3, 6) is None
        c.change(uri, 2, DEMO + "\n")
        time.sleep(0.3)
        assert len(c.messages("window/showMessage")) == 1  # one clear message, not one per edit
        # the model comes back (e.g. re-exported): the next settings change loads it, no restart
        shutil.copytree(tiny_model_dir, model)
        c.notify("workspace/didChangeConfiguration", {"settings": {"rlm": c.settings["rlm"]}})
        assert len(c.wait_hints(uri, 3)) == 3
        assert len(c.messages("window/showMessage")) == 1
        assert c.garbage == []
        assert c.proc.poll() is None


def test_missing_model_one_message_and_server_stays_up(repo, tmp_path):
    with start(tmp_path / "no-such-model", repo) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        msg = c.wait_for(lambda m: m.get("method") == "window/showMessage")
        assert "cannot load rlm.modelPath" in msg["params"]["message"]
        assert "no-such-model" in msg["params"]["message"]
        for v in range(2, 5):
            c.change(uri, v, DEMO)
        assert c.inlay_hints(uri) == [] and c.hover(uri, 3, 6) is None
        time.sleep(0.3)
        assert len(c.messages("window/showMessage")) == 1
        assert [m["params"]["state"] for m in c.messages("rlm/status")][-1] == "error"
        assert c.garbage == []


def test_corrupt_model_one_message(model_copy, repo):
    config = model_copy / "rlm_config.json"
    config.write_text(config.read_text()[:-40])  # truncated JSON
    with start(model_copy, repo) as c:
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        msg = c.wait_for(lambda m: m.get("method") == "window/showMessage")
        assert "rlm_config.json" in msg["params"]["message"]
        assert c.inlay_hints(uri) == [] and c.code_lenses(uri) == []
        assert len(c.messages("window/showMessage")) == 1
        assert c.garbage == []


def test_tcp_transport(tiny_model_dir, repo):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "rlm_lsp", "--tcp", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                conn = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        body = b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}'
        conn.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        data = b""
        while b"inlayHintProvider" not in data:
            chunk = conn.recv(65536)
            assert chunk, data
            data += chunk
        conn.close()
    finally:
        proc.kill()
        out, _ = proc.communicate(timeout=10)
    assert out == b""  # protocol goes over the socket; stdout stays empty


def test_rlm_serve_entry_point(tiny_model_dir, repo):
    rlm = Path(sys.executable).with_name("rlm")
    if not rlm.exists():
        pytest.skip("the `rlm` console script is not installed (pip install -e .)")
    with LspClient(settings={"modelPath": str(tiny_model_dir)}, cmd=[str(rlm), "serve"], cwd=repo) as c:
        assert "inlayHintProvider" in c.initialize(repo)["capabilities"]
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        assert len(c.wait_hints(uri, 3)) == 3
        assert c.garbage == []


def test_stray_prints_never_reach_the_protocol_stream(tiny_model_dir, repo):
    """A library that prints (Python-level or straight to fd 1) after start-up lands on stderr."""
    code = (
        "import os, threading, rlm_lsp.server.entry as s\n"
        "def noise():\n"
        "    print('stray print', flush=True)\n"
        "    os.write(1, b'stray fd write\\n')\n"
        "threading.Timer(0.5, noise).start()\n"
        "raise SystemExit(s.main([]))\n"
    )
    with LspClient(settings={"modelPath": str(tiny_model_dir)}, cmd=[sys.executable, "-c", code], cwd=repo) as c:
        c.initialize(repo)
        time.sleep(1.0)
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        assert len(c.wait_hints(uri, 3)) == 3
        assert c.garbage == []


KERNELS = '''import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


def add(x, y):
    return x + y
'''


@pytest.mark.skipif(not (Path(__file__).resolve().parents[1] / "rlm_lsp" / "models" / "triton" / "rlm_config.json")
                    .is_file(), reason="no shipped kernel model")
def test_triton_kernel_gets_a_latency_hint_and_hover_with_gpu_and_shape(tiny_model_dir, repo):
    (repo / "kernels.py").write_text(KERNELS)
    with start(tiny_model_dir, repo, gpu="H100") as c:
        uri = file_uri(repo / "kernels.py")
        c.open(uri, KERNELS)
        hints = c.wait_hints(uri, 2)
        by_line = {h["position"]["line"]: h["label"] for h in hints}
        assert re.match(r"^≈ (⚠ )?kernel time \S+ (ns|µs|ms|s)\??$", by_line[5]), by_line  # the kernel: latency only
        assert HINT.match(by_line[12]), by_line  # the Python function: memory and latency
        hover = c.hover(uri, 5, 6)  # on "add_kernel"
        text = hover["contents"]["value"]
        assert "kernel run time" in text and "GPU H100" in text and "work size" in text


def test_per_folder_settings_are_asked_with_each_folders_scope_uri(tiny_model_dir, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for folder in (a, b):
        folder.mkdir()
        (folder / "demo.py").write_text(DEMO)
    client = LspClient(settings={"modelPath": str(tiny_model_dir), "debounceMs": 50}, cwd=tmp_path)
    client.folder_settings = {b.resolve().as_uri(): {"modelPath": str(tiny_model_dir), "exclude": ["*.py"]}}
    with client as c:
        c.initialize(tmp_path, folders=[a, b])
        asked = c.wait_for(lambda m: m.get("method") == "workspace/configuration")
        assert {i.get("scopeUri") for i in asked["params"]["items"]} == {None, a.as_uri(), b.as_uri()}
        ua, ub = file_uri(a / "demo.py"), file_uri(b / "demo.py")
        c.open(ub, DEMO)
        c.open(ua, DEMO)
        assert len(c.wait_hints(ua, 3)) == 3
        time.sleep(1.0)
        assert c.inlay_hints(ub) == []  # b's own settings exclude it


def test_plain_text_hover_for_a_client_without_markdown(tiny_model_dir, repo):
    with LspClient(settings={"modelPath": str(tiny_model_dir), "debounceMs": 50}, cwd=repo) as c:
        c.initialize(repo, capabilities={"textDocument": {"hover": {"contentFormat": ["plaintext"]}}})
        uri = file_uri(repo / "demo.py")
        c.open(uri, DEMO)
        deadline = time.monotonic() + 60
        while (hover := c.hover(uri, 3, 6)) is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert hover["contents"]["kind"] == "plaintext"
        text = hover["contents"]["value"]
        assert text.startswith("make_table: rlm's estimate per call") and "**" not in text and "|" not in text, text
