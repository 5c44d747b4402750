"""Start one sandboxed child interpreter running ``training/measuring/runner.py``.

What the sandbox does (see training/data/README.md, "Sandbox"):

* **bubblewrap** (``bwrap``): new user, PID, mount, network, IPC, UTS and
  cgroup namespaces (``--unshare-all --unshare-user --disable-userns``),
  ``--die-with-parent``, ``--new-session``, ``--as-pid-1``.  The file system is
  a read-only view of ``/usr`` (and the ``/bin``, ``/lib*`` links), the
  interpreter's prefix and the helper-module folders, a new ``/proc`` (only the
  sandbox's own processes, its own ``loadavg``, ``meminfo``, ``stat``... and no mount
  table: ``_proc_masks``), a minimal read-only ``/dev`` and a private tmpfs
  work folder ``/sandbox`` of ``Limits.work_bytes`` (the current folder; it
  also holds the runner and the helper modules, read-only).  The rest of ``/``
  is read-only and empty.  The network namespace has only ``lo``.
* the interpreter is pid 1 of its PID namespace: when it exits, the kernel
  kills every process it left behind, before this module returns.
* when the harness runs as root, the sandbox runs as uid/gid 65534 (nobody),
  so that ``RLIMIT_NPROC`` (``Limits.nproc``, set by ``prlimit`` inside the
  sandbox; it counts the sandbox's own user namespace only) is enforced: the
  kernel ignores it for root.  Paths nobody cannot reach (a pyenv under
  ``/root``) are bind-mounted in a private mount namespace first.
* rlimits: RLIMIT_AS, RLIMIT_CPU, RLIMIT_NOFILE, RLIMIT_FSIZE, RLIMIT_CORE=0,
  RLIMIT_NPROC; ``Limits.wall_s`` wall clock; ``Limits.output_bytes`` of
  stdout + stderr (more ends the run).
* ``python -s -S -B -P runner.py`` with the environment scrubbed to
  ``PYTHONHASHSEED=0``, ``PATH``, ``LANG``, ``LC_ALL``.  (``-I`` would be
  ``-E -s -P``, but ``-E`` makes Python ignore ``PYTHONHASHSEED``.)
* the runner's audit hook stays as a second layer.

The result comes back on its own pipe (not stdout), as one line that starts
with a per-run nonce; anything else on that pipe rejects the run.  The parent
takes the wall time, the CPU time (``wait4``) and the peak RSS (``VmHWM`` of
the sandboxed interpreter, read from the host's ``/proc`` while the runner
waits for it) itself, and rejects results that contradict them
(``_implausible``; the growth of RSS over the runner's mark: ``unexplained_rss``).

Without bubblewrap, ``run_child`` raises ``SandboxUnavailable`` unless
``unsafe_no_sandbox=True``: then the child runs as before this sandbox existed
(rlimits, audit hook, ``unshare -n`` where it works) and rows say
``sandbox: "none"``.
"""
from __future__ import annotations

import ast
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

from rlm_lsp.measure.sandbox import system_binds

RUNNER = str(Path(__file__).with_name("runner.py").resolve())
PY_FLAGS = ["-s", "-S", "-B", "-P"]
GiB = 1 << 30
NOBODY = 65534
BOX = "/sandbox"                  # the work folder inside the sandbox
BOX_RUNNER = BOX + "/.rlm/runner.py"


class SandboxUnavailable(RuntimeError):
    pass


@dataclass
class Limits:
    address_space: int = 2 * GiB
    cpu_s: int = 30
    nofile: int = 64
    fsize: int = 64 << 20         # one file
    work_bytes: int = 64 << 20    # all files in the work folder (tmpfs size)
    nproc: int = 32               # processes + threads in the sandbox
    output_bytes: int = 16 << 20  # stdout + stderr together
    wall_s: float = 30.0


@dataclass
class ChildResult:
    status: str                 # ok | error | timeout | memout
    result: dict = field(default_factory=dict)
    returncode: int | None = None
    wall_s: float = 0.0         # parent: spawn to exit
    maxrss_kb: int = 0          # parent: VmHWM of the interpreter (wait4's ru_maxrss if unreadable)
    cpu_s: float = 0.0          # parent: wait4 user + system
    stderr_tail: str = ""
    sandbox: str = "none"       # bwrap | bwrap-root | none


# ----------------------------------------------------------------- probes

_UNSHARE: list[str] | None = None


def unshare_prefix() -> list[str]:
    """``["unshare", "-n"]`` (or ``-rn``) if a new network namespace can be made here (unsafe mode only)."""
    global _UNSHARE
    if _UNSHARE is not None:
        return _UNSHARE
    _UNSHARE = []
    exe = shutil.which("unshare")
    if exe and not os.environ.get("RLM_HARNESS_NO_UNSHARE"):
        for flags in (["-n"], ["-rn"]):
            try:
                r = subprocess.run([exe, *flags, "true"], capture_output=True, timeout=10)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0:
                _UNSHARE = [exe, *flags]
                break
    return _UNSHARE


_KIND: dict = {}


def sandbox_kind(python: str | None = None) -> tuple[str | None, str]:
    """(kind, why): kind is "bwrap", "bwrap-root" (root inside: no process limit) or None."""
    python = os.path.realpath(python or sys.executable)
    if python in _KIND:
        return _KIND[python]
    why = ""
    kind = None
    exe = shutil.which("bwrap")
    if os.environ.get("RLM_HARNESS_NO_BWRAP"):
        why = "RLM_HARNESS_NO_BWRAP is set"
    elif not exe:
        why = "bwrap (bubblewrap) is not installed"
    else:
        drops = [True, False] if os.getuid() == 0 else [False]
        for drop in drops:
            stage_dir = tempfile.mkdtemp(prefix="rlm-probe-")
            try:
                r = _spawn(python, ["-S", "-c", "pass"], Limits(), drop=drop, extra_binds=[], stage_dir=stage_dir,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                try:
                    err = r.communicate(timeout=20)[1]
                except subprocess.TimeoutExpired:
                    r.kill()
                    r.wait()
                    err = b"timeout"
            except (OSError, subprocess.SubprocessError) as e:
                r, err = None, str(e).encode()
            finally:
                shutil.rmtree(stage_dir, ignore_errors=True)
            if r is not None and r.returncode == 0:
                kind = "bwrap" if (drop or os.getuid() != 0) else "bwrap-root"
                break
            msg = err.decode("utf-8", "replace").strip().splitlines()
            why = "bwrap cannot start here: " + (msg[-1][:200] if msg else "exit %s" % r.returncode)
    _KIND[python] = (kind, why)
    return _KIND[python]


# ----------------------------------------------------------------- spawning

def child_env() -> dict:
    return {"PYTHONHASHSEED": "0", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}


def _prefix_of(python: str) -> str:
    """The installation prefix of an interpreter binary (``.../bin/python3.11`` -> ``...``)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(python)))


def _nobody_can_read(path: str) -> bool:
    p = os.path.realpath(path)
    parts = p.split(os.sep)
    for i in range(2, len(parts) + 1):
        st = os.stat(os.sep.join(parts[:i]) or os.sep)
        need = stat.S_IXOTH if (i < len(parts) or stat.S_ISDIR(st.st_mode)) else 0
        need |= stat.S_IROTH if i == len(parts) else 0
        if st.st_mode & need != need:
            return False
    return True


_libc = None


def _mount_helpers():
    global _libc
    if _libc is None:
        import ctypes
        _libc = ctypes.CDLL(None, use_errno=True)
    return _libc


def _preexec(limits: Limits, stage: list, drop: bool):
    libc = _mount_helpers() if stage else None

    def f():
        resource.setrlimit(resource.RLIMIT_AS, (limits.address_space, limits.address_space))
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.nofile, limits.nofile))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.fsize, limits.fsize))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if stage:
            # private mount namespace (host unaffected): bind what nobody cannot reach onto stage points
            if libc.unshare(0x00020000) != 0:                                    # CLONE_NEWNS
                raise OSError(0, "unshare(CLONE_NEWNS) failed")
            if libc.mount(None, b"/", None, (1 << 14) | (1 << 18), None) != 0:   # MS_REC | MS_PRIVATE
                raise OSError(0, "mount --make-rprivate / failed")
            for src, point in stage:
                if libc.mount(src.encode(), point.encode(), None, 4096 | (1 << 14), None) != 0:  # MS_BIND|MS_REC
                    raise OSError(0, "bind mount failed")
        if drop:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
    return f


# the host's load, memory, uptime and I/O as /proc shows them: replaced by the sandbox's own figures
# (issue 52 item 12); a file missing here (no PSI) is left out
_PROC_NOTHING = ("mountinfo", "mounts", "mountstats")  # host paths; masked for the main thread


def _proc_files(limits: Limits) -> dict:
    kb = limits.address_space >> 10
    ncpu = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    zeros = " 0" * 10
    files = {
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
        "meminfo": "".join("%-15s %8d kB\n" % (k + ":", v) for k, v in (
            ("MemTotal", kb), ("MemFree", kb), ("MemAvailable", kb), ("Buffers", 0), ("Cached", 0),
            ("SwapCached", 0), ("SwapTotal", 0), ("SwapFree", 0))),
        "stat": "cpu " + zeros + "\n" + "".join("cpu%d%s\n" % (i, zeros) for i in range(ncpu))
                + "intr 0\nctxt 0\nbtime 0\nprocesses 1\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n",
        "vmstat": "", "diskstats": "", "zoneinfo": "", "swaps": "Filename\tType\tSize\tUsed\tPriority\n",
        "pressure/cpu": "", "pressure/io": "", "pressure/memory": "",
    }
    return {k: v for k, v in files.items() if os.path.exists("/proc/" + k)}


def _proc_masks(stage_dir: str, limits: Limits) -> list:
    """bwrap arguments that lay the sandbox's own figures over the host's in its new /proc."""
    a = []
    for name, text in _proc_files(limits).items():
        path = os.path.join(stage_dir, "proc-" + name.replace("/", "-"))
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o644)
        a += ["--ro-bind", path, "/proc/" + name]
    # /proc/self and /proc/thread-self are pid 1 and its main thread, the interpreter (--as-pid-1);
    # other threads read /proc/<tid>/mountinfo, which only the runner's audit hook refuses
    empty = os.path.join(stage_dir, "proc-empty")  # not /dev/null: bwrap's binds are nodev
    open(empty, "w").close()
    os.chmod(empty, 0o644)
    for d in ("/proc/self/", "/proc/thread-self/"):
        for name in _PROC_NOTHING:
            if os.path.exists(d + name):  # a thread's folder has no mountstats
                a += ["--ro-bind", empty, d + name]
    return a


def _bwrap_argv(binds: list, limits: Limits, info_fd: int | None, proc_masks: list = (), rw_binds: list = (),
                env: dict | None = None) -> list:
    a = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--unshare-user", "--disable-userns",
         "--die-with-parent", "--new-session", "--as-pid-1", "--hostname", "sandbox"]
    if info_fd is not None:
        a += ["--info-fd", str(info_fd)]
    a += system_binds()  # /usr, /bin, /lib*, the loader's cache: as `rlm measure`'s sandbox binds them
    a += ["--proc", "/proc", *proc_masks, "--dev", "/dev", "--size", str(limits.work_bytes), "--tmpfs", BOX]
    for src, dst in binds:
        a += ["--ro-bind", src, dst]
    for src, dst in rw_binds:  # after --remount-ro /: a bind keeps its own flags
        a += ["--bind", src, dst]
    a += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", BOX, "--clearenv"]
    for k, v in dict(child_env(), **(env or {})).items():
        a += ["--setenv", k, v]
    return a + ["--"]


def _spawn(python, args, limits, *, drop, extra_binds, stage_dir, pass_fds=(), info_fd=None, wrapper=(), **popen):
    """Popen of ``python args`` inside bwrap; ``extra_binds``: (host path, sandbox path), read-only.

    ``stage_dir`` (an empty host folder) holds the mount points of the staged binds;
    keep it until the child has exited."""
    prefix = _prefix_of(python)
    binds = ([] if (prefix + "/").startswith("/usr/") else [(prefix, prefix)]) + list(extra_binds)
    return spawn_argv(list(wrapper) + [os.path.realpath(python)] + list(args), limits, drop=drop, binds=binds,
                      stage_dir=stage_dir, pass_fds=pass_fds, info_fd=info_fd, **popen)


def spawn_argv(argv, limits, *, drop, binds, stage_dir, pass_fds=(), info_fd=None, rw_binds=(), env=None, **popen):
    """Popen of any ``argv`` inside bwrap with ``limits``, the folders of ``binds`` ((host path, sandbox path))
    read-only; the compiled programs' runs and compiles (``training.measuring.compiled``) use it as the
    interpreter's do.

    ``rw_binds``: (host folder, sandbox path) the child may write (a compiler's output folder); when root
    drops to nobody the caller makes them nobody's (``own_for_sandbox``).  ``env``: variables set inside
    beside ``child_env()``.  ``stage_dir`` (an empty host folder) holds the mount points of the staged binds
    (paths nobody cannot reach, when root drops to nobody); keep it until the child has exited."""
    binds, rw_binds = list(binds), list(rw_binds)
    stage = []
    if drop:
        os.chmod(stage_dir, 0o711)
        for j, group in enumerate((binds, rw_binds)):
            for i, (src, dst) in enumerate(group):
                if not _nobody_can_read(src):
                    point = os.path.join(stage_dir, "%s%d" % ("sw"[j], i))
                    if os.path.isdir(src):
                        os.mkdir(point, 0o755)
                    else:
                        open(point, "w").close()
                        os.chmod(point, 0o644)
                    stage.append((src, point))
                    group[i] = (point, dst)
    full = _bwrap_argv(binds, limits, info_fd, _proc_masks(stage_dir, limits), rw_binds, env) + list(argv)
    return subprocess.Popen(full, env=child_env(), start_new_session=True, close_fds=True,
                            pass_fds=tuple(pass_fds) + ((info_fd,) if info_fd is not None else ()),
                            preexec_fn=_preexec(limits, stage, drop), **popen)


def own_for_sandbox(path: str, drop: bool) -> None:
    """Make a folder (and all in it) writable by the sandbox's user: nobody when root drops to it.  A folder
    already nobody's is taken as made in the sandbox, all of it (the Go cache: no walk of its files)."""
    if not drop or os.lstat(path).st_uid == NOBODY:
        return
    for dirpath, dirnames, filenames in os.walk(path):
        for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
            if os.lstat(name).st_uid != NOBODY:
                os.lchown(name, NOBODY, NOBODY)


# ----------------------------------------------------------------- one run

def _read_hwm(pid: int) -> int | None:
    """Peak RSS (VmHWM, KiB) of a live process, read from the host's /proc."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for ln in f:
                if ln.startswith("VmHWM:"):
                    return int(ln.split()[1])
    except (OSError, ValueError):
        pass
    return None


def _reap(pid: int, kill_group_after: float):
    """wait4 ``pid``; SIGKILL its process group if it is still there after ``kill_group_after`` s."""
    end = time.perf_counter() + kill_group_after
    while True:
        got, status, ru = os.wait4(pid, os.WNOHANG)
        if got:
            return status, ru
        if time.perf_counter() > end:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            _, status, ru = os.wait4(pid, 0)
            return status, ru
        time.sleep(0.002)


RSS_FACTOR_MEMORY = 6            # the memory run, under tracemalloc
RSS_FACTOR_TIME = 3              # the timing run, against the memory run's peak
RSS_FLOOR_KB = 16 << 10
RSS_LAG_KB = 1 << 10             # the kernel's RSS counters lag by up to 64 pages per thread


def unexplained_rss(peak_bytes: int, hwm_kb: int | None, start_kb, factor: int) -> str | None:
    """Why the RSS the parent saw is not explained by a reported tracemalloc peak (None: explained).

    ``hwm_kb``: VmHWM read by the parent at the end of the run; ``start_kb``: VmRSS read by the runner
    (trusted code, ``runner._rss_marker``) when it reset VmHWM just before the calls (of the last run, in
    the timing run).  The growth ``hwm_kb - start_kb`` must stay within ``factor`` x the peak +
    ``RSS_FLOOR_KB``.  Memory that tracemalloc does not see (an anonymous ``mmap``, a peak reset through
    ``_imp.create_builtin``) shows here.  The factors come from honest programs (docs/reliability.md,
    "Forged measurements", has the table): in the memory run tracemalloc keeps ~90 bytes of its own per
    live block, so a million floats (31 MiB traced) grow RSS by 130 MiB, 4.2x: ``RSS_FACTOR_MEMORY`` = 6
    leaves room for smaller blocks; in the timing run growth stayed within 1x of the peak (pymalloc's
    arenas), so ``RSS_FACTOR_TIME`` = 3.  The floor holds what is not traced at all: the interpreter's
    frames in deep recursion (5 MiB for 50,000 calls), the output digests after the calls, the first
    arenas.  So a forger can hide at most 3x its reported peak + 16 MiB.  No lower bound: tracemalloc
    counts pages the program never touched (``bytes(10**8)``), which RSS does not."""
    if type(start_kb) is not int or start_kb <= 0:
        return "start RSS not reported"
    if hwm_kb is None:
        return "peak RSS not read"
    growth = hwm_kb - start_kb
    if growth > factor * peak_bytes / 1024 + RSS_FLOOR_KB:
        return "RSS grew by %.1f MiB during the calls, more than %dx the reported peak (%.1f MiB) + %d MiB" % (
            growth / 1024, factor, peak_bytes / (1 << 20), RSS_FLOOR_KB >> 10)
    return None


def _implausible(r: dict, mode: str, limits: Limits, wall_s: float, cpu_s: float,
                 hwm_kb: int | None = None) -> str | None:
    """Why a result cannot be true given what the parent measured itself (None: plausible).

    Memory is bounded above by the address-space limit and, in the memory run, by the
    growth of RSS (``unexplained_rss``); the harness checks the timing run's growth
    against the memory run's peak."""
    try:
        if type(r.get("status")) is not str:
            return "no status"
        if r["status"] == "ok":  # the fields the harness reads
            need = {"memory": ("memory_bytes", "peaks", "digests", "match"), "time": ("times_ms", "cpu_ms", "warmup"),
                    "probe": ("probe",)}.get(mode, ())
            if any(k not in r for k in need):
                return "fields missing"
            if mode == "memory" and not all(type(d) is list and len(d) == 2 for d in r["digests"]):
                return "malformed digests"
            if mode == "time" and not (len(r["times_ms"]) == len(r["cpu_ms"]) > r["warmup"] >= 0):
                return "malformed times"
        for m in [r.get("memory_bytes")] + list(r.get("peaks") or []):
            if m is not None and not (type(m) is int and 0 <= m <= limits.address_space):
                return "memory %r outside [0, address-space limit]" % (m,)
        times, cpus = list(r.get("times_ms") or []), list(r.get("cpu_ms") or [])
        probe = [t.get("ms", 0.0) for t in r.get("probe") or []]
        if any(type(x) not in (int, float) or not x >= 0 for x in times + cpus + probe):
            return "negative or non-numeric time"
        if max(sum(times), sum(probe)) > wall_s * 1000:
            return "timed runs (%.1f ms) longer than the whole process (%.1f ms)" % (
                max(sum(times), sum(probe)), wall_s * 1000)
        if sum(cpus) > cpu_s * 1000 * 1.05 + 10:
            return "CPU time %.1f ms above the process's own %.1f ms" % (sum(cpus), cpu_s * 1000)
        ncpu = os.cpu_count() or 1
        if any(c > t * ncpu + 10.0 for t, c in zip(times, cpus)):  # 10 ms: CPU time may move in 4 ms ticks
            return "a run's wall time is below its CPU time / cores"
        if mode in ("memory", "time") and r["status"] == "ok":
            start = r.get("rss_start_kb")
            if not (type(start) is int and 0 < start <= (hwm_kb or 0) + RSS_LAG_KB):
                return "start RSS %r not in (0, peak RSS %s kB]" % (start, hwm_kb)
            if mode == "memory":
                return unexplained_rss(r["memory_bytes"], hwm_kb, start, RSS_FACTOR_MEMORY)
    except (TypeError, ValueError, AttributeError, KeyError):
        return "malformed result"
    return None


def run_child(spec: dict, limits: Limits | None = None, python: str | None = None,
              network_namespace: bool = True, unsafe_no_sandbox: bool = False, guard: bool = True) -> ChildResult:
    """Run the runner on ``spec`` in a fresh sandboxed process. Never raises for program failures.

    Raises ``SandboxUnavailable`` when bubblewrap cannot start, unless ``unsafe_no_sandbox``.
    ``guard=False`` turns the runner's audit hook off (tests of the kernel sandbox alone)."""
    limits = limits or Limits()
    python = python or sys.executable
    kind, why = sandbox_kind(python)
    if kind is None and not unsafe_no_sandbox:
        raise SandboxUnavailable("refusing to run untrusted code without a sandbox: %s "
                                 "(pass --unsafe-no-sandbox / unsafe_no_sandbox=True to run it anyway)" % why)
    kind = kind or "none"
    nonce = secrets.token_hex(16) + ":"
    sys_path = [p for p in spec.get("sys_path") or [] if os.path.isdir(p)]
    binds = [(RUNNER, BOX_RUNNER)] + [(p, "%s/.rlm/lib%d" % (BOX, i)) for i, p in enumerate(sys_path)]
    work = tempfile.mkdtemp(prefix="rlm-harness-")
    res_r, res_w = os.pipe()
    hold_r, hold_w = os.pipe()
    out_r, out_w = os.pipe()
    info_r, info_w = os.pipe() if kind != "none" else (None, None)
    # RLIMIT_NPROC: set by prlimit inside the sandbox (else by the runner, which costs ~250 KB of RSS);
    # not in unsafe mode, where it would count all of this user's processes
    prlimit = shutil.which("prlimit") if kind != "none" else None
    wrapper = [prlimit, "--nproc=%d" % limits.nproc, "--"] if prlimit else []
    child_spec = dict(spec, nonce=nonce, result_fd=res_w, hold_fd=hold_r, guard=guard,
                      autogroup_nice=max(0, os.nice(0)),  # the runner carries a background nice into the box
                      nproc=limits.nproc if kind != "none" and not prlimit else None,
                      sys_path=[d for _, d in binds[1:]] if kind != "none" else sys_path)
    t0 = time.perf_counter()
    try:
        spec_path = os.path.join(work, ".spec.json")
        with open(spec_path, "w") as f:
            json.dump(child_spec, f)
        with open(spec_path, "rb") as fin:
            os.unlink(spec_path)  # the child keeps the open descriptor only
            std = dict(stdin=fin, stdout=out_w, stderr=out_w)
            if kind == "none":
                cmd = ([*unshare_prefix()] if network_namespace else []) + [python, *PY_FLAGS, RUNNER]
                p = subprocess.Popen(cmd, cwd=work, env=child_env(), start_new_session=True, close_fds=True,
                                     pass_fds=(res_w, hold_r), preexec_fn=_preexec(limits, [], False), **std)
            else:
                p = _spawn(python, PY_FLAGS + [BOX_RUNNER], limits, drop=kind == "bwrap" and os.getuid() == 0,
                           extra_binds=binds, stage_dir=work, pass_fds=(res_w, hold_r), info_fd=info_w,
                           wrapper=wrapper, **std)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        for fd in (res_r, res_w, hold_r, hold_w, out_r, out_w, info_r, info_w):
            if fd is not None:
                os.close(fd)
        raise
    for fd in (res_w, hold_r, out_w, info_w):
        if fd is not None:
            os.close(fd)
    child_pid = p.pid if kind == "none" else None
    res, info, tail = bytearray(), bytearray(), bytearray()
    out_total, hwm, killed = 0, None, None

    def take(fd, data):
        nonlocal out_total, child_pid
        if fd == out_r:
            out_total += len(data)
            tail.extend(data)
            del tail[:-4000]
        elif fd == res_r:
            res.extend(data[: max(0, (4 << 20) - len(res))])
        else:
            info.extend(data)
            m = re.search(rb'"child-pid":\s*(\d+)', info)
            if m:
                child_pid = int(m.group(1))

    fds = [fd for fd in (res_r, out_r, info_r) if fd is not None]
    try:
        deadline = t0 + limits.wall_s
        while True:
            got, status, ru = os.wait4(p.pid, os.WNOHANG)
            if got:
                break
            now = time.perf_counter()
            if killed is None and now > deadline:
                killed = "timeout"
            if killed:
                # the interpreter is pid 1 of its namespace: killing it ends every process in it,
                # and bwrap exits once it has reaped it
                try:
                    if kind != "none" and child_pid:
                        os.kill(child_pid, signal.SIGKILL)
                    else:
                        os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                status, ru = _reap(p.pid, 5.0)
                break
            if fds:
                ready = select.select(fds, [], [], min(0.05, max(0.0, deadline - now)))[0]
            else:
                ready = []
                time.sleep(0.002)
            for fd in ready:
                data = os.read(fd, 1 << 16)
                if data:
                    take(fd, data)
                else:
                    fds.remove(fd)
            if out_total > limits.output_bytes:
                killed = "output"
            if hold_w is not None and b"\n" in res and child_pid:
                # the runner has written its line and waits: take its peak RSS, then let it exit
                hwm = _read_hwm(child_pid)
                os.close(hold_w)
                hold_w = None
        for fd in fds:  # what was written before the exit
            os.set_blocking(fd, False)
            try:
                while True:
                    data = os.read(fd, 1 << 16)
                    if not data:
                        break
                    take(fd, data)
            except BlockingIOError:
                pass
        if kind == "none":  # unsafe mode: anything left in the group (setsid escapes it)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    finally:
        for fd in (res_r, out_r, info_r, hold_w):
            if fd is not None:
                os.close(fd)
        shutil.rmtree(work, ignore_errors=True)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    if kind != "none" and rc > 128:
        rc = -(rc - 128)  # bwrap reports a death by signal n as exit 128 + n
    cpu = ru.ru_utime + ru.ru_stime
    err = tail.decode("utf-8", "replace")
    # ru_maxrss (wait4) also counts the harness's own pages from before bwrap's exec: fallback only
    out = ChildResult(status="error", returncode=rc, wall_s=wall, maxrss_kb=hwm or ru.ru_maxrss, cpu_s=cpu,
                      stderr_tail=err[-2000:], sandbox=kind)
    result, bad = None, None
    if res:
        line, sep, rest = bytes(res).partition(b"\n")
        if not sep or rest or not line.startswith(nonce.encode()):
            bad = "result channel tampered with (%d bytes, %d lines)" % (len(res), res.count(b"\n"))
        else:
            try:
                result = ast.literal_eval(line[len(nonce):].decode("utf-8"))
            except (ValueError, SyntaxError, UnicodeDecodeError, MemoryError, RecursionError, TypeError):
                result = None
            if not isinstance(result, dict):
                bad = "unreadable result line"
            elif hwm is None:
                bad = "result not confirmed (the runner did not wait for the parent)"
            else:
                bad = _implausible(result, spec.get("mode", ""), limits, wall, cpu, hwm)
    cpu_out = rc in (-signal.SIGXCPU, -signal.SIGKILL) and cpu >= limits.cpu_s - 0.5
    if killed == "timeout":
        out.status, out.result = "timeout", {"error": "wall-clock limit %.1f s" % limits.wall_s}
    elif killed == "output":
        out.result = {"error": "output limit: more than %d bytes on stdout/stderr" % limits.output_bytes}
    elif bad:
        out.result = {"error": "rejected: " + bad}
    elif result is not None and result.get("status"):
        out.status, out.result = result["status"], result
    elif cpu_out:
        out.status, out.result = "timeout", {"error": "cpu limit"}
    elif "MemoryError" in err or "Cannot allocate memory" in err or "memory" in err.lower() and rc != 0:
        out.status, out.result = "memout", {"error": "out of memory (%s)" % rc}
    else:
        out.result = {"error": "exit %s: %s" % (rc, err.strip().splitlines()[-1][:200] if err.strip() else "")}
    return out
