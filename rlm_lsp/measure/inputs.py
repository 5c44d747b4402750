"""What to hand each function: a recipe of input kinds read from its parameters, or the user's generator.

    source -> every top-level function and method -> Plan
              per parameter: its type hint, else its kind read from use (`rlm_lsp.python.param_kinds`,
              refined as the cost analyzer refines it, `rlm_lsp.python.cost_params`), then what only
              measuring needs: the element kind of a list (ints, floats, strings), a sorted list where
              the function bisects or halves an index, a permutation where its elements are used as
              positions (in itself, a table of its length, a Fenwick tree), a grid or a graph, a dict, the file's own node
              class for a linked list or a tree (each read from the function's syntax tree, `uses.py`)
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

from rlm_lsp.measure import permutations, uses
from rlm_lsp.measure.uses import FUNCS
from rlm_lsp.python.cost_front import SIZE_NAMES
from rlm_lsp.python.cost_params import by_digits, counts, fn_params, hint_kind, is_grid, walked, with_default
from rlm_lsp.python.n_powers import name_of
from rlm_lsp.python.param_kinds import infer

WORDS = {"ints": "list of ints", "floats": "list of floats", "strs": "list of strings", "sorted_ints": "sorted list",
         "set": "set of ints", "string": "string", "digits": "string of digits", "int": "int (n = its value)",
         "bits": "int (n = its bits)", "dict": "dict", "grid": "grid", "grid_chars": "grid of chars",
         "rows": "list of rows",
         "graph_dict": "graph (dict)", "graph_list": "graph (lists)", "linked": "linked list", "tree": "tree",
         "budget": "int (a budget: n²/4)", "permutation": "permutation of 0..n-1"}
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
        scope = uses.Scope(callees, methods, supply, classes)
        plan = _plan(fn, qualname, classes, owner, generator, scope)
        out.append(replace(plan, supply=supply) if supply and not plan.reason else plan)
    return out


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
          scope: uses.Scope | None = None) -> Plan:
    line = fn.lineno
    if owner is not None and (why := _no_instance(owner, fn)):
        return Plan(qualname, line, reason=why)
    if isinstance(fn, ast.AsyncFunctionDef):
        return Plan(qualname, line, reason="an async function: measuring runs plain calls only")
    scope = scope or uses.Scope({}, {})
    defaults = with_default(fn)
    documented = doc_hints(fn)
    params = [documented.get(p.arg, p) for p in fn_params(fn) if p.arg not in defaults and p not in fn.args.kwonlyargs]
    if any(p.arg not in defaults for p in fn.args.kwonlyargs):
        return Plan(qualname, line, reason="a keyword-only parameter without a default: give a generator in "
                    "[tool.rlm.inputs]")
    mutates = any(uses.followed(fn, p.arg, scope, uses.mutates) for p in params)  # also in a helper it hands p to
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
        word = "permutation of 1..n" if entry == {"kind": "permutation", "base": 1} else \
            WORDS.get(entry["kind"], repr(entry.get("value")))
        words.append(f"{p.arg}: {word}{bound}")
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


def _entry(fn, p: ast.arg, kind: str, has_collection: bool, classes: dict,
           scope: uses.Scope | None = None) -> dict | str:
    """The recipe entry for one parameter, or why none can be built."""
    name, hint = p.arg, hint_kind(p)
    scope = scope or uses.Scope({}, {})
    if hint in ("float", "bool"):
        return {"kind": "const", "value": 0.5 if hint == "float" else True}
    if hint == "int" or not hint and kind == "integer":
        if has_collection and uses.exponent(fn, name):  # `range(1 << n)` beside a list: n stays small, the list grows
            return {"kind": "const", "value": SMALL_INT}
        if has_collection and uses.spent(fn, name):  # `coins -= cost`: a budget the elements use up
            return {"kind": "budget"}
        if not has_collection and uses.lower_end(fn, name):  # `r - l`: l is where a range starts
            return {"kind": "const", "value": SMALL_INT}
        if counts(fn, name) and (not has_collection or name.lower() in SIZE_NAMES) or not has_collection:
            return {"kind": "bits" if by_digits(fn, name) else "int"}
        return {"kind": "const", "value": SMALL_INT}
    if hint == "node" or not hint and kind == "node":
        return _node(fn, name, classes, p, scope.supply)
    if hint == "str" or not hint and kind == "string":
        element = uses.element_kind(fn, name)
        return {"kind": "strs" if element == "strs" else "digits" if uses.digits(fn, name) else "string"}
    width = uses.followed(fn, name, scope, uses.row_width) if hint in ("grid", "list", "") else 0
    if width:  # `for u, v, w in edges`, `start, end = intervals[i]`: rows of a fixed width
        return {"kind": "rows", "width": width}
    if hint == "grid" or kind == "grid" and is_grid(fn, name):
        return {"kind": "grid_chars" if uses.one_char_compare(fn) else "grid"}
    if kind == "grid" or uses.graph_like(fn, name):  # graph[u] walked: adjacency lists, not rows of a grid
        dict_like = hint == "dict" or uses.dict_methods(fn, name)
        return {"kind": "graph_dict" if dict_like or not uses.rows_walked(fn, name) else "graph_list"}
    if hint == "dict" or uses.dict_methods(fn, name):
        return {"kind": "dict"}
    if hint in ("set",):
        return {"kind": "set"}
    if not hint and (not walked(fn, name) or uses.searched_for(fn, name)):
        return {"kind": "const", "value": 0}  # never read inside, or the value a bisect looks for: a key
    if uses.bisected(fn, name):
        return {"kind": "sorted_ints"}
    element = uses.list_hint(p) or uses.element_kind(fn, name)
    if element in (None, "ints") and not uses.mapping_hint(p) and (found := uses.followed(fn, name, scope, lambda f, q: permutations.permuted(f, q, scope))):
        return {"kind": "permutation", "base": found["base"]}  # `seen[perm[j]]`, `nums[x - 1]`, a Fenwick `update(x)`
    return {"kind": element or "ints"}


def _node(fn, name: str, classes: dict, p: ast.arg | None = None, supply: tuple = ()) -> dict | str:
    used = {a.attr for a in ast.walk(fn) if isinstance(a, ast.Attribute) and name_of(a.value) in uses.aliases(fn, name)}
    named = uses.hint_name(p) if p is not None else ""
    tree = named == "TreeNode" or named != "ListNode" and (
        bool(used & {"left", "right"}) or not used & {"next"} and uses.walks_attrs(fn, {"left", "right"}))
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


def _bound_rows(fn, params: list, recipe: list, scope: uses.Scope) -> None:
    """Rows whose values index a table sized by an integer parameter (`g = [[inf] * n for _ in
    range(n)]`, then `g[u][v]` for `u, v, w in roads`) stay below that integer: where it is
    exponential (`1 << n`) and so held small, the rows' values are bounded by it; where it was
    read as a constant, it grows with n as the rows' values do."""
    rows = [i for i, e in enumerate(recipe) if e["kind"] == "rows"]
    for j, (q, e) in enumerate(zip(params, recipe)):
        if e != {"kind": "const", "value": SMALL_INT}:
            continue
        linked = [i for i in rows if uses.indexes(fn, params[i].arg, q.arg, scope)]
        if linked and uses.exponent(fn, q.arg):
            for i in linked:
                recipe[i] = {**recipe[i], "bound": e["value"], "by": q.arg}
        elif linked:
            recipe[j] = {"kind": "int"}
