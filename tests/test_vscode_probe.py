"""The VS Code extension's interpreter probe (`PROBE_ARGS` in vscode-extension/src/config.ts): it finds
the server's packages without importing the server (#61: that import, 1.6 s, was paid twice per start),
and an interpreter without them gets the `No module named 'x'` line the extension's message reads."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CONFIG = Path(__file__).resolve().parents[1] / "vscode-extension" / "src" / "config.ts"
pytestmark = pytest.mark.skipif(shutil.which("node") is None, reason="needs node to read the extension's TypeScript")


def _probe() -> list[str]:
    js = ("const s = require('fs').readFileSync(process.argv[1], 'utf8');"
          "const m = s.match(/PROBE_ARGS = \\[([\\s\\S]*?)\\];/)[1];"
          "console.log(JSON.stringify(eval('[' + m + ']')));")
    import json
    return json.loads(subprocess.run(["node", "-e", js, str(CONFIG)], capture_output=True, text=True, check=True).stdout)


def test_the_probe_finds_the_packages_without_importing_the_server():
    args = _probe()
    assert args[0] == "-c" and "rlm_lsp.server" not in args[1]
    ok = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and ok.stdout.strip()  # rlm-lsp's version
    bare = subprocess.run([sys.executable, "-I", "-S", *args], capture_output=True, text=True, timeout=60)  # -S: no site
    assert bare.returncode != 0 and "No module named '" in bare.stderr.splitlines()[-1]
