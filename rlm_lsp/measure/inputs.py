"""What to hand each function: a recipe of input kinds read from its parameters, or the user's generator.

    source -> every top-level function and method -> Plan
              per parameter: its type hint, else its kind read from use (`rlm_lsp.python.param_kinds`,
              refined as the cost analyzer refines it, `rlm_lsp.python.cost_params`), then what only
              measuring needs: the element kind of a list (ints, floats, strings), a sorted list where
              the function bisects or halves an index, a grid or a graph, a dict, the file's own node
              class for a linked list or a tree
              -> a recipe (`makers.py` builds it at each n), or a reason it cannot be built

The sizes follow the project's n (`param_kinds`): the elements of a list, the characters of a
string, the cells of a grid, the nodes of a graph, the value of an integer (its bits where the
code reads it digit by digit).  A parameter with a default is left to its default; an integer
that does not bound the work (a key, a `k` beside a list) is a constant.  `[tool.rlm.inputs]`
names a generator, `module:make` with `make(n) -> tuple of arguments`, that replaces all of it.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from rlm_lsp.python.cost_front import SIZE_NAMES
from rlm_lsp.python.cost_params import by_digits, counts, fn_params, hint_kind, is_grid, walked, with_default
from rlm_lsp.python.cost_shapes import midpoints
from rlm_lsp.python.n_powers import call_name, name_of
from rlm_lsp.python.param_kinds import CHAR_METHODS, STR_METHODS, infer

FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef)
MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault",
            "popitem", "add", "discard", "appendleft", "popleft", "heappush", "heappop", "heapify", "shuffle",
            "heapreplace", "heappushpop", "insort", "insort_left", "insort_right", "difference_update",
            "intersection_update", "symmetric_difference_update"}
DICT_METHODS = {"items", "keys", "values", "get", "setdefault", "popitem"}
WORDS = {"ints": "list of ints", "floats": "list of floats", "strs": "list of strings", "sorted_ints": "sorted list",
         "set": "set of ints", "string": "string", "digits": "string of digits", "int": "int (n = its value)",
         "bits": "int (n = its bits)", "dict": "dict", "grid": "grid", "grid_chars": "grid of chars",
         "rows": "list of rows",
         "graph_dict": "graph (dict)", "graph_list": "graph (lists)", "linked": "linked list", "tree": "tree",
         "budget": "int (a budget: n²/4)"}
SMALL_INT = 5  # an integer that does not grow (a key, a k beside a list)
STANDARD_NODES = {"ListNode": "next", "TreeNode": "left"}  # LeetCode's harness classes, supplied where not defined


@dataclass(frozen=True)
class Plan:
    function: str  # `name` or `Class.method`
    line: int
    recipe: tuple = ()  # one {"kind": ...} per argument passed
    inputs: str = ""  # the recipe in words: `xs: list of ints, k: 5`
    mutates: bool = False  # the function changes an argument: a fresh copy per call
    remake: bool = False  # fresh copies by building again (node chains too deep to deepcopy)
    generator: str | None = None  # `module:make` from [tool.rlm.inputs]
    reason: str | None = None  # why no input can be built; None when it can
    supply: tuple = ()  # LeetCode's classes the file uses but does not define (`makers.ListNode`, `makers.TreeNode`)


def plans(source: str, generators: dict[str, str] | None = None, only: str | None = None) -> list[Plan]:
    """A plan per top-level function and method (or only the one named, `name` or `Class.method`).
    SyntaxError when the source does not parse."""
    tree = ast.parse(source)
    generators = generators or {}
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    supply = supplied(tree)
    callees = {f.name: f for f in tree.body if isinstance(f, FUNCS)}
    out = []
    for owner, fn in _functions(tree):
        qualname = f"{owner.name}.{fn.name}" if owner else fn.name
        if only is not None and only not in (qualname, fn.name):
            continue
        generator = generators.get(qualname) or generators.get(fn.name)
        methods = {f.name: f for f in owner.body if isinstance(f, FUNCS)} if owner else {}
        scope = _Scope(callees, methods, supply)
        plan = _plan(fn, qualname, classes, owner, generator, scope)
        out.append(replace(plan, supply=supply) if supply and not plan.reason else plan)
    return out


@dataclass(frozen=True)
class _Scope:
    """What a parameter handed on can be followed into: the file's functions, the class's methods;
    and the standard node classes supplied to the measured program."""
    functions: dict
    methods: dict
    supply: tuple = ()


def supplied(tree: ast.Module) -> tuple:
    """LeetCode's `ListNode`/`TreeNode` where the file uses the name (an annotation, a call, a
    docstring's `:type head: ListNode`) but neither defines nor imports it: its judge's harness
    defines them, so the measured program is given the standard class (`makers.ListNode`)."""
    defined: set[str] = set()
    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.ClassDef, *FUNCS)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name):
            (defined if isinstance(node.ctx, ast.Store) else used).add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # "ListNode", or a docstring's types
            used.update(w for w in STANDARD_NODES if w in node.value)
    return tuple(w for w in STANDARD_NODES if w in used and w not in defined)


def _functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, FUNCS):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, FUNCS) and not (item.name.startswith("__") and item.name.endswith("__")):
                    yield node, item


def _plan(fn, qualname: str, classes: dict, owner: ast.ClassDef | None, generator: str | None,
          scope: _Scope | None = None) -> Plan:
    line = fn.lineno
    if owner is not None and (why := _no_instance(owner, fn)):
        return Plan(qualname, line, reason=why)
    if isinstance(fn, ast.AsyncFunctionDef):
        return Plan(qualname, line, reason="an async function: measuring runs plain calls only")
    scope = scope or _Scope({}, {})
    defaults = with_default(fn)
    documented = doc_hints(fn)
    params = [documented.get(p.arg, p) for p in fn_params(fn) if p.arg not in defaults and p not in fn.args.kwonlyargs]
    if any(p.arg not in defaults for p in fn.args.kwonlyargs):
        return Plan(qualname, line, reason="a keyword-only parameter without a default: give a generator in "
                    "[tool.rlm.inputs]")
    mutates = any(_mutates(fn, p.arg) for p in params)
    if generator:
        return Plan(qualname, line, inputs=f"generator {generator}", mutates=mutates, generator=generator)
    if not params:
        return Plan(qualname, line, reason="no parameters: nothing to grow (give a generator in [tool.rlm.inputs])")
    kinds = infer(fn, [p.arg for p in fn_params(fn)])
    collections = [p for p in params if (hint_kind(p) or kinds.get(p.arg)) not in ("int", "integer", "float", "bool")]
    recipe, words = [], []
    for p in params:
        entry = _entry(fn, p, kinds.get(p.arg, "list"), bool(collections), classes, scope)
        if isinstance(entry, str):
            return Plan(qualname, line, reason=f"parameter {p.arg}: {entry}; give a generator in [tool.rlm.inputs]")
        recipe.append(entry)
    _bound_rows(fn, params, recipe, scope)
    for p, entry in zip(params, recipe):
        bound = f" (values below {entry['bound']}, the size of {entry['by']})" if entry.get("bound") else ""
        words.append(f"{p.arg}: {WORDS.get(entry['kind'], repr(entry.get('value')))}{bound}")
    if all(e["kind"] == "const" for e in recipe):
        return Plan(qualname, line, reason="no parameter grows (each reads as a constant: "
                    + ", ".join(words) + "); give a generator in [tool.rlm.inputs]")
    remake = mutates and any(e["kind"] in ("linked", "tree") for e in recipe)
    return Plan(qualname, line, tuple(recipe), ", ".join(words), mutates, remake)


def _no_instance(owner: ast.ClassDef, fn) -> str | None:
    """Why `Class()` cannot be made to call the method on (None: it can)."""
    if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in fn.decorator_list):
        return "a static or class method: measuring calls methods on an instance"
    init = next((f for f in owner.body if isinstance(f, FUNCS) and f.name == "__init__"), None)
    if init is not None and len(fn_params(init)) > len(with_default(init)):
        return f"a method of {owner.name}, whose constructor needs arguments: measure a function that builds one"
    bases = [b for b in owner.bases if not (isinstance(b, ast.Name) and b.id == "object")]  # class C(object)
    if bases or owner.keywords or owner.decorator_list:
        return f"a method of {owner.name}, a subclass or decorated class: measure a function that builds one"
    return None


def _entry(fn, p: ast.arg, kind: str, has_collection: bool, classes: dict, scope: _Scope | None = None) -> dict | str:
    """The recipe entry for one parameter, or why none can be built."""
    name, hint = p.arg, hint_kind(p)
    scope = scope or _Scope({}, {})
    if hint in ("float", "bool"):
        return {"kind": "const", "value": 0.5 if hint == "float" else True}
    if hint == "int" or not hint and kind == "integer":
        if has_collection and _exponent(fn, name):  # `range(1 << n)` beside a list: n stays small, the list grows
            return {"kind": "const", "value": SMALL_INT}
        if has_collection and _spent(fn, name):  # `coins -= cost`: a budget the elements use up
            return {"kind": "budget"}
        if not has_collection and _lower_end(fn, name):  # `r - l`: l is where a range starts
            return {"kind": "const", "value": SMALL_INT}
        if counts(fn, name) and (not has_collection or name.lower() in SIZE_NAMES) or not has_collection:
            return {"kind": "bits" if by_digits(fn, name) else "int"}
        return {"kind": "const", "value": SMALL_INT}
    if hint == "node" or not hint and kind == "node":
        return _node(fn, name, classes, p, scope.supply)
    if hint == "str" or not hint and kind == "string":
        element = _element_kind(fn, name)
        return {"kind": "strs" if element == "strs" else "digits" if _digits(fn, name) else "string"}
    width = _followed(fn, name, scope, _row_width) if hint in ("grid", "list", "") else 0
    if width:  # `for u, v, w in edges`, `start, end = intervals[i]`: rows of a fixed width
        return {"kind": "rows", "width": width}
    if hint == "grid" or kind == "grid" and is_grid(fn, name):
        return {"kind": "grid_chars" if _one_char_compare(fn) else "grid"}
    if kind == "grid" or _graph_like(fn, name):  # graph[u] walked: adjacency lists, not rows of a grid
        dict_like = hint == "dict" or _dict_methods(fn, name)
        return {"kind": "graph_dict" if dict_like or not _rows_walked(fn, name) else "graph_list"}
    if hint == "dict" or _dict_methods(fn, name):
        return {"kind": "dict"}
    if hint in ("set",):
        return {"kind": "set"}
    if not hint and (not walked(fn, name) or _searched_for(fn, name)):
        return {"kind": "const", "value": 0}  # never read inside, or the value a bisect looks for: a key
    if _sorted(fn, name):
        return {"kind": "sorted_ints"}
    element = _list_hint(p) or _element_kind(fn, name)
    return {"kind": element or "ints"}


def _node(fn, name: str, classes: dict, p: ast.arg | None = None, supply: tuple = ()) -> dict | str:
    used = {a.attr for a in ast.walk(fn) if isinstance(a, ast.Attribute) and name_of(a.value) in _aliases(fn, name)}
    named = _hint_name(p) if p is not None else ""
    tree = named == "TreeNode" or named != "ListNode" and (
        bool(used & {"left", "right"}) or not used & {"next"} and _walks_attrs(fn, {"left", "right"}))
    want = {"left", "right"} if tree else {"next"}
    for cls in classes.values():
        attrs = {t.attr for t in ast.walk(cls) if isinstance(t, ast.Attribute) and name_of(t.value) == "self"
                 and isinstance(t.ctx, ast.Store)}
        if want <= attrs and "val" in attrs:
            return {"kind": "tree" if tree else "linked", "cls": cls.name}
    standard = "TreeNode" if tree else "ListNode"
    if standard in supply:  # LeetCode's class, given to the program: nodes of it, as its judge builds them
        return {"kind": "tree" if tree else "linked", "cls": standard}
    # no class of its own (a TreeNode imported from elsewhere): plain nodes (`makers.PlainNode`),
    # whose value answers to val, data, key, value
    return {"kind": "tree" if tree else "linked", "cls": None}


def doc_hints(fn) -> dict:
    """name -> the parameter with the type its docstring gives (`:type nums: List[int]`, the Sphinx
    style of older LeetCode solutions), for parameters without an annotation."""
    doc = ast.get_docstring(fn, clean=False) or ""
    bare = {p.arg: p for p in fn_params(fn) if p.annotation is None}
    out = {}
    for line in doc.splitlines():
        head, _, text = line.strip().partition(":type ")
        name, _, typ = text.partition(":")
        if head or name.strip() not in bare or not typ.strip():
            continue
        try:
            annotation = ast.parse(typ.strip(), mode="eval").body
        except SyntaxError:
            continue
        out[name.strip()] = ast.arg(arg=name.strip(), annotation=annotation)
    return out


def _hint_name(p: ast.arg) -> str:
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


def _callee(fn, call: ast.Call, scope: _Scope):
    """The function a call runs, where it is in the file: `self.m(...)`, a nested or top-level `f(...)`."""
    if isinstance(call.func, ast.Attribute) and name_of(call.func.value) == "self":
        return scope.methods.get(call.func.attr)
    if isinstance(call.func, ast.Name):
        nested = next((f for f in ast.walk(fn) if isinstance(f, FUNCS) and f.name == call.func.id and f is not fn), None)
        return nested or scope.functions.get(call.func.id)
    return None


def _followed(fn, name: str, scope: _Scope, read, depth: int = 2):
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
        callee = _callee(fn, call, scope)
        if callee is None or callee is fn:
            continue
        params = fn_params(callee)
        for q in [params[i].arg for i in handed if i < len(params)] + keyword:
            if got := _followed(callee, q, scope, read, depth - 1):
                return got
    return found


def _exponent(fn, name: str) -> bool:
    """`1 << n`, `2 ** n`, `pow(2, n)`: the work is exponential in the value (a bitmask over n items)."""
    names = _aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.BinOp) and (isinstance(n.op, ast.LShift) or isinstance(n.op, ast.Pow)) and \
                isinstance(n.left, ast.Constant) and n.left.value in (1, 2) and name_of(n.right) in names:
            return True
        if isinstance(n, ast.Call) and call_name(n) == "pow" and len(n.args) == 2 and \
                isinstance(n.args[0], ast.Constant) and n.args[0].value == 2 and name_of(n.args[1]) in names:
            return True
    return False


def _spent(fn, name: str) -> bool:
    """`coins -= cost` with cost an element of another parameter: a budget the elements use up."""
    others = [p.arg for p in fn_params(fn) if p.arg != name]
    elements = {q: _elements(fn, q) for q in others}
    for n in ast.walk(fn):
        if isinstance(n, ast.AugAssign) and isinstance(n.op, ast.Sub) and name_of(n.target) == name:
            if any(_is_element(n.value, q, elements[q]) for q in others):
                return True
    return False


def _lower_end(fn, name: str) -> bool:
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


def _digits(fn, name: str) -> bool:
    """A string read as a number: `int(s)`, `int(c)` of a character, `ord(c) - ord("0")`, `ord(c) - 48`."""
    if _called_on(fn, name, "int"):
        return True
    elements = _elements(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and call_name(n) == "int" and len(n.args) == 1 and \
                _is_element(n.args[0], name, elements):
            return True
        if isinstance(n, ast.BinOp) and isinstance(n.op, ast.Sub):  # `v * 10 + ord(s[i]) - ord("0")` too
            zero = n.right
            if (isinstance(zero, ast.Constant) and zero.value == 48 or isinstance(zero, ast.Call) and
                    call_name(zero) == "ord" and zero.args and isinstance(zero.args[0], ast.Constant) and
                    zero.args[0].value == "0") and \
                    any(isinstance(c, ast.Call) and call_name(c) == "ord" and c.args and
                        _is_element(c.args[0], name, elements) for c in ast.walk(n.left)):
                return True
    return False


def _sized_by(fn, q: str) -> set:
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


def _indexes(fn, rows: str, q: str, scope: _Scope, depth: int = 2) -> bool:
    """The rows of `rows` are unpacked into names that index a table sized by the integer `q`
    (`for u, v, w in roads: g[u][v] = w` with `g` of `range(n)` rows), in `fn` or in the function
    both are handed to."""
    unpacked: set[str] = set()
    for n in ast.walk(fn):
        target, source = _unpacking(n)
        if isinstance(target, ast.Tuple) and name_of(source) == rows:
            unpacked.update(e.id for e in target.elts if isinstance(e, ast.Name))
    tables = _sized_by(fn, q)
    for n in ast.walk(fn):
        if isinstance(n, ast.Subscript) and name_of(n.slice) in unpacked:
            base = n.value.value if isinstance(n.value, ast.Subscript) else n.value
            if name_of(base) in tables:
                return True
    if depth == 0:
        return False
    for call in ast.walk(fn):
        if not isinstance(call, ast.Call) or (callee := _callee(fn, call, scope)) is None or callee is fn:
            continue
        params = [a.arg for a in fn_params(callee)]
        at = {name_of(a): params[i] for i, a in enumerate(call.args) if i < len(params) and name_of(a) in (rows, q)}
        at.update({name_of(k.value): k.arg for k in call.keywords if k.arg and name_of(k.value) in (rows, q)})
        if rows in at and q in at and _indexes(callee, at[rows], at[q], scope, depth - 1):
            return True
    return False


def _bound_rows(fn, params: list, recipe: list, scope: _Scope) -> None:
    """Rows whose values index a table sized by an integer parameter (`g = [[inf] * n for _ in
    range(n)]`, then `g[u][v]` for `u, v, w in roads`) stay below that integer: where it is
    exponential (`1 << n`) and so held small, the rows' values are bounded by it; where it was
    read as a constant, it grows with n as the rows' values do."""
    rows = [i for i, e in enumerate(recipe) if e["kind"] == "rows"]
    for j, (q, e) in enumerate(zip(params, recipe)):
        if e != {"kind": "const", "value": SMALL_INT}:
            continue
        linked = [i for i in rows if _indexes(fn, params[i].arg, q.arg, scope)]
        if linked and _exponent(fn, q.arg):
            for i in linked:
                recipe[i] = {**recipe[i], "bound": e["value"], "by": q.arg}
        elif linked:
            recipe[j] = {"kind": "int"}


def _walks_attrs(fn, attrs: set) -> bool:
    return any(isinstance(a, ast.Attribute) and a.attr in attrs for a in ast.walk(fn))


def _aliases(fn, name: str) -> set:
    out = {name}
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) \
                and name_of(n.value) in out:
            out.add(n.targets[0].id)
    return out


def _elements(fn, name: str) -> set:
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


def _is_element(node, name: str, elements: set) -> bool:
    return name_of(node) in elements or isinstance(node, ast.Subscript) and name_of(node.value) == name \
        and not isinstance(node.slice, ast.Slice)


def _element_kind(fn, name: str) -> str | None:
    """"strs" where an element is used as a string (a word's methods, a comparison with text, a join),
    "floats" where compared with a float, else None."""
    elements = _elements(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Attribute) and _is_element(n.value, name, elements) and \
                n.attr in STR_METHODS - CHAR_METHODS:
            return "strs"
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "join" and \
                isinstance(n.func.value, ast.Constant) and n.args and name_of(n.args[0]) == name:
            return "strs"
        if isinstance(n, ast.Compare):
            sides = (n.left, *n.comparators)
            if any(_is_element(s, name, elements) for s in sides):
                values = [s.value for s in sides if isinstance(s, ast.Constant)]
                equal = all(isinstance(op, (ast.Eq, ast.NotEq)) for op in n.ops)  # `c in "aeiou"`: c is a character
                if equal and any(isinstance(v, str) and len(v) > 1 for v in values):
                    return "strs"
                if any(isinstance(v, float) for v in values):
                    return "floats"
    return None


def _list_hint(p: ast.arg) -> str | None:
    h = p.annotation
    if isinstance(h, ast.Subscript) and name_of(h.value) in ("list", "List", "Sequence") and isinstance(h.slice, ast.Name):
        return {"int": "ints", "float": "floats", "str": "strs"}.get(h.slice.id)
    return None


def _sorted(fn, name: str) -> bool:
    """The function bisects `name` or indexes it at a midpoint (a binary search)."""
    mids = midpoints(fn)
    names = _aliases(fn, name)
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and call_name(n).startswith(("bisect", "insort")) and n.args and \
                name_of(n.args[0]) in names:
            return True
        if isinstance(n, ast.Subscript) and name_of(n.value) in names and name_of(n.slice) in mids:
            return True
    return False


def _searched_for(fn, name: str) -> bool:
    """`bisect(xs, name)`: the value looked for, not a list."""
    return any(isinstance(n, ast.Call) and call_name(n).startswith(("bisect", "insort")) and len(n.args) > 1
               and name_of(n.args[1]) == name for n in ast.walk(fn))


def _called_on(fn, name: str, func: str) -> bool:
    return any(isinstance(n, ast.Call) and call_name(n) == func and n.args and name_of(n.args[0]) == name
               for n in ast.walk(fn))


def _one_char_compare(fn) -> bool:
    return any(isinstance(n, ast.Compare) and any(isinstance(c, ast.Constant) and isinstance(c.value, str)
                                                  and len(c.value) == 1 for c in (n.left, *n.comparators))
               for n in ast.walk(fn))


def _dict_methods(fn, name: str) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr in DICT_METHODS and name_of(n.value) == name
               for n in ast.walk(fn))


def _graph_like(fn, name: str) -> bool:
    """`for v in graph[u]` (u a name): the value at a key is walked, as adjacency lists are."""
    return any(isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Subscript)
               and name_of(n.iter.value) == name and isinstance(n.iter.slice, ast.Name) for n in ast.walk(fn))


def _rows_walked(fn, name: str) -> bool:
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


def _mutates(fn, name: str) -> bool:
    """Whether the function may change the object `name` holds (then every call gets a fresh copy)."""
    names = _aliases(fn, name)

    def of(node) -> bool:  # the parameter, one of its rows, or an attribute of it
        while isinstance(node, (ast.Subscript, ast.Attribute)):
            node = node.value
        return name_of(node) in names

    for n in ast.walk(fn):
        targets = n.targets if isinstance(n, (ast.Assign, ast.Delete)) else [n.target] \
            if isinstance(n, (ast.AugAssign, ast.AnnAssign)) else []
        if any(isinstance(t, (ast.Subscript, ast.Attribute)) and of(t) for t in targets):
            return True
        if isinstance(n, ast.Call):
            attr = n.func.attr if isinstance(n.func, ast.Attribute) else call_name(n)
            if attr in MUTATORS and (isinstance(n.func, ast.Attribute) and of(n.func.value)
                                     or n.args and of(n.args[0])):
                return True
    return False


def _row_width(fn, name: str) -> int:
    """How many names each row of `name` is unpacked into (`for a, b in name`, `for i, (a, b) in
    enumerate(name)`, `a, b = name[i]`, also in comprehensions and over `sorted(name)`); 0: none."""
    for n in ast.walk(fn):
        target, source = _unpacking(n)
        if isinstance(target, ast.Tuple) and 2 <= len(target.elts) <= 4 and name_of(source) == name and \
                all(isinstance(e, ast.Name) for e in target.elts):
            return len(target.elts)
    return 0


def _unpacking(n) -> tuple:
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
