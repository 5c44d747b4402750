"""Run one measurement (`child.py`) in a fresh interpreter inside bubblewrap, and read its one result.

    host ── bwrap ─┬─ new user, PID, network, IPC, UTS, mount and cgroup namespaces (`--unshare-all`)
                   ├─ read-only: /usr (and the /bin, /lib* links), the interpreter's prefix, this folder,
                   │             the measured file's folder, the project folder (for a generator)
                   ├─ writable:  a private tmpfs /tmp of `Limits.tmp_bytes` (also the working folder); nothing else
                   └─ prlimit --nproc ── python -s -S -B -P child.py   (env: PYTHONHASHSEED=0, PATH, LANG only)

Limits: `Limits.wall_s` of wall clock (then the interpreter, pid 1 of its namespace, is killed,
and every process it left with it), an address-space limit (`RLIMIT_AS`), a process limit, a
file-size limit, and `Limits.output_bytes` of stdout and stderr (more ends the
run).  The network namespace has only `lo`.  Run as root, the sandbox drops to nobody first,
because the kernel does not hold root to the process limit (not even in a user namespace); folders
under paths nobody cannot pass (a Python under /root) are bound onto stage points in a private
mount namespace before the drop.  A bound folder that is itself closed to others (mode 700) cannot
be read by nobody at all: then it stays root, and new processes are stopped by child.py's audit
hook alone (the PID namespace still ends them all with the run).

The result comes back on its own pipe, one line that starts with a per-run nonce; what the
function prints never reaches it.  `-I` is not used because its `-E` would make Python ignore
PYTHONHASHSEED: `-s -P` plus the cleared environment are the rest of it.  No CPU-time limit
(`RLIMIT_CPU`) either: with one set, the kernel updates the process CPU clock only at each tick
(4 ms here), and `time.process_time` could not time a call; the wall clock bounds the run instead.

Without bubblewrap `unavailable()` says why, and `run` refuses: user code never runs unsandboxed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import secrets
import select
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
BOX_CODE = "/rlm"  # this folder, read-only: child.py and makers.py
INSTALL = "apt-get install bubblewrap"
NOBODY = 65534
MiB = 1 << 20


class SandboxMissing(RuntimeError):
    """bubblewrap is absent or cannot start here."""


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    memory_bytes: int = 2048 * MiB  # address space: the interpreter itself takes ~30 MiB of it
    nproc: int = 32  # processes and threads in the sandbox
    output_bytes: int = 1 * MiB  # stdout + stderr, what the function prints and what the child's fds take
    tmp_bytes: int = 64 * MiB
    file_bytes: int = 64 * MiB
    nofile: int = 256


@dataclass(frozen=True)
class Outcome:
    status: str  # ok | timeout | memout | output | error
    result: dict = field(default_factory=dict)  # the child's line: n, memory_bytes, time_s, ...
    reason: str = ""  # why not ok, in words
    wall_s: float = 0.0


_PROBED: dict[str, str] = {}


def unavailable() -> str | None:
    """None when bubblewrap can start a sandbox here, else why not (one line)."""
    if "why" not in _PROBED:
        exe = shutil.which("bwrap")
        why = "" if exe else f"bubblewrap (bwrap) is not installed: {INSTALL}"
        if exe:
            out = run({"probe": True}, [], Limits(wall_s=20))
            if out.status != "ok":
                why = f"bubblewrap cannot start a sandbox here: {out.reason}"
        _PROBED["why"] = why
    return _PROBED["why"] or None


def run(spec: dict, binds: list[tuple[str, str]], limits: Limits) -> Outcome:
    """`child.py` on `spec` in a fresh sandbox; `binds`: (host path, sandbox path), read-only.
    Never raises for anything the measured code does; SandboxMissing when bwrap is absent."""
    if not shutil.which("bwrap"):
        raise SandboxMissing(f"bubblewrap (bwrap) is not installed: {INSTALL}")
    nonce = secrets.token_hex(16) + ":"
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    info_r, info_w = os.pipe()
    stage = tempfile.mkdtemp(prefix="rlm-measure-")
    python = os.path.realpath(sys.executable)
    prefix = os.path.dirname(os.path.dirname(python))
    binds = ([] if prefix.startswith("/usr/") else [(prefix, prefix)]) + [(str(HERE), BOX_CODE)] + list(binds)
    drop = os.getuid() == 0 and all(_open_to_others(src) for src, _ in binds)
    binds, staged = _stage(binds, stage) if drop else (binds, [])
    child = dict(spec, result_fd=res_w, nonce=nonce, makers=BOX_CODE + "/makers.py")
    argv = _bwrap(binds, limits, info_w) + [shutil.which("prlimit") or "prlimit", f"--nproc={limits.nproc}", "--",
                                          python, "-s", "-S", "-B", "-P"]
    argv += ["-c", "pass"] if spec.get("probe") else [BOX_CODE + "/child.py"]
    t0 = time.perf_counter()
    try:
        with tempfile.TemporaryFile() as stdin:
            stdin.write(json.dumps(child).encode())
            stdin.seek(0)
            proc = subprocess.Popen(argv, stdin=stdin, stdout=out_w, stderr=out_w, close_fds=True,
                                    pass_fds=(res_w, info_w), start_new_session=True,
                                    env={"PATH": "/usr/bin:/bin"}, preexec_fn=_preexec(limits, staged, drop))
    except OSError as exc:
        for fd in (res_r, res_w, out_r, out_w, info_r, info_w):
            os.close(fd)
        shutil.rmtree(stage, ignore_errors=True)
        return Outcome("error", reason=f"cannot start bwrap: {exc}")
    for fd in (res_w, out_w, info_w):
        os.close(fd)
    try:
        killed, res, tail, status = _watch(proc, limits, res_r, out_r, info_r, t0)
    finally:
        for fd in (res_r, out_r, info_r):
            os.close(fd)
        shutil.rmtree(stage, ignore_errors=True)
    return _outcome(killed, res, tail, status, nonce, limits, time.perf_counter() - t0, bool(spec.get("probe")))


def system_binds() -> list[str]:
    """bwrap arguments for what any program needs of the system, read-only: /usr, the /bin and /lib*
    links (or folders), the loader's cache and the time zone (the training sandbox uses them too)."""
    a = ["--ro-bind", "/usr", "/usr"]
    for d in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(d):
            a += ["--symlink", os.readlink(d), d]
        elif os.path.isdir(d):
            a += ["--ro-bind", d, d]
    for f in ("/etc/ld.so.cache", "/etc/localtime"):
        a += ["--ro-bind-try", f, f]
    return a


def _bwrap(binds: list[tuple[str, str]], limits: Limits, info_fd: int) -> list[str]:
    a = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session",
         "--as-pid-1", "--hostname", "sandbox", "--info-fd", str(info_fd), *system_binds()]
    a += ["--proc", "/proc", "--dev", "/dev", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp"]
    for src, dst in binds:
        a += ["--ro-bind", src, dst]
    a += ["--remount-ro", "/", "--chdir", "/tmp", "--clearenv", "--setenv", "PYTHONHASHSEED", "0",
          "--setenv", "PATH", "/usr/bin:/bin", "--setenv", "LANG", "C.UTF-8"]
    return a + ["--"]


def _stage(binds: list[tuple[str, str]], stage: str) -> tuple[list, list]:
    """Binds whose source nobody cannot reach go through a stage point (bound in `_preexec`)."""
    os.chmod(stage, 0o711)
    out, staged = [], []
    for i, (src, dst) in enumerate(binds):
        if _nobody_reads(src):
            out.append((src, dst))
            continue
        point = os.path.join(stage, f"s{i}")
        if os.path.isdir(src):
            os.mkdir(point, 0o755)
        else:
            open(point, "w").close()
            os.chmod(point, 0o644)
        staged.append((src, point))
        out.append((point, dst))
    return out, staged


def _open_to_others(path: str) -> bool:
    """Whether a folder (or file) itself lets others read it: then nobody can, once its parents are staged."""
    mode = os.stat(path).st_mode
    need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
    return mode & need == need


def _nobody_reads(path: str) -> bool:
    parts = os.path.realpath(path).split(os.sep)
    for i in range(2, len(parts) + 1):
        mode = os.stat(os.sep.join(parts[:i])).st_mode
        need = stat.S_IXOTH if (i < len(parts) or stat.S_ISDIR(mode)) else 0
        need |= stat.S_IROTH if i == len(parts) else 0
        if mode & need != need:
            return False
    return True


def _preexec(limits: Limits, staged: list, drop: bool):
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)

    def setup() -> None:
        for what, value in ((resource.RLIMIT_AS, limits.memory_bytes), (resource.RLIMIT_NOFILE, limits.nofile),
                            (resource.RLIMIT_FSIZE, limits.file_bytes), (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(what, (value, value))
        if staged:  # a private mount namespace: the host's mounts are untouched
            if libc.unshare(0x00020000) != 0 or libc.mount(None, b"/", None, (1 << 14) | (1 << 18), None) != 0:
                raise OSError("cannot make a private mount namespace")  # CLONE_NEWNS; MS_REC | MS_PRIVATE
            for src, point in staged:
                if libc.mount(src.encode(), point.encode(), None, 4096 | (1 << 14), None) != 0:  # MS_BIND | MS_REC
                    raise OSError(f"cannot bind {src}")
        if drop:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
    return setup


def _watch(proc: subprocess.Popen, limits: Limits, res_r: int, out_r: int, info_r: int, t0: float):
    """Read the pipes until the child exits or a limit is passed; returns (killed, result bytes,
    output tail, wait status)."""
    res, tail, info = bytearray(), bytearray(), bytearray()
    printed, killed, pid = 0, "", None
    fds = [res_r, out_r, info_r]
    deadline = t0 + limits.wall_s
    while True:
        got, status = os.waitpid(proc.pid, os.WNOHANG)
        if got:
            break
        now = time.perf_counter()
        if not killed and now > deadline:
            killed = "timeout"
        if not killed and printed > limits.output_bytes:
            killed = "output"
        if killed:
            _kill(proc.pid, pid)
            _, status = os.waitpid(proc.pid, 0)
            break
        for fd in select.select(fds, [], [], min(0.05, max(0.0, deadline - now)))[0] if fds else ():
            data = os.read(fd, 1 << 16)
            if not data:
                fds.remove(fd)
            elif fd == res_r:
                res.extend(data[: max(0, MiB - len(res))])
            elif fd == out_r:
                printed += len(data)
                tail = (tail + data)[-2000:]
            else:
                info.extend(data)
                found = re.search(rb'"child-pid":\s*(\d+)', info)
                pid = int(found.group(1)) if found else pid
        if not fds:
            time.sleep(0.002)
    for fd in (res_r, out_r):  # what was written just before the exit
        os.set_blocking(fd, False)
        try:
            while data := os.read(fd, 1 << 16):
                if fd == res_r:
                    res.extend(data[: max(0, MiB - len(res))])
                else:
                    printed += len(data)
                    tail = (tail + data)[-2000:]
        except BlockingIOError:
            pass
    if not killed and printed > limits.output_bytes:
        killed = "output"
    return killed, bytes(res), bytes(tail), status


def _kill(bwrap_pid: int, child_pid: int | None) -> None:
    """The sandbox's pid 1 (its death ends every process in the namespace), then bwrap's group."""
    for pid, kill in ((child_pid, os.kill), (bwrap_pid, os.killpg)):
        if pid:
            try:
                kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass


def _outcome(killed: str, res: bytes, tail: bytes, status: int, nonce: str, limits: Limits, wall: float,
             probe: bool) -> Outcome:
    err = tail.decode("utf-8", "replace").strip()
    last = err.splitlines()[-1][:200] if err else ""
    if killed == "timeout":
        return Outcome("timeout", reason=f"ran past the wall-clock limit ({limits.wall_s:.1f} s)", wall_s=wall)
    if killed == "output":
        return Outcome("output", reason=f"printed more than {limits.output_bytes >> 20} MiB", wall_s=wall)
    line, _, rest = res.partition(b"\n")
    if line.startswith(nonce.encode()) and not rest:
        try:
            result = json.loads(line[len(nonce):])
        except ValueError:
            result = None
        if isinstance(result, dict) and result.get("status") == "ok":
            return Outcome("ok", result, wall_s=wall)
        if isinstance(result, dict) and isinstance(result.get("status"), str):
            return Outcome(result["status"], result, str(result.get("error", ""))[:300], wall)
    elif res:
        return Outcome("error", reason="the result channel was written to by the measured code", wall_s=wall)
    code = os.waitstatus_to_exitcode(status)
    if probe and code == 0:
        return Outcome("ok", wall_s=wall)
    signum = -code if code < 0 else code - 128 if code > 128 else 0
    if "MemoryError" in err or "Cannot allocate memory" in err:
        return Outcome("memout", reason=f"over the memory limit ({limits.memory_bytes >> 20} MiB)", wall_s=wall)
    if signum:
        name = signal.Signals(signum).name if signum in signal.valid_signals() else str(signum)
        return Outcome("error", reason=f"killed by signal {name}" + (f": {last}" if last else ""), wall_s=wall)
    return Outcome("error", reason=f"exited ({code}) without a result" + (f": {last}" if last else ""), wall_s=wall)
