"""A runtime-only install (`pip install .`) pulls in no torch, transformers or optimum."""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_runtime_install_has_no_torch(tmp_path):
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
         "--report", str(report), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    names = {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}
    assert {"rlm-lsp", "onnxruntime-gpu", "tokenizers", "numpy", "pygls", "lsprotocol"} <= names
    assert not names & {"torch", "transformers", "optimum", "optimum-onnx"}


def test_runtime_modules_never_import_training_libraries():
    heavy = ("torch", "transformers", "optimum")
    for path in (ROOT / "rlm_lsp").rglob("*.py"):
        for line in path.read_text().splitlines():
            words = line.strip().split()
            if words[:1] in (["import"], ["from"]) and len(words) > 1:
                assert words[1].split(".")[0] not in heavy, f"{path}: {line}"


def test_version_is_single_sourced_and_printed():
    import subprocess
    import sys

    import rlm_lsp

    out = subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"rlm-lsp {rlm_lsp.__version__}"
    from importlib.metadata import version

    assert version("rlm-lsp") == rlm_lsp.__version__


def test_rlm_export_without_the_training_extra_says_what_to_install(monkeypatch, capsys, tmp_path):
    import importlib.util

    from rlm_lsp.export import cli

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "torch" else real(name, *a))
    assert cli.main([str(tmp_path), str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "torch" in err and "pip install 'rlm-lsp[train]'" in err


def test_the_wheel_installs_only_this_projects_names(tmp_path):
    import zipfile

    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    [wheel] = tmp_path.glob("rlm_lsp-*.whl")
    tops = {name.split("/")[0] for name in zipfile.ZipFile(wheel).namelist()}
    assert {t for t in tops if not t.endswith(".dist-info")} == {"rlm_lsp"}
    names = zipfile.ZipFile(wheel).namelist()
    assert "rlm_lsp/gate/gate.py" in names and "rlm_lsp/export/cli.py" in names


def _imports(path: Path) -> set[str]:
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
    return out


def test_imports_run_one_way():
    """Runtime at the bottom; server, gate and exporter above it and not into each other; the CLI on top."""
    above = ("rlm_lsp.server", "rlm_lsp.gate", "rlm_lsp.export", "rlm_lsp.app.cli", "hooks", "export")
    for path in (ROOT / "rlm_lsp").rglob("*.py"):
        if "server" in path.parts or path.name == "__main__.py" or path.name.startswith("cli"):  # the server: below; the CLI and its parts: on top
            continue
        bad = {m for m in _imports(path) if m.startswith(above)}
        assert not bad, f"runtime module {path.name} imports {bad}"
    for folder, others in ((ROOT / "rlm_lsp" / "server", ("rlm_lsp.gate", "rlm_lsp.export", "rlm_lsp.app.cli")),
                           (ROOT / "hooks", ("rlm_lsp.server", "rlm_lsp.export", "rlm_lsp.app.cli", "pygls")),
                           (ROOT / "export", ("rlm_lsp.server", "rlm_lsp.gate", "rlm_lsp.app.cli"))):
        for path in folder.glob("*.py"):
            bad = {m for m in _imports(path) if m.startswith(others)}
            assert not bad, f"{path.relative_to(ROOT)} imports {bad}"


def test_runtime_modules_are_small_files():
    """#26.4: one stage a file; no runtime module over about 400 lines (the server has its own split)."""
    long = {str(p.relative_to(ROOT)): n for p in (ROOT / "rlm_lsp").rglob("*.py")
            if "server" not in p.parts and (n := len(p.read_text().splitlines())) > 400}
    assert not long, f"runtime modules over 400 lines: {long}"


def test_every_runtime_module_imports_without_torch_or_training():
    """In a fresh interpreter: each runtime module loads, and none pulls in torch or the training code."""
    import subprocess
    import sys

    names = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
                   for p in (ROOT / "rlm_lsp").rglob("*.py") if p.stem != "__main__" and "server" not in p.parts)
    code = ("import importlib, sys\n"
            f"for name in {names!r}:\n    importlib.import_module(name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'transformers', 'training'))\n"
            "assert not bad, bad\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
