"""Functions and methods of C++, Java and Go sources, found with tree-sitter (issue 51, items 2 and 3).

``functions(source, language)`` -> ``[(qualname, start_line, end_line, text)]``, in source order, lines
1-based and inclusive:

* C++: free functions, methods defined inside a class or struct (``A.f``; constructors and destructors
  too), out-of-class definitions as written (``A::f``), within their namespaces (``N.g``); a template's
  ``template<...>`` line belongs to its function.
* Java: methods and constructors of classes, interfaces, enums and records (``Outer.Inner.m``).
* Go: functions and methods; a method is named by its receiver's type (``Stack.Push``).

Lambdas, function literals and local or anonymous classes inside a body are part of their function,
not rows of their own.

``units(source, language)``: the same functions with the lines and columns an editor needs (the name,
and just after the ``{`` that opens the body, where a hint goes).

``normalise(source, language)``: the text a model reads, comments stripped and whitespace normalised:
between two tokens a gap with a line break becomes one line break (blank lines and indentation go),
any other gap one space; string and character literals and preprocessor arguments stay as written.

The grammars come from PyPI (``tree-sitter``, ``tree-sitter-cpp``, ``-java``, ``-go``: the ``polyglot``
extra); without them both functions raise ``PolyglotUnavailable`` with the install line.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

LANGUAGES = ("cpp", "java", "go")
_MODULES = {"cpp": "tree_sitter_cpp", "java": "tree_sitter_java", "go": "tree_sitter_go"}
# tokens kept whole by ``normalise``: their inside is text, not code
_ATOMIC = {"string_literal", "raw_string_literal", "char_literal", "concatenated_string", "preproc_arg",
           "system_lib_string", "interpreted_string_literal", "rune_literal", "character_literal",
           "text_block", "string_fragment"}
_COMMENTS = {"comment", "line_comment", "block_comment"}


class PolyglotUnavailable(RuntimeError):
    """tree-sitter or a language's grammar is not installed."""


@functools.cache
def _parser(language: str):
    if language not in _MODULES:
        raise ValueError("unknown language %r (one of %s)" % (language, ", ".join(LANGUAGES)))
    try:
        import importlib

        import tree_sitter
        grammar = importlib.import_module(_MODULES[language])
    except ImportError as e:
        raise PolyglotUnavailable("tree-sitter for %s is not installed (%s): pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go"
                                  % (language, e.name)) from None
    return tree_sitter.Parser(tree_sitter.Language(grammar.language()))


def parse(source: str, language: str):
    """The tree-sitter tree of ``source`` (tolerant: broken code gives ERROR nodes, never an exception)."""
    return _parser(language).parse(source.encode("utf-8"))


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _name(node, field: str = "name") -> str:
    n = node.child_by_field_name(field)
    return _text(n) if n is not None else "?"


def _row(qual: list, name: str, node, fn=None, name_node=None) -> tuple:
    """(qualname, the node whose text is the function's, the function node, the name's node)."""
    return (".".join(qual + [name]), node, fn if fn is not None else node,
            name_node if name_node is not None else (fn if fn is not None else node).child_by_field_name("name"))


# ----------------------------------------------------------------- C++

_CPP_SCOPES = {"class_specifier", "struct_specifier", "union_specifier"}


def _cpp_declarator_name(fn):
    """The node naming a function definition (``f``, ``A::f``, ``~A``, ``operator+``), or None."""
    d = fn.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":  # pointer_declarator, reference_declarator...
        d = d.child_by_field_name("declarator")
    return d.child_by_field_name("declarator") if d is not None else None


def _cpp(node, qual: list, out: list, outer=None) -> None:
    for ch in node.named_children:
        if ch.type == "function_definition":
            name = _cpp_declarator_name(ch)
            if name is not None and _text(name):
                out.append(_row(qual, _text(name), outer or ch, ch, name))
        elif ch.type == "template_declaration":
            _cpp(ch, qual, out, outer=ch)  # the template line belongs to its function
        elif ch.type in _CPP_SCOPES:
            body = ch.child_by_field_name("body")
            if body is not None:
                _cpp(body, qual + [_name(ch)], out)
        elif ch.type == "namespace_definition":
            body = ch.child_by_field_name("body")
            if body is not None:
                n = ch.child_by_field_name("name")
                _cpp(body, qual + ([_text(n)] if n is not None else []), out)
        elif ch.type in ("declaration_list", "field_declaration_list", "linkage_specification",
                         "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "access_specifier"):
            _cpp(ch, qual, out)
        elif ch.type in ("declaration", "field_declaration", "type_definition"):
            # ``struct S {...} s;`` or ``typedef struct {...} T;``: the struct is inside the declaration
            for sub in ch.named_children:
                if sub.type in _CPP_SCOPES:
                    _cpp(ch, qual, out)
                    break


# ----------------------------------------------------------------- Java

_JAVA_TYPES = {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
               "annotation_type_declaration"}


def _java(node, qual: list, out: list) -> None:
    for ch in node.named_children:
        if ch.type in ("method_declaration", "constructor_declaration", "compact_constructor_declaration"):
            out.append(_row(qual, _name(ch), ch))
        elif ch.type in _JAVA_TYPES:
            body = ch.child_by_field_name("body")
            if body is not None:
                _java(body, qual + [_name(ch)], out)
        elif ch.type in ("class_body", "interface_body", "enum_body", "enum_body_declarations",
                         "annotation_type_body", "program"):
            _java(ch, qual, out)


# ----------------------------------------------------------------- Go

def _go_receiver(method) -> str:
    recv = method.child_by_field_name("receiver")
    for p in (recv.named_children if recv is not None else []):
        t = p.child_by_field_name("type")
        while t is not None and t.type in ("pointer_type", "parenthesized_type", "generic_type"):
            nxt = t.child_by_field_name("type")
            t = nxt if nxt is not None else (t.named_children[0] if t.named_children else None)
        if t is not None:
            return _text(t)
    return "?"


def _go(node, out: list) -> None:
    for ch in node.named_children:
        if ch.type == "function_declaration":
            out.append(_row([], _name(ch), ch))
        elif ch.type == "method_declaration":
            out.append(_row([_go_receiver(ch)], _name(ch), ch))


def _found(source: str, language: str) -> list[tuple]:
    return found_in(parse(source, language).root_node, language)


def found_in(root, language: str) -> list[tuple]:
    """``[(qualname, the node whose text is the function's, the function node, the name's node)]`` of a
    parsed tree, in source order (the cost front end reads the tree it parsed once)."""
    out: list = []
    if language == "cpp":
        _cpp(root, [], out)
    elif language == "java":
        _java(root, [], out)
    else:
        _go(root, out)
    return sorted(out, key=lambda r: (r[1].start_point[0], r[1].end_point[0]))


def functions(source: str, language: str) -> list[tuple[str, int, int, str]]:
    """``[(qualname, start_line, end_line, text)]`` of the functions and methods of ``source``."""
    return [(qual, node.start_point[0] + 1, node.end_point[0] + 1, _text(node))
            for qual, node, _fn, _name_node in _found(source, language)]


@dataclass(frozen=True)
class Unit:
    """One function where an editor needs it: lines 0-based, columns in code points (not bytes)."""

    qualname: str
    name: str  # as written on its line (``A::f`` for an out-of-class definition)
    text: str  # what ``functions`` gives: the model reads ``normalise(text, language)``
    start_line: int  # the first line (a template's ``template<...>``, a Java annotation)
    end_line: int
    name_line: int
    name_col: int
    header_end_line: int  # just after the ``{`` that opens the body (the end, for a body-less declaration)
    header_end_col: int


def units(source: str, language: str) -> list[Unit]:
    """The rows of ``functions`` with the positions an editor places a hint and a hover at."""
    lines = source.encode("utf-8").split(b"\n")

    def col(point) -> int:
        row, byte = point
        return len(lines[row][:byte].decode("utf-8", "replace")) if row < len(lines) else 0

    out = []
    for qual, node, fn, name_node in _found(source, language):
        named = name_node if name_node is not None else fn
        body = fn.child_by_field_name("body")
        brace = (body.start_point[0], body.start_point[1] + 1) if body is not None else fn.end_point
        out.append(Unit(qual, _text(named) if name_node is not None else qual.rsplit(".", 1)[-1], _text(node),
                        node.start_point[0], node.end_point[0], named.start_point[0], col(named.start_point),
                        brace[0], col(brace)))
    return out


# ----------------------------------------------------------------- normalise

def _tokens(root, out: list) -> None:
    """The leaf tokens under `root` in source order, comments left out; a loop, not a recursion, so
    1,000 nested parentheses read like any other code (issue 61.7)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type in _COMMENTS:
            continue
        if node.child_count == 0 or node.type in _ATOMIC:
            if node.end_byte > node.start_byte:  # tree-sitter's MISSING nodes are empty
                out.append((node.start_byte, node.end_byte))
            continue
        stack.extend(reversed(node.children))


def normalise(source: str, language: str) -> str:
    """``source`` without comments, one space between tokens on a line, one line break between lines."""
    data = source.encode("utf-8")
    toks: list = []
    _tokens(parse(source, language).root_node, toks)
    parts, prev = [], None
    for start, end in toks:
        if prev is not None and start > prev:
            gap = data[prev:start]
            parts.append(b"\n" if b"\n" in gap else b" ")
        elif prev is not None and start < prev:
            continue  # an atomic token's inside, already written
        parts.append(data[start:end])
        prev = end
    return b"".join(parts).decode("utf-8", "replace") + ("\n" if parts else "")
