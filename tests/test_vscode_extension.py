"""The VS Code extension's npm tests, run from pytest so the one test command covers them.

- unit tests of the glue (settings -> launch and initializationOptions, status bar);
- the integration test: the real Python server over stdio through vscode-languageserver-protocol;
- the packaged .vsix.

Needs node and the extension's node_modules (.ci/setup-editors.sh installs both).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

EXT = Path(__file__).resolve().parent.parent / "vscode-extension"

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("npm") is None, reason="npm not installed (run .ci/setup-editors.sh)"),
    pytest.mark.skipif(
        not (EXT / "node_modules" / "vscode-languageclient").is_dir(),
        reason="vscode-extension/node_modules missing (run .ci/setup-editors.sh)",
    ),
]


def npm(script: str, env: dict | None = None) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["npm", "run", "--silent", script],
        cwd=EXT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=200,
    )
    assert proc.returncode == 0, f"npm run {script} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return proc


def test_extension_unit_tests():
    out = npm("test:unit").stdout
    assert "# fail 0" in out and "# pass 0" not in out


def test_extension_integration_with_the_real_server(tiny_model_dir):
    out = npm("test:integration", {"RLM_TEST_MODEL_DIR": str(tiny_model_dir), "RLM_PYTHON": sys.executable}).stdout
    assert "# pass 1" in out and "# fail 0" in out and "# skipped 0" in out


def test_vsix_is_built():
    vsix = EXT / "rlm-lsp.vsix"
    if not vsix.exists():
        pytest.skip("rlm-lsp.vsix not built (run .ci/setup-editors.sh or `npm run package`)")
    names = set(zipfile.ZipFile(vsix).namelist())
    assert {"extension/package.json", "extension/dist/extension.js", "extension/LICENSE.txt",
            "extension/changelog.md", "extension/images/icon.png"} <= names  # packaged without --skip-license
    assert not any(n.startswith("extension/node_modules/") or n.startswith("extension/src/") for n in names)
