"""Child-side runner for the measurement harness (stdlib only).

Executed by ``training.measuring.sandbox`` as a *script* in a fresh interpreter, inside
bubblewrap (see ``training/measuring/sandbox.py``)::

    python -s -S -B -P runner.py        (env: PYTHONHASHSEED=0, PATH, LANG, LC_ALL)

It reads one JSON spec from stdin (then points stdin at /dev/null, so the
program cannot read the spec again), installs an audit hook (which Python
code cannot remove; the second layer behind the kernel sandbox), runs the
program, writes one result line (the spec's nonce + the
``repr`` of a dict of plain values) to the result pipe ``spec["result_fd"]``,
and waits on ``spec["hold_fd"]`` until the parent has read its peak RSS.

The hook refuses: sockets, subprocesses, fork/exec/spawn, kill, ctypes;
writes, removes, renames, mkdir, chmod... and ``chdir`` outside the work
folder (relative paths resolve against the real current directory); opening a
directory outside it; ``/proc/<pid>/{mem,fd,maps,environ,...}``; and the
routes to this runner's own state: ``sys._getframe`` (ValueError, which
typing, namedtuple and enum take as "no frames here"), ``tb_frame``,
``gi_frame``..., ``gc.get_objects/get_referrers/get_referents``,
``sys.settrace/setprofile``, importing ``tracemalloc``, ``_posixsubprocess``,
``_testcapi``..., and setting attributes of the runner's classes.  The
figures are computed with functions captured before any program code runs.

Both modes import the same modules before any program code, start every run
with the builtins as they were then, and mark the RSS just before the calls
(``_rss_marker``: VmHWM reset, VmRSS reported as ``rss_start_kb``) so that the
parent can check the growth against the reported peak.

Modes:
  memory  one untimed run under tracemalloc; per test the peak of traced bytes
          above the level at the start of the call; result = max over tests.
          Also returns output digests (for correctness checks).
  time    ``warmup`` + ``repeats`` runs; each run re-executes the compiled
          module in a fresh namespace, builds the arguments (untimed) and then
          times all test calls with perf_counter / process_time.
  probe   like one timed run per test, stopping once the accumulated time of a
          group passes ``stop_ms``; returns per-test time, digest and error.
"""
import sys


def _rss_marker(allow=None, get_ident=None):
    """A function ``mark()`` that resets this process's peak RSS (VmHWM, via ``/proc/self/clear_refs``) to its
    current RSS and returns ``(VmRSS in KiB or None, whether the reset worked)``.

    The parent reads VmHWM when the run is over; ``VmHWM - mark()[0]`` is then the growth since the mark,
    which the reported peak must explain (``sandbox.unexplained_rss``).  Under the audit hook only this
    closure may open ``clear_refs``: ``allow`` is a cell of the hook's, set to this thread's id while it
    does (a program that could reset VmHWM itself could hide what it allocated).  ``open`` and ``int`` are
    taken now, before any program code runs (a program may replace ``builtins.open``)."""
    _open, _int, _err = open, int, (OSError, ValueError)

    def mark():
        ok = False
        if allow is not None:
            allow[0] = get_ident()
        try:
            with _open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # 5: reset the peak RSS (Documentation/filesystems/proc.rst)
            ok = True
        except _err:
            pass
        finally:
            if allow is not None:
                allow[0] = None
        try:
            with _open("/proc/self/status") as f:
                for ln in f:
                    if ln.startswith("VmRSS:"):
                        return _int(ln.split()[1]), ok
        except _err:
            pass
        return None, ok
    return mark


def _install_guard(root, trusted=(), protected=()):
    """Install the audit hook. ``trusted``: code objects allowed to read ``tb_frame``;
    ``protected``: classes whose attributes the program may not set.  Returns the RSS marker
    (``_rss_marker``), the only code that may open ``/proc/self/clear_refs``."""
    import os
    from _thread import get_ident

    root = os.path.realpath(root)
    prefix = root + os.sep
    realpath, isdir, fsdecode, getframe = os.path.realpath, os.path.isdir, os.fsdecode, sys._getframe
    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    BLOCK_ALWAYS = {
        "socket.__new__", "socket.bind", "socket.connect", "socket.connect_ex",
        "socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyaddr",
        "socket.sendto", "socket.sendmsg", "socket.socketpair",
        "subprocess.Popen", "os.system", "os.exec", "os.posix_spawn", "os.spawn",
        "os.fork", "os.forkpty", "os.kill", "os.killpg", "pty.spawn", "signal.pthread_kill",
        "ctypes.dlopen", "ctypes.dlsym", "ctypes.cdata", "ctypes.call_function",
        "os.startfile", "webbrowser.open", "urllib.Request", "ftplib.connect",
        "http.client.connect", "smtplib.connect", "os.chroot", "sys.setprofile", "sys.settrace",
        "os.setuid", "os.setgid",
        "gc.get_objects", "gc.get_referrers", "gc.get_referents", "resource.setrlimit",
    }
    BLOCK_IMPORTS = {
        "ctypes", "_ctypes", "_posixsubprocess", "tracemalloc", "_tracemalloc", "_testcapi",
        "_testinternalcapi", "_testbuffer", "_testmultiphase", "_testimportmultiple",
        "_xxsubinterpreters", "_xxinterpchannels", "_xxtestfuzz",
    }
    FRAME_ATTRS = {"tb_frame", "gi_frame", "cr_frame", "ag_frame"}
    # /proc/<pid>/...: this process's memory, descriptors and environment
    # and the mount table (host paths: bwrap masks it for the main thread only, threads have their own)
    PROC_PRIVATE = {"mem", "fd", "fdinfo", "map_files", "maps", "smaps", "smaps_rollup", "pagemap",
                    "environ", "auxv", "cwd", "root", "exe", "syscall", "stack", "mountinfo", "mounts",
                    "mountstats"}
    PATH_EVENTS = {
        "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,), "os.rename": (0, 1),
        "os.link": (0, 1), "os.symlink": (1,), "os.chdir": (0,),
        "os.chmod": (0,), "os.chown": (0,), "os.truncate": (0,), "os.utime": (0,),
        "shutil.rmtree": (0,), "shutil.copyfile": (1,), "shutil.move": (1,),
        "os.chflags": (0,), "os.lchown": (0,), "os.setxattr": (0,), "os.removexattr": (0,),
        "os.mkfifo": (0,), "os.mknod": (0,),
    }
    busy = [False]
    allow = [None]  # the thread id of the RSS marker while it opens clear_refs

    def inside(path):
        if isinstance(path, int):
            return True  # an already open fd
        try:
            full = realpath(fsdecode(path))  # relative to the real current directory
        except Exception:
            return False
        return full == root or full.startswith(prefix)

    def caller_trusted():
        busy[0] = True  # sys._getframe raises an audit event itself
        try:
            return getframe(2).f_code in trusted  # 0: here, 1: hook, 2: the frame that raised the event
        except ValueError:
            return False
        finally:
            busy[0] = False

    def hook(event, args):
        if busy[0]:
            return
        if event in BLOCK_ALWAYS:
            raise PermissionError("sandbox: %s is blocked" % event)
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            if path is None or isinstance(path, int):
                return
            if path == "/proc/self/clear_refs" and allow[0] is not None and allow[0] == get_ident():
                return
            try:
                full = realpath(fsdecode(path))
            except Exception:
                raise PermissionError("sandbox: unreadable path %r" % (path,))
            if full.startswith("/proc/") and PROC_PRIVATE.intersection(full.split("/")[3:]):
                raise PermissionError("sandbox: %r is blocked" % (path,))
            if full == root or full.startswith(prefix):
                return
            # a directory fd from outside could serve as dir_fd= for a relative write
            try:
                is_dir = isdir(path)
            except (OSError, ValueError):
                is_dir = False
            if is_dir:
                raise PermissionError("sandbox: opening a directory outside the work folder: %r" % (path,))
            writing = False
            if isinstance(mode, str) and any(c in mode for c in "wax+"):
                writing = True
            if isinstance(flags, int) and flags & WRITE_FLAGS:
                writing = True
            if writing:
                raise PermissionError("sandbox: write outside the work folder: %r" % (path,))
            return
        if event == "import":
            name = str(args[0])
            if name in BLOCK_IMPORTS or name.split(".")[0] in BLOCK_IMPORTS:
                raise PermissionError("sandbox: import of %s is blocked" % name)
            return
        if event in ("sys._getframe", "sys._getframemodulename", "sys._current_frames"):
            # ValueError: what the stdlib expects where frames are unavailable (typing, namedtuple, enum)
            raise ValueError("sandbox: frame access is blocked (%s)" % event)
        if event == "object.__getattr__" and len(args) > 1 and args[1] in FRAME_ATTRS:
            if not caller_trusted():
                raise AttributeError("sandbox: frame access is blocked (%s)" % args[1])
            return
        if event in ("object.__setattr__", "object.__delattr__") and args and any(args[0] is c for c in protected):
            raise PermissionError("sandbox: the runner's classes are read-only")
        idx = PATH_EVENTS.get(event)
        if idx is not None:
            for i in idx:
                if i < len(args) and args[i] is not None and not inside(args[i]):
                    raise PermissionError("sandbox: %s outside the work folder" % event)

    sys.addaudithook(hook)
    return _rss_marker(allow, get_ident)


LIST_HELPERS = '''
class ListNode:
    def __init__(self, val=0, next=None):
        self.val = val
        self.next = next

class TreeNode:
    def __init__(self, val=0, left=None, right=None):
        self.val = val
        self.left = left
        self.right = right

# the helpers keep the judge's own node classes even if the program redefines
# ListNode/TreeNode (kamyu files define placeholder classes whose __init__ is "pass")
def list_node(values, ListNode=ListNode):
    if not values:
        return None
    head = ListNode(values[0])
    p = head
    for val in values[1:]:
        p.next = ListNode(val)
        p = p.next
    return head

def tree_node(values, TreeNode=TreeNode):
    if not values:
        return None
    root = TreeNode(values[0])
    i = 1
    queue = deque([root])
    while queue:
        node = queue.popleft()
        if i < len(values) and values[i] is not None:
            node.left = TreeNode(values[i])
            queue.append(node.left)
        i += 1
        if i < len(values) and values[i] is not None:
            node.right = TreeNode(values[i])
            queue.append(node.right)
        i += 1
    return root
'''

# LeetCode's implicit imports (the LeetCodeDataset ``prompt`` block) + helpers.
# Module imports come after the star imports (``from bisect import *`` would
# otherwise shadow the ``bisect`` module) and builtin pow/abs are restored
# (``from math import *`` / ``from operator import *`` shadow them).
PRELUDE = '''from typing import *
from functools import *
from collections import *
from itertools import *
from heapq import *
from bisect import *
from string import *
from operator import *
from math import *
import collections
import string
import math
import datetime
import heapq
import bisect
import functools
import itertools
import operator
import random
import re
import sys
from builtins import pow, abs
inf = float('inf')
try:
    from sortedcontainers import SortedList, SortedDict, SortedSet
except ImportError:
    pass
''' + LIST_HELPERS


# ----------------------------------------------------------------- outputs

def _norm(x, depth=0):
    if depth > 60:
        return "<deep>"
    if x is None and depth == 0:
        return []  # an empty list / tree serialises as [] on LeetCode
    if x is None or isinstance(x, (bool, int, str)):
        return x
    if isinstance(x, float):
        if x != x or x in (float("inf"), float("-inf")):
            return repr(x)
        r = round(x, 5)
        if r == int(r) and abs(r) < 2**53:
            return int(r)  # 2.0 == 2: LeetCode accepts an int for a float answer
        return r
    if isinstance(x, (list, tuple)):
        return [_norm(v, depth + 1) for v in x]
    if isinstance(x, (set, frozenset)):
        return sorted((_norm(v, depth + 1) for v in x), key=repr)
    if isinstance(x, dict):
        return sorted(([_norm(k, depth + 1), _norm(v, depth + 1)] for k, v in x.items()), key=repr)
    if isinstance(x, (bytes, bytearray)):
        return x.decode("latin-1")
    if hasattr(x, "val") and hasattr(x, "left") and hasattr(x, "right"):
        out, q, i, n = [], [x], 0, 0
        while i < len(q) and n < 2_000_000:
            node = q[i]
            i += 1
            n += 1
            if node is None:
                out.append(None)
                continue
            out.append(_norm(node.val, depth + 1))
            q.append(node.left)
            q.append(node.right)
        while out and out[-1] is None:
            out.pop()
        return out
    if hasattr(x, "val") and hasattr(x, "next"):
        out, n = [], 0
        while x is not None and n < 2_000_000:
            out.append(_norm(x.val, depth + 1))
            x = x.next
            n += 1
        return out
    if hasattr(x, "__iter__") and not isinstance(x, type):
        try:
            return [_norm(v, depth + 1) for v in list(x)[:2_000_000]]
        except Exception:
            pass
    return "<%s>" % type(x).__name__


def _deep_sort(x):
    if isinstance(x, list):
        items = [_deep_sort(v) for v in x]
        return sorted(items, key=lambda v: _dumps(v))
    return x


def _dumps(v):
    import json
    return json.dumps(v, sort_keys=True, separators=(",", ":"), default=str)


def _digests(value):
    import hashlib
    n = _norm(value)
    a = hashlib.sha1(_dumps(n).encode()).hexdigest()[:16]
    b = hashlib.sha1(_dumps(_deep_sort(n)).encode()).hexdigest()[:16]
    return [a, b]


# ----------------------------------------------------------------- program

def _build_arg(spec, ns):
    if "expr" in spec:
        return eval(spec["expr"], ns)
    v = spec.get("json")
    w = spec.get("wrap")
    if w:
        return ns[w](v)
    return v


def _call_output(result, args, expected_is_none):
    if result is None and args and not expected_is_none:
        return args[0]  # in-place problems: the mutated first argument
    return result


class _Program:
    def __init__(self, spec):
        self.spec = spec
        self.shape = spec.get("shape", "leetcode")
        code = spec["code"]
        self.prelude = compile(PRELUDE, "<prelude>", "exec") if spec.get("prelude", True) else None
        self.code = compile(code, "<program>", "exec")

    def namespace(self):
        ns = {"__name__": "__main__" if self.shape == "stdin" else "__program__",
              "__builtins__": __builtins__}
        if self.prelude is not None:
            exec(self.prelude, ns)
        if self.shape != "stdin":
            exec(self.code, ns)
        return ns

    def method(self, ns):
        entry = self.spec.get("entry")
        cls = ns.get("Solution")
        if cls is None:
            raise LookupError("no class Solution")
        inst = cls()
        if entry and hasattr(inst, entry):
            return getattr(inst, entry)
        names = [k for k, v in vars(cls).items() if callable(v) and not k.startswith("_")]
        if len(names) == 1:
            return getattr(inst, names[0])
        raise LookupError("entry point %r not found" % entry)

    def build(self, ns):
        """Per test, the call's arguments, made before the traced / timed region: for stdin programs the
        ``io.StringIO`` of the input (its buffer is about 4 bytes per character, the runner's, not the
        program's: made here, it is neither in the tracemalloc peak nor in the time)."""
        out = []
        for t in self.spec["tests"]:
            if self.shape == "stdin":
                out.append(_stdin_buffer(t.get("stdin", "")))
            else:
                out.append([_build_arg(a, ns) for a in t["args"]])
        return out

    def call(self, ns, args):
        """Run one test; returns the output value.  For stdin programs ``args`` is the input's buffer."""
        if self.shape == "stdin":
            import io
            sys.stdin = args
            buf = io.StringIO()
            sys.stdout = buf
            g = dict(ns)
            try:
                exec(self.code, g)
            except SystemExit:
                pass
            finally:
                sys.stdout = _quiet
                sys.stdin = _empty_in
            return buf.getvalue()
        fn = self.method(ns)
        return fn(*args)


def _stdin_buffer(text):
    import io
    buf = io.StringIO(text)  # CPython copies the text into its UCS-4 buffer here, not at the first read
    buf.buffer = io.BytesIO(text.encode("utf-8"))  # sys.stdin.buffer, as a real stdin has (fast-IO code)
    return buf


class _Sink:
    def write(self, s):
        return len(s)

    def flush(self):
        pass


_quiet = _Sink()
_empty_in = None


def _expected_digest(t, ns, shape):
    e = t.get("expected")
    if e is None:
        return None, False
    if shape == "stdin":
        return _digests(str(e).split()), False
    v = _build_arg(e, ns)
    return _digests(v), v is None


def _out_digest(out, shape):
    if shape == "stdin":
        return _digests(str(out).split())
    return _digests(out)


def run(spec, tm=None, mark=None):
    """``tm``: tracemalloc's (get_traced_memory, reset_peak, start, stop), taken before the hook;
    ``mark``: the RSS marker (``_rss_marker``).  The result carries ``rss_start_kb``, the RSS at the
    last mark (just before the calls of the last run), and ``rss_reset`` (every mark reset VmHWM)."""
    import builtins
    import gc
    import time
    # the figures below use only these locals, taken before any program code runs
    mx, perf, _ptime, _ttime = max, time.perf_counter, time.process_time, time.thread_time

    def ptime():
        # process CPU time, read after the thread's clock: with RLIMIT_CPU set (the sandbox sets it) the
        # kernel's process clock advances only at scheduler ticks (0.0 ms for a 0.1 ms call); reading the
        # thread clock first brings it up to date (task_sched_runtime -> update_curr)
        _ttime()
        return _ptime()
    mark = mark or _rss_marker()
    marks = []

    def start_calls():
        marks.append(mark())

    # builtins as they are before any program code: put back before every run, so that nothing a run
    # leaves there (a result cached in builtins during the warm-up) reaches the next one
    bdict = builtins.__dict__
    bsnap, bclear, bupdate = dict(bdict), bdict.clear, bdict.update

    def fresh_builtins():
        bclear()
        bupdate(bsnap)
    prog = _Program(spec)
    mode = spec["mode"]
    shape = prog.shape
    res = {"status": "ok"}
    if mode == "memory":
        tm_get, tm_reset, tm_start, tm_stop = tm
        fresh_builtins()
        ns = prog.namespace()
        tests = prog.build(ns)
        exp = [_expected_digest(t, ns, shape) for t in spec["tests"]]
        peaks, digests, match = [], [], []
        start_calls()
        gc.collect()  # after the mark: what the mark leaves is collected, memory figures as before
        tm_start()
        for args, (ed, enone) in zip(tests, exp):
            cur0 = tm_get()[0]
            tm_reset()
            out = prog.call(ns, args)
            peak = tm_get()[1]
            peaks.append(mx(0, peak - cur0))
            out = _call_output(out, args, enone) if shape != "stdin" else out
            d = _out_digest(out, shape)
            digests.append(d)
            match.append(None if ed is None else (d[0] == ed[0] or d[1] == ed[1]))
            del out
        tm_stop()
        res.update(memory_bytes=mx(peaks) if peaks else 0, peaks=peaks,
                   digests=digests, match=match)
    elif mode == "time":
        wall, cpu, run_digests = [], [], []
        n = int(spec.get("warmup", 1)) + int(spec.get("repeats", 5))
        nones = None
        for _ in range(n):
            fresh_builtins()
            ns = prog.namespace()
            tests = prog.build(ns)
            if nones is None:  # which tests check their (mutated) arguments, as the memory run reads them
                nones = [_expected_digest(t, ns, shape)[1] for t in spec["tests"]]
            start_calls()
            gc.collect()  # last: the collector's state at the calls as before the mark existed
            w = c = 0.0
            ds = []
            for args, enone in zip(tests, nones):
                c0 = ptime()
                t0 = perf()
                out = prog.call(ns, args)
                t1 = perf()
                c1 = ptime()
                w += t1 - t0
                c += c1 - c0
                # each timed call's output, digested off the clock: the parent checks it equals the
                # memory run's, so a program cannot do its work only where it is not timed (issue 61.2)
                ds.append(_out_digest(_call_output(out, args, enone) if shape != "stdin" else out, shape))
                del out
            wall.append(w * 1000.0)
            cpu.append(c * 1000.0)
            run_digests.append(ds)
            del ns, tests
        res.update(times_ms=wall, cpu_ms=cpu, warmup=int(spec.get("warmup", 1)), run_digests=run_digests)
    elif mode == "probe":
        # tests carry "group"; groups are run in order; stop after the first
        # group that errors or whose time exceeds stop_ms.
        stop_ms = float(spec.get("stop_ms", 200.0))
        ns = prog.namespace()
        out_tests = []
        groups = {}
        for i, t in enumerate(spec["tests"]):
            groups.setdefault(t.get("group", 0), []).append(i)
        for g in sorted(groups):
            total = 0.0
            bad = False
            for i in groups[g]:
                t = spec["tests"][i]
                r = {"i": i, "group": g}
                try:
                    args = [_build_arg(a, ns) for a in t["args"]] if shape != "stdin" else _stdin_buffer(t.get("stdin", ""))
                    gc.collect()
                    t0 = perf()
                    out = prog.call(ns, args)
                    r["ms"] = (perf() - t0) * 1000.0
                    out = _call_output(out, args, False) if shape != "stdin" else out
                    r["digest"] = _out_digest(out, shape)
                    total += r["ms"]
                    del out, args
                except MemoryError:
                    r["error"] = "MemoryError"
                    bad = True
                except BaseException as e:  # noqa: BLE001 - record everything
                    r["error"] = "%s: %s" % (type(e).__name__, str(e)[:200])
                    bad = True
                out_tests.append(r)
                if bad:
                    break
            if bad or total > stop_ms:
                break
        res.update(probe=out_tests)
    else:
        raise ValueError("unknown mode %r" % mode)
    if marks:
        res.update(rss_start_kb=marks[-1][0], rss_reset=all(ok for _, ok in marks))
    return res


def _where(tb):
    """`` (line N)`` of the innermost program frame of a traceback (the hook lets only this read tb_frame)."""
    where = ""
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<program>":
            where = " (line %d)" % tb.tb_lineno
        tb = tb.tb_next
    return where


def main():
    global _empty_in
    import io
    import json
    import os
    # taken before any program code runs: what writes the result line
    write, read, exit_, rep, tp = os.write, os.read, os._exit, repr, type
    PLAIN, SEQ = (type(None), bool, int, float, str), (list, tuple)
    data = sys.stdin.buffer.read()
    spec = json.loads(data)
    del data
    nonce = spec.pop("nonce", "")
    rfd = spec.pop("result_fd", 1)
    hfd = spec.pop("hold_fd", None)
    guard = spec.pop("guard", True)
    os.environ.pop("PWD", None)  # bwrap sets it; the program sees only what sandbox.child_env() gives
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)  # the spec cannot be read again
    os.close(devnull)
    if spec.get("autogroup_nice"):
        # bwrap's --new-session makes a new scheduler autogroup, at nice 0 whatever the measuring
        # process's nice: give it that nice, so a background run at nice 19 yields to other work.
        # Without CAP_SYS_ADMIN the kernel takes one such write per 100 ms, machine-wide, and
        # answers EAGAIN to the rest: two streams measuring side by side collide, so try again.
        import errno
        import time
        for _ in range(25):
            try:
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(int(spec["autogroup_nice"])))
                break
            except OSError as exc:
                if exc.errno != errno.EAGAIN:
                    break
                time.sleep(0.02)
            except ValueError:
                break
    if spec.get("nproc"):  # where prlimit is missing (costs ~250 KB of RSS)
        import resource
        resource.setrlimit(resource.RLIMIT_NPROC, (int(spec["nproc"]), int(spec["nproc"])))
    _empty_in = io.StringIO("")
    sys.stdin = _empty_in
    sys.stdout = _quiet
    sys.setrecursionlimit(int(spec.get("recursion_limit", 100000)))
    for p in spec.get("sys_path") or []:
        sys.path.append(p)
    # the same modules in every mode (a program that can tell the memory run from the timing run could
    # allocate only in the one that does not count): tracemalloc (imported before the hook, which blocks
    # importing it; it brings pickle, tokenize...) and what the output digests use
    import hashlib  # noqa: F401
    import tracemalloc
    tm = (tracemalloc.get_traced_memory, tracemalloc.reset_peak, tracemalloc.start, tracemalloc.stop)
    sys.modules.pop("tracemalloc", None)  # the program cannot import it again (audit hook)
    sys.modules.pop("_tracemalloc", None)
    del tracemalloc
    mark = None
    if guard:
        mark = _install_guard(os.getcwd(), trusted=(_where.__code__,), protected=(_Program, _Sink))
    try:
        res = run(spec, tm, mark)
    except MemoryError:
        res = {"status": "memout", "error": "MemoryError"}
    except RecursionError as e:
        res = {"status": "error", "error": "RecursionError: %s" % str(e)[:200]}
    except BaseException as e:  # noqa: BLE001 - a failing program is data
        res = {"status": "error", "error": "%s: %s%s" % (tp(e).__name__, str(e)[:300], _where(e.__traceback__))}

    def clean(x, depth=0):
        # plain values only: repr() of anything else could run program code
        t = tp(x)
        if t in PLAIN:
            return x
        if depth < 6 and t in SEQ:
            return [clean(v, depth + 1) for v in x]
        if depth < 6 and t is dict:
            return {clean(k, 9): clean(v, depth + 1) for k, v in x.items()}
        return "<%s>" % t.__name__

    line = (nonce + rep(clean(res)) + "\n").encode()
    while line:
        n = write(rfd, line)
        line = line[n:]
    if hfd is not None:
        try:
            read(hfd, 1)  # the parent reads this process's peak RSS, then closes the pipe
        except OSError:
            pass
    exit_(0)


if __name__ == "__main__":
    main()
