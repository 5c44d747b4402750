"""A real headless Neovim (Debian's 0.7.2: vim.lsp.start_client, client.request_sync) against the
real server: inlay hints (positions and labels), code lenses and a diagnostic.

The Lua side is tests/test_nvim_lsp.lua. Needs `nvim` (.ci/setup-editors.sh installs it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

NVIM = shutil.which("nvim")
SCRIPT = Path(__file__).with_name("test_nvim_lsp.lua")
DEMO = """import os


def make_table(n):
    return [[i * j for j in range(n)] for i in range(n)]


class Parser:
    def parse(self, text: str) -> list[str]:
        return text.split()

    async def fetch(self, url):
        return url
"""

pytestmark = [
    pytest.mark.timeout(120),
    pytest.mark.skipif(NVIM is None, reason="nvim not installed (run .ci/setup-editors.sh)"),
]


def test_neovim_sees_hints_lenses_and_a_diagnostic(tiny_model_dir, tmp_path):
    demo = tmp_path / "demo.py"
    demo.write_text(DEMO)
    out = tmp_path / "result.json"
    env = {
        **os.environ,
        "RLM_PYTHON": sys.executable,
        "RLM_TEST_MODEL_DIR": str(tiny_model_dir),
        "RLM_FILE": str(demo),
        "RLM_OUT": str(out),
        "HOME": str(tmp_path),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    proc = subprocess.run(
        [NVIM, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=100,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert "error" not in result, result.get("error")

    hints = result["hints"]
    assert [(h["position"]["line"], h["position"]["character"]) for h in hints] == [(3, 18), (8, 44), (11, 31)]
    assert all(re.match(r"^≈ \S+ \S+ · \S+ \S+$", h["label"]) for h in hints), hints
    assert result["refreshed"] >= 1  # the server asked the client to refresh when results landed

    lenses = result["lenses"]
    assert [lens["range"]["start"]["line"] for lens in lenses] == [3, 8, 11]
    assert all(lens["command"]["title"].startswith("rlm p10–p90: memory ") for lens in lenses)

    diagnostics = result["diagnostics"]
    assert diagnostics, "a latency budget of 1e-6 ns must be exceeded"
    d = diagnostics[0]
    assert d["source"] == "rlm" and d["severity"] == 2  # vim.diagnostic.severity.WARN
    assert "exceeds the budget" in d["message"] and "×" in d["message"]
    assert d["lnum"] in (3, 8, 11)
