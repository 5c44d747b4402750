"""rlm_lsp.polyglot.functions: functions and methods of C++, Java and Go found with tree-sitter, and normalise."""
from __future__ import annotations

import pytest

pytest.importorskip("tree_sitter", reason="tree-sitter is not installed: pip install tree-sitter tree-sitter-cpp tree-sitter-java tree-sitter-go")

from rlm_lsp.polyglot.functions import functions, normalise  # noqa: E402

CPP = """#include <vector>
// a comment
namespace geo {
struct Point {
    int x;
    Point(int x) : x(x) {}
    int norm() const { return x * x; }
};
}
int Point::twice() const {
    return 2 * x;
}
template <class T>
T ident(T v) { return v; }
class Solution {
public:
    ListNode* reverse(ListNode* head) {
        return head;
    }
};
int main() { return 0; }
"""

JAVA = """import java.util.*;

class Solution {
    private int n;
    Solution() { n = 0; }
    public int[] twoSum(int[] nums, int target) {
        Runnable r = new Runnable() { public void run() {} };
        return new int[] {0, 1};
    }
    static class Node {
        int size() { return 1; }
    }
}
interface Shape { default double area() { return 0; } }
"""

GO = """package main

// Stack is a stack.
type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(x T) { s.items = append(s.items, x) }

func (q Queue) Len() int { return 0 }

func twoSum(nums []int, target int) []int {
	seen := func(x int) bool { return x > 0 }
	_ = seen
	return nil
}
"""


def names(src, lang):
    return [(q, a, b) for q, a, b, _ in functions(src, lang)]


def test_cpp_functions_methods_and_out_of_class_definitions():
    assert names(CPP, "cpp") == [
        ("geo.Point.Point", 6, 6), ("geo.Point.norm", 7, 7), ("Point::twice", 10, 12), ("ident", 13, 14),
        ("Solution.reverse", 17, 19), ("main", 21, 21)]
    text = {q: t for q, _, _, t in functions(CPP, "cpp")}
    assert text["ident"].startswith("template <class T>")  # the template line belongs to its function
    assert text["Solution.reverse"].endswith("}")


def test_java_methods_and_constructors_with_their_class():
    # the anonymous class's run() is part of twoSum, not a row of its own
    assert names(JAVA, "java") == [
        ("Solution.Solution", 5, 5), ("Solution.twoSum", 6, 9), ("Solution.Node.size", 11, 11), ("Shape.area", 14, 14)]


def test_go_functions_and_methods_by_receiver():
    assert names(GO, "go") == [("Stack.Push", 6, 6), ("Queue.Len", 8, 8), ("twoSum", 10, 14)]


def test_normalise_strips_comments_and_whitespace_but_not_strings():
    src = 'int f(int a)   {  // the end\n\n\n    /* block */ return a + 1; }\nconst char* s = "x  // y";\n'
    assert normalise(src, "cpp") == 'int f(int a) {\nreturn a + 1; }\nconst char* s = "x  // y";\n'
    assert normalise("class A {\n  /** doc */\n  int f() {  return 1; } // x\n}\n", "java") == \
        "class A {\nint f() { return 1; }\n}\n"
    # Go's line breaks end statements: they stay
    assert normalise("package main\n\nfunc f() int {\n\tx := 1 // one\n\treturn x\n}\n", "go") == \
        "package main\nfunc f() int {\nx := 1\nreturn x\n}\n"


def test_an_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown language 'rust'"):
        functions("fn main() {}", "rust")


def test_a_thousand_nested_parentheses_are_read_not_a_recursion_error():
    """Issue 61.7: the normaliser walks the tree in a loop."""
    pytest.importorskip("tree_sitter_cpp")
    from rlm_lsp.polyglot import functions as f
    src = "int f(int x) { return " + "(" * 1000 + "x" + ")" * 1000 + "; }\n"
    text = f.normalise(src, "cpp")
    assert text.count("(") == 1001 and text.startswith("int f(int x) { return (((")


def test_a_refused_build_leaves_no_folder_holding_the_source(tmp_path, monkeypatch):
    """Issue 61.9: a compiled build the sandbox refused left an `rlm-build-*` folder behind."""
    from training.measuring import compiled

    monkeypatch.setattr(compiled, "build_root", lambda: tmp_path / "builds")
    monkeypatch.setattr(compiled, "compiler_version", lambda language: "test")

    def refuse(*args, **kwargs):
        raise compiled.SandboxUnavailable("refusing to compile untrusted code without a sandbox")
    monkeypatch.setattr(compiled, "run_compiler", refuse)
    with pytest.raises(compiled.SandboxUnavailable):
        compiled.build("int main() { return 0; }\n", "cpp")
    assert not list(tmp_path.glob("rlm-build-*"))
