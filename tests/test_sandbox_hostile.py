"""Hostile programs against the measuring sandbox (issue 23): one per escape the audit found,
plus network to 127.0.0.1, a 20 GB allocation, an infinite loop and 1 GB to stdout.

Most run with ``guard=False`` (the runner's audit hook off), so that what contains them is the
kernel sandbox (bubblewrap) alone; some run with both layers.  Every measured row must be an
error / limit status (never a forged ``ok``), and the host must show no trace of the attempt.
Skipped only where bubblewrap cannot start and this is not CI; with CI=true they fail instead.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from training.measuring import sandbox  # noqa: E402
from training.measuring.harness import measure  # noqa: E402
from training.measuring.sandbox import Limits, SandboxUnavailable  # noqa: E402

KIND, WHY = sandbox.sandbox_kind()
needs_bwrap = pytest.mark.needs_bwrap  # tests/conftest.py: skipped where bubblewrap cannot start, unless CI=true

LIM = Limits(cpu_s=5, wall_s=8.0, nproc=16, work_bytes=32 << 20, output_bytes=4 << 20)
NO_ARGS = [{"args": [], "expected": None}]


def body(code: str) -> str:
    """A Solution whose only method runs ``code`` (indented 8)."""
    lines = "\n".join("        " + ln for ln in code.strip("\n").splitlines())
    return "class Solution:\n    def run(self):\n" + lines + "\n"


def hostile(code, guard=False, limits=LIM, **kw):
    row = measure(body(code), NO_ARGS, mem_limits=limits, time_limits=limits, guard=guard, **kw)
    assert row["sandbox"] == KIND
    return row


def not_ok(row):
    assert row["status"] in ("error", "timeout", "memout"), row
    assert row["memory_bytes"] is None and row["latency_ms"] is None, row


def host_procs_with(marker: str) -> list:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmd = Path("/proc/%s/cmdline" % pid).read_bytes()
            except OSError:
                continue
            if marker.encode() in cmd:
                out.append(int(pid))
    return out


@needs_bwrap
def test_bubblewrap_starts_and_every_row_says_so():
    assert KIND in ("bwrap", "bwrap-root"), WHY
    row = measure(body("return sum(range(10))"), [{"args": [], "expected": {"json": 45}}],
                  mem_limits=LIM, time_limits=LIM)
    assert row["status"] == "ok" and row["correct"] is True and row["sandbox"] == KIND, row


# 1. chdir + relative writes / removes / rmtree / rename outside the work folder

@needs_bwrap
@pytest.mark.parametrize("guard", [False, True])
def test_chdir_then_relative_writes_stay_inside(tmp_path, guard):
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    (victim / "keep.txt").write_text("keep me")
    (victim / "sub" / "x").write_text("x")
    mark = "m" + uuid.uuid4().hex[:8]
    row = hostile(f'''
import os, shutil
log = []
for d in ({str(victim)!r}, "/", "/usr", "/dev", "/proc", "/tmp"):
    try:
        os.chdir(d)
    except Exception as e:
        log.append("nocd " + type(e).__name__)
        continue
    for f in (lambda: open("f-{mark}", "w").write("x"), lambda: os.remove("keep.txt"),
              lambda: shutil.rmtree("sub"), lambda: os.rename("keep.txt", "moved-{mark}"),
              lambda: os.mkdir("d-{mark}")):
        try:
            f()
            log.append("did")
        except Exception as e:
            log.append(type(e).__name__)
raise RuntimeError(repr(log))
''', guard=guard)
    not_ok(row)
    assert "RuntimeError" in row["error"] and "did" not in row["error"], row["error"]
    assert (victim / "keep.txt").read_text() == "keep me" and (victim / "sub" / "x").exists()
    assert sorted(p.name for p in victim.iterdir()) == ["keep.txt", "sub"]
    for d in ("/", "/usr", "/tmp", str(ROOT)):
        assert not any(mark in n for n in os.listdir(d)), d


# 2. _posixsubprocess.fork_exec (no audit event) of /bin/sh

FORK_EXEC = '''
import _posixsubprocess, os
r, w = os.pipe()
er, ew = os.pipe()
pid = _posixsubprocess.fork_exec([b"/bin/sh", b"-c", SCRIPT.encode()], [b"/bin/sh"], True, (w,), None,
                                 [b"PATH=/usr/bin:/bin"], -1, -1, -1, w, -1, w, er, ew, True, True, -1,
                                 None, None, None, -1, None, False)
os.close(w)
os.close(ew)
out = b""
while True:
    chunk = os.read(r, 4096)
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
raise RuntimeError("shell said: %r" % out[-250:])
'''


@needs_bwrap
def test_fork_exec_shell_is_contained(tmp_path):
    mark = "m" + uuid.uuid4().hex[:8]
    target = tmp_path / ("sh-" + mark)
    script = (f"echo pwned > {target}; echo pwned > /sh-{mark}; echo pwned > /usr/sh-{mark}; "
              f"echo pwned > /sandbox/.rlm/runner.py; echo uid=$(id -u)")
    row = hostile("SCRIPT = %r\n" % script + FORK_EXEC)
    not_ok(row)
    assert "shell said" in row["error"], row["error"]  # it ran, inside
    assert not target.exists() and not os.path.exists("/sh-" + mark) and not os.path.exists("/usr/sh-" + mark)
    assert "pwned" not in (ROOT / "training" / "measuring" / "runner.py").read_text()
    if KIND == "bwrap" and os.getuid() == 0:
        assert "uid=65534" in row["error"], row["error"]
    # with the audit hook on, the import itself is refused
    row = hostile("SCRIPT = 'true'\n" + FORK_EXEC, guard=True)
    not_ok(row)
    assert "_posixsubprocess is blocked" in row["error"], row["error"]


# 3. setsid sleepers and a bounded fork bomb: all dead when measure() returns; a process limit

@needs_bwrap
def test_setsid_sleepers_die_with_the_run_and_processes_are_limited():
    mark = "sleep" + uuid.uuid4().hex[:8]
    row = hostile(f'''
import os
n = 0
try:
    for i in range(128):
        if os.fork() == 0:
            try:
                os.setsid()
                os.execv("/bin/sh", ["{mark}", "-c", "sleep 4; echo late > /sandbox/late"])
            finally:
                os._exit(0)
        n += 1
except OSError as e:
    raise RuntimeError("forked %d, then %s" % (n, type(e).__name__))
raise RuntimeError("forked %d" % n)
''')
    not_ok(row)
    assert host_procs_with(mark) == []
    n = int(row["error"].split("forked ")[1].split(",")[0])
    if KIND == "bwrap":
        assert n < LIM.nproc and "BlockingIOError" in row["error"], row["error"]


@needs_bwrap
def test_fork_bomb_dies_with_the_run():
    mark = "bomb" + uuid.uuid4().hex[:8]
    row = hostile(f'''
import os
for _ in range(8):  # up to 256 processes
    try:
        os.fork()
    except OSError:
        break
if os.getpid() != 1:  # the runner is pid 1 of the sandbox
    try:
        os.setsid()
        os.execv("/bin/sleep", ["{mark}", "30"])
    finally:
        os._exit(0)
raise RuntimeError("bomb set")
''')
    not_ok(row)
    assert host_procs_with(mark) == []


# 4. the harness's environment through /proc/<ppid>/environ

ENVIRON = '''
import os
paths = ["/proc/%d/environ" % os.getppid(), "/proc/self/environ"]
paths += ["/proc/%s/environ" % p for p in os.listdir("/proc") if p.isdigit()]
for p in paths:
    try:
        data = open(p, "rb").read()
    except OSError as e:
        data = b""
    if SECRET.encode() in data or SECRET in repr(dict(os.environ)):
        raise RuntimeError("FOUND " + data.decode("latin-1"))
raise RuntimeError("not found; ppid=%d pids=%s env=%s" % (
    os.getppid(), [p for p in os.listdir("/proc") if p.isdigit()], sorted(os.environ)))
'''


@needs_bwrap
def test_harness_environment_is_unreachable():
    """A harness started with a secret in its environment; the program looks for it in every /proc/*/environ."""
    secret = "s3cr3t" + uuid.uuid4().hex
    code = body("SECRET = %r\n" % secret + ENVIRON)
    script = ("import json, sys; sys.path.insert(0, %r)\n"
              "from training.measuring.harness import measure\nfrom training.measuring.sandbox import Limits\n"
              "L = Limits(cpu_s=5, wall_s=8.0, nproc=16)\n"
              "print(json.dumps(measure(%r, [{'args': [], 'expected': None}], mem_limits=L, time_limits=L, "
              "guard=False)))\n" % (str(ROOT), code))
    r = subprocess.run([sys.executable, "-c", script], env=dict(os.environ, RLM_HOSTILE_SECRET=secret),
                       capture_output=True, text=True, timeout=60)
    row = json.loads(r.stdout)
    not_ok(row)
    assert "not found" in row["error"] and secret not in r.stdout, row["error"]
    assert "ppid=0" in row["error"]  # its parent is outside its PID namespace


# 5. pidfd_open + pidfd_send_signal (and kill) on a process outside

@needs_bwrap
def test_cannot_signal_a_process_outside():
    victim = subprocess.Popen(["sleep", "30"])
    try:
        row = hostile(f'''
import os, signal
out = []
for f in (lambda: signal.pidfd_send_signal(os.pidfd_open({victim.pid}), signal.SIGKILL),
          lambda: os.kill({victim.pid}, signal.SIGKILL), lambda: os.kill(-1, signal.SIGKILL)):
    try:
        f()
        out.append("sent")
    except OSError as e:
        out.append(type(e).__name__)
raise RuntimeError(repr(out))
''')
        not_ok(row)
        assert "ProcessLookupError" in row["error"], row["error"]
        time.sleep(0.2)
        assert victim.poll() is None, "the process outside was killed"
    finally:
        victim.kill()
        victim.wait()


# 6. forging the result line / nonce

@needs_bwrap
def test_runner_state_is_out_of_reach():
    """Both layers: frames, gc, tracemalloc, /proc/self/mem and the spec on stdin are refused."""
    row = hostile('''
import sys, os, gc, stat
out = []


def pipes_by_path():  # /proc/self/fd/N of a pipe would reopen it
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                open("/proc/self/fd/%d" % fd, "rb")
                return
        except OSError as e:
            if isinstance(e, PermissionError):
                raise
    raise LookupError("no pipe")


def spec_again():
    if not os.read(0, 100):
        raise EOFError


for name, f in [("getframe", lambda: sys._getframe(1).f_back.f_locals),
                ("inspect", lambda: __import__("inspect").currentframe().f_back),
                ("gc", lambda: gc.get_objects()),
                ("referrers", lambda: gc.get_referrers(sys)),
                ("settrace", lambda: sys.settrace(lambda *a: None)),
                ("tracemalloc", lambda: __import__("tracemalloc").reset_peak()),
                ("mem", lambda: open("/proc/self/mem", "rb").read(1)),
                ("fdpipe", pipes_by_path),
                ("stdin", spec_again)]:
    try:
        f()
        out.append(name + ":got")
    except BaseException as e:
        out.append(name + ":" + type(e).__name__)
try:
    raise KeyError
except KeyError as e:
    try:
        e.__traceback__.tb_frame
        out.append("tb:got")
    except AttributeError:
        out.append("tb:AttributeError")
raise RuntimeError(" ".join(out))
''', guard=True)
    not_ok(row)
    assert ":got" not in row["error"] and "tb:AttributeError" in row["error"], row["error"]
    assert "fdpipe:PermissionError" in row["error"] and "mem:PermissionError" in row["error"], row["error"]


@needs_bwrap
def test_forged_result_lines_are_rejected():
    """The issue's route: print a result line; and write one to every descriptor (the result pipe too)."""
    forged = 'import json\nFORGED = json.dumps({"status": "ok", "memory_bytes": 7, "times_ms": [0.001] * 6, ' \
             '"cpu_ms": [0.0] * 6, "warmup": 1, "peaks": [7], "digests": [], "match": []})\n'
    # a line on stdout, in the old format, with every nonce it can find: none is the real one
    row = hostile(forged + '''
keep = bytearray(50 << 20)
print("0" * 32 + ":" + FORGED)
import os
os.write(1, ("0" * 32 + ":" + FORGED + "\\n").encode())
return len(keep)
''', guard=True)
    if row["status"] == "ok":  # an honest measurement of the 50 MB, not the forged 7 bytes
        assert row["memory_bytes"] >= 50 << 20 and row["latency_ms"] > 0.001, row
    else:
        not_ok(row)
    # a line on every open descriptor, with and without the audit hook
    for guard in (True, False):
        row = hostile(forged + '''
import os
keep = bytearray(50 << 20)
for fd in range(3, 64):
    for line in ("0" * 32 + ":" + FORGED + "\\n", "{\\"status\\": \\"ok\\"}\\n"):
        try:
            os.write(fd, line.encode())
        except OSError:
            pass
return len(keep)
''', guard=guard)
        not_ok(row)
        assert row["error"].startswith("rejected: result channel tampered with"), row["error"]


@needs_bwrap
def test_implausible_results_are_rejected():
    """With the hook off a program can find the nonce; the parent still rejects what it knows is false."""
    row = hostile('''
import sys, os
f = sys._getframe()
while f.f_code.co_name != "main":
    f = f.f_back
nonce, rfd, hfd = f.f_locals["nonce"], f.f_locals["rfd"], f.f_locals["hfd"]
res = {"status": "ok", "memory_bytes": 1 << 50, "peaks": [1 << 50], "digests": [["0", "0"]], "match": [None]}
os.write(rfd, (nonce + repr(res) + "\\n").encode())
os.read(hfd, 1)
os._exit(0)
''')
    not_ok(row)
    assert row["error"].startswith("rejected: memory"), row["error"]


# 7. more than 1 GB written inside its own folder

@needs_bwrap
def test_work_folder_is_size_limited():
    row = hostile('''
import os
block = b"x" * (32 << 20)
n = 0
try:
    for i in range(40):  # 1.25 GB
        with open("f%d" % i, "wb") as f:
            n += f.write(block)
except OSError as e:
    raise RuntimeError("wrote %d bytes, then %s" % (n, e))
raise RuntimeError("wrote %d bytes" % n)
''', guard=True)
    not_ok(row)
    assert "No space left on device" in row["error"], row["error"]
    assert int(row["error"].split("wrote ")[1].split()[0]) <= LIM.work_bytes


# plus: network to 127.0.0.1, 20 GB, an infinite loop, 1 GB to stdout

@needs_bwrap
def test_no_network_even_to_localhost():
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.setblocking(False)
    port = srv.getsockname()[1]
    try:
        row = hostile(f'''
import socket
out = []
for fam, addr in ((socket.AF_INET, ("127.0.0.1", {port})), (socket.AF_INET6, ("::1", {port}))):
    try:
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(addr)
        out.append("connected")
    except OSError as e:
        out.append(type(e).__name__)
out.append(",".join(sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").readlines()[2:])))
raise RuntimeError(" ".join(out))
''')
        not_ok(row)
        assert "connected" not in row["error"] and "ConnectionRefusedError" in row["error"], row["error"]
        assert " lo (line" in row["error"], row["error"]  # its only interface
        with pytest.raises(BlockingIOError):
            srv.accept()
    finally:
        srv.close()


@needs_bwrap
def test_20_gb_allocation_is_memout():
    row = hostile("x = bytearray(20 << 30)\nreturn len(x)", guard=True)
    assert row["status"] == "memout", row


@needs_bwrap
def test_infinite_loop_is_timeout():
    t = time.perf_counter()
    row = hostile("while True:\n    pass", limits=Limits(cpu_s=5, wall_s=1.5, nproc=16))
    assert row["status"] == "timeout", row
    assert time.perf_counter() - t < 6


@needs_bwrap
def test_1_gb_to_stdout_hits_the_output_limit():
    t = time.perf_counter()
    row = hostile('''
import os, sys
block = b"x" * (1 << 20)
for _ in range(1024):
    os.write(1, block)
    sys.__stdout__.buffer.write(block)
return 0
''')
    not_ok(row)
    assert row["error"].startswith("output limit"), row["error"]
    assert time.perf_counter() - t < 6


# refusal without a sandbox (needs no bubblewrap)

def test_refuses_to_measure_without_a_sandbox(monkeypatch, tmp_path):
    monkeypatch.setenv("RLM_HARNESS_NO_BWRAP", "1")
    monkeypatch.setattr(sandbox, "_KIND", {})
    with pytest.raises(SandboxUnavailable, match="--unsafe-no-sandbox"):
        measure(body("return 1"), NO_ARGS)
    row = measure(body("return 1"), NO_ARGS, unsafe_no_sandbox=True, mem_limits=LIM, time_limits=LIM)
    assert row["status"] == "ok" and row["sandbox"] == "none", row
    prog, tests = tmp_path / "p.py", tmp_path / "t.json"
    prog.write_text(body("return 1"))
    tests.write_text(json.dumps(NO_ARGS))
    r = subprocess.run([sys.executable, "-m", "training.measuring.harness", str(prog), "--tests", str(tests)],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "", r
    assert len(r.stderr.strip().splitlines()) == 1 and "--unsafe-no-sandbox" in r.stderr, r.stderr


# A measuring process at nice > 0 (a background run) keeps that nice inside the sandbox: bwrap's
# --new-session starts a new scheduler autogroup, which is at nice 0 unless the runner sets it

@needs_bwrap
@pytest.mark.skipif(not Path("/proc/self/autogroup").exists(), reason="kernel without sched autogroups")
def test_a_niced_run_keeps_its_nice_in_the_sandbox():
    code = body('raise RuntimeError(open("/proc/self/autogroup").read().strip())')
    script = ("import json, sys; sys.path.insert(0, %r)\n"
              "from training.measuring.harness import measure\nfrom training.measuring.sandbox import Limits\n"
              "L = Limits(cpu_s=5, wall_s=8.0, nproc=16)\n"
              "print(json.dumps(measure(%r, [{'args': [], 'expected': None}], mem_limits=L, time_limits=L, "
              "guard=False)))\n" % (str(ROOT), code))
    r = subprocess.run([sys.executable, "-c", script], preexec_fn=lambda: os.nice(7),
                       capture_output=True, text=True, timeout=60)
    row = json.loads(r.stdout)
    assert row["status"] == "error" and "nice 7" in row["error"], row["error"]


# 8. forged measurements (issue 52 item 3): the four programs of the audit, with the audit hook on.
# The parent checks the RSS growth of both runs against the reported peak (sandbox.unexplained_rss),
# the two runs import the same modules, every run starts with fresh builtins, and a warm-up much
# slower than the timed runs is rejected (harness.carried_state).

FORGE = Limits(cpu_s=10, wall_s=40.0, nproc=16, work_bytes=32 << 20, output_bytes=4 << 20)
TRACEMALLOC = '''
import _imp
from importlib.machinery import ModuleSpec
tm = _imp.create_builtin(ModuleSpec("_tracemalloc", None))  # no audit event: the hook cannot refuse it
'''
TOUCH = '''
x = bytearray(%d << 20)
for i in range(0, len(x), 4096):
    x[i] = 1
'''


@needs_bwrap
def test_forged_a_tracemalloc_peak_reset_is_rejected():
    row = hostile(TRACEMALLOC + TOUCH % 120 + "del x\ntm.reset_peak()\nreturn 1", guard=True, limits=FORGE)
    not_ok(row)
    assert row["error"].startswith("rejected: RSS grew by 1"), row["error"]
    assert row["mem_rss_kb"] > 120 << 10, row


@needs_bwrap
def test_forged_b_anonymous_mmap_is_rejected():
    row = hostile('''
import mmap
m = mmap.mmap(-1, 150 << 20)
for i in range(0, 150 << 20, 4096):
    m[i] = 1
return 1
''', guard=True, limits=FORGE)
    not_ok(row)
    assert row["error"].startswith("rejected: RSS grew by 1"), row["error"]


def modules_seen(mode):
    code = body("import sys, hashlib\nraise RuntimeError(hashlib.sha1(' '.join(sorted(sys.modules)).encode())"
                ".hexdigest() + ' %d' % len(sys.modules))")
    r = sandbox.run_child({"mode": mode, "code": code, "tests": NO_ARGS, "repeats": 1, "warmup": 1}, FORGE)
    assert r.status == "error" and r.result["error"].startswith("RuntimeError: "), r.result
    return r.result["error"].split()[1:3]


@needs_bwrap
def test_forged_c_memory_and_timing_runs_look_alike():
    """The audit's tell (pickle, imported by tracemalloc, in one run only) is gone: the same modules in both."""
    assert modules_seen("memory") == modules_seen("time")
    # the audit's program: 7 kB in the memory run, 422 MB in the timing run; now the same path in both
    row = hostile("import sys\nif 'pickle' not in sys.modules:\n" + "\n".join(
        "    " + ln for ln in (TOUCH % 150).strip().splitlines()) + "\nreturn 1", guard=True, limits=FORGE)
    assert row["status"] == "ok", row
    assert row["rss_kb"] < row["mem_rss_kb"] + (16 << 10), row  # the timing run did not allocate the 150 MB


@needs_bwrap
def test_forged_c_allocating_only_in_the_timing_run_is_rejected():
    """A tell the runner cannot take away (tracemalloc's own state): the timing run's RSS must be explained
    by the memory run's peak too."""
    row = hostile(TRACEMALLOC + "if not tm.is_tracing():\n" + "\n".join(
        "    " + ln for ln in (TOUCH % 150).strip().splitlines()) + "\nreturn 1", guard=True, limits=FORGE)
    not_ok(row)
    assert row["error"].startswith("rejected: timing run: RSS grew by 1"), row["error"]


@needs_bwrap
def test_forged_d_a_result_cached_in_builtins_does_not_reach_the_timed_runs():
    row = hostile('''
import builtins
if hasattr(builtins, "_cached"):
    raise RuntimeError("the warm-up's result reached a timed run")
builtins._cached = sum(range(1000))
return builtins._cached
''', guard=True, limits=FORGE)
    assert row["status"] == "ok" and row["latency_runs"] == 5, row


@needs_bwrap
def test_forged_d_a_result_cached_elsewhere_is_rejected_by_the_warm_up():
    """Kept in an imported module (which the runs share): only the warm-up computes; rejected, not timed."""
    row = hostile('''
import math, hashlib
if not hasattr(math, "_cached"):  # ~0.2 s of CPU in one C call: few allocations, quick under tracemalloc
    math._cached = hashlib.sha256(bytes(256 << 20)).hexdigest()
return math._cached
''', guard=True, limits=FORGE)
    not_ok(row)
    assert row["error"].startswith("rejected: warm-up took") and "state carried between runs" in row["error"], row


@needs_bwrap
def test_honest_programs_with_the_most_rss_per_traced_byte_pass():
    """Tracemalloc's own ~90 bytes per live block (a million objects: 23 MiB traced, ~115 MiB of RSS in the
    memory run), deep recursion (frames are not traced) and untouched pages are not forgeries."""
    for code in ("return len([object() for _ in range(10 ** 6)])",
                 "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nreturn f(20000)",
                 "return len(bytes(10 ** 8))"):
        row = hostile(code, guard=True, limits=FORGE)
        assert row["status"] == "ok", (code, row)


# 9. the host's load, memory and mount table (issue 52 item 12)

PROC_READ = '''
def read(p):
    try:
        return open(p).read()
    except OSError as e:
        return type(e).__name__
mem, stat = read("/proc/meminfo"), read("/proc/stat")
mounts = [len(read(p)) for p in ("/proc/self/mountinfo", "/proc/self/mounts", "/proc/mounts",
                                 "/proc/thread-self/mountinfo")]
raise RuntimeError(repr([read("/proc/loadavg"), read("/proc/uptime"), mem.splitlines()[0], stat[:12],
                         "btime 0" in stat, mounts]))  # the error message keeps 300 characters
'''


@needs_bwrap
def test_proc_shows_the_sandbox_not_the_host():
    lim = Limits(cpu_s=5, wall_s=8.0, nproc=16, output_bytes=4 << 20)
    r = sandbox.run_child({"mode": "memory", "code": body(PROC_READ), "tests": NO_ARGS}, lim, guard=False)
    seen = eval(r.result["error"].split(": ", 1)[1].rsplit(" (line", 1)[0])
    assert seen == ["0.00 0.00 0.00 1/1 1\n", "0.00 0.00\n", "MemTotal:        %d kB" % (lim.address_space >> 10),
                    "cpu  0 0 0 0", True, [0, 0, 0, 0]], seen
    # another thread's mount table, which bwrap cannot mask: the audit hook refuses it
    row = hostile('''
import threading, os
got = []
def read():
    try:
        got.append(open("/proc/%d/mountinfo" % threading.get_native_id()).read()[:80])
    except OSError as e:
        got.append(type(e).__name__)
t = threading.Thread(target=read)
t.start()
t.join()
raise RuntimeError(repr(got))
''', guard=True)
    not_ok(row)
    assert "PermissionError" in row["error"], row["error"]


# 10. the third audit's forgeries (issue 61.1, 61.2)

@needs_bwrap
def test_forged_a_cache_hidden_behind_one_slow_timed_run_is_rejected():
    """The warm-up caches the result, one timed run recomputes it: compared with the timed runs' median,
    not their slowest, the cache shows (the audit's row was `ok` at 0.0076 ms)."""
    row = hostile('''
import math, hashlib
math._calls = getattr(math, "_calls", 0) + 1
if not hasattr(math, "_cached") or math._calls == 4:
    math._cached = hashlib.sha256(bytes(256 << 20)).hexdigest()
return math._cached
''', guard=True, limits=FORGE)
    not_ok(row)
    assert "state carried between runs" in row["error"], row


@needs_bwrap
def test_forged_work_done_only_where_it_is_not_timed_is_rejected():
    """A program that tells the memory run apart (tracemalloc makes allocation slow) and returns a
    wrong answer in the timing run: the timed runs' outputs must be the memory run's.

    It must tell the runs apart every time, or the check that catches it is another one: a timed
    run that reads itself as the memory run does the work, and the one slow run among fast ones is
    rejected as state carried between runs (seen under load with a wall-clock threshold of 4 ms,
    which a preempted allocation crossed).  So it compares CPU times, the best of three, of
    allocating and of not allocating: 3-6x apart without tracemalloc, 25-50x with it, on an idle
    machine and beside 14 busy processes alike.  The thread's clock: under the sandbox's RLIMIT_CPU
    the process clock advances only at scheduler ticks (0 ms for a 1 ms allocation)."""
    code = body('''
import time
def cost(work):
    best = 1.0
    for _ in range(3):
        t = time.thread_time()
        work()
        best = min(best, time.thread_time() - t)
    return best
cells = (None,) * 20000
ratio = cost(lambda: [object() for _ in cells]) / max(cost(lambda: [None for _ in cells]), 1e-6)
slow = ratio > 12  # under tracemalloc: the memory run
return sum(range(3 * 10 ** 6)) if slow else 0
''')
    row = measure(code, [{"args": [], "expected": {"json": sum(range(3 * 10 ** 6))}}], mem_limits=FORGE, time_limits=FORGE,
                  guard=True)
    if row.get("correct") is not True:
        pytest.skip("this machine's allocator did not tell the runs apart; nothing was forged")
    not_ok(row)
    assert "other outputs than the memory run" in row["error"], row


@needs_bwrap
def test_an_honest_program_passes_both_checks():
    row = measure(body("return sum(range(10 ** 6))"), [{"args": [], "expected": {"json": sum(range(10 ** 6))}}],
                  mem_limits=FORGE, time_limits=FORGE, guard=True)
    assert row["status"] == "ok" and row["correct"] is True, row
