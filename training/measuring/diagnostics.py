"""Compiler and run-time messages cut to what a committed row may keep: the diagnostics' own words.

g++ and javac quote the program's lines under each error (``  179 |   auto dfs = ...``, the caret
line, javac's bare source line), and every tool names the build folder. A row keeps neither: the
corpus's code is never committed, and a host path says nothing.

* ``compiler(text)``: only the diagnostic lines (``prog.cpp:179:20: error: …``, ``main.go:15:14:
  undefined: slices``, javac's ``symbol:``/``location:`` and ``7 errors``), notes dropped, paths cut
  to the file's name; the first ones, since the first error is the one that says why.
* ``runtime(text)``: a run's message (an exception, a panic, an assertion) without quoted lines
  or directories.
* ``why(row)``: the group of a row that is not ``ok`` (``GROUPS``), which the data card counts and
  the pack keeps in a compile error's ``reason`` before it cuts the message.
"""
from __future__ import annotations

import re

LIMIT = 300
_DIAG = re.compile(r"^\S*:\d+(?::\d+)?: (?!note:)")  # file:line[:col]: message (not a note)
_KEEP = re.compile(r"^\s+(?:symbol|location):|^\d+ (?:errors?|warnings?)$|^# ")
_QUOTED = re.compile(r"^\s*\d*\s*\|")  # g++/clang: `  179 |     code` and `      |     ^~~`
_BARE = re.compile(r"^[\s^~]*$")  # a caret line, or nothing
_PATH = re.compile(r"(?:\.{0,2}/)?(?:[\w.+@-]+/)+([\w.+@-]+)")


def compiler(text: str | None, limit: int = LIMIT) -> str | None:
    """The diagnostic lines of a compiler's output, without the program's text or directories."""
    if text is None:
        return None
    kept = [_PATH.sub(r"\1", line.rstrip()) for line in text.splitlines() if _DIAG.match(line) or _KEEP.match(line)]
    return "\n".join(kept)[:limit]


def runtime(text: str | None, limit: int = LIMIT) -> str | None:
    """A run's message without quoted program lines or directories."""
    if text is None:
        return None
    kept = [_PATH.sub(r"\1", line.rstrip()) for line in text.splitlines()
            if not (_QUOTED.match(line) or _BARE.match(line))]
    return "\n".join(kept)[:limit]


# (pattern on reason or error, group): the first that matches names the group
GROUPS = (
    (r"this auto&&|before deduction of .auto.", "self-recursive lambda (C++23 deducing this) at -std=c++17"),
    (r"ranges. has not been declared|views. has not been declared|has no member named .contains.|std::ranges|"
     r"has no member named .(starts_with|ends_with)|.(bit_width|popcount|countl_zero|countr_zero|gcd|lcm). was not declared",
     "C++20 library (ranges, contains) at -std=c++17"),
    (r"N3639|variably-modified|variable size", "variable-length array (captured in a lambda)"),
    (r"undefined: (slices|maps|cmp)\b", "Go 1.21 package (slices, maps, cmp) on Go 1.19"),
    (r"undefined: (treemap|redblacktree|hashset|arraylist|priorityqueue|linkedhashmap|treeset|doublylinkedlist|singlylinkedlist|treebidimap|binaryheap)\b",
     "third-party Go package (gods)"),
    (r"undefined: (cmplx|reflect|utf8|list|ring|big|sync)\b", "a standard Go package the driver does not import"),
    (r"package .* is not in GOROOT|cannot find package", "Go package outside the standard library"),
    (r"undefined: (min|max)\b", "Go min/max builtins (1.21)"),
    (r"RLM_UNSUPPORTED_TYPE", "a type the driver cannot express"),
    (r"no entry method|no func |no class Solution|no entry", "no entry method (or class Solution) to call"),
    (r"overloaded or a template", "the entry is overloaded or a template"),
    (r"rung dropped", "rung dropped by the ladder (clamped to a bound)"),
    (r"ran out of time or memory at the smaller rung", "not run: the smaller rung ran out of time or memory"),
    (r"segmentation fault|SIGSEGV|stack overflow|StackOverflowError|goroutine stack exceeds",
     "stack overflow or segmentation fault"),
    (r"OutOfMemoryError|out of memory|memory limit|bad_alloc", "out of memory"),
    (r"cpu limit|wall-clock limit|timed out", "time limit"),
    (r"panic:|runtime error:|goroutine \d|\.go:\d+ \+0x", "runtime panic (Go)"),
    (r"Exception in thread|at java\.base/|\tat [\w.$]+\(|Exception\b", "uncaught exception (Java)"),
    (r"terminate called|Assertion .* failed|abort|SIGABRT|exit -6", "assertion failed or abort (C++)"),
    (r"cannot find symbol|incompatible types|error: ", "other compile error"),
)
LABELS = {label for _, label in GROUPS}


def why(row: dict) -> str:
    """The group of a row that is not ``ok``."""
    if row["status"] == "wrong_answer":
        return "output differs from the Python reference's"
    if row.get("reason") in LABELS:  # the group, kept by the pack where the message was cut
        return row["reason"]
    text = "%s %s" % (row.get("reason") or "", row.get("error") or "")
    for pattern, group in GROUPS:
        if re.search(pattern, text):
            return group
    if row["status"] == "compile_error":
        return "other compile error"
    return "other: " + re.sub(r"\d+", "N", re.sub(r"/\S+", "PATH", text.strip()))[:60]
