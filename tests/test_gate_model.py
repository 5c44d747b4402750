"""The gate on real ONNX models: the tiny random one for mechanics whose verdict does not
depend on its numbers, run as a separate process the way pre-commit runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
}  # fmt: skip

OLD = textwrap.dedent("""
    def total(path):
        out = 0
        with open(path) as fh:
            for line in fh:
                out += int(line)
        return out


    def unchanged(x):
        return x + 1
""").lstrip()
NEW = OLD.replace(
    "    with open(path) as fh:\n        for line in fh:\n            out += int(line)\n",
    "    with open(path) as fh:\n        lines = fh.readlines()\n    for line in lines:\n        out += int(line)\n",
)
assert NEW != OLD


def env() -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    return {**clean, **GIT_ENV, "PYTHONPATH": str(ROOT)}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, env=env())


def gate(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rlm_lsp.gate.gate", *args], cwd=repo, capture_output=True, text=True, env=env(), timeout=120
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "mod.py").write_text(OLD)
    git(repo, "add", "mod.py")
    git(repo, "commit", "-qm", "init")
    (repo / "mod.py").write_text(NEW)
    git(repo, "add", "mod.py")
    return repo


def test_real_model_predicts_both_versions_deterministically(repo, tiny_model_dir, tmp_path):
    args = ["--model", str(tiny_model_dir), "--ratio", "1e9", "--report", "json", "--samples", "4"]
    first = gate(repo, *args)
    assert first.returncode == 0, first.stdout + first.stderr
    report = json.loads(first.stdout)
    assert report["passed"] is True and report["model_version"] == "tiny-test-0"
    [function] = report["functions"]
    assert function["qualname"] == "total" and function["change"] == "modified"
    assert function["predictions"]["memory"]["unit"] == "bytes"
    assert function["predictions"]["latency"]["old"]["value"] is not None
    assert report["unchanged"] == 1
    second = gate(repo, *args)
    assert second.stdout == first.stdout  # same input, same answer
    assert first.stderr == ""  # onnxruntime stays quiet


def test_real_model_text_output_and_budget(repo, tiny_model_dir):
    proc = gate(repo, "--model", str(tiny_model_dir), "--ratio", "1e9", "--samples", "4", "mod.py")
    assert proc.returncode == 0
    assert (
        proc.stdout
        == "rlm-gate: passed: 1 changed function in 1 file, no predicted regression (1 unchanged after normalizing)\n"
    )
    tiny = gate(repo, "--model", str(tiny_model_dir), "--ratio", "1e9", "--samples", "4", "--budget", "memory=0B")
    assert tiny.returncode == 1
    assert "mod.py:1: total(): predicted peak memory" in tiny.stdout and "exceeds budget 0 B" in tiny.stdout


def test_broken_model_fails_with_the_file_named_and_fail_open_passes(repo, model_copy):
    (model_copy / "decoder_model.onnx").write_bytes(b"not a model")
    proc = gate(repo, "--model", str(model_copy))
    assert proc.returncode == 2
    assert proc.stdout.startswith("rlm-gate: FAILED: cannot load the model: ModelError:")
    assert "decoder_model.onnx" in proc.stdout
    proc = gate(repo, "--model", str(model_copy), "--fail-open")
    assert proc.returncode == 0
    assert proc.stdout.startswith("rlm-gate: WARNING: not checked, passing because of --fail-open")


def test_budget_in_the_wrong_unit_is_a_setting_error(repo, tiny_model_dir):
    proc = gate(repo, "--model", str(tiny_model_dir), "--budget", "memory=20ms", "--samples", "2")
    assert proc.returncode == 2
    assert "bad setting: memory budget '20ms' is not in bytes" in proc.stdout


KERNEL = """
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x + y, mask=mask)


def launch(x, y, out):
    return add_kernel[(x.numel() // 1024,)](x, y, out, x.numel(), BLOCK=1024)
"""


@pytest.mark.skipif(not (ROOT / "rlm_lsp/models/triton/rlm_config.json").is_file(), reason="no kernel model")
def test_triton_kernels_go_to_the_kernel_model(tmp_path, tiny_model_dir):
    repo = tmp_path / "k"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "kern.py").write_text(KERNEL.lstrip())
    git(repo, "add", "kern.py")
    git(repo, "commit", "-qm", "init")
    changed = KERNEL.replace("x + y", "x * y + tl.exp(x)").replace("numel() // 1024", "numel() // 512")
    (repo / "kern.py").write_text(changed.lstrip())
    git(repo, "add", "kern.py")
    proc = gate(repo, "--model", str(tiny_model_dir), "--ratio", "1e9", "--samples", "2", "--report", "json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout)
    by_name = {f["qualname"]: f for f in report["functions"]}
    assert set(by_name["add_kernel"]["predictions"]) == {"kernel_latency"}
    assert by_name["add_kernel"]["predictions"]["kernel_latency"]["unit"] == "ms"
    assert set(by_name["launch"]["predictions"]) == {"memory", "latency"}
    assert "+" in report["model_version"]  # python model + kernel model


def test_common_draws_share_the_sampling_numbers(tiny_model_dir):
    import numpy as np

    from rlm_lsp.gate.gate import load_predictor

    shared = load_predictor(str(tiny_model_dir), 1, 4, "cpu")  # the gate's default
    assert np.array_equal(shared._uniforms("a" * 16, 4), shared._uniforms("b" * 16, 4))
    first = shared.predict([OLD, NEW])
    again = load_predictor(str(tiny_model_dir), 1, 4, "cpu").predict([NEW, OLD])
    assert first == again[::-1]  # deterministic, whatever the batch order
    own = load_predictor(str(tiny_model_dir), 1, 4, "cpu", common_draws=False)
    assert not np.array_equal(own._uniforms("a" * 16, 4), own._uniforms("b" * 16, 4))
