"""How a function uses a parameter, read from its syntax tree: what `rlm_lsp.measure.inputs` needs
beyond the parameter's kind (`rlm_lsp.python.param_kinds`) to build a value that the function takes.

    an integer: exponential in it (`1 << k`), a budget spent by the elements, the low end of a
    range, read digit by digit, the size of a table the rows index
    a list: the kind of its elements, bisected (sorted), a key looked for, rows of a fixed width,
    walked as adjacency lists, used as a dict, a permutation (its elements index it or a table of
    its length, or start a Fenwick tree's walk up)
    any: changed by the function (each call then gets a fresh copy)

`followed` reads the same through calls into the file's own functions and the class's methods
(`Scope`), where a parameter is handed on (`self._helper(n, roads)`, a nested `dfs(grid)`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from rlm_lsp.python.cost_params import fn_params
from rlm_lsp.python.cost_shapes import midpoints
from rlm_lsp.python.n_powers import call_name, name_of
from rlm_lsp.python.param_kinds import CHAR_METHODS, STR_METHODS

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault",
            "popitem", "add", "discard", "appendleft", "popleft", "heappush", "heappop", "heapify", "shuffle",
            "heapreplace", "heappushpop", "insort", "insort_left", "insort_right", "difference_update",
            "intersection_update", "symmetric_difference_update"}
FIRST_ARG = {"heappush", "heappop", "heapify", "heapreplace", "heappushpop", "insort", "insort_left", "insort_right",
             "shuffle"}  # mutators that change their first argument (`heappush(h, x)`); the others, their receiver
MAPPINGS = {"Mapping", "MutableMapping", "dict", "Dict", "defaultdict", "DefaultDict", "Counter", "OrderedDict"}
DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "popitem"}


@dataclass(frozen=True)
class Scope:
    """What a parameter handed on can be followed into: the file's functions, the class's methods;
    and the standard node classes supplied to the measured program."""
    functions: dict
    methods: dict
    supply: tuple = ()
    classes: dict = field(default_factory=dict)  # the file's classes, for `tree.update(x)` on one of them


def hint_name(p: ast.arg) -> str:
    """The class an annotation names, through Optional[...], `X | None` and quotes."""
    h = p.annotation
    for _ in range(4):
        if isinstance(h, ast.Constant) and isinstance(h.value, str):
            try:
                h = ast.parse(h.value, mode="eval").body
            except SyntaxError:
                return ""
        elif isinstance(h, ast.Subscript) and name_of(h.value) == "Optional":
            h = h.slice
        elif isinstance(h, ast.BinOp):
            h = h.left
    return h.id if isinstance(h, ast.Name) else h.attr if isinstance(h, ast.Attribute) else ""


def callee(fn, call: ast.Call, scope: Scope):
    """The function a call runs, where it is in the file: `self.m(...)`, a nested or top-level `f(...)`."""
    if isinstance(call.func, ast.Attribute) and name_of(call.func.value) == "self":
        return scope.methods.get(call.func.attr)
    if isinstance(call.func, ast.Name):
        nested = next((f for f in ast.walk(fn) if isinstance(f, FUNCS) and f.name == call.func.id and f is not fn), None)
        return nested or scope.functions.get(call.func.id)
    return None


def followed(fn, name: str, scope: Scope, read, depth: int = 2):
    """`read(fn, name)`, or where that finds nothing and `name` is handed on to a function of the
    file (`self._helper(n, roads)`, a nested `dfs(grid)`), what `read` finds in that function."""
    found = read(fn, name)
    if found or depth == 0:
        return found
    for call in ast.walk(fn):
        if not isinstance(call, ast.Call):
            continue
        handed = [i for i, a in enumerate(call.args) if name_of(a) == name]
        keyword = [k.arg for k in call.keywords if k.arg and name_of(k.value) == name]
        if not handed and not keyword:
            continue
        called = callee(fn, call, scope)
        if called is None or called is fn:
            continue
        params = fn_params(called)
        for q in [params[i].arg for i in handed if i < len(params)] + keyword:
            if got := followed(called, q, scope, read, depth - 1):
                return got
    return found


def exponent(fn, name: str) -> bool:
    """`1 << n`, `2 ** n`, `pow(2, n)`: the work is exponential in the value (a bitmask over n items)."""
    names = aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.BinOp) and (isinstance(n.op, ast.LShift) or isinstance(n.op, ast.Pow)) and \
                isinstance(n.left, ast.Constant) and n.left.value in (1, 2) and name_of(n.right) in names:
            return True
        if isinstance(n, ast.Call) and call_name(n) == "pow" and len(n.args) == 2 and \
                isinstance(n.args[0], ast.Constant) and n.args[0].value == 2 and name_of(n.args[1]) in names:
            return True
    return False


def spent(fn, name: str) -> bool:
    """`coins -= cost` with cost an element of another parameter: a budget the elements use up."""
    others = [p.arg for p in fn_params(fn) if p.arg != name]
    elems = {q: elements(fn, q) for q in others}
    for n in ast.walk(fn):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and name_of(n.target) == name:
            if any(is_element(n.value, q, elems[q]) for q in others):
                return True
    return False


def lower_end(fn, name: str) -> bool:
    """`r - l` or `r -= l` with r another parameter: l is where a range starts, not how long it is."""
    others = {p.arg for p in fn_params(fn)} - {name}
    for n in ast.walk(fn):
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub) and name_of(n.right) == name and \
                name_of(n.left) in others:
            return True
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and name_of(n.value) == name and \
                name_of(n.target) in others:
            return True
    return False


def digits(fn, name: str) -> bool:
    """A string read as a number: `int(s)`, `int(c)` of a character, `ord(c) - ord("0")`, `ord(c) - 48`."""
    if called_on(fn, name, "int"):
        return True
    elems = elements(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and call_name(n) == "int" and len(n.args) == 1 and \
                is_element(n.args[0], name, elems):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):  # `v * 10 + ord(s[i]) - ord("0")` too
            zero = n.right
            if (isinstance(zero, ast.Constant) and zero.value == 48 or isinstance(zero, ast.Call) and
                    call_name(zero) == "ord" and zero.args and isinstance(zero.args[0], ast.Constant) and
                    zero.args[0].value == "0") and \
                    any(isinstance(c, ast.Call) and call_name(c) == "ord" and c.args and
                        is_element(c.args[0], name, elems) for c in ast.walk(n.left)):
                return True
    return False


def sized_by(fn, q: str) -> set:
    """Names of the tables `fn` builds sized by `q`: `g = [[] for _ in range(q)]`, `d = [x] * q`."""
    out: set[str] = set()
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, (ast.List, ast.ListComp, ast.BinOp)):
            for m in ast.walk(n.value):
                if isinstance(m, ast.Call) and call_name(m) == "range" and any(name_of(a) == q for a in m.args) or \
                        isinstance(m, ast.BinOp) and isinstance(m.op, ast.Mult) and \
                        any(isinstance(x, ast.List) for x in (m.left, m.right)) and \
                        any(name_of(x) == q for x in (m.left, m.right)):
                    out.add(n.targets[0].id)
                    break
    return out


def indexes(fn, rows: str, q: str, scope: Scope, depth: int = 2) -> bool:
    """The rows of `rows` are unpacked into names that index a table sized by the integer `q`
    (`for u, v, w in roads: g[u][v] = w` with `g` of `range(n)` rows), in `fn` or in the function
    both are handed to."""
    unpacked: set[str] = set()
    for n in ast.walk(fn):
        target, source = unpacking(n)
        if isinstance(target, ast.Tuple) and name_of(source) == rows:
            unpacked.update(e.id for e in target.elts if isinstance(e, ast.Name))
    tables = sized_by(fn, q)
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and name_of(n.slice) in unpacked:
            base = n.value.value if isinstance(n.value, ast.Subscript) else n.value
            if name_of(base) in tables:
                return True
    if depth == 0:
        return False
    for call in ast.walk(fn):
        if not isinstance(call, ast.Call) or (called := callee(fn, call, scope)) is None or called is fn:
            continue
        params = [a.arg for a in fn_params(called)]
        at = {name_of(a): params[i] for i, a in enumerate(call.args) if i < len(params) and name_of(a) in (rows, q)}
        at.update({name_of(k.value): k.arg for k in call.keywords if k.arg and name_of(k.value) in (rows, q)})
        if rows in at and q in at and indexes(called, at[rows], at[q], scope, depth - 1):
            return True
    return False


def walks_attrs(fn, attrs: set) -> bool:
    return any(isinstance(a, ast.Attribute) and a.attr in attrs for a in ast.walk(fn))


def aliases(fn, name: str) -> set:
    out = {name}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and name_of(n.value) in out:
            out.add(n.targets[0].id)
    return out


def elements(fn, name: str) -> set:
    """Names bound to one element of `name`: `for x in name`, `x = name[i]`."""
    out = set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Name):
            it = n.iter.args[0] if isinstance(n.iter, ast.Call) and call_name(n.iter) in ("enumerate", "sorted",
                                                                                        "reversed") and n.iter.args else n.iter
            if name_of(it) == name:
                out.add(n.target.id)
        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.target, ast.Tuple) and \
                len(n.target.elts) == 2 and isinstance(n.target.elts[1], ast.Name) and \
                isinstance(n.iter, ast.Call) and call_name(n.iter) == "enumerate" and n.iter.args and \
                name_of(n.iter.args[0]) == name:  # for i, x in enumerate(name)
            out.add(n.target.elts[1].id)
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and \
                isinstance(n.value, ast.Subscript) and name_of(n.value.value) == name:
            out.add(n.targets[0].id)
        elif isinstance(n, ast.Call) and n.args and name_of(n.args[0]) == name:  # max(words, key=lambda w: ...)
            out.update(a.arg for k in n.keywords if isinstance(k.value, ast.Lambda) for a in k.value.args.args)
    return out


def is_element(node, name: str, elems: set) -> bool:
    return name_of(node) in elems or isinstance(node, ast.Subscript) and name_of(node.value) == name \
        and not isinstance(node.slice, ast.Slice)


def element_kind(fn, name: str) -> str | None:
    """"strs" where an element is used as a string (a word's methods, a comparison with text, a join),
    "floats" where compared with a float, else None."""
    elems = elements(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and is_element(n.value, name, elems) and \
                n.attr in STR_METHODS - CHAR_METHODS:
            return "strs"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "join" and \
                isinstance(n.func.value, ast.Constant) and n.args and name_of(n.args[0]) == name:
            return "strs"
        if isinstance(n, ast.Compare):
            sides = (n.left, *n.comparators)
            if any(is_element(s, name, elems) for s in sides):
                values = [s.value for s in sides if isinstance(s, ast.Constant)]
                equal = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops)  # `c in "aeiou"`: c is a character
                if equal and any(isinstance(v, str) and len(v) > 1 for v in values):
                    return "strs"
                if any(isinstance(v, float) for v in values):
                    return "floats"
    return None


def list_hint(p: ast.arg) -> str | None:
    h = p.annotation
    if isinstance(h, ast.Subscript) and name_of(h.value) in ("list", "List", "Sequence") and isinstance(h.slice, ast.Name):
        return {"int": "ints", "float": "floats", "str": "strs"}.get(h.slice.id)
    return None


def mapping_hint(p: ast.arg) -> bool:
    """An annotation naming a mapping (`Mapping[str, float]`, `dict`): its keys index it, as a list's
    positions do, and say nothing of a permutation."""
    h = p.annotation
    h = h.value if isinstance(h, ast.Subscript) else h
    return (h.id if isinstance(h, ast.Name) else h.attr if isinstance(h, ast.Attribute) else "") in MAPPINGS


def bisected(fn, name: str) -> bool:
    """The function bisects `name` or indexes it at a midpoint (a binary search)."""
    mids = midpoints(fn)
    names = aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and call_name(n).startswith(("bisect", "insort")) and n.args and \
                name_of(n.args[0]) in names:
            return True
        if isinstance(n, ast.Subscript) and name_of(n.value) in names and name_of(n.slice) in mids:
            return True
    return False


def searched_for(fn, name: str) -> bool:
    """`bisect(xs, name)`: the value looked for, not a list."""
    return any(isinstance(n, ast.Call) and call_name(n).startswith(("bisect", "insort")) and len(n.args) > 1
               and name_of(n.args[1]) == name for n in ast.walk(fn))


def called_on(fn, name: str, func: str) -> bool:
    return any(isinstance(n, ast.Call) and call_name(n) == func and n.args and name_of(n.args[0]) == name
               for n in ast.walk(fn))


def one_char_compare(fn) -> bool:
    return any(isinstance(n, ast.Compare) and any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                                                  and len(c.value) == 1 for c in (n.left, *n.comparators))
               for n in ast.walk(fn))


def dict_methods(fn, name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in DICT_METHODS and name_of(n.value) == name
               for n in ast.walk(fn))


def graph_like(fn, name: str) -> bool:
    """`for v in graph[u]` (u a name): the value at a key is walked, as adjacency lists are."""
    return any(isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Subscript)
               and name_of(n.iter.value) == name and isinstance(n.iter.slice, ast.Name) for n in ast.walk(fn))


def rows_walked(fn, name: str) -> bool:
    """`enumerate(graph)`, or `for row in graph` with the row measured or walked: the lists themselves
    are what a walk of it gives, so a list of lists (a walk of a dict gives its keys)."""
    rows = set()
    for n in ast.walk(fn):
        if isinstance(n, (ast.For, ast.comprehension)):
            if isinstance(n.iter, ast.Call) and call_name(n.iter) == "enumerate" and n.iter.args and \
                    name_of(n.iter.args[0]) == name:
                return True
            if name_of(n.iter) == name and isinstance(n.target, ast.Name):
                rows.add(n.target.id)
    return any(isinstance(n, ast.Call) and call_name(n) == "len" and n.args and name_of(n.args[0]) in rows
               or isinstance(n, (ast.For, ast.comprehension)) and name_of(n.iter) in rows for n in ast.walk(fn))


def mutates(fn, name: str) -> bool:
    """Whether the function may change the object `name` holds (then every call gets a fresh copy)."""
    names = aliases(fn, name)

    def of(node) -> bool:  # the parameter, one of its rows, or an attribute of it
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        return name_of(node) in names

    for n in ast.walk(fn):
        targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target] \
            if isinstance(n, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
        while any(isinstance(t, (ast.Tuple, ast.List, ast.Starred)) for t in targets):  # `a[i], a[j] = a[j], a[i]`
            targets = [e for t in targets for e in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else
                                                    [t.value] if isinstance(t, ast.Starred) else [t])]
        if any(isinstance(t, (ast.Subscript, ast.Attribute)) and of(t) for t in targets):
            return True
        if isinstance(n, ast.Call):
            attr = n.func.attr if isinstance(n.func, ast.Attribute) else call_name(n)
            if attr in MUTATORS and (isinstance(n.func, ast.Attribute) and of(n.func.value)
                                     or attr in FIRST_ARG and n.args and of(n.args[0])):  # not `out.append(x.val)`
                return True
    return False


def row_width(fn, name: str) -> int:
    """How many names each row of `name` is unpacked into (`for a, b in name`, `for i, (a, b) in
    enumerate(name)`, `a, b = name[i]`, also in comprehensions and over `sorted(name)`); 0: none."""
    for n in ast.walk(fn):
        target, source = unpacking(n)
        if isinstance(target, ast.Tuple) and 2 <= len(target.elts) <= 4 and name_of(source) == name and \
                all(isinstance(e, ast.Name) for e in target.elts):
            return len(target.elts)
    return 0


def unpacking(n) -> tuple:
    """(target, what one row of is unpacked) of `for a, b in xs`, `for i, (a, b) in enumerate(xs)`,
    `a, b = xs[i]`, also over `sorted(xs)`; (None, None) for any other node."""
    target, source = None, None
    if isinstance(n, (ast.For, ast.comprehension)):
        target, source = n.target, n.iter
        if isinstance(source, ast.Call) and call_name(source) == "enumerate" and source.args and \
                isinstance(target, ast.Tuple) and len(target.elts) == 2:
            target, source = target.elts[1], source.args[0]
        elif isinstance(source, ast.Call) and call_name(source) in ("sorted", "reversed") and source.args:
            source = source.args[0]
    elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.value, ast.Subscript):
        target, source = n.targets[0], n.value.value
    return target, source
