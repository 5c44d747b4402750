"""The cost front end's loops: a trip count read from a loop's header and from how its body changes
the names its test reads (the Python front end's `cost_loops`, over tree-sitter nodes).

    for (i = a; i < b; i++)            the bound's size (b, and a when it counts down); `j = i + 1` reads
                                       the outer index's size; `i * i <= n` its square root
    i /= 2, i >>= 1, i *= 2, i <<= 1   halving or doubling: log of the bound
    lo = mid + 1 / hi = mid            a binary search: log of the bound
    node = node->next / node.left      the nodes of the list / a path down a tree (log n)
    while (!q.empty()) pushing to q    a worklist: the input's size
    a stack an enclosing loop pushes once a turn, popped here; a pointer set outside the enclosing
    loop and only stepped here          constant (amortised: the enclosing loop pays)
    anything else                       the function's input size, marked unknown
"""

from __future__ import annotations

from typing import Any

from rlm_lsp.cost.algebra import Cost
from rlm_lsp.polyglot.cost_library import ONE, UNKNOWN
from rlm_lsp.polyglot.cost_syntax import COMPARE, field, name_of, names_in, number, op, strip, text, walk

NODE_STEPS = {"next": "node", "Next": "node", "prev": "node", "left": "node-tree", "right": "node-tree",
              "Left": "node-tree", "Right": "node-tree"}
MIDS = ("mid", "middle", "m", "pivot", "md")
ASSIGNS = ("assignment_expression", "assignment_statement")
POPS = ("pop", "pop_back", "poll", "pollLast", "pollFirst", "removeLast", "removeFirst", "pop_front")
PUSHES = ("push", "push_back", "emplace_back", "emplace", "add", "offer", "addLast", "addFirst", "offerLast",
          "push_front", "append", "insert", "put")
EMPTY = ("empty", "isEmpty", "size", "Len", "len")


def for_trip(w, node, cond, update) -> tuple[Cost, bool, list[str]]:
    """(trip count, known, the loop's own variables) of a counted `for`; the initializer has run."""
    updates = updates_of(update) if update is not None else {}
    own = sorted(updates)
    if cond is None:
        return while_trip(w, None, node.child_by_field_name("body"))[:2] + (own,)
    sides, squared = comparisons(cond)
    bound, known = Cost.zero(), True
    for s in sides:
        if name_of(s) in own:
            continue
        size = size_of(w.ev(s))
        if size is None:
            known = False
        elif not size.is_constant():
            bound = bound.plus(size)
    for nm in own:
        size = size_of(w.env.get(nm, UNKNOWN))
        if size is not None and not size.is_constant():
            bound = bound.plus(size)
    if not known or not sides:
        return w.primary_or_one(), False, own
    if not bound.terms:
        return ONE, True, own
    if any(updates.get(nm) == "half" for nm in own):
        return bound.log(node.start_point[0] + 1), True, own
    return (bound.power(0.5) if squared else bound), True, own


def while_trip(w, cond, body) -> tuple[Cost, bool]:
    """(trip count, known) of a `while` (a `do`, a Go `for` with a test or none) read by walker `w`."""
    updates = updates_of(body) if body is not None else {}
    names = names_in(cond) if cond is not None else []
    if cond is None or strip(cond).type in ("true",) or text(strip(cond)) in ("true", "1"):
        names = sorted(updates)
    popped, pushed = _stack_calls(body)
    if w.trips and (popped & set(names)) - pushed:
        return ONE, True  # a stack the enclosing loop pushes once a turn: it pays for these pops
    for nm in _emptiness(cond):
        v = w.env.get(nm, UNKNOWN)
        if nm not in updates or nm in popped:
            return (w.primary_or_one() if nm in pushed or v.length is None else v.length), True
    mids = _midpoints(body)
    halves = [nm for nm in names if updates.get(nm) == "half" or updates.get(nm) == "mid" and mids]
    if halves:
        bound = ONE
        for nm in names:
            size = size_of(w.env.get(nm, UNKNOWN))
            if size is not None:
                bound = bound.plus(size)
        if bound.is_constant():
            bound = w.primary_or_one()
        return bound.log(), True
    nodes = [nm for nm in names if updates.get(nm, "").startswith("node")]
    if nodes:
        v = w.env.get(nodes[0], UNKNOWN)
        size = v.length if v.length is not None else w.primary_or_one()
        return (size.log() if updates[nodes[0]] == "node-tree" else size), True
    steps = [nm for nm in names if updates.get(nm) in ("step", "mid")]
    if steps and w.trips and all(w.set_at.get(nm, 0) < len(w.trips) for nm in steps):
        return ONE, True  # two pointers, a sliding window: the enclosing loop pays for its steps
    if steps:
        bound = Cost.zero()
        for nm in names:
            size = size_of(w.env.get(nm, UNKNOWN))
            if size is not None and (nm not in steps or not size.is_constant()):
                bound = bound.plus(size)
        sides, squared = comparisons(cond) if cond is not None else ([], False)
        for s in sides:
            if s.type not in ("identifier",):
                size = size_of(w.ev(s))
                if size is not None:
                    bound = bound.plus(size)
        if squared:
            bound = bound.power(0.5)
        if bound.terms:
            return bound, True
    return w.primary_or_one(), False


def size_of(v) -> Cost | None:
    """An integer's value, an iterator's container length (`it != m.end()`); None when unknown."""
    if v.mag is not None:
        return v.mag
    return v.length if v.kind == "iter" else None


def comparisons(cond) -> tuple[list, bool]:
    """The two sides of each comparison in a test (through `&&`, `||`, `!`), and whether one squares
    its index (`i * i <= n`)."""
    sides, squared = [], False
    stack = [strip(cond)]
    while stack:
        c = strip(stack.pop())
        if c is None or c.type != "binary_expression":
            continue
        o = op(c)
        left, right = field(c, "left"), field(c, "right")
        if o in ("&&", "||"):
            stack += [left, right]
        elif o in COMPARE:
            for s in (left, right):
                s = strip(s)
                if s is not None and s.type == "binary_expression" and op(s) == "*" and \
                        text(field(s, "left")) == text(field(s, "right")):
                    squared = True
                else:
                    sides.append(s)
    return [s for s in sides if s is not None], squared


def updates_of(body) -> dict[str, str]:
    """name -> how `body` changes it: "half" (/= 2, >>= 1, *= 2, <<= 1, %), "step" (++, += k),
    "mid" (set from a midpoint), "node" / "node-tree" (= x->next / = x.left)."""
    out: dict[str, str] = {}
    for n in walk(body):
        ty = n.type
        if ty in ("update_expression", "inc_statement", "dec_statement"):
            nm = name_of(field(n, "argument") or (n.named_children[0] if n.named_children else None))
            if nm:
                out.setdefault(nm, "step")
        elif ty in ASSIGNS or ty in ("init_declarator", "variable_declarator", "short_var_declaration"):
            for nm, o, v in _pairs(n):
                k = number(v)
                if o in ("/=", ">>=", "<<=", "%=") or o == "*=" and (k is None or k >= 2):
                    out[nm] = "half"
                elif o in ("+=", "-=", "^=", "|="):
                    out.setdefault(nm, "step")
                elif o == "=" and v is not None:
                    out_kind = _assigned(nm, strip(v))
                    if out_kind:
                        if out_kind != "step" or nm not in out:
                            out[nm] = out_kind
    return out


def _assigned(nm: str, v) -> str:
    if v is None:
        return ""
    if v.type == "binary_expression":
        o, left = op(v), field(v, "left")
        mentions = nm in names_in(left)
        if o in ("/", ">>") and mentions or o == "*" and mentions and (number(field(v, "right")) or 0) >= 2:
            return "half"
        if o == "%":
            return "half"  # Euclid's gcd: a, b = b, a % b
        if any(x in names_in(v) for x in MIDS) and o in ("+", "-"):
            return "mid"
        if o in ("+", "-"):
            return "step"
        return ""
    if v.type in ("field_expression", "field_access", "selector_expression"):
        f = text(field(v, "field"))
        if f in NODE_STEPS:
            return NODE_STEPS[f]
    if v.type == "identifier":
        return "mid" if text(v) in MIDS else "step"
    return ""


def _pairs(n) -> list[tuple[str, str, Any]]:
    """(name, operator, value) of each name an assignment or a declaration sets."""
    if n.type in ("init_declarator", "variable_declarator"):
        return [(name_of(field(n, "declarator", "name")), "=", field(n, "value"))]
    left, right = field(n, "left"), field(n, "right")
    o = "=" if n.type == "short_var_declaration" else op(n)
    if left is not None and left.type == "expression_list":
        ls = left.named_children
        rs = right.named_children if right is not None and right.type == "expression_list" else [right]
        return [(name_of(a), o, rs[i] if i < len(rs) else None) for i, a in enumerate(ls) if name_of(a)]
    return [(name_of(left), o, right)] if name_of(left) else []


def _midpoints(body) -> bool:
    """A midpoint computed in the body: `mid = (lo + hi) / 2`, `lo + (hi - lo) / 2`, `>> 1`."""
    for n in walk(body):
        if n.type in ASSIGNS + ("init_declarator", "variable_declarator", "short_var_declaration"):
            for _, _, v in _pairs(n):
                if v is not None and any(x.type == "binary_expression" and (op(x) == "/" and number(field(x, "right"))
                                                                            == 2 or op(x) == ">>") for x in walk(v)):
                    return True
    return False


def _emptiness(cond) -> list[str]:
    """The containers a test asks to be non-empty: `!q.empty()`, `!q.isEmpty()`, `q.size() > 0`, `len(q) > 0`."""
    out = []
    for n in (walk(cond) if cond is not None else []):
        if n.type in ("call_expression", "method_invocation"):
            f = field(n, "function", "name")
            name = text(field(f, "field")) if f is not None and f.type in ("field_expression", "selector_expression") \
                else text(f)
            if name in EMPTY:
                recv = field(f, "argument", "operand") if f is not None and n.type == "call_expression" and \
                    f.type != "identifier" else field(n, "object")
                if name == "len":
                    args = field(n, "arguments")
                    recv = args.named_children[0] if args is not None and args.named_children else None
                if name_of(recv):
                    out.append(name_of(recv))
    return out


def _stack_calls(body) -> tuple[set[str], set[str]]:
    """(names popped, names pushed) by method calls in `body`; Go's `st = st[:len(st)-1]` pops."""
    popped, pushed = set(), set()
    for n in (walk(body) if body is not None else []):
        if n.type in ("call_expression", "method_invocation"):
            f = field(n, "function")
            recv, name = (field(f, "argument", "operand"), text(field(f, "field"))) if f is not None and \
                f.type in ("field_expression", "selector_expression") else (field(n, "object"), text(field(n, "name")))
            if name_of(recv) and name in POPS:
                popped.add(name_of(recv))
            elif name_of(recv) and name in PUSHES:
                pushed.add(name_of(recv))
            elif text(f) == "append":
                args = field(n, "arguments")
                if args is not None and args.named_children and name_of(args.named_children[0]):
                    pushed.add(name_of(args.named_children[0]))
        elif n.type == "assignment_statement":
            for nm, _, v in _pairs(n):
                if v is not None and v.type == "slice_expression" and name_of(field(v, "operand")) == nm:
                    popped.add(nm)
    return popped, pushed
