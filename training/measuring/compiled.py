"""Measure C++, Java and Go programs (issue 51, item 1): compile once, run in the sandbox, peak RSS and CPU time.

* **compile** (``build``): ``g++ -O2 -std=c++17``, ``javac``, ``go build``, once per source text (the driver
  included), into ``training/work/polyglot/build/<language>/<sha1>/`` (git-ignored); a compile error is
  cached too (not a timeout or a compiler that could not start).  The compilers run niced inside the same
  bubblewrap sandbox as the programs (``run_compiler``): no network, no host files but /usr (and the JDK's
  /etc config), only the build folder writable (Go: also its cache), rlimits (``COMPILE_LIMITS``).
* **run** (``run``): the binary (or ``java -cp``) runs inside the same bubblewrap sandbox as the Python
  programs (``training.measuring.sandbox.spawn_argv``: namespaces, read-only /usr and binds, tmpfs work
  folder, rlimits on address space, CPU, files, processes; wall clock and output cap), ``runs`` times in a
  row, each a fresh process started by the sandbox's pid 1, the launcher ``drivers/wait4.c``, which takes
  each run's ``ru_maxrss`` and CPU time (``ru_utime + ru_stime``) from ``wait4``.  (The harness's own
  ``wait4`` on bwrap counts the harness's pages from before bwrap's exec; a small launcher that forked
  the program itself does not.)  The parent checks the launcher's figures against its own ``wait4``:
  no run's peak above the parent's, the runs' CPU not above the parent's.
* **figures** (``measure``): memory = min over the runs of the peak RSS minus the language's
  empty-program baseline (``baseline``: an empty ``main`` compiled and run the same way, once per
  process), floored at 0; time = min over the runs of the process's CPU time (start-up included; the
  baseline's is recorded beside it).  The input's parsing by the driver is part of the program's figures.

Java runs with ``-XX:+UseSerialGC -XX:-UsePerfData``, ``-Xmx`` = half the memory limit and an address-space
limit 3 GiB above it (the JVM reserves far more address space than it touches), and its baseline is the min of
5 empty runs like the others'.  That baseline moves by ~0.5 MB between measuring processes; the three protocols
tried against it (fixed layout and initial heap, C1 with -Xbatch, a baseline of 10 by min or median) each failed
time's or memory's bar, so Java keeps this one (training/data/remeasure_java_protocol.json).
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from training.measuring.sandbox import BOX, Limits, SandboxUnavailable, _reap, own_for_sandbox, sandbox_kind, spawn_argv

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(os.environ.get("RLM_TRAINING_WORK", ROOT / "work"))
DRIVERS = Path(__file__).with_name("drivers")
LANGUAGES = ("cpp", "java", "go", "c")  # "c": Rosetta Code's C programs (rosetta_compiled)
GiB = 1 << 30
STACK_BYTES = 256 << 20
EMPTY = {"cpp": "int main() { return 0; }\n",
         "java": "class RlmMain { public static void main(String[] a) {} }\n",
         "go": "package main\n\nfunc main() {}\n", "c": "int main(void) { return 0; }\n"}
SOURCE_NAME = {"cpp": "prog.cpp", "java": "Solution.java", "go": "main.go", "c": "prog.c"}
JAVA_MAIN = "RlmMain"  # the LeetCode driver's class; a Rosetta program names its own (``build(main=...)``)


class CompilerMissing(RuntimeError):
    pass


def build_root() -> Path:
    return WORK / "polyglot" / "build"


@functools.cache
def compiler_version(language: str) -> str:
    """The compiler's version line; raises ``CompilerMissing`` with the install line where it is absent."""
    cmd = {"cpp": ["g++", "--version"], "java": ["javac", "-version"], "go": ["go", "version"],
           "c": ["gcc", "--version"]}[language]
    if not shutil.which(cmd[0]):
        hint = {"cpp": "apt-get install g++", "c": "apt-get install gcc", "java": "apt-get install openjdk-17-jdk-headless",
                "go": "apt-get install golang-go"}[language]
        raise CompilerMissing("%s is not installed (%s)" % (cmd[0], hint))
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    return ((r.stdout or r.stderr).strip().splitlines() or ["?"])[0]


# the compilers run in the sandbox too: a source can make them read files (``#include "/etc/..."``, quoted back
# in the error text) and a compiler is a large program fed untrusted text.  Room for javac's JVM (which reserves
# far more address space than it touches), go build's helper processes and threads and their open files.
COMPILE_LIMITS = dict(address_space=4 * GiB, cpu_s=300, nofile=1024, fsize=256 << 20, work_bytes=512 << 20, nproc=256)
BUILD_DIR = BOX + "/build"          # the only folder the compiler may write, besides the tmpfs work folder
GO_CACHE = BOX + "/gocache"


def go_cache() -> Path:
    """Go's build cache (the standard library's packages compiled once), shared by all Go builds; written only
    from inside the sandbox, so not the cache an older harness filled outside it."""
    return build_root().parent / "gocache-sandbox"


def _java_config(home: str) -> list:
    """The folders outside the JDK that its ``conf/`` links into (Debian: ``/etc/java-17-openjdk``; javac
    fails without its ``java.security``), read-only."""
    out = set()
    for dirpath, dirnames, filenames in os.walk(os.path.join(home, "conf")):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                target = os.path.realpath(path)
                if target.startswith("/etc/") and os.path.exists(target):
                    out.add("/etc/" + target.split("/")[2])
    return [(d, d) for d in sorted(out)]


def _real(tool: str) -> str:
    """The compiler's own path: /usr/bin/javac is a link through /etc/alternatives, which the sandbox lacks."""
    return os.path.realpath(shutil.which(tool) or tool)


def compile_argv(language: str, source_name: str | None = None) -> list:
    """The compile command inside the sandbox: the source in ``BUILD_DIR``, the output in ``BUILD_DIR/bin``."""
    src = BUILD_DIR + "/" + (source_name or SOURCE_NAME[language])
    return {"c": [_real("gcc"), "-O2", "-std=gnu11", "-o", BUILD_DIR + "/bin/prog", src, "-lm"],
            "cpp": [_real("g++"), "-O2", "-std=c++17", "-o", BUILD_DIR + "/bin/prog", src],
            "java": [_real("javac"), "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:ReservedCodeCacheSize=64m",
                     "-J-XX:CompressedClassSpaceSize=128m", "-encoding", "UTF-8", "-nowarn", "-d", BUILD_DIR + "/bin", src],
            "go": [_real("go"), "build", "-o", BUILD_DIR + "/bin/prog", src]}[language]


def run_compiler(argv: list, folder: Path, language: str, timeout_s: float) -> tuple:
    """Run ``argv`` in the sandbox with ``folder`` writable at ``BUILD_DIR`` (Go: its cache at ``GO_CACHE``):
    (exit code or None on timeout, output text).  No network, read-only /usr, nothing else of the host."""
    kind, why = sandbox_kind()
    if kind is None:
        raise SandboxUnavailable("refusing to compile untrusted code without a sandbox: %s" % why)
    drop = kind == "bwrap" and os.getuid() == 0
    rw = [(str(folder), BUILD_DIR)]
    home = _java_home() if language == "java" else "/usr"
    binds = [] if (home + "/").startswith("/usr/") else [(home, home)]
    if language == "java":
        binds += _java_config(home)
    env = {"HOME": BOX, "TMPDIR": BOX}
    if language == "go":
        cache = go_cache()
        cache.mkdir(parents=True, exist_ok=True)
        own_for_sandbox(str(cache), drop)
        rw.append((str(cache), GO_CACHE))
        env.update(GOCACHE=GO_CACHE, GOPATH=BOX + "/gopath", GO111MODULE="off", CGO_ENABLED="0", GOFLAGS="",
                   GOTOOLCHAIN="local", GOPROXY="off")
    own_for_sandbox(str(folder), drop)
    limits = Limits(wall_s=timeout_s, **COMPILE_LIMITS)
    prlimit = shutil.which("prlimit")
    wrapper = ([prlimit, "--nproc=%d" % limits.nproc, "--"] if prlimit else []) + ["nice", "-n", "10"]
    stage = tempfile.mkdtemp(prefix="rlm-cc-")
    try:
        p = spawn_argv(wrapper + list(argv), limits, drop=drop, binds=binds, rw_binds=rw, env=env, stage_dir=stage,
                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            out = p.communicate(timeout=timeout_s)[0]
            code = p.returncode
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            out, code = p.communicate()[0], None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return code, out.decode("utf-8", "replace")


@dataclass
class Build:
    language: str
    ok: bool
    dir: Path
    error: str = ""
    seconds: float = 0.0
    cached: bool = False
    compiler: str = ""
    main: str = JAVA_MAIN             # Java: the class to run


def build(source: str, language: str, timeout_s: float = 300.0, main: str | None = None) -> Build:
    """Compile ``source`` (a whole program: driver included) once; later calls read the cache.  ``main``: Java's
    class with ``main`` (the file is named after it), where it is not the driver's ``RlmMain``."""
    version = compiler_version(language)
    # the key of a driver's build is what it was before ``main`` existed: those builds stay cached
    key = hashlib.sha1(json.dumps([language, version, source] + ([main] if main else [])).encode()).hexdigest()
    out = build_root() / language / key[:2] / key
    meta = out / "build.json"
    if meta.exists():
        m = json.loads(meta.read_text())
        return Build(language, m["ok"], out, m.get("error", ""), m.get("seconds", 0.0), True, version, main or JAVA_MAIN)
    build_root().mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="rlm-build-", dir=build_root().parent))
    name = main + ".java" if main and language == "java" else SOURCE_NAME[language]
    (tmp / name).write_text(source)
    (tmp / "bin").mkdir()
    t0 = time.perf_counter()
    try:
        code, text = run_compiler(compile_argv(language, name), tmp, language, timeout_s)
    except BaseException:  # a refused or failed start (no sandbox, a signal): no folder left holding the source
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if code is None:
        ok, err = False, "compile timed out after %.0f s" % timeout_s
    else:
        # the head holds the first error (the driver's RLM_UNSUPPORTED_TYPE), the tail the last
        ok, err = code == 0, text if len(text) <= 4000 else text[:3000] + "\n...\n" + text[-1000:]
    secs = round(time.perf_counter() - t0, 2)
    if not ok and code != 1:
        # not the source's error (a timeout on a busy machine, a compiler that could not start, a signal):
        # not cached, so the next run tries again
        shutil.rmtree(tmp, ignore_errors=True)
        return Build(language, False, out, err or "compiler exit %s" % code, secs, False, version, main or JAVA_MAIN)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(out, ignore_errors=True)
    shutil.move(str(tmp / "bin"), str(out))
    shutil.rmtree(tmp, ignore_errors=True)
    _own_again(out)
    # the compiler wrote that folder: never follow a link it may have left in the place of build.json
    fd = os.open(meta, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps({"ok": ok, "error": err if not ok else "", "seconds": secs, "compiler": version}))
    return Build(language, ok, out, err if not ok else "", secs, False, version, main or JAVA_MAIN)


def _own_again(folder: Path) -> None:
    """Give a build back to this process's user (the sandbox wrote it as nobody): later sandboxes read it only."""
    uid, gid = os.getuid(), os.getgid()
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in [dirpath] + [os.path.join(dirpath, n) for n in dirnames + filenames]:
            if os.lstat(name).st_uid != uid:
                os.lchown(name, uid, gid)


@functools.lru_cache(maxsize=1)
def launcher() -> str:
    """The wait4 launcher, compiled once per source text (``gcc -O2``)."""
    src = DRIVERS / "wait4.c"
    key = hashlib.sha1(src.read_bytes()).hexdigest()[:16]
    exe = build_root() / "launcher" / key / "rlm-wait4"
    if not exe.exists():
        exe.parent.mkdir(parents=True, exist_ok=True)
        tmp = exe.with_suffix(".tmp")
        subprocess.run(["gcc", "-O2", "-o", str(tmp), str(src)], check=True, capture_output=True, timeout=120)
        os.replace(tmp, exe)
    return str(exe)


@dataclass
class Run:
    status: str                       # ok | error | timeout | memory_limit | unsupported
    runs: list = field(default_factory=list)   # [(exit code, ru_maxrss kB, cpu s)] from the launcher
    stdout: str = ""
    error: str = ""
    wall_s: float = 0.0
    parent_cpu_s: float = 0.0
    parent_maxrss_kb: int = 0
    sandbox: str = ""


_RUN_LINE = re.compile(r"run (\d+) (-?\d+) (\d+) (\d+\.\d+) (\d+\.\d+)")


def _java_home() -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(shutil.which("java") or "/usr/bin/java")))


def _argv(b: Build, memory_mb: int) -> tuple[list, list, int]:
    """(argv inside the box, extra binds, address-space limit) of a build."""
    prog = BOX + "/.rlm/prog"
    if b.language == "java":
        home = _java_home()
        argv = [home + "/bin/java", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:auto",
                "-Xmx%dm" % max(64, memory_mb // 2), "-XX:ReservedCodeCacheSize=64m",
                "-XX:CompressedClassSpaceSize=128m", "-cp", prog, b.main]
        binds = [] if (home + "/").startswith("/usr/") else [(home, home)]
        return argv, binds, (memory_mb << 20) + 3 * GiB
    return [prog + "/prog"], [], memory_mb << 20


def run(b: Build, stdin: bytes, *, runs: int = 3, time_limit_s: float = 10.0, memory_mb: int = 2048,
        output_bytes: int = 16 << 20) -> Run:
    """Run a compiled program ``runs`` times in the sandbox on ``stdin``. Never raises for program failures;
    raises ``SandboxUnavailable`` where bubblewrap cannot start."""
    kind, why = sandbox_kind()
    if kind is None:
        raise SandboxUnavailable("refusing to run untrusted code without a sandbox: %s" % why)
    argv, binds, address = _argv(b, memory_mb)
    wall = runs * (time_limit_s + 2.0) + 5.0
    limits = Limits(address_space=address, cpu_s=max(1, int(time_limit_s + 0.999)), wall_s=wall,
                    output_bytes=output_bytes)
    stage = tempfile.mkdtemp(prefix="rlm-poly-")
    inp = os.path.join(stage, "input.json")
    with open(inp, "wb") as f:
        f.write(stdin)
    os.chmod(inp, 0o644)
    binds = [(launcher(), BOX + "/.rlm/wait4"), (str(b.dir), BOX + "/.rlm/prog"), (inp, BOX + "/.rlm/input.json")] + binds
    res_r, res_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    t0 = time.perf_counter()
    out, err, res = bytearray(), bytearray(), bytearray()
    killed = None
    try:
        drop = kind == "bwrap" and os.getuid() == 0
        full = [BOX + "/.rlm/wait4", str(runs), BOX + "/.rlm/input.json", str(STACK_BYTES), str(res_w), "--", *argv]
        p = spawn_argv(full, limits,
                       drop=drop, binds=binds, stage_dir=stage, pass_fds=(res_w,), stdin=subprocess.DEVNULL,
                       stdout=out_w, stderr=err_w)
    except BaseException:
        for fd in (res_r, res_w, out_r, out_w, err_r, err_w):
            os.close(fd)
        shutil.rmtree(stage, ignore_errors=True)
        raise
    for fd in (res_w, out_w, err_w):
        os.close(fd)
    import select
    fds = {res_r: res, out_r: out, err_r: err}
    try:
        while True:
            got, status, ru = os.wait4(p.pid, os.WNOHANG)
            if got:
                break
            if time.perf_counter() - t0 > wall:
                killed = "timeout"
            elif len(out) + len(err) > output_bytes:
                killed = "output"
            if killed:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
                status, ru = _reap(p.pid, 5.0)
                break
            for fd in select.select(list(fds), [], [], 0.05)[0]:
                data = os.read(fd, 1 << 16)
                if data:
                    fds[fd].extend(data)
                else:
                    del fds[fd]
        for fd in list(fds):
            os.set_blocking(fd, False)
            try:
                while data := os.read(fd, 1 << 16):
                    fds[fd].extend(data)
            except BlockingIOError:
                pass
    finally:
        for fd in (res_r, out_r, err_r):
            os.close(fd)
        shutil.rmtree(stage, ignore_errors=True)
    r = Run("error", wall_s=round(time.perf_counter() - t0, 3), parent_cpu_s=ru.ru_utime + ru.ru_stime,
            parent_maxrss_kb=ru.ru_maxrss, sandbox=kind, stdout=out.decode("utf-8", "replace"))
    tail = err.decode("utf-8", "replace")[-1500:]
    lines = res.decode("ascii", "replace").splitlines()
    for i, ln in enumerate(lines):
        m = _RUN_LINE.fullmatch(ln)
        if not m or int(m.group(1)) != i:
            r.error = "rejected: malformed launcher line %r" % ln[:80]
            return r
        r.runs.append((int(m.group(2)), int(m.group(3)), round(float(m.group(4)) + float(m.group(5)), 6)))
    if killed == "timeout":
        r.status, r.error = "timeout", "wall-clock limit %.1f s" % wall
        return r
    if killed == "output":
        r.error = "output limit: more than %d bytes on stdout/stderr" % output_bytes
        return r
    bad = _implausible(r)
    if bad:
        r.error = "rejected: " + bad
        return r
    if not r.runs:
        r.error = "no run reported (exit %s): %s" % (os.waitstatus_to_exitcode(status), tail.strip()[-200:])
        return r
    code = r.runs[-1][0]
    if code == 0 and len(r.runs) == runs:
        r.status = "ok"
        return r
    r.status, r.error = _failure(code, r.runs[-1][2], limits.cpu_s, tail)
    return r


def _implausible(r: Run) -> str | None:
    """Why the launcher's figures contradict the parent's own wait4 (None: they do not)."""
    if sum(c for _, _, c in r.runs) > r.parent_cpu_s * 1.05 + 0.05:
        return "the runs' CPU time %.3f s is above the whole sandbox's %.3f s" % (
            sum(c for _, _, c in r.runs), r.parent_cpu_s)
    if any(rss > r.parent_maxrss_kb + 1024 for _, rss, _ in r.runs):
        return "a run's peak RSS is above the whole sandbox's %d kB" % r.parent_maxrss_kb
    return None


def _failure(code: int, cpu_s: float, cpu_limit: int, tail: str) -> tuple[str, str]:
    last = (tail.strip().splitlines() or [""])[-1][:200]
    if code == 3 and "RLM_UNSUPPORTED_TYPE" in tail:
        return "unsupported", tail[tail.index("RLM_UNSUPPORTED_TYPE"):].splitlines()[0][:200]
    if code in (-signal.SIGXCPU, -signal.SIGKILL) and cpu_s >= cpu_limit - 0.5:
        return "timeout", "cpu limit %d s" % cpu_limit
    if (code == 5 or "bad_alloc" in tail or "out of memory" in tail or "OutOfMemoryError" in tail
            or "Cannot allocate memory" in tail):
        return "memory_limit", "out of memory (exit %s): %s" % (code, last)
    if code == -signal.SIGSEGV:
        return "error", "segmentation fault (a stack overflow in deep recursion, or a bad pointer)"
    return "error", "exit %s: %s" % (code, last)


_BASELINES: dict = {}


def baseline(language: str, runs: int = 5, memory_mb: int = 2048) -> dict:
    """The empty program's peak RSS and CPU time (min over ``runs``), measured once per process."""
    if language not in _BASELINES:
        b = build(EMPTY[language], language)
        if not b.ok:
            raise RuntimeError("the empty %s program does not compile: %s" % (language, b.error[-300:]))
        r = run(b, b"", runs=runs, memory_mb=memory_mb)
        if r.status != "ok":
            raise RuntimeError("the empty %s program does not run: %s" % (language, r.error))
        _BASELINES[language] = {"rss_kb": min(x[1] for x in r.runs), "cpu_ms": round(1000 * min(x[2] for x in r.runs), 3),
                                "runs": len(r.runs)}
    return _BASELINES[language]


def measure(code: str, language: str, entry: str | None, tests: list, *, runs: int = 3, time_limit_s: float = 10.0,
            memory_mb: int = 2048) -> dict:
    """A LeetCode solution in ``language`` on ``tests`` (the Python ladders' tests): a row fragment.

    ``status``: ok | compile_error | skipped (the driver cannot express the signature; ``reason``) | error |
    timeout | memory_limit.  ``digests``: per-test output digests as the Python runner computes them."""
    from training.measuring import diagnostics, drivers
    row = {"status": "error", "reason": None, "error": None, "memory_bytes": None, "latency_ms": None,
           "cpu_runs_ms": None, "rss_runs_kb": None, "digests": None, "compiler": compiler_version(language),
           "clock": "process_cpu_min", "runs": runs}
    source, why = drivers.program(code, language, entry, [a for t in tests for a in t["args"]])
    if source is None:
        row.update(status="skipped", reason=why)
        return row
    b = build(source, language)
    row.update(compile_s=b.seconds, compile_cached=b.cached)
    if not b.ok:
        why = drivers.compile_skip(b.error, entry or "")
        row.update(status="skipped" if why else "compile_error", reason=why,
                   error=None if why else diagnostics.compiler(b.error))
        return row
    base = baseline(language, memory_mb=memory_mb)
    row.update(baseline_rss_kb=base["rss_kb"], baseline_cpu_ms=base["cpu_ms"])
    r = run(b, drivers.stdin(tests), runs=runs, time_limit_s=time_limit_s, memory_mb=memory_mb)
    row.update(sandbox=r.sandbox, rss_runs_kb=[x[1] for x in r.runs], cpu_runs_ms=[round(1000 * x[2], 3) for x in r.runs],
               wall_s=r.wall_s)
    if r.status == "unsupported":
        row.update(status="skipped", reason=r.error)
        return row
    if r.status != "ok":
        row.update(status=r.status, error=diagnostics.runtime(r.error))
        return row
    row["digests"] = drivers.digests(r.stdout, len(tests))
    if row["digests"] is None:
        row.update(error="the driver's output is not one JSON line per test")
        return row
    rss = min(x[1] for x in r.runs)
    row.update(status="ok", rss_kb=rss, memory_bytes=max(0, rss - base["rss_kb"]) * 1024,
               latency_ms=round(1000 * min(x[2] for x in r.runs), 3))
    return row
