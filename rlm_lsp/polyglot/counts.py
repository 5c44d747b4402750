"""The same code counts for Python, C++, Java and Go, from tree-sitter: the polyglot baseline's features,
and what a model's `language_trees` read of a C++, Java or Go function (`rlm_lsp.runtime.language_trees`).

`counts(text, language)` -> a row of `NAMES`: node counts grouped by what they do (loops, branches,
calls, ...), the deepest loop nesting and the deepest nesting, recursion (calls of a function the text
defines), sorts and container types named, and sizes (lines, characters, leaf tokens, identifiers,
literals). Each grammar names its nodes its own way; the groups below list every language's names, so
one column means one thing in every language. Python's grammar (`tree-sitter-python`) is not a
dependency of the package; the judge installs it beside it. Moved here from `training.judging.code_counts`
(which re-exports it) so that the runtime's language trees count what their training rows counted.
"""
from __future__ import annotations

import functools
import importlib

LANGUAGES = ("python", "cpp", "java", "go")
_MODULES = {"python": "tree_sitter_python", "cpp": "tree_sitter_cpp", "java": "tree_sitter_java",
            "go": "tree_sitter_go"}
LOOPS = {"for_statement", "while_statement", "do_statement", "for_range_loop", "enhanced_for_statement"}
COMPREHENSIONS = {"list_comprehension", "set_comprehension", "dictionary_comprehension", "generator_expression"}
GROUPS = {
    "branches": {"if_statement", "conditional_expression", "ternary_expression", "switch_statement",
                 "expression_switch_statement", "type_switch_statement", "switch_expression", "match_statement",
                 "elif_clause", "case_statement", "expression_case", "switch_label"},
    "calls": {"call", "call_expression", "method_invocation"},
    "subscripts": {"subscript", "subscript_expression", "array_access", "index_expression", "slice_expression",
                   "slice"},
    "assignments": {"assignment", "augmented_assignment", "assignment_expression", "update_expression",
                    "short_var_declaration", "assignment_statement", "inc_statement", "dec_statement",
                    "init_declarator", "variable_declarator"},
    "allocations": {"new_expression", "array_creation_expression", "object_creation_expression", "list",
                    "dictionary", "set", "composite_literal", "initializer_list"},
    "returns": {"return_statement"},
    "functions": {"function_definition", "method_declaration", "function_declaration", "lambda",
                  "lambda_expression", "func_literal", "constructor_declaration"},
    "binary_ops": {"binary_expression", "binary_operator", "boolean_operator", "comparison_operator"},
}
CONTAINERS = {"vector", "map", "unordered_map", "set", "unordered_set", "dict", "defaultdict", "Counter",
              "HashMap", "HashSet", "TreeMap", "TreeSet", "ArrayList", "LinkedList", "ArrayDeque", "deque",
              "PriorityQueue", "priority_queue", "heapq", "queue", "stack", "Stack", "make", "append",
              "push_back", "emplace_back", "resize", "list"}
NAMES = (("loops", "comprehensions") + tuple(GROUPS)
         + ("loop_depth", "depth", "recursion", "sorts", "containers",
            "lines", "chars", "leaves", "identifiers", "numbers", "strings"))


@functools.cache
def _parser(language: str):
    import tree_sitter

    grammar = importlib.import_module(_MODULES[language])
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def _defined_name(node) -> str | None:
    name = node.child_by_field_name("name")
    if name is None and node.type == "function_definition":  # C++: the declarator holds the name
        d = node.child_by_field_name("declarator")
        while d is not None and d.type != "function_declarator":
            d = d.child_by_field_name("declarator")
        name = d.child_by_field_name("declarator") if d is not None else None
    if name is None:
        return None
    text = name.text.decode("utf-8", "replace")
    return text.rsplit("::", 1)[-1]


def counts(text: str, language: str) -> list[float]:
    """The row of `NAMES` for `text` in `language` (tolerant of broken code, as tree-sitter is)."""
    root = _parser(language).parse(text.encode("utf-8")).root_node
    c = dict.fromkeys(NAMES, 0.0)
    defined, called = set(), []
    stack = [(root, 0, 0)]
    while stack:
        node, depth, loops = stack.pop()
        t = node.type
        if t in LOOPS or t in COMPREHENSIONS:
            loops += 1
            c["loops" if t in LOOPS else "comprehensions"] += 1
            c["loop_depth"] = max(c["loop_depth"], loops)
        for group, types in GROUPS.items():
            if t in types:
                c[group] += 1
        if t in GROUPS["functions"]:
            name = _defined_name(node)
            if name:
                defined.add(name)
        if t in GROUPS["calls"]:
            fn = node.child_by_field_name("function") or node.child_by_field_name("name")
            if fn is not None:
                called.append(fn.text.decode("utf-8", "replace").rsplit(".", 1)[-1].rsplit("::", 1)[-1])
        c["depth"] = max(c["depth"], depth)
        if node.child_count == 0:
            c["leaves"] += 1
            word = node.text.decode("utf-8", "replace")
            if "identifier" in t:
                c["identifiers"] += 1
                if "sort" in word.lower():
                    c["sorts"] += 1
            if word in CONTAINERS:
                c["containers"] += 1
        if "string" in t and "fragment" not in t:
            c["strings"] += 1
        if t in ("integer", "float", "number_literal", "int_literal", "float_literal", "decimal_integer_literal",
                 "decimal_floating_point_literal", "hex_integer_literal"):
            c["numbers"] += 1
        for ch in node.children:
            stack.append((ch, depth + 1, loops))
    c["recursion"] = float(sum(1 for name in called if name in defined))
    c["lines"] = float(sum(1 for line in text.splitlines() if line.strip()))
    c["chars"] = float(len(text))
    return [c[n] for n in NAMES]
