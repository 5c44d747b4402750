"""Controlled variants of a program (issue 24, item 3): semantic mutations with a known cost direction.

``variants(code, seed, kinds=None)`` parses the program once, finds the sites where each kind applies and
edits the *original text* at one site (chosen by ``random.Random(f"{seed}:{kind}")``), so comments and layout
survive and the diff parent -> variant is the mutation only.  A kind that has no safe site gives no variant.

kind          edit                                                           expected     metrics
materialize   ``sum(x for x in a)`` -> ``sum([x for x in a])``;               regression   memory
              ``for i in range(n)`` -> ``for i in list(range(n))``
nxn_table     ``_t = [[0] * len(a) for _ in range(len(a))]`` next to a sized  regression   memory, time
              input ``a`` (a parameter, or a local list/str)
set_to_list   a set only tested with ``in`` (and filled by ``.add``) -> list   regression   time
sort_in_loop  a ``sorted(...)`` / ``.sort()`` before a loop repeated in it,    regression   time
              else ``_s = sorted(a)`` added in a loop over ``a``
add_memo      ``@functools.lru_cache(None)`` on a pure recursive function      improvement  time
drop_memo     an existing ``@cache`` / ``@lru_cache(...)`` removed            regression   time
copy_in_loop  ``_c = list(a)`` first in a loop over ``a``                      regression   time, memory
rename        1-3 locals of one function renamed consistently                  neutral      memory, time
swap          two adjacent independent assignments swapped                     neutral      memory, time

The checks are syntactic and conservative; the measuring step still runs parent and variant on the same
inputs and keeps a pair only when the outputs agree.
"""
from __future__ import annotations

import ast
import builtins
import keyword
import random
import re
from typing import NamedTuple


class Variant(NamedTuple):
    kind: str
    code: str
    expected: str        # "regression" | "improvement" | "neutral"
    metrics: tuple       # the costs the direction is about: ("memory",), ("time",), ...
    line: int            # 1-based line of the mutated site in the parent


EXPECTED = {
    "materialize": ("regression", ("memory",)),
    "nxn_table": ("regression", ("memory", "time")),
    "set_to_list": ("regression", ("time",)),
    "sort_in_loop": ("regression", ("time",)),
    "add_memo": ("improvement", ("time",)),     # the cache itself may cost memory
    "drop_memo": ("regression", ("time",)),     # and dropping it may save some
    "copy_in_loop": ("regression", ("time", "memory")),
    "rename": ("neutral", ("memory", "time")),
    "swap": ("neutral", ("memory", "time")),
}
KINDS = tuple(EXPECTED)

SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
LOOPS = (ast.For, ast.While)
CONSUMERS = {"sum", "min", "max", "any", "all", "sorted", "list", "tuple", "set", "frozenset", "dict", "Counter"}
MUTATORS = {"append", "appendleft", "add", "pop", "popleft", "popitem", "remove", "discard", "extend", "insert",
            "update", "clear", "setdefault", "sort", "reverse", "rotate", "heappush", "heappop", "heapify",
            "heapreplace", "heappushpop", "insort", "insort_left", "insort_right", "__setitem__", "extendleft",
            "intersection_update", "difference_update", "symmetric_difference_update", "move_to_end"}
ITERATORS = {"iter", "zip", "map", "filter", "enumerate", "reversed", "open", "count", "cycle", "repeat", "chain",
             "islice", "permutations", "combinations", "combinations_with_replacement", "product", "accumulate",
             "groupby", "pairwise", "zip_longest", "starmap", "takewhile", "dropwhile", "compress", "tee",
             "finditer", "iterrows"}
PURE = {"abs", "all", "any", "bin", "bool", "chr", "divmod", "float", "frozenset", "hash", "hex", "int", "isinstance",
        "len", "list", "max", "min", "oct", "ord", "pow", "range", "round", "set", "sorted", "str", "sum", "tuple",
        "dict", "Counter", "gcd", "lcm", "comb", "perm", "sqrt", "isqrt", "log", "log2", "ceil", "floor",
        "bisect_left", "bisect_right", "zip", "enumerate", "reversed", "map", "filter"}
PURE_METHODS = {"split", "strip", "lstrip", "rstrip", "lower", "upper", "get", "keys", "values", "items", "count",
                "index", "find", "bit_length", "startswith", "endswith", "join", "copy", "replace", "isdigit",
                "isalpha", "isupper", "islower"}
MEMO = {"cache", "lru_cache"}
CONTAINERS = {"list", "dict", "set", "defaultdict", "Counter", "deque", "sorted", "OrderedDict", "bytearray"}
UNHASHABLE = (ast.List, ast.ListComp, ast.Dict, ast.DictComp, ast.Set, ast.SetComp)
NAME_POOL = ["val", "cur", "acc", "tmp", "idx", "cnt", "res", "item", "total", "best", "pos", "buf", "elem", "num",
             "length", "mark", "step", "width", "depth", "prev", "nxt", "part", "span", "head", "tail", "unit"]


# ------------------------------------------------------------------ source text and edits

class _Src:
    """The parent's text as UTF-8 bytes; ast positions are (1-based line, byte column)."""

    def __init__(self, code: str):
        self.b = code.encode()
        self.starts = [0]
        for i, c in enumerate(self.b):
            if c == 10:
                self.starts.append(i + 1)

    def off(self, line, col):
        return self.starts[line - 1] + col

    def span(self, node):
        return self.off(node.lineno, node.col_offset), self.off(node.end_lineno, node.end_col_offset)

    def seg(self, node) -> str:
        a, b = self.span(node)
        return self.b[a:b].decode()

    def line_end(self, line):
        return self.starts[line] if line < len(self.starts) else len(self.b)

    def indent(self, stmt):
        """Whitespace before ``stmt`` on its line, or None when something else is there."""
        a = self.starts[stmt.lineno - 1]
        pre = self.b[a:a + stmt.col_offset]
        return pre.decode() if not pre.strip() else None

    def alone(self, stmt):
        """The statement owns its lines (no ``;`` neighbours, only a comment after it)."""
        if self.indent(stmt) is None:
            return False
        a, b = self.span(stmt)
        rest = self.b[b:self.line_end(stmt.end_lineno)].strip()
        return not rest or rest.startswith(b"#")


def _apply(src: _Src, edits) -> str | None:
    out = src.b
    last = len(out) + 1
    for a, b, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        if b > last:
            return None  # overlapping edits
        out = out[:a] + text.encode() + out[b:]
        last = a
    code = out.decode()
    try:
        compile(code, "<variant>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return code


def _insert_before(src, stmt, text):
    ind = src.indent(stmt)
    if ind is None:
        return None
    a = src.starts[stmt.lineno - 1]
    return (a, a, ind + text + "\n")


# ------------------------------------------------------------------ analysis helpers

class _Info:
    def __init__(self, tree):
        self.tree = tree
        self.parent = {c: p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
        self.bound = set(_bindings(ast.walk(tree)))  # every name bound anywhere
        self.idents = self.bound | {getattr(n, "id", None) or getattr(n, "attr", None) or getattr(n, "arg", None)
                                    for n in ast.walk(tree) if isinstance(n, (ast.Name, ast.Attribute, ast.keyword))}
        # names that may hold a one-shot iterator (re-reading them would see it exhausted)
        self.iters, self.defaultdicts, self.containers = set(), set(), set()  # ... unhashable containers
        for n in ast.walk(tree):
            if isinstance(n, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and n.value is not None:
                targets = n.targets if isinstance(n, ast.Assign) else [n.target]
                names = {t.id for t in targets if isinstance(t, ast.Name)}
                if isinstance(n.value, ast.GeneratorExp) or _call_name(n.value) in ITERATORS:
                    self.iters |= names
                if _call_name(n.value) == "defaultdict":
                    self.defaultdicts |= names
                if isinstance(n.value, UNHASHABLE) or _call_name(n.value) in CONTAINERS:
                    self.containers |= names
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):  # parameters typed as containers
                doc = ast.get_docstring(n) or ""
                for a in ast.walk(n.args):
                    ann = ast.unparse(a.annotation) if isinstance(a, ast.arg) and a.annotation else ""
                    if isinstance(a, ast.arg) and (re.search(r"\b(List|list|Dict|dict|Set|set)\b", ann) or re.search(
                            r":type %s:\s*(List|list|Dict|dict|Set|set)\b" % re.escape(a.arg), doc)):
                        self.containers.add(a.arg)
        # ... and parameters that some call in the program passes one to
        defs = {f.name: f for f in _functions(tree)}
        for _ in range(2):  # twice: a parameter passed on to another function
            for c in ast.walk(tree):
                fn = defs.get(_call_name(c))
                for i, a in enumerate(c.args if fn else []):
                    params = fn.args.args[isinstance(c.func, ast.Attribute):]
                    if i < len(params) and (isinstance(a, ast.GeneratorExp) or _call_name(a) in ITERATORS
                                            or isinstance(a, ast.Name) and a.id in self.iters):
                        self.iters.add(params[i].arg)

    def fresh(self, base):
        name, k = base, 2
        while name in self.idents or hasattr(builtins, name) or keyword.iskeyword(name):
            name, k = "%s%d" % (base, k), k + 1
        self.idents.add(name)
        return name

    def scope_of(self, node):
        """Nearest enclosing function or module (class bodies are not closures' scopes)."""
        p = self.parent.get(node)
        while p is not None and not isinstance(p, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            p = self.parent.get(p)
        return p

    def in_loop(self, node, stop):
        p = self.parent.get(node)
        while p is not None and p is not stop:
            if isinstance(p, (ast.For, ast.AsyncFor, ast.While, ast.comprehension)):
                return True
            p = self.parent.get(p)
        return False


def _call_name(node):
    if isinstance(node, ast.Call):
        f = node.func
        return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
    return None


def _own(node):
    """Nodes inside ``node``'s scope; nested functions/classes/lambdas are yielded but not entered."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if not isinstance(n, SCOPES):
            stack.extend(ast.iter_child_nodes(n))


def _base(e):
    while isinstance(e, (ast.Attribute, ast.Subscript, ast.Starred)):
        e = e.value
    return e.id if isinstance(e, ast.Name) else None


def _bindings(nodes):
    """name -> list of binding nodes."""
    out = {}
    for n in nodes:
        name = None
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            name = n.id
        elif isinstance(n, ast.arg):
            name = n.arg
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = n.name
        elif isinstance(n, ast.alias):
            name = (n.asname or n.name).split(".")[0]
        elif isinstance(n, ast.ExceptHandler) and n.name:
            name = n.name
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for g in n.names:
                out.setdefault(g, []).extend([n, n])  # never "bound once"
        if name:
            out.setdefault(name, []).append(n)
    return out


def _mutated(nodes):
    """Names whose object may be changed in place by these nodes (conservative)."""
    out = set()
    for n in nodes:
        if isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(_base(n.value))
        elif isinstance(n, ast.AugAssign):
            out.add(_base(n.target))
        elif isinstance(n, ast.Call) and _call_name(n) in MUTATORS:
            if isinstance(n.func, ast.Attribute):
                out.add(_base(n.func.value))
            if n.args:
                out.add(_base(n.args[0]))
    out.discard(None)
    return out


def _loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _loop_seq(loop):
    """The Name a loop runs over: ``for x in a``, ``for i in range(len(a))``, ``for i, x in enumerate(a)``."""
    if not isinstance(loop, ast.For):
        return None
    it = loop.iter
    if isinstance(it, ast.Call):
        if not (isinstance(it.func, ast.Name) and it.args and not it.keywords):
            return None
        if it.func.id == "enumerate" and len(it.args) == 1:
            it = it.args[0]
        elif it.func.id == "range" and len(it.args) <= 2 and _call_name(it.args[-1]) == "len" \
                and isinstance(it.args[-1].func, ast.Name) and len(it.args[-1].args) == 1:
            it = it.args[-1].args[0]
        else:
            return None
    return it.id if isinstance(it, ast.Name) else None


def _blocks(tree):
    for n in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            b = getattr(n, field, None)
            if isinstance(b, list) and b and isinstance(b[0], ast.stmt):
                yield b


def _functions(tree):
    return [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]


def _body_start(fn):
    """First statement of a function body after its docstring."""
    b = fn.body
    if isinstance(b[0], ast.Expr) and isinstance(getattr(b[0], "value", None), ast.Constant) \
            and isinstance(b[0].value.value, str):
        return b[1] if len(b) > 1 else None
    return b[0]


# ------------------------------------------------------------------ the kinds
# Each returns a list of candidate sites; a site is a callable -> (edits, line) or None.

def _k_materialize(info, src):
    sites = []
    rebound = info.bound
    for n in ast.walk(info.tree):
        if isinstance(n, ast.Call) and len(n.args) == 1 and isinstance(n.args[0], ast.GeneratorExp) \
                and (_call_name(n) in CONSUMERS or _call_name(n) == "join") and _call_name(n) not in rebound:
            g = n.args[0]
            if any(_call_name(c.iter) in ("count", "cycle", "repeat", "iter") for c in g.generators):
                continue
            seg = src.seg(g)
            if seg.startswith("(") and seg.endswith(")"):
                a, b = src.span(g)
                sites.append(lambda a=a, b=b, seg=seg, n=n: ([(a, b, "([" + seg[1:-1] + "])")], n.lineno))
        elif isinstance(n, ast.For) and _call_name(n.iter) == "range" and isinstance(n.iter.func, ast.Name) \
                and "range" not in rebound and "list" not in rebound:
            a, b = src.span(n.iter)
            sites.append(lambda a=a, b=b, n=n: ([(a, b, "list(" + src.seg(n.iter) + ")")], n.lineno))
    return sites


def _k_nxn_table(info, src):
    sites = []

    def table(name, anchor, after):
        t = info.fresh("_t")
        text = "%s = [[0] * len(%s) for _ in range(len(%s))]" % (t, name, name)
        if after:
            if not src.alone(anchor):
                return None
            a = src.line_end(anchor.end_lineno)
            nl = "" if src.b[a - 1:a] == b"\n" else "\n"
            return [(a, a, nl + src.indent(anchor) + text + "\n")], anchor.lineno
        e = _insert_before(src, anchor, text)
        return ([e], anchor.lineno) if e else None

    for fn in _functions(info.tree):
        if isinstance(info.scope_of(fn), (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue  # not inside helpers called many times
        first = _body_start(fn)
        own = list(_own(fn))
        sized = {c.args[0].id for c in own if _call_name(c) == "len" and isinstance(c.func, ast.Name)
                 and len(c.args) == 1 and isinstance(c.args[0], ast.Name)}
        binds = _bindings(own)
        for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs:
            ann = ast.unparse(a.annotation) if a.annotation else ""
            if re.fullmatch(r"(List|list|Sequence)\[.*\]|str", ann):
                sized.add(a.arg)
            if a.arg in sized and len(binds.get(a.arg, [])) == 1 and first is not None \
                    and not re.fullmatch(r"int|float|bool|complex", ann) and not re.search(r"Optional|None|Node", ann):
                sites.append(lambda a=a, first=first: table(a.arg, first, False))
    sized_values = {"list", "sorted", "tuple", "str", "input", "split", "readlines", "strip", "rstrip", "read"}
    for n in ast.walk(info.tree):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                (isinstance(n.value, (ast.ListComp, ast.List)) or _call_name(n.value) in sized_values):
            name, scope = n.targets[0].id, info.scope_of(n)
            if isinstance(info.scope_of(scope), (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if any(_call_name(c) == "len" and c.args and isinstance(c.args[0], ast.Name) and c.args[0].id == name
                   for c in _own(scope)) and len(_bindings(_own(scope)).get(name, [])) == 1:
                sites.append(lambda n=n, name=name: table(name, n, True))
    return sites


def _k_set_to_list(info, src):
    """A set only tested with ``in`` / ``not in`` (and filled with ``s.add(x)`` statements) -> a list."""
    sites = []
    for n in ast.walk(info.tree):
        if not (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)):
            continue
        v, name, scope = n.value, n.targets[0].id, info.scope_of(n)
        if not (isinstance(v, (ast.Set, ast.SetComp)) or (_call_name(v) == "set" and isinstance(v.func, ast.Name)
                                                          and len(v.args) <= 1 and not v.keywords)):
            continue
        uses = [u for u in ast.walk(scope) if isinstance(u, ast.Name) and u.id == name]
        edits, tests = [], 0
        for u in uses:
            p, gp = info.parent.get(u), info.parent.get(info.parent.get(u))
            if not isinstance(u.ctx, ast.Load):
                edits.append(None if u is not n.targets[0] else ())
            elif isinstance(p, ast.Compare) and u in p.comparators and \
                    isinstance(p.ops[p.comparators.index(u)], (ast.In, ast.NotIn)):
                tests += 1
            elif isinstance(p, ast.Attribute) and p.attr == "add" and isinstance(gp, ast.Call) and gp.func is p \
                    and len(gp.args) == 1 and not gp.keywords and isinstance(info.parent.get(gp), ast.Expr):
                b = src.span(p)[1]
                edits.append((b - 3, b, "append") if src.b[b - 3:b] == b"add" else None)
            else:
                edits.append(None)
        if not tests or None in edits or "set" in info.bound or "list" in info.bound or \
                any(isinstance(g, (ast.Global, ast.Nonlocal)) and name in g.names for g in ast.walk(info.tree)):
            continue
        edits = [e for e in edits if e]
        a, b = src.span(v.func if isinstance(v, ast.Call) else v)
        if isinstance(v, ast.Call):
            edits.append((a, b, "list"))
        elif src.b[a:a + 1] == b"{" and src.b[b - 1:b] == b"}":
            edits += [(a, a + 1, "["), (b - 1, b, "]")]
        else:
            continue
        sites.append(lambda edits=edits, n=n: (edits, n.lineno))
    return sites


def _pure_expr(node):
    for c in ast.walk(node):
        if isinstance(c, ast.Call) and not (_call_name(c) in PURE or (
                isinstance(c.func, ast.Attribute) and c.func.attr in PURE_METHODS | {"sort"})):
            return False
        if isinstance(c, (ast.Yield, ast.YieldFrom, ast.Await, ast.NamedExpr)):
            return False
    return True


def _first_in_body(src, loop, text):
    return _insert_before(src, loop.body[0], text) if src.alone(loop.body[0]) else None


def _k_sort_in_loop(info, src):
    moved, added = [], []
    for block in _blocks(info.tree):
        for i, st in enumerate(block):
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and isinstance(st.targets[0], ast.Name) \
                    and _call_name(st.value) == "sorted" and isinstance(st.value.func, ast.Name):
                b = st.targets[0].id
            elif isinstance(st, ast.Expr) and _call_name(st.value) == "sort" and \
                    isinstance(st.value.func, ast.Attribute) and isinstance(st.value.func.value, ast.Name):
                b = st.value.func.value.id
            else:
                continue
            if not (src.alone(st) and _pure_expr(st.value)) or _loads(st.value) & info.iters:
                continue
            deps = _loads(st.value) | {b}
            for j in range(i + 1, len(block)):
                loop = block[j]
                between = [x for s in block[i + 1:j + 1] for x in ast.walk(s)]
                elems = {t.id for f in between if isinstance(f, ast.For) and _loads(f.iter) & deps
                         for t in ast.walk(f.target) if isinstance(t, ast.Name)}  # aliases of the elements
                if (deps | elems) & _mutated(between) or deps & set(_bindings(between)):
                    break
                if isinstance(loop, LOOPS) and b in _loads(loop):
                    text = src.seg(st)
                    moved.append(lambda loop=loop, text=text: (_first_in_body(src, loop, text), loop.lineno))
                    break
    return moved, _loop_sites(info, src, "_s", "sorted")  # every "moved" site is tried before any "added" one


def _memo_deco(d):
    f = d.func if isinstance(d, ast.Call) else d
    return (isinstance(f, ast.Name) and f.id in MEMO) or (
        isinstance(f, ast.Attribute) and f.attr in MEMO and isinstance(f.value, ast.Name) and f.value.id == "functools")


def _stable(info, name, fn):
    """A free name of ``fn`` is bound once (not in a loop) where it resolves and never changed in place."""
    scope = info.scope_of(fn)
    while scope is not None:
        binds = _bindings(_own(scope)).get(name)
        if binds:
            b = binds[0]
            bad = isinstance(info.parent.get(b), (ast.For, ast.AsyncFor, ast.comprehension, ast.With))
            declared = any(isinstance(n, (ast.Global, ast.Nonlocal)) and name in n.names for n in ast.walk(scope))
            return len(binds) == 1 and not bad and not declared and not info.in_loop(b, scope) and \
                name not in _mutated(ast.walk(scope))
        scope = info.scope_of(scope) if not isinstance(scope, ast.Module) else None
    return True  # builtins and the harness prelude


def _k_add_memo(info, src):
    sites = []
    for fn in _functions(info.tree):
        if fn.decorator_list or isinstance(fn, ast.AsyncFunctionDef) or isinstance(info.parent.get(fn), ast.ClassDef):
            continue
        own = list(_own(fn))
        calls = [c for c in own if isinstance(c, ast.Call)]
        rec = [c for c in calls if isinstance(c.func, ast.Name) and c.func.id == fn.name]
        if not rec or any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Global, ast.Nonlocal, *SCOPES)) for n in own):
            continue
        if _mutated(own) or any(isinstance(n, (ast.Subscript, ast.Attribute)) and not isinstance(n.ctx, ast.Load)
                                for n in own):
            continue
        if any(not ((isinstance(c.func, ast.Name) and (c.func.id in PURE or c.func.id == fn.name)) or
                    (isinstance(c.func, ast.Attribute) and c.func.attr not in MUTATORS
                     and _base(c.func.value) != "self")) for c in calls):
            continue
        calls_fn = [c for c in ast.walk(info.tree) if isinstance(c, ast.Call) and _call_name(c) == fn.name]
        if any(isinstance(x, UNHASHABLE + (ast.Slice,)) or _call_name(x) in CONTAINERS or
               isinstance(x, ast.Name) and x.id in info.containers  # arguments that cannot be cache keys
               for c in calls_fn for a in c.args + [k.value for k in c.keywords] for x in ast.walk(a)):
            continue
        if any(a.arg in info.containers for a in fn.args.args + fn.args.kwonlyargs) or any(
                isinstance(d, UNHASHABLE) for d in fn.args.defaults + fn.args.kw_defaults if d is not None):
            continue
        local = set(_bindings(own))
        free = {n.id for n in own if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - local - {fn.name}
        if all(_stable(info, x, fn) for x in free | {fn.name}) and src.indent(fn) is not None:
            sites.append(lambda fn=fn: _memo_edits(info, src, fn))
    return sites


def _memo_edits(info, src, fn):
    first = min([d.lineno for d in fn.decorator_list] + [fn.lineno])
    a = src.starts[first - 1]
    edits = [(a, a, src.indent(fn) + "@functools.lru_cache(None)\n")]
    tree = info.tree
    if not any(isinstance(s, ast.Import) and any(x.name == "functools" and not x.asname for x in s.names)
               for s in tree.body):
        if "functools" in _bindings(ast.walk(tree)):
            return None
        k = 0  # after the module docstring and __future__ imports
        if isinstance(tree.body[0], ast.Expr) and isinstance(tree.body[0].value, ast.Constant):
            k = 1
        while k < len(tree.body) and isinstance(tree.body[k], ast.ImportFrom) and tree.body[k].module == "__future__":
            k += 1
        if k == len(tree.body):
            return None
        e = _insert_before(src, tree.body[k], "import functools")
        if e is None:
            return None
        edits.append(e)
    return edits, fn.lineno


def _k_drop_memo(info, src):
    sites = []
    for fn in _functions(info.tree):
        memo = [d for d in fn.decorator_list if _memo_deco(d)]
        if not memo or any(isinstance(n, ast.Attribute) and n.attr in ("cache_clear", "cache_info", "__wrapped__")
                           and isinstance(n.value, ast.Name) and n.value.id == fn.name for n in ast.walk(info.tree)):
            continue
        d = memo[0]
        ls = src.starts[d.lineno - 1]
        a, b = src.span(d)
        pre = src.b[ls:a].strip()
        rest = src.b[b:src.line_end(d.end_lineno)].strip()
        if pre == b"@" and (not rest or rest.startswith(b"#")):
            sites.append(lambda ls=ls, d=d, fn=fn: ([(ls, src.line_end(d.end_lineno), "")], fn.lineno))
    return sites


def _objects(info, loop, a):
    """Elements of ``a`` are used through attributes or called somewhere in the scope: maybe not comparable."""
    scope = list(ast.walk(info.scope_of(loop)))
    names = {a} | {t.id for f in scope if isinstance(f, (ast.For, ast.comprehension)) and a in _loads(f.iter)
                   for t in ast.walk(f.target) if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Attribute) and _base(n) in names and not (  # not a method of ``a`` itself
        isinstance(n.value, ast.Name) and n.value.id == a) or
               isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in names for n in scope)


def _loop_sites(info, src, var, func):
    """``var = func(a)`` first in the body of each loop over a sequence ``a``."""
    sites = []
    for loop in ast.walk(info.tree):
        a = _loop_seq(loop)
        if not a or a in info.iters or func in info.bound:
            continue
        if func == "sorted" and (a in _mutated(ast.walk(loop)) or _objects(info, loop, a)):
            continue
        sites.append(lambda loop=loop, a=a: (
            _first_in_body(src, loop, "%s = %s(%s)" % (info.fresh(var), func, a)), loop.lineno))
    return sites


def _k_copy_in_loop(info, src):
    return _loop_sites(info, src, "_c", "list")


def _k_rename(info, src, rng):
    sites = []
    for fn in _functions(info.tree):
        sub = list(ast.walk(fn))
        if any(_call_name(c) in ("locals", "vars", "eval", "exec", "globals", "dir") for c in sub) or \
                any(isinstance(n, (ast.ClassDef, ast.Match)) for n in sub):
            continue
        all_binds = _bindings(sub)
        own = list(_own(fn))
        params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
        declared = {g for n in sub if isinstance(n, (ast.Global, ast.Nonlocal)) for g in n.names}
        kwargs = {n.arg for n in sub if isinstance(n, ast.keyword)}
        fstr = {x.id for j in sub if isinstance(j, ast.JoinedStr) for x in ast.walk(j) if isinstance(x, ast.Name)}
        outside = fn.decorator_list + fn.args.defaults + fn.args.kw_defaults + [fn.returns] + [  # evaluated outside
            a.annotation for a in ast.walk(fn.args) if isinstance(a, ast.arg)]
        outer = {x.id for e in outside if e is not None for x in ast.walk(e) if isinstance(x, ast.Name)}
        cands = sorted(n for n, bs in _bindings(own).items()
                       if n not in params | declared | kwargs | fstr | outer
                       and all(isinstance(b, (ast.Name, ast.arg)) for b in all_binds[n]))
        if cands:
            sites.append(lambda fn=fn, cands=cands: _rename_edits(info, src, fn, cands, rng))
    return sites


def _rename_edits(info, src, fn, cands, rng):
    chosen = rng.sample(cands, rng.randint(1, min(3, len(cands))))
    pool = [p for p in NAME_POOL if p not in info.idents and not hasattr(builtins, p)]
    edits = []
    for old in chosen:
        new = pool.pop(rng.randrange(len(pool))) if pool else info.fresh("v")
        info.idents.add(new)
        for n in ast.walk(fn):
            if isinstance(n, ast.Name) and n.id == old:
                a, b = src.span(n)
            elif isinstance(n, ast.arg) and n.arg == old:  # a nested function's parameter: its own scope
                a = src.off(n.lineno, n.col_offset)
                b = a + len(old.encode())
            else:
                continue
            if src.b[a:b] != old.encode():
                return None
            edits.append((a, b, new))
    return edits, fn.lineno


def _rw(node, info):
    """(names read, names written) of a simple statement; None when it may have other effects.

    "*" stands for object contents: written by a subscript/attribute store or an in-place ``+=``, read by
    any subscript, attribute or call (the object may be aliased under another name)."""
    reads, writes = set(), set()
    for n in ast.walk(node):
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await, ast.Lambda, *SCOPES)):
            return None
        if isinstance(n, ast.Call) and not (_call_name(n) in PURE or (
                isinstance(n.func, ast.Attribute) and n.func.attr in PURE_METHODS)):
            return None
        if isinstance(n, ast.Name):
            if n.id in info.iters:
                return None
            (reads if isinstance(n.ctx, ast.Load) else writes).add(n.id)
        elif isinstance(n, (ast.Subscript, ast.Attribute)):
            if not isinstance(n.ctx, ast.Load) or _base(n) in info.defaultdicts:
                writes |= {_base(n), "*"}
            reads.add("*")
        elif isinstance(n, ast.Call):
            reads.add("*")
        elif isinstance(n, ast.NamedExpr):
            writes.add(n.target.id)
    if isinstance(node, ast.AugAssign):
        reads.add(_base(node.target))
        if not (isinstance(node.value, ast.Constant) and isinstance(node.value.value, (int, float))):
            writes.add("*")  # list += ...: in place
    return reads, writes


def _k_swap(info, src):
    sites = []
    simple = (ast.Assign, ast.AugAssign, ast.AnnAssign)
    for block in _blocks(info.tree):
        for s1, s2 in zip(block, block[1:]):
            if not (isinstance(s1, simple) and isinstance(s2, simple) and src.alone(s1) and src.alone(s2)):
                continue
            if getattr(s1, "value", 1) is None or getattr(s2, "value", 1) is None:
                continue
            r1, r2 = _rw(s1, info), _rw(s2, info)
            t1, t2 = src.seg(s1), src.seg(s2)
            if r1 and r2 and t1 != t2 and not (r1[1] & (r2[0] | r2[1]) or r2[1] & r1[0]):
                (a1, b1), (a2, b2) = src.span(s1), src.span(s2)
                sites.append(lambda a1=a1, b1=b1, a2=a2, b2=b2, t1=t1, t2=t2, s1=s1:
                             ([(a1, b1, t2), (a2, b2, t1)], s1.lineno))
    return sites


FINDERS = {"materialize": _k_materialize, "nxn_table": _k_nxn_table, "set_to_list": _k_set_to_list,
           "sort_in_loop": _k_sort_in_loop, "add_memo": _k_add_memo, "drop_memo": _k_drop_memo,
           "copy_in_loop": _k_copy_in_loop, "rename": _k_rename, "swap": _k_swap}


# ------------------------------------------------------------------ public API

def mutate(code: str, kind: str, seed: int = 0, tree: ast.Module | None = None) -> Variant | None:
    """One variant of ``kind`` (None when the kind does not apply); deterministic given ``seed``."""
    if kind not in FINDERS:
        raise ValueError("unknown mutation kind %r (known: %s)" % (kind, ", ".join(KINDS)))
    try:
        tree = tree or ast.parse(code)
    except (SyntaxError, ValueError):
        return None
    rng = random.Random("%s:%s" % (seed, kind))
    info, src = _Info(tree), _Src(code)
    sites = FINDERS[kind](info, src, rng) if kind == "rename" else FINDERS[kind](info, src)
    for group in sites if isinstance(sites, tuple) else (sites,):  # groups are tried in order
        rng.shuffle(group)
        for site in group:
            got = site()
            if got is None or got[0] is None:
                continue
            new = _apply(src, got[0] if isinstance(got[0], list) else [got[0]])
            if new is not None and new != code:
                direction, metrics = EXPECTED[kind]
                return Variant(kind, new, direction, metrics, got[1])
    return None


def variants(code: str, seed: int = 0, kinds=None) -> list[Variant]:
    """Every kind (or those in ``kinds``) that applies to ``code``, one variant each."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    out = []
    for kind in kinds or KINDS:
        v = mutate(code, kind, seed, tree)
        if v is not None:
            out.append(v)
    return out
