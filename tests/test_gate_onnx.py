"""The gate on a changed `.onnx` network: predicted latency per device, old against new."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SLOW = "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|nor_conv_3x3~0|nor_conv_3x3~1|nor_conv_3x3~2|"
FAST = "|skip_connect~0|+|skip_connect~0|skip_connect~1|+|skip_connect~0|skip_connect~1|skip_connect~2|"

pytestmark = pytest.mark.skipif(not (ROOT / "rlm_lsp" / "models" / "nas" / "rlm_config.json").is_file(),
                                reason="no shipped network latency model")


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)


def gate(cwd, *args):
    return subprocess.run([sys.executable, "-m", "rlm_lsp.gate.gate", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})


@pytest.fixture
def repo(tmp_path):
    pytest.importorskip("torch")
    from training.nas.nb201_torch import export_onnx

    export_onnx(FAST, tmp_path / "fast.onnx", n=5)
    export_onnx(SLOW, tmp_path / "slow.onnx", n=5)
    work = tmp_path / "repo"
    work.mkdir()
    git(work, "init", "-q")
    git(work, "config", "user.email", "t@example.com")
    git(work, "config", "user.name", "t")
    (work / "net.onnx").write_bytes((tmp_path / "fast.onnx").read_bytes())
    git(work, "add", "net.onnx")
    git(work, "commit", "-qm", "fast net")
    return work, tmp_path


def test_slower_network_is_blocked_and_faster_one_passes(repo):
    work, tmp = repo
    (work / "net.onnx").write_bytes((tmp / "slow.onnx").read_bytes())
    git(work, "add", "net.onnx")
    out = gate(work, "--ratio", "latency=1.2", "--onnx-device", "pixel3", "--onnx-device", "1080ti_1")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "net.onnx:1: <network>(): predicted latency on pixel3" in out.stdout
    assert "exceeds 1.2×" in out.stdout

    git(work, "commit", "-qm", "slow net")
    (work / "net.onnx").write_bytes((tmp / "fast.onnx").read_bytes())  # the reverse change
    git(work, "add", "net.onnx")
    out = gate(work, "--ratio", "latency=1.2", "--onnx-device", "pixel3", "--onnx-device", "1080ti_1")
    assert out.returncode == 0, out.stdout + out.stderr


def test_malformed_network_is_skipped_with_a_note(repo):
    work, _ = repo
    (work / "net.onnx").write_bytes(b"\x0a\x05hello")
    git(work, "add", "net.onnx")
    out = gate(work)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "net.onnx" in out.stdout and "skipped" in out.stdout
