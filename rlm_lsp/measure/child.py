"""One measurement inside the sandbox: one function at one size n, in a fresh interpreter.

Run by ``rlm_lsp.measure.sandbox`` as ``python -s -S -B -P child.py`` inside bubblewrap, with
the environment cleared but for ``PYTHONHASHSEED=0``; standard library only (nothing of rlm_lsp
is importable here).  It reads one JSON spec from stdin, then:

1. installs an audit hook that refuses new processes, sockets and ctypes (the kernel sandbox
   stops them too; the hook says why in words);
2. runs the file's text as a module (given LeetCode's ``ListNode``/``TreeNode`` first where the
   file uses them without defining them), finds the function, builds its input of size n (the
   recipe's kinds, ``makers.py``, or the user's ``make(n)``) before any measuring starts; an int
   converts to a string at any size (CPython's 4300-digit guard off: n bits pass it at n ≈ 14300);
3. memory: the tracemalloc peak of the first call in the process;
4. time: the CPU time (``time.process_time``) of one call, the minimum over 5 samples after one
   warm-up; a sample repeats the call r times when one call takes under 5 ms, with the garbage
   collector off; a function that changes its input gets a fresh copy per call, made outside
   the timed region (the protocol of ``../shared/growth-dev/tools/measure_one.py``);
5. writes one line, the spec's nonce and a JSON object, to the result descriptor.

What the function prints goes to a sink that discards it and ends the run past
``spec["output_bytes"]`` characters a call; the sandbox caps what reaches the real stdout and stderr.
"""

import sys

SAMPLES = 5
MIN_SAMPLE_S = 0.005
MAX_REPS = 200_000
BLOCKED = ("os.fork", "os.forkpty", "os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen",
           "pty.spawn", "socket.__new__", "socket.connect", "socket.bind", "socket.getaddrinfo", "ctypes.dlopen",
           "os.kill", "os.killpg", "resource.setrlimit")


class Flood(Exception):
    pass


def main() -> None:
    import json
    import os

    spec = json.loads(sys.stdin.read())
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    fd, nonce = spec.pop("result_fd"), spec.pop("nonce")
    try:
        out = measure(spec)
    except MemoryError:
        out = {"status": "memout", "error": "MemoryError: over the memory limit"}
    except Flood as exc:
        out = {"status": "output", "error": str(exc)}
    except RecursionError:
        out = {"status": "error", "error": "RecursionError: maximum recursion depth exceeded"}
    except BaseException as exc:  # noqa: BLE001 - anything the function raises is a reason, not a crash
        text = str(exc).splitlines()[0][:200] if str(exc) else ""
        out = {"status": "error", "error": f"{type(exc).__name__}: {text}".rstrip(": ")}
    os.write(fd, (nonce + json.dumps(out) + "\n").encode())
    os._exit(0)  # no atexit handler or finaliser of the function's runs after the result


def measure(spec: dict) -> dict:
    import contextlib
    import copy
    import gc
    import importlib
    import importlib.util
    import io
    import math
    import os
    import time
    import tracemalloc
    import types

    cap = int(spec["output_bytes"])

    class Sink(io.TextIOBase):  # discards; past the cap (per call) it ends the run
        written = printed = 0
        limit = cap

        def write(self, text):
            Sink.written += len(text)
            Sink.printed += len(text)
            if Sink.written > Sink.limit:
                raise Flood(f"printed more than {cap} characters in one call")
            return len(text)

    where = spec["makers"]
    found = importlib.util.spec_from_file_location("_rlm_makers", where)
    if found is None or found.loader is None:
        raise ImportError(f"cannot load {where}")
    makers = importlib.util.module_from_spec(found)
    found.loader.exec_module(makers)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), spec.get("recursion", 10_000)))
    if hasattr(sys, "set_int_max_str_digits"):  # an int of n bits prints past 4300 digits: the ladder's, not the code's, limit
        sys.set_int_max_str_digits(0)
    sys.path[:0] = spec["paths"]
    sys.addaudithook(_hook)
    sink = Sink()

    @contextlib.contextmanager
    def quiet(calls=1):  # what the function prints goes to the sink, each time anew
        Sink.written, Sink.limit = 0, cap * calls
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield

    n = int(spec["n"])
    with quiet():
        module = types.ModuleType(spec["module"])
        module.__file__ = spec["file"]
        sys.modules[spec["module"]] = module
        for supplied in spec.get("supply") or ():  # LeetCode's ListNode/TreeNode, used but not defined by the file
            module.__dict__[supplied] = makers.STANDARD[supplied]
        exec(compile(spec["code"], spec["file"], "exec"), module.__dict__)
        owner, _, name = spec["function"].rpartition(".")
        f = getattr(module.__dict__[owner](), name) if owner else module.__dict__[name]
        if spec.get("generator"):
            mod, _, attr = spec["generator"].partition(":")
            make = getattr(importlib.import_module(mod), attr)
        else:
            def make(k):
                return makers.build(spec["recipe"], k, module.__dict__)
        pristine = make(n)
    if not isinstance(pristine, tuple):
        raise TypeError(f"the generator returned {type(pristine).__name__}, not a tuple of arguments")
    if not spec["mutates"]:
        def fresh():
            return pristine
    elif spec.get("remake"):
        def fresh():
            return make(n)
    elif not spec.get("generator") and (shallow := makers.copies(spec["recipe"])):
        def fresh():
            return shallow(pristine)
    else:
        def fresh():
            return copy.deepcopy(pristine)

    args = fresh()
    gc.collect()
    with quiet():
        tracemalloc.start()
        tracemalloc.reset_peak()
        result = f(*args)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    del result, args
    gc.collect()

    args = fresh()
    with quiet():
        t0 = time.process_time()
        f(*args)
        warm = time.process_time() - t0
    del args
    reps = 1 if warm >= MIN_SAMPLE_S else min(MAX_REPS, math.ceil(MIN_SAMPLE_S / max(warm, 1e-7)))
    times = []
    for _ in range(SAMPLES):
        batch = [fresh() for _ in range(reps)]
        gc.collect()
        gc.disable()
        with quiet(reps):
            t0 = time.process_time()
            for a in batch:
                f(*a)
            dt = time.process_time() - t0
        gc.enable()
        del batch
        times.append(dt / reps)
    return {"status": "ok", "n": n, "memory_bytes": peak, "times_s": times, "time_s": min(times), "reps": reps,
            "warmup_s": warm, "printed": Sink.printed, "pid": os.getpid()}


def _hook(event, args):
    if event.startswith(BLOCKED):
        raise PermissionError(f"sandbox: {event} is blocked")
    if event == "import" and str(args[0]).split(".")[0] in ("ctypes", "_ctypes", "_posixsubprocess"):
        raise PermissionError(f"sandbox: import of {args[0]} is blocked")


if __name__ == "__main__":
    main()
