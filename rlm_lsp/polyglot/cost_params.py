"""The cost front end's parameters: each one's kind, read from its declared type, and whether it grows.

    C++   `vector<int>& xs`, `const string& s`, `int n`, `TreeNode* root`, `vector<vector<int>> grid`
    Java  `int[] xs`, `List<Integer> xs`, `String s`, `int n`, `TreeNode root`, `int[][] grid`
    Go    `xs []int`, `s string`, `n int`, `root *TreeNode`, `grid [][]int`, `m map[int]int`

A container, a string or a tree grows with the input. An integer grows when it counts (it bounds a
loop, sizes an allocation or a recursion steps it down) and either it is the only kind of input or it
is named like a size (`SIZE_NAMES`, as the Python front end's); a small configuration parameter
(`k`, a target never looped to) stays constant. A C++ container taken by value is copied at each call.
"""

from __future__ import annotations

from dataclasses import dataclass

from rlm_lsp.polyglot.cost_library import CONTAINERS, type_kind
from rlm_lsp.polyglot.cost_syntax import field, names_in, op, text, walk

SIZE_NAMES = {"n", "m", "num", "number", "size", "length", "len", "limit", "count", "x", "steps", "bits", "value",
              "val", "upper", "max_n", "maxn", "maximum", "bound", "total", "amount", "target", "high", "end",
              "stop", "sz", "cnt"}
_INTS = {"int", "long", "short", "unsigned", "size_t", "int64_t", "int32_t", "uint64_t", "uint32_t", "ll", "LL",
         "int64", "int32", "uint", "uint64", "uint32", "Integer", "Long", "i64", "usize"}
_DECLARATORS = ("reference_declarator", "pointer_declarator", "array_declarator")


@dataclass(frozen=True)
class Param:
    name: str
    kind: str  # int, scalar, str, list, grid, node, hmap, tmap, hset, tset, deque, heap ("" unknown)
    elem: str = ""  # a list's element kind (str for a list of strings)
    by_value: bool = False  # a C++ container taken by value: copied at each call


def params(fn, language: str) -> list[Param]:
    """The parameters of a function node, in order (a Go method's receiver left out)."""
    if language == "cpp":
        d = fn.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        plist = d.child_by_field_name("parameters") if d is not None else None
    else:
        plist = fn.child_by_field_name("parameters")
    out: list[Param] = []
    for p in (plist.named_children if plist is not None else []):
        t = p.child_by_field_name("type")
        if language == "cpp":
            decl = p.child_by_field_name("declarator")
            ident, pointer, ref = _cpp_name(decl)
            if ident:
                kind, el = kind_of(t)
                if pointer and kind in ("int", "scalar"):
                    kind, el = "list", kind  # `int* a`: an array
                out.append(Param(ident, kind, el, by_value=not pointer and not ref and kind in CONTAINERS))
        elif language == "java":
            n = p.child_by_field_name("name") or next((c for c in p.named_children if c.type == "identifier"), None)
            if n is None and p.named_children:
                last = p.named_children[-1]  # a spread parameter `int... xs`
                n = last.child_by_field_name("name") if last.type == "variable_declarator" else last
            if n is not None:
                kind, el = kind_of(t)
                out.append(Param(text(n), "list" if p.type == "spread_parameter" else kind, el))
        else:
            kind, el = kind_of(t)
            if p.type == "variadic_parameter_declaration":
                kind, el = "list", kind
            for c in p.children_by_field_name("name"):
                out.append(Param(text(c), kind, el))
    return out


def kind_of(t) -> tuple[str, str]:
    """(kind, element kind) of a type node of any of the three grammars."""
    if t is None:
        return "", ""
    ty = t.type
    if ty in ("array_type", "slice_type", "implicit_length_array_type"):
        el = t.child_by_field_name("element")
        ek, _ = kind_of(el)
        dims = t.child_by_field_name("dimensions")
        if dims is not None and text(dims).count("[") >= 2 or ek in ("list", "grid"):
            return "grid", ""
        return "list", ek
    if ty == "map_type":
        return "hmap", ""
    if ty == "pointer_type":
        inner = t.named_children[-1] if t.named_children else None
        k, el = kind_of(inner)
        return ("node", "") if k in ("node", "") else (k, el)
    if ty in ("template_type", "generic_type"):
        name = t.child_by_field_name("name") or (t.named_children[0] if t.named_children else None)
        args = t.child_by_field_name("arguments") or next((c for c in t.named_children if c.type == "type_arguments"),
                                                          None)
        k = type_kind(text(name).rsplit("::", 1)[-1])
        first = args.named_children[0] if args is not None and args.named_children else None
        if first is not None and first.type == "type_descriptor":
            first = first.child_by_field_name("type")
        ek, _ = kind_of(first)
        if k == "list" and ek in ("list", "grid"):
            return "grid", ""
        return k, ek
    if ty in ("qualified_identifier", "qualified_type", "scoped_type_identifier"):
        inner = t.child_by_field_name("name") or (t.named_children[-1] if t.named_children else None)
        return kind_of(inner) if inner is not None and inner is not t else ("", "")
    if ty == "sized_type_specifier":
        return "int", ""
    name = text(t)
    if ty == "integral_type" and name == "char":
        return "scalar", ""
    if name in _INTS or ty == "integral_type":
        return "int", ""
    k = type_kind(name)
    return (k or ("scalar" if ty in ("primitive_type", "floating_point_type", "boolean_type") else "")), ""


def scales(p: Param, all_params: list[Param], fn, name: str) -> bool:
    """Whether parameter `p` of function node `fn` (named `name`) grows with the input."""
    if p.kind == "int":
        has_collection = any(q.kind in CONTAINERS + ("grid", "node") for q in all_params)
        return counts(fn, p.name, name) and (not has_collection or p.name.lower() in SIZE_NAMES)
    return p.kind in CONTAINERS + ("grid", "node")


def counts(fn, pname: str, fname: str) -> bool:
    """An integer parameter that counts: it bounds a loop, sizes an allocation, or a call of the
    function by itself steps it down (`n - 1`, `n / 2`)."""
    body = fn.child_by_field_name("body")
    if body is None:
        return False
    for n in walk(body):
        ty = n.type
        if ty in ("for_statement", "while_statement", "do_statement", "for_clause"):
            cond = n.child_by_field_name("condition")
            if cond is None and ty == "for_statement":
                cond = next((c for c in n.named_children if c.type == "binary_expression"), None)
            if cond is not None and pname in names_in(cond):
                return True
        elif ty == "range_clause" and pname in names_in(n.child_by_field_name("right")):
            return True
        elif ty in ("new_declarator", "dimensions_expr", "array_declarator") and pname in names_in(n):
            return True
        elif ty == "init_declarator" and (v := n.child_by_field_name("value")) is not None and \
                v.type == "argument_list" and pname in names_in(v):
            return True
        elif ty == "function_declarator" and n.parent is not None and n.parent.type == "declaration" and \
                pname in set(names_in(n.child_by_field_name("parameters"))) | {text(x) for x in walk(n) if
                                                                          x.type == "type_identifier"}:
            return True  # `vector<int> v(n)` read as a function's declaration
        elif ty in ("call_expression", "method_invocation"):
            f = n.child_by_field_name("function") or n.child_by_field_name("name")
            callee = text(f).rsplit(".", 1)[-1].rsplit("->", 1)[-1]
            args = n.child_by_field_name("arguments")
            if callee == "make" and args is not None and pname in names_in(args):
                return True
            if callee == fname and args is not None:
                for a in args.named_children:
                    if a.type == "binary_expression" and op(a) in ("-", "/", ">>") and \
                            text(field(a, "left")) == pname:
                        return True
    return False


def _cpp_name(decl) -> tuple[str, bool, bool]:
    """(name, through a pointer, through a reference) of a C++ parameter's declarator."""
    pointer = ref = False
    while decl is not None and decl.type in _DECLARATORS:
        pointer |= decl.type in ("pointer_declarator", "array_declarator")
        ref |= decl.type == "reference_declarator"
        nxt = decl.child_by_field_name("declarator")
        decl = nxt if nxt is not None else (decl.named_children[-1] if decl.named_children else None)
    return (text(decl) if decl is not None and decl.type == "identifier" else ""), pointer, ref
