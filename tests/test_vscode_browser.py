"""End to end in a real VS Code: code-server with our .vsix installed, driven by headless Chromium.

Follows ../shared/recipes/vscode-in-browser.md. The test opens a Python file, waits for the
inlay hint and code lens texts in the editor's DOM, hovers a function name, types a new function
and waits for its hint (edit -> debounce -> prediction -> inlayHint/refresh, in the real client),
and saves a screenshot
(RLM_SCREENSHOT, default: the test's tmp dir; docs/images/vscode.png is one such screenshot).
RLM_E2E_MODEL_DIR replaces the tiny test model, e.g. to retake the screenshot with a trained model
(absolute paths: the editor runs in its own workspace directory):

    RLM_E2E_MODEL_DIR=$PWD/rlm_lsp/models/default RLM_SCREENSHOT=$PWD/docs/images/vscode.png \
        .venv/bin/python -m pytest tests/test_vscode_browser.py

Needs chromium, code-server 4.100.3 + playwright-core in $RLM_EDITORS_DIR and the built .vsix:
.ci/setup-editors.sh installs all three.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXT = ROOT / "vscode-extension"
VSIX = EXT / "rlm-lsp.vsix"
EDITORS = Path(os.environ.get("RLM_EDITORS_DIR", Path.home() / ".cache" / "rlm-editors"))
ENTRY = EDITORS / "node_modules" / "code-server" / "out" / "node" / "entry.js"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

DEMO = """def make_table(n):
    return [[i * j for j in range(n)] for i in range(n)]


class Parser:
    def parse(self, text):
        return text.split()
"""

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="chromium not installed (run .ci/setup-editors.sh)"),
    pytest.mark.skipif(not ENTRY.exists(), reason=f"code-server not installed in {EDITORS} (run .ci/setup-editors.sh)"),
    pytest.mark.skipif(
        not (EDITORS / "node_modules" / "playwright-core").is_dir(),
        reason="playwright-core not installed (run .ci/setup-editors.sh)",
    ),
    pytest.mark.skipif(not VSIX.exists(), reason="rlm-lsp.vsix not built (run .ci/setup-editors.sh)"),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_hints_and_lenses_in_real_vscode(tiny_model_dir, tmp_path):
    port = free_port()
    config = tmp_path / "config.yaml"
    config.write_text(f"bind-addr: 127.0.0.1:{port}\nauth: none\ncert: false\n")
    user, ext, ws = tmp_path / "user", tmp_path / "ext", tmp_path / "ws"
    ws.mkdir()
    (ws / "demo.py").write_text(DEMO)
    (user / "User").mkdir(parents=True)
    (user / "User" / "settings.json").write_text(
        json.dumps(
            {
                "editor.inlayHints.enabled": "on",
                "security.workspace.trust.enabled": False,
                "workbench.startupEditor": "none",
                "telemetry.telemetryLevel": "off",
                "update.mode": "none",
                "extensions.autoCheckUpdates": False,
                "rlm.pythonPath": sys.executable,
                "rlm.modelPath": os.environ.get("RLM_E2E_MODEL_DIR", str(tiny_model_dir)),
                "rlm.debounceMs": 50,
            }
        )
    )
    base = ["node", str(ENTRY), "--config", str(config), "--user-data-dir", str(user), "--extensions-dir", str(ext)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    subprocess.run([*base, "--install-extension", str(VSIX)], check=True, env=env, capture_output=True, timeout=120)
    assert any(p.name.startswith("rlm-lsp.rlm-lsp") for p in ext.iterdir())

    log = open(tmp_path / "code-server.log", "wb")
    server = subprocess.Popen(
        [
            *base,
            "--disable-telemetry",
            "--disable-update-check",
            "--disable-workspace-trust",
            "--disable-getting-started-override",
            str(ws),
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert server.poll() is None, (tmp_path / "code-server.log").read_text()[-3000:]
                assert time.monotonic() < deadline, "code-server did not listen"
                time.sleep(0.3)
        screenshot = Path(os.environ.get("RLM_SCREENSHOT", tmp_path / "vscode.png"))
        proc = subprocess.run(
            ["node", str(EXT / "test" / "browser" / "e2e.cjs")],
            env={
                **env,
                "RLM_EDITORS_DIR": str(EDITORS),
                "CHROMIUM": CHROMIUM,
                "FILE": "demo.py",
                "URL": f"http://127.0.0.1:{port}/?folder={ws}",
                "SCREENSHOT": str(screenshot),
            },
            capture_output=True,
            text=True,
            timeout=180,
        )
        assert proc.returncode == 0, (
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}\n" + (tmp_path / "code-server.log").read_text()[-3000:]
        )
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert any(t.startswith("≈ ") and " · " in t for t in result["hints"]), result
        assert any(t.startswith("rlm p10–p90: memory ") for t in result["lenses"]), result
        assert any("model loaded" in t for t in result["status"]), result  # the status bar item
        assert "make_table" in result["hover"] and "p10 – p90" in result["hover"], result
        assert result["typed"], result  # a function typed in the editor got its hint
        assert screenshot.stat().st_size > 10_000
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
