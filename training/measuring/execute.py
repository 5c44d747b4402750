"""Measure one task: a whole program run as ``__main__`` on one stdin text (``stdin``) or on none (``script``).

A task is a plain dict made by ``training.measuring.sources`` (``code``, ``stdin``, ``expected``, ``check``,
``files``, ``aux``, ``depth``, ``name``, ``skip`` and the row fields in ``row``).  ``measure(task, opts)``
returns the finished row; it never raises for a program's failure.

Per task, in fresh sandboxed processes (``training.measuring.sandbox.run_child``, the same runner protocol as
``training.measuring.harness.measure``, shape ``stdin`` and no LeetCode prelude); T = ``time_limit``:

1. **one timed execution**: ``latency_ms`` = the wall time of that whole process (sandbox and
   interpreter start, compile, one run); ``rss_kb`` its peak RSS.  Over T it is ``timeout`` (cost:
   at most T + 2 s), before the slower traced run.
2. **memory run** (untimed; limit min(25 x step 1's wall time, 6T) + 5 s, as tracemalloc slows
   allocation-heavy programs down 5-20x; 6T + 5 s with ``--memory-only``): ``memory_bytes`` = the
   runner's tracemalloc peak of the program's execution (compile excluded).  Its stdout is digested
   and compared host-side, token by token and in order, with the expected output.
3. (no baseline: the runner makes the input's ``io.StringIO`` before tracing starts, so the
   peak is the program's own; rows of the harness ``measure-v2`` before this subtracted a run of
   ``pass`` and are not mixed in, see ``training.measuring.workfiles.HARNESS``)
4. **check run**, only where the exact token comparison failed and the source has a laxer rule (Kattis'
   default validator: case-insensitive, float tolerance from ``validator_flags``; Project Euler: the
   answer appears in stdout): the program runs inside a small wrapper that captures its stdout and
   prints OK / WA / EMPTY (the runner's untraced ``probe`` mode).  Not measured.  A Kattis problem
   with a custom validator (not in the corpus; check kind ``exact_only``) accepts the package's own
   answer token for token; any other output is ``unverified`` (neither ok nor wrong) and stops there.
5. **warm repeats**, when 1 + ``repeats`` runs of step 1's length fit in T: one process, 1 warm-up +
   ``repeats`` timed runs; ``exec_ms`` / ``cpu_ms`` = their median in-process wall / CPU time.
   Otherwise ``exec_ms`` is step 1's in-process time (``exec_runs`` 1).

What ``python prog.py`` gives a script and the runner does not is added by one prologue line,
inserted after a docstring / ``__future__`` imports and listed in the row's ``patches``: ``exit``
(``from sys import exit, exit as quit``: ``-S`` drops them), ``__file__`` and ``chdir`` (data files
next to the program: the work folder cannot receive files, so the program changes into the read-only
folder that holds them).  Helper modules and data files are written to a temporary folder that goes
on the program's ``sys.path``.
"""
from __future__ import annotations

import ast
import inspect
import math
import os
import shutil
import statistics
import tempfile
import time
from datetime import datetime, timezone

from training.measuring.runner import _digests
from training.measuring.sandbox import Limits, run_child

MARKER = ".rlm_v2_base"
STATUS = {"ok": "ok", "error": "error", "timeout": "timeout", "memout": "memory_limit"}


# ----------------------------------------------------------------- output checks
# Both run host-side (tests) and inside the check run (their source is embedded in the wrapper).

def kattis_equal(out, ans, abs_tol=None, rel_tol=None, case_sensitive=False):
    """Kattis' default output validator: tokens, case-insensitive unless told, floats within a tolerance."""
    a, b = out.split(), ans.split()
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y or (not case_sensitive and x.lower() == y.lower()):
            continue
        if abs_tol is None and rel_tol is None:
            return False
        try:
            fx, fy = float(x), float(y)
        except ValueError:
            return False
        d = abs(fx - fy)
        if not (d <= (abs_tol or 0.0) or d <= (rel_tol or 0.0) * abs(fy)):
            return False
    return True


def answer_in_output(out, ans):
    """Project Euler: the answer is a token of stdout (punctuation stripped), or a decimal answer rounds from one."""
    import re
    ans = ans.strip()
    if not ans:
        return False
    toks = [t.strip(".,;:!?()[]{}'\"=") for t in out.split()]
    if ans in toks or re.search(r"(?<![\w.])" + re.escape(ans) + r"(?!\w|\.\d)", out):
        return True
    if "." in ans:
        try:
            want, nd = float(ans), len(ans.split(".")[1])
        except ValueError:
            return False
        for t in toks:
            try:
                if round(float(t), nd) == want:
                    return True
            except (ValueError, OverflowError):
                pass
    return False


CHECKERS = {"kattis": kattis_equal, "answer_in_output": answer_in_output}

WRAPPER = '''import io as _io, sys as _sys
{checker}
def _rlm_check(src, expected):
    buf = _io.StringIO()
    old = _sys.stdout
    _sys.stdout = buf
    try:
        exec(compile(src, "<program>", "exec"), {{"__name__": "__main__", "__builtins__": __builtins__}})
    except SystemExit:
        pass
    finally:
        _sys.stdout = old
    out = buf.getvalue()
    print("EMPTY" if not out.strip() else "OK" if {name}(out, expected, *{args!r}) else "WA")
_rlm_check({src!r}, {expected!r})
'''
VERDICTS = {_digests([v])[0]: v for v in ("OK", "WA", "EMPTY")}


def check_wrapper(code: str, expected: str, check: dict) -> str:
    fn = CHECKERS[check["kind"]]
    return WRAPPER.format(checker=inspect.getsource(fn), name=fn.__name__, args=tuple(check.get("args", ())),
                          src=code, expected=expected)


# ----------------------------------------------------------------- program preparation

def prepare(code: str, *, aux: bool = False, depth: int = 0, name: str = "prog.py") -> tuple[str, list]:
    """(code to run, patches): ``code`` with the prologue line it needs, if any."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} if tree else set()
    parts, patches = [], []
    if aux or "__file__" in names:
        rel = "".join("/a%d" % i for i in range(depth))
        parts += ["import os as _rlm_os, sys as _rlm_sys",
                  "_rlm_d = next(p for p in _rlm_sys.path if _rlm_os.path.exists(p + %r)) + %r" % ("/" + MARKER, rel)]
        if aux:
            parts.append("_rlm_os.chdir(_rlm_d)")
            patches.append("chdir")
        if "__file__" in names:
            parts.append("__file__ = _rlm_d + %r" % ("/" + name))
            patches.append("__file__")
        parts.append("del _rlm_os, _rlm_sys, _rlm_d")
    if names & {"exit", "quit"}:
        parts.append("from sys import exit, exit as quit")
        patches.append("exit")
    if not parts:
        return code, []
    at = 0
    for i, st in enumerate(tree.body if tree else []):
        doc = i == 0 and isinstance(st, ast.Expr) and isinstance(getattr(st.value, "value", None), str)
        if doc or (isinstance(st, ast.ImportFrom) and st.module == "__future__"):
            at = st.end_lineno
        else:
            break
    lines = code.splitlines(keepends=True)
    head = "".join(lines[:at])
    if head and not head.endswith("\n"):
        head += "\n"
    return head + "; ".join(parts) + "\n" + "".join(lines[at:]), patches


def layout(root: str, files: list, aux: list, depth: int) -> list:
    """Write helper modules (``files``) and data files (``aux``), (relative path, text) pairs, under ``root``.

    The program's folder is ``root/a0/.../a<depth-1>`` so that ``../`` data paths stay inside ``root``.
    Returns the folders to put on ``sys.path``."""
    prog = os.path.join(root, *["a%d" % i for i in range(depth)])
    os.makedirs(prog, exist_ok=True)
    os.chmod(root, 0o755)  # mkdtemp's 0700 would shut out the sandbox's uid 65534 (harness run as root)
    open(os.path.join(root, MARKER), "w").close()
    for rel, text in list(files) + list(aux):
        path = os.path.normpath(os.path.join(prog, rel))
        if not path.startswith(root + os.sep):
            raise ValueError("path outside the program's folder: %r" % rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    return [prog] if depth == 0 else [prog, root]


# ----------------------------------------------------------------- measuring

def _spec(mode, code, stdin, sys_path, **kw):
    return dict({"mode": mode, "shape": "stdin", "code": code, "prelude": False, "tests": [{"stdin": stdin}],
                 "sys_path": sys_path}, **kw)


def _err(r) -> str:
    return str(r.result.get("error") or r.stderr_tail[-300:] or "")[:200]


def measure(task: dict, opts: dict) -> dict:
    """The row of one task.  ``opts``: time_limit (s per execution), memory_mb, repeats, memory_only, machine."""
    t0 = time.perf_counter()
    row = dict(task["row"])
    row.update(status="skipped", reason=task.get("skip"), error=None, memory_bytes=None,
               latency_ms=None, exec_ms=None, exec_runs=0, cpu_ms=None,
               rss_kb=None, memory_run_ms=None, output_digest=None, checked=False, check=None, patches=[], sandbox=None,
               time_limit_s=opts["time_limit"], memory_limit_mb=opts["memory_mb"],
               memory_only=False, machine=opts.get("machine"), python=opts.get("python"),
               measured_at=datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
    if task.get("skip"):
        return row
    row.update(reason=None, memory_only=bool(opts.get("memory_only")))
    T = float(opts["time_limit"])
    limits = Limits(address_space=int(opts["memory_mb"]) << 20, cpu_s=int(math.ceil(6 * T + 5)), wall_s=6 * T + 5)
    root = tempfile.mkdtemp(prefix="rlm-v2-")
    try:
        code, patches = prepare(task["code"], aux=bool(task.get("aux")), depth=task.get("depth", 0),
                                name=task.get("name", "prog.py"))
        row["patches"] = patches
        needs_dir = bool(task.get("files") or task.get("aux")) or "__file__" in patches
        sys_path = layout(root, task.get("files", []), task.get("aux", []), task.get("depth", 0)) if needs_dir else []
        stdin = task.get("stdin", "")
        memory_only = bool(opts.get("memory_only"))
        cap = limits.address_space
        if not memory_only:  # 1. one execution in a fresh process: the process wall time
            a = run_child(_spec("time", code, stdin, sys_path, warmup=0, repeats=1),
                          Limits(address_space=cap, cpu_s=int(math.ceil(T + 2)), wall_s=T + 2))
            row.update(sandbox=a.sandbox, rss_kb=a.maxrss_kb)
            if a.status == "ok" and a.wall_s > T:
                row.update(status="timeout", error="one execution took %.1f s (limit %g s)" % (a.wall_s, T))
                return row
            if a.status != "ok":
                row.update(status=STATUS.get(a.status, "error"), error=_err(a))
                return row
            first_ms, first_cpu = a.result["times_ms"][0], a.result["cpu_ms"][0]
            row["latency_ms"] = round(a.wall_s * 1000.0, 3)
            wall = min(6 * T, 25 * a.wall_s) + 5  # tracemalloc slows allocation-heavy programs down 5-20x
            limits = Limits(address_space=cap, cpu_s=int(math.ceil(wall)), wall_s=wall)
        m = run_child(_spec("memory", code, stdin, sys_path), limits)  # 2. memory
        row.update(sandbox=m.sandbox, memory_run_ms=round(m.wall_s * 1000.0, 1))
        if m.status != "ok":
            where = "" if memory_only else "memory run: "
            row.update(status=STATUS.get(m.status, "error"), error=where + _err(m))
            return row
        row["memory_bytes"] = int(m.result["memory_bytes"])
        row["output_digest"] = (m.result.get("digests") or [[None]])[0][0]  # stdout tokens, in order
        verdict = None
        if task.get("expected") is not None:  # 4. output check
            got = (m.result.get("digests") or [[None]])[0][0]
            verdict = got == _digests(task["expected"].split())[0]
            row["check"] = "tokens"
            if not verdict and (task.get("check") or {}).get("kind") == "exact_only":
                row.update(checked=False, status="unverified",
                           error="output differs from the package's answer; its custom validator is not in the corpus")
                return row
            if not verdict and task.get("check"):
                row["check"] = task["check"]["kind"]
                spec = dict(_spec("probe", check_wrapper(code, task["expected"], task["check"]), stdin, sys_path),
                            stop_ms=1e12)
                c = run_child(spec, Limits(address_space=cap, cpu_s=int(math.ceil(3 * T + 2)), wall_s=3 * T + 2))
                probe = (c.result.get("probe") or [{}])[0] if c.status == "ok" else {}
                if "digest" in probe:
                    v = VERDICTS.get(probe["digest"][0], "?")
                    verdict = v == "OK"
                    if v == "EMPTY":
                        row["error"] = "no output"
                else:
                    row["error"] = "check run: %s %s" % (c.status, probe.get("error") or _err(c))
        row.update(checked=verdict is not None, status="wrong_answer" if verdict is False else "ok")
        if memory_only:
            return row
        row.update(exec_ms=round(first_ms, 4), exec_runs=1, cpu_ms=round(first_cpu, 4))
        R = int(opts.get("repeats", 3))
        if R > 0 and first_ms * (1 + R) <= T * 1000.0:  # 5. warm repeats, when they fit the limit
            wall = (1 + R) * T + 2
            t = run_child(_spec("time", code, stdin, sys_path, warmup=1, repeats=R),
                          Limits(address_space=cap, cpu_s=int(math.ceil(wall)), wall_s=wall))
            if t.status == "ok":
                times, cpus = t.result["times_ms"][1:], t.result["cpu_ms"][1:]
                row.update(exec_ms=round(statistics.median(times), 4), exec_runs=len(times),
                           cpu_ms=round(statistics.median(cpus), 4))
            else:
                row["error"] = "repeats: %s %s" % (t.status, _err(t))
        return row
    except Exception as e:  # noqa: BLE001 - a row, not a crash of the whole run (SandboxUnavailable aside)
        from training.measuring.sandbox import SandboxUnavailable
        if isinstance(e, SandboxUnavailable):
            raise
        row.update(status="error", error="driver: %s: %s" % (type(e).__name__, str(e)[:150]))
        return row
    finally:
        shutil.rmtree(root, ignore_errors=True)
        row["measure_s"] = round(time.perf_counter() - t0, 2)
