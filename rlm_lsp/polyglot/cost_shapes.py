"""The cost front end's shapes of recursion, read from a function's tree: a memo table checked before
the work, a search that marks where it has been, the parameters a call of the function by itself
moves, and the class fields and globals (a memo table kept outside the function). Pure functions of
tree-sitter nodes.
"""

from __future__ import annotations

from rlm_lsp.polyglot.cost_library import CONTAINERS, ONE, Val
from rlm_lsp.polyglot.cost_params import kind_of
from rlm_lsp.polyglot.cost_syntax import base, field, name_of, text, walk

MEMO_CALLS = ("containsKey", "count", "find", "contains", "get", "has")


def unwrap(n):
    while n.type in ("expression_list", "parenthesized_expression") and n.named_child_count == 1:
        n = n.named_children[0]
    return n


def callee(c) -> str:
    f = c.child_by_field_name("function") or c.child_by_field_name("name")
    if f is not None and f.type in ("field_expression", "selector_expression"):
        f = f.child_by_field_name("field")
    return text(f).rsplit("::", 1)[-1]


def memoised(body, fname: str) -> bool:
    """`if (memo[n] != -1) return memo[n];`, `if (memo.containsKey(k)) return memo.get(k);`, Go's
    `if v, ok := memo[k]; ok { return v }`: a lookup guarding a return of what it looked up."""
    for s in [x for x in walk(body) if x.type == "if_statement"][:6]:
        test = [t for t in (s.child_by_field_name("condition"), s.child_by_field_name("initializer")) if t is not None]
        if any(callee(n) == fname for t in test for n in walk(t) if n.type in ("call_expression", "method_invocation")):
            continue
        tables = {name_of(base(n)) for t in test for n in walk(t)
                  if n.type in ("subscript_expression", "array_access", "index_expression") or
                  n.type in ("call_expression", "method_invocation") and callee(n) in MEMO_CALLS}
        bound = {name_of(c) for t in test if t.type == "short_var_declaration"
                 for c in (t.child_by_field_name("left").named_children if t.child_by_field_name("left") else [])}
        cons = s.child_by_field_name("consequence")
        for r in (walk(cons) if cons is not None else []):
            if r.type == "return_statement" and r.named_children:
                v = unwrap(r.named_children[0])
                while v is not None and v.type in ("subscript_expression", "array_access", "index_expression",
                                                   "call_expression", "method_invocation", "field_expression",
                                                   "selector_expression"):
                    v = base(v)
                if v is not None and (name_of(v) in tables - {""} or name_of(v) in bound - {"", "_"}):
                    return True
    return False


def marks_visits(body) -> bool:
    """A search that marks where it has been (`seen[i][j] = true`, `grid[i][j] = '0'`, `seen.insert(x)`)
    and returns when it is there again (`if (seen[i][j]) return;`): each state is entered once."""
    marked = set()
    for n in walk(body):
        if n.type in ("assignment_expression", "assignment_statement"):
            target = n.child_by_field_name("left")
            while target is not None and target.type in ("subscript_expression", "array_access", "index_expression",
                                                         "expression_list"):
                target = base(target)
                if name_of(target):
                    marked.add(name_of(target))
        elif n.type in ("call_expression", "method_invocation") and callee(n) in ("insert", "add", "emplace"):
            f = n.child_by_field_name("function")
            marked.add(name_of(base(f) if f is not None and n.type == "call_expression" else n.child_by_field_name("object")))
    checked = {name_of(x) for n in walk(body) if n.type == "if_statement" and
               any(r.type == "return_statement" for r in walk(n.child_by_field_name("consequence")))
               for x in walk(n.child_by_field_name("condition")) if x.type == "identifier"}
    return bool((marked & checked) - {""})


def moved_by_self_calls(fn, fname: str, names: list[str]) -> set[str]:
    """The parameters a call of `fn` by itself passes something else than themselves."""
    out = set()
    for c in walk(fn.child_by_field_name("body")):
        if c.type in ("call_expression", "method_invocation") and callee(c) == fname:
            args = c.child_by_field_name("arguments")
            for p, a in zip(names, args.named_children if args is not None else []):
                if text(a) != p:
                    out.add(p)
    return out


def globals_of(root, language: str) -> dict[str, Val]:
    """The kinds of a class's fields and of the file's global variables (a memo table kept outside the
    function): name -> an empty container or an integer."""
    out: dict[str, Val] = {}
    for n in walk(root):
        if n.type == "field_declaration" or n.type == "declaration" and n.parent is not None and \
                n.parent.type in ("translation_unit", "declaration_list"):
            kind, _ = kind_of(n.child_by_field_name("type"))
            for d in n.children_by_field_name("declarator"):
                name = name_of(field(d, "name", "declarator") if d.type in ("variable_declarator", "init_declarator")
                               else d)
                if name and kind in CONTAINERS:
                    out.setdefault(name, Val(length=ONE, kind=kind))
        elif n.type == "var_spec" and n.parent is not None and n.parent.parent is not None and \
                n.parent.parent.type == "source_file":
            kind, _ = kind_of(n.child_by_field_name("type"))
            for c in n.children_by_field_name("name"):
                if kind in CONTAINERS:
                    out.setdefault(text(c), Val(length=ONE, kind=kind))
    return out
