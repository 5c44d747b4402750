"""Start one sandboxed child interpreter running ``training/runner.py``.

What the sandbox does (see training/data/README.md, "Sandbox"):

* a fresh interpreter ``python -s -S -B -P runner.py`` with the environment
  scrubbed to ``PYTHONHASHSEED=0``, ``PATH``, ``LANG``.  (``-I`` would be the
  same as ``-E -s -P``, but ``-E`` makes Python ignore ``PYTHONHASHSEED``, so
  we pass the other two isolation flags and scrub the environment instead.)
* its own session / process group, killed as a group on the wall-clock timeout;
* rlimits: RLIMIT_AS (address space), RLIMIT_CPU, RLIMIT_NOFILE, RLIMIT_FSIZE,
  RLIMIT_CORE=0;
* a fresh temporary working directory, removed afterwards;
* no network: ``unshare -n`` (a new, empty network namespace) when it works on
  this machine (probed once), and always the runner's audit hook that blocks
  socket creation, subprocesses, ctypes and writes outside the work folder.
"""
from __future__ import annotations

import json
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

RUNNER = str(Path(__file__).with_name("runner.py").resolve())
PY_FLAGS = ["-s", "-S", "-B", "-P"]
GiB = 1 << 30

_UNSHARE: list[str] | None = None


def unshare_prefix() -> list[str]:
    """``["unshare", "-n"]`` (or ``-rn``) if a new network namespace can be made here."""
    global _UNSHARE
    if _UNSHARE is not None:
        return _UNSHARE
    _UNSHARE = []
    if os.environ.get("RLM_HARNESS_NO_UNSHARE"):
        return _UNSHARE
    exe = shutil.which("unshare")
    if exe:
        for flags in (["-n"], ["-rn"]):
            try:
                r = subprocess.run([exe, *flags, "true"], capture_output=True, timeout=10)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0:
                _UNSHARE = [exe, *flags]
                break
    return _UNSHARE


@dataclass
class Limits:
    address_space: int = 2 * GiB
    cpu_s: int = 30
    nofile: int = 64
    fsize: int = 64 << 20
    wall_s: float = 30.0


@dataclass
class ChildResult:
    status: str                 # ok | error | timeout | memout
    result: dict = field(default_factory=dict)
    returncode: int | None = None
    wall_s: float = 0.0
    maxrss_kb: int = 0
    cpu_s: float = 0.0
    stderr_tail: str = ""


def _preexec(limits: Limits):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.fsize, limits.fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.nice(0)
    return f


def child_env() -> dict:
    return {"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8"}


def run_child(spec: dict, limits: Limits | None = None, python: str | None = None,
              network_namespace: bool = True) -> ChildResult:
    """Run the runner on ``spec`` in a fresh sandboxed process. Never raises for program failures."""
    limits = limits or Limits()
    python = python or sys.executable
    nonce = secrets.token_hex(8) + ":"
    spec = dict(spec, nonce=nonce)
    work = tempfile.mkdtemp(prefix="rlm-harness-")
    cmd = ([*unshare_prefix()] if network_namespace else []) + [python, *PY_FLAGS, RUNNER]
    t0 = time.perf_counter()
    try:
        spec_path = os.path.join(work, ".spec.json")
        with open(spec_path, "w") as f:
            json.dump(spec, f)
        out_path = os.path.join(work, ".out")
        err_path = os.path.join(work, ".err")
        with open(spec_path, "rb") as fin, open(out_path, "wb") as fout, open(err_path, "wb") as ferr:
            os.unlink(spec_path)  # the child keeps the open descriptor only
            p = subprocess.Popen(cmd, stdin=fin, stdout=fout, stderr=ferr, cwd=work,
                                 env=child_env(), start_new_session=True,
                                 preexec_fn=_preexec(limits), close_fds=True)
        deadline = t0 + limits.wall_s
        timed_out = False
        sleep = 0.001
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() > deadline:
                timed_out = True
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(sleep)
            sleep = min(sleep * 1.5, 0.02)
        # kill anything left in the group (should be nothing: forks are blocked)
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - t0
        with open(out_path, "rb") as f:
            out = f.read()
        with open(err_path, "rb") as f:
            f.seek(0, 2)
            size = f.tell()
            f.seek(max(0, size - 4000))
            err = f.read().decode("utf-8", "replace")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res = ChildResult(status="error", returncode=p.returncode, wall_s=wall,
                      maxrss_kb=ru.ru_maxrss, cpu_s=ru.ru_utime + ru.ru_stime,
                      stderr_tail=err[-2000:])
    marker = nonce.encode()
    idx = out.rfind(marker)
    if idx >= 0:
        try:
            res.result = json.loads(out[idx + len(marker):].split(b"\n", 1)[0])
        except ValueError:
            res.result = {}
    if timed_out:
        res.status = "timeout"
    elif res.result.get("status"):
        res.status = res.result["status"]
    elif p.returncode == -signal.SIGXCPU or p.returncode == -signal.SIGKILL and ru.ru_utime + ru.ru_stime >= limits.cpu_s - 0.5:
        res.status = "timeout"
        res.result = {"error": "cpu limit"}
    elif "MemoryError" in err or "Cannot allocate memory" in err or "memory" in err.lower() and p.returncode != 0:
        res.status = "memout"
        res.result = {"error": "out of memory (%s)" % p.returncode}
    else:
        res.status = "error"
        res.result = {"error": "exit %s: %s" % (p.returncode, err.strip().splitlines()[-1][:200] if err.strip() else "")}
    return res
