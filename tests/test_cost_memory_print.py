"""Memory of printing (mem-v6): the growth-dev protocol captures a call's stdout in memory, so
printed text is memory that outlives the call, added up over every loop and recursive call."""

from __future__ import annotations

import textwrap

from rlm_lsp.python.cost_front import read

CODE = textwrap.dedent('''
    def show(xs):
        for x in xs:
            print(x)


    def once(xs):
        print("done")
        return len(xs)


    def preorder(root):
        if root:
            print(root.val, end=' ')
            preorder(root.left)
            preorder(root.right)


    def walk(head):
        node = head
        while node:
            print(node.val)
            node = node.next


    def line(x):
        print(x)


    def caller(xs):
        for x in xs:
            line(x)


    def rows(grid):
        for row in grid:
            print(row)
            for x in row:
                pass
''')


def memory(name: str) -> str:
    s = read(CODE, name)
    assert s is not None
    return s.text("memory")


def test_a_print_in_a_loop_keeps_a_line_per_turn():
    assert memory("show") == "n"
    assert memory("walk") == "n"


def test_one_print_keeps_one_line():
    assert memory("once") == "1"


def test_a_print_at_every_node_of_a_tree_keeps_a_line_per_node():
    assert memory("preorder") == "n"


def test_a_helper_that_prints_called_in_a_loop():
    assert memory("caller") == "n"


def test_printing_each_row_of_a_grid_keeps_its_cells():
    assert memory("rows") == "n"
