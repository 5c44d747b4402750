"""The cost front end's view of C++, Java and Go trees: one table per language from tree-sitter node
types to the roles the walker reads (a loop, a call, an index), and small helpers over nodes.

The three grammars name the same things differently (`subscript_expression`, `array_access`,
`index_expression`); the walker asks for the role, never the type, so one walker serves all three.
Everything here is iterative (a stack, a cursor), so a tree a thousand levels deep costs no
recursion; `too_deep` tells the front end to refuse such a tree before it walks it.
"""

from __future__ import annotations

from collections.abc import Iterator

STATEMENTS = {
    "cpp": {"compound_statement": "block", "for_statement": "for", "for_range_loop": "foreach",
            "while_statement": "while", "do_statement": "do", "if_statement": "if", "return_statement": "return",
            "expression_statement": "expr", "declaration": "decl", "break_statement": "exit",
            "continue_statement": "skip", "throw_statement": "return", "switch_statement": "nest",
            "case_statement": "nest", "try_statement": "nest", "catch_clause": "nest", "labeled_statement": "nest",
            "else_clause": "nest", "condition_clause": "expr"},
    "java": {"block": "block", "for_statement": "for", "enhanced_for_statement": "foreach",
             "while_statement": "while", "do_statement": "do", "if_statement": "if", "return_statement": "return",
             "expression_statement": "expr", "local_variable_declaration": "decl", "break_statement": "exit",
             "continue_statement": "skip", "throw_statement": "return", "switch_expression": "nest",
             "switch_statement": "nest", "switch_block": "nest", "switch_block_statement_group": "nest",
             "switch_rule": "nest", "try_statement": "nest", "try_with_resources_statement": "nest",
             "catch_clause": "nest", "finally_clause": "nest", "labeled_statement": "nest",
             "synchronized_statement": "nest", "local_class_declaration": "skip", "class_declaration": "skip",
             "assert_statement": "expr", "yield_statement": "expr"},
    "go": {"block": "block", "statement_list": "block", "for_statement": "gofor", "if_statement": "if",
           "return_statement": "return", "expression_statement": "expr", "short_var_declaration": "decl",
           "var_declaration": "decl", "const_declaration": "skip", "assignment_statement": "assign",
           "inc_statement": "assign", "dec_statement": "assign", "break_statement": "exit",
           "continue_statement": "skip", "expression_switch_statement": "nest", "type_switch_statement": "nest",
           "expression_case": "nest", "default_case": "nest", "type_case": "nest", "labeled_statement": "nest",
           "defer_statement": "expr", "go_statement": "expr", "select_statement": "nest",
           "communication_case": "nest", "send_statement": "expr", "type_declaration": "skip"},
}

EXPRESSIONS = {
    "cpp": {"identifier": "name", "number_literal": "num", "true": "num", "false": "num", "nullptr": "num",
            "null": "num", "string_literal": "str", "raw_string_literal": "str", "concatenated_string": "str",
            "char_literal": "char", "call_expression": "call", "field_expression": "field",
            "subscript_expression": "index", "binary_expression": "binary", "unary_expression": "unary",
            "pointer_expression": "unary", "update_expression": "update", "assignment_expression": "assign",
            "parenthesized_expression": "paren", "cast_expression": "cast", "new_expression": "new",
            "conditional_expression": "ternary", "lambda_expression": "lambda", "this": "this",
            "initializer_list": "list", "qualified_identifier": "name", "sizeof_expression": "num",
            "condition_clause": "paren", "comma_expression": "comma", "delete_expression": "unary"},
    "java": {"identifier": "name", "decimal_integer_literal": "num", "hex_integer_literal": "num",
             "binary_integer_literal": "num", "octal_integer_literal": "num", "decimal_floating_point_literal": "num",
             "true": "num", "false": "num", "null_literal": "num", "string_literal": "str", "text_block": "str",
             "character_literal": "char", "method_invocation": "call", "field_access": "field",
             "array_access": "index", "binary_expression": "binary", "unary_expression": "unary",
             "update_expression": "update", "assignment_expression": "assign", "parenthesized_expression": "paren",
             "cast_expression": "cast", "array_creation_expression": "new", "object_creation_expression": "new",
             "ternary_expression": "ternary", "lambda_expression": "lambda", "method_reference": "lambda",
             "this": "this", "array_initializer": "list", "instanceof_expression": "num",
             "class_literal": "num"},
    "go": {"identifier": "name", "int_literal": "num", "float_literal": "num", "imaginary_literal": "num",
           "true": "num", "false": "num", "nil": "num", "iota": "num", "interpreted_string_literal": "str",
           "raw_string_literal": "str", "rune_literal": "char", "call_expression": "call",
           "selector_expression": "field", "index_expression": "index", "slice_expression": "slice",
           "binary_expression": "binary", "unary_expression": "unary", "parenthesized_expression": "paren",
           "type_conversion_expression": "cast", "type_assertion_expression": "cast", "composite_literal": "list",
           "func_literal": "lambda", "inc_statement": "update", "dec_statement": "update",
           "expression_list": "comma"},
}

# A branch that ends in one of these leaves the loop around it: what it does runs once, not once a turn.
EXITS = {"return_statement", "break_statement", "throw_statement"}
COMPARE = {"<", "<=", ">", ">=", "!=", "=="}
BASE_FIELDS = ("argument", "object", "operand", "array", "value")


def text(node) -> str:
    return node.text.decode("utf-8", "replace") if node is not None else ""


def field(node, *names: str):
    """The first of `names` that `node` has as a field (the grammars name one slot differently)."""
    for name in names:
        n = node.child_by_field_name(name)
        if n is not None:
            return n
    return None


def base(node):
    """The receiver of a field access or an index, the operand of a unary or cast."""
    n = field(node, *BASE_FIELDS)
    if n is None and node.named_children:
        n = node.named_children[0]
    return n


def op(node) -> str:
    """The operator of a binary, unary, update or assignment node (`+=`, `++`, `<`)."""
    o = node.child_by_field_name("operator")
    if o is not None:
        return o.type
    for c in node.children:
        if not c.is_named:
            return c.type
    return ""


def name_of(node) -> str:
    """The name an identifier, `this->x`, `this.x` or a qualified name stands for ("" for others)."""
    if node is None:
        return ""
    if node.type in ("identifier", "field_identifier", "type_identifier", "package_identifier"):
        return text(node)
    if node.type == "qualified_identifier":
        return text(node).rsplit("::", 1)[-1]
    if node.type in ("field_expression", "field_access", "selector_expression"):
        b = base(node)
        if b is not None and b.type == "this":
            return name_of(field(node, "field"))
    if node.type in ("parenthesized_expression", "expression_list") and node.named_child_count == 1:
        return name_of(node.named_children[0])
    return ""


def strip(node):
    """Through parentheses and casts to the expression inside."""
    while node is not None and node.type in ("parenthesized_expression", "cast_expression", "condition_clause") \
            and node.named_children:
        node = field(node, "value") or node.named_children[-1]
    return node


def number(node) -> int | None:
    """The value of an integer literal (`0`, `1L`, `-1`), None for anything else."""
    node = strip(node)
    if node is None:
        return None
    if node.type in ("unary_expression",) and op(node) == "-":
        v = number(base(node))
        return -v if v is not None else None
    t = text(node).rstrip("lLuU")
    try:
        return int(t, 0) if node.type in ("number_literal", "int_literal", "decimal_integer_literal",
                                          "hex_integer_literal") else None
    except ValueError:
        return None


def walk(node) -> Iterator:
    """Every node under `node` (itself included), depth first, without recursion."""
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def names_in(node) -> list[str]:
    """The identifiers under `node`, sorted (the first decides some trips; a set's order would not be stable)."""
    return sorted({text(n) for n in walk(node) if n.type == "identifier"}) if node is not None else []


def too_deep(root, cap: int) -> bool:
    """True when some node of the tree is more than `cap` levels down (read with a cursor, no recursion)."""
    c = root.walk()
    depth = 0
    while True:
        if c.goto_first_child():
            depth += 1
            if depth > cap:
                return True
            continue
        while not c.goto_next_sibling():
            if not c.goto_parent():
                return False
            depth -= 1


def statements(node) -> list:
    """The statements of a block, or the one statement an unbraced branch or loop body is."""
    if node is None:
        return []
    if node.type in ("compound_statement", "block", "statement_list"):
        return [c for c in node.named_children if "comment" not in c.type]
    return [node]
