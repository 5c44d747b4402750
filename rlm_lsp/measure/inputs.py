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
from dataclasses import dataclass

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
         "graph_dict": "graph (dict)", "graph_list": "graph (lists)", "linked": "linked list", "tree": "tree"}
SMALL_INT = 5  # an integer that does not grow (a key, a k beside a list)


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


def plans(source: str, generators: dict[str, str] | None = None, only: str | None = None) -> list[Plan]:
    """A plan per top-level function and method (or only the one named, `name` or `Class.method`).
    SyntaxError when the source does not parse."""
    tree = ast.parse(source)
    generators = generators or {}
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    out = []
    for owner, fn in _functions(tree):
        qualname = f"{owner.name}.{fn.name}" if owner else fn.name
        if only is not None and only not in (qualname, fn.name):
            continue
        generator = generators.get(qualname) or generators.get(fn.name)
        plan = _plan(fn, qualname, classes, owner, generator)
        out.append(plan)
    return out


def _functions(tree: ast.Module):
    for node in tree.body:
        if isinstance(node, FUNCS):
            yield None, node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, FUNCS) and not (item.name.startswith("__") and item.name.endswith("__")):
                    yield node, item


def _plan(fn, qualname: str, classes: dict, owner: ast.ClassDef | None, generator: str | None) -> Plan:
    line = fn.lineno
    if owner is not None and (why := _no_instance(owner, fn)):
        return Plan(qualname, line, reason=why)
    if isinstance(fn, ast.AsyncFunctionDef):
        return Plan(qualname, line, reason="an async function: measuring runs plain calls only")
    defaults = with_default(fn)
    params = [p for p in fn_params(fn) if p.arg not in defaults and p not in fn.args.kwonlyargs]
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
        entry = _entry(fn, p, kinds.get(p.arg, "list"), bool(collections), classes)
        if isinstance(entry, str):
            return Plan(qualname, line, reason=f"parameter {p.arg}: {entry}; give a generator in [tool.rlm.inputs]")
        recipe.append(entry)
        words.append(f"{p.arg}: {WORDS.get(entry['kind'], repr(entry.get('value')))}")
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


def _entry(fn, p: ast.arg, kind: str, has_collection: bool, classes: dict) -> dict | str:
    """The recipe entry for one parameter, or why none can be built."""
    name, hint = p.arg, hint_kind(p)
    if hint in ("float", "bool"):
        return {"kind": "const", "value": 0.5 if hint == "float" else True}
    if hint == "int" or not hint and kind == "integer":
        if counts(fn, name) and (not has_collection or name.lower() in SIZE_NAMES) or not has_collection:
            return {"kind": "bits" if by_digits(fn, name) else "int"}
        return {"kind": "const", "value": SMALL_INT}
    if hint == "node" or not hint and kind == "node":
        return _node(fn, name, classes)
    if hint == "str" or not hint and kind == "string":
        element = _element_kind(fn, name)
        return {"kind": "strs" if element == "strs" else "digits" if _called_on(fn, name, "int") else "string"}
    width = _row_width(fn, name) if hint in ("grid", "list", "") else 0
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


def _node(fn, name: str, classes: dict) -> dict | str:
    used = {a.attr for a in ast.walk(fn) if isinstance(a, ast.Attribute) and name_of(a.value) in _aliases(fn, name)}
    tree = bool(used & {"left", "right"}) or not used & {"next"} and _walks_attrs(fn, {"left", "right"})
    want = {"left", "right"} if tree else {"next"}
    for cls in classes.values():
        attrs = {t.attr for t in ast.walk(cls) if isinstance(t, ast.Attribute) and name_of(t.value) == "self"
                 and isinstance(t.ctx, ast.Store)}
        if want <= attrs and "val" in attrs:
            return {"kind": "tree" if tree else "linked", "cls": cls.name}
    # no class of its own (a TreeNode imported from elsewhere): plain nodes (`makers.PlainNode`),
    # whose value answers to val, data, key, value
    return {"kind": "tree" if tree else "linked", "cls": None}


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
        if isinstance(target, ast.Tuple) and 2 <= len(target.elts) <= 4 and name_of(source) == name and \
                all(isinstance(e, ast.Name) for e in target.elts):
            return len(target.elts)
    return 0
