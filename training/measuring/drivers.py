"""LeetCode drivers for C++, Java and Go (issue 51, item 1): a whole program from a solution and its entry name.

``program(code, language, entry)`` -> ``(source, None)`` or ``(None, why it is skipped)``.  The driver
(``drivers/``) reads ``{"tests": [{"args": [{"json": v, ...}, ...]}, ...]}`` on stdin (the Python ladders'
tests, so every language runs on identical inputs), calls the entry on each test's arguments in a fresh
``Solution`` and prints one JSON value per test and line.  The argument types come from the signature
itself, not from parsing it: C++ deduces them from ``&Solution::entry`` (templates), Java and Go read them
by reflection.  Supported: integers (int, long, long long, short), double/float, bool, string, char
(Go: byte), vectors/arrays/slices/``List`` of those at any depth, ``ListNode`` and ``TreeNode``; void
returns print ``null`` (the Python runner's ``None``).  Anything else is refused before the input is read
(``RLM_UNSUPPORTED_TYPE``: C++ at compile time, Java and Go with exit 3): such rows are ``skipped``.
``digests(stdout)`` gives per-test digests computed exactly as the Python runner's (``runner._digests``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

HERE = Path(__file__).with_name("drivers")


def _part(name: str) -> str:
    return (HERE / name).read_text()


def _defines(code: str, kind: str, name: str) -> bool:
    """Whether the solution itself defines ``name`` (comments stripped: LeetCode files show the node types in
    a comment)."""
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    code = re.sub(r"//[^\n]*", "", code)
    return re.search(r"\b%s\s+%s\b" % (kind, name), code) is not None


GO_PACKAGES = ("sort", "math", "strings", "strconv", "container/heap", "container/list", "bytes", "math/bits",
               "unicode", "math/rand", "fmt", "regexp", "math/cmplx", "reflect", "unicode/utf8")


def _go_imports(code: str) -> list:
    body = re.sub(r'"(\\.|[^"\\])*"|`[^`]*`|//[^\n]*|/\*.*?\*/', "", code, flags=re.S)
    return [p for p in GO_PACKAGES if re.search(r"(?<![\w.])%s\." % p.rsplit("/", 1)[-1], body)]


def program(code: str, language: str, entry: str | None, args: list | None = None) -> tuple:
    """The whole program (driver + solution), or ``(None, reason)`` where the driver cannot run it."""
    if not entry or not re.fullmatch(r"[A-Za-z_]\w*", entry):
        return None, "no entry method name"
    if args is not None and any("json" not in a for a in args):
        return None, "an argument is a Python expression, not JSON"
    if language == "cpp":
        if not re.search(r"\b(class|struct)\s+Solution\b", code):
            return None, "no class Solution"
        tail = _part("tail.cpp").replace("RLM_ENTRY", entry)
        if _defines(code, "struct", "ListNode") or _defines(code, "struct", "TreeNode"):  # its own node types
            return _part("head.cpp") + code + "\n" + _part("lib.cpp") + tail, None
        return _part("head.cpp") + _part("nodes.cpp") + _part("lib.cpp") + "\n" + code + "\n" + tail, None
    if language == "java":
        if not re.search(r"\bclass\s+Solution\b", code):
            return None, "no class Solution"
        if re.search(r"^\s*package\s", code, flags=re.M):
            return None, "the solution declares a package"
        nodes = "" if _defines(code, "class", "ListNode") or _defines(code, "class", "TreeNode") else _part("nodes.java")
        return _part("head.java") + code + "\n" + nodes + _part("tail.java").replace("RLM_ENTRY", entry), None
    if language == "go":
        if not re.search(r"\bfunc\s+%s\s*\(" % entry, code):
            return None, "no func %s" % entry
        code = re.sub(r"^\s*package\s+\w+\s*$", "", code, count=1, flags=re.M)
        own = re.search(r"^\s*import\b", code, flags=re.M) is not None
        imports = "" if own else "".join('import "%s"\n' % p for p in _go_imports(code))
        nodes = "" if _defines(code, "type", "ListNode") or _defines(code, "type", "TreeNode") else _part("nodes.go")
        minmax = "" if re.search(r"\bfunc\s+(min|max)\s*[\[(]", code) else _part("minmax.go")
        return (_part("head.go") + imports + "\n" + code + "\n" + nodes + "\n" + minmax + "\n"
                + _part("tail.go").replace("RLM_ENTRY", entry)), None
    return None, "unknown language %r" % language


def stdin(tests: list) -> bytes:
    """The driver's input: the tests' JSON arguments only."""
    return json.dumps({"tests": [{"args": [{"json": a.get("json")} for a in t["args"]]} for t in tests]},
                      separators=(",", ":")).encode()


def digests(stdout: str, n: int) -> list | None:
    """Per-test output digests, as the Python runner computes them; None unless there are ``n`` JSON lines."""
    from training.measuring.runner import _digests
    lines = stdout.splitlines()
    if len(lines) != n:
        return None
    try:
        return [_digests(json.loads(ln)) for ln in lines]
    except ValueError:
        return None


def compile_skip(error: str, entry: str = "") -> str | None:
    """The skip reason hidden in a compile error (the C++ driver refuses a type at compile time), else None."""
    if "RLM_UNSUPPORTED_TYPE" in error:
        m = re.search(r"conv<([^>]*(?:<[^>]*>)*[^>]*)>|put\(const T&\) \[with T = ([^\]]+)\]", error)
        what = (m.group(1) or m.group(2)) if m else "a type"
        return "RLM_UNSUPPORTED_TYPE: %s" % what.strip()[:120]
    # Go: only the entry undefined (``undefined: slices`` is Go 1.19 missing a package: a compile error)
    if re.search(r"has no member named .%s|.%s. is not a member of .Solution|undefined: %s\b" % ((re.escape(entry),) * 3), error):
        return "no entry method of that name"
    if "no matching function for call to .call(" in error or "couldn't deduce template parameter" in error:
        return "the entry is overloaded or a template"
    return None
