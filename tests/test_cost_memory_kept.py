"""Memory held in containers the function does not own (mem-v6): an accumulator a recursive helper
fills, self's state, a module's or an enclosing function's container. What outlives a call adds up
over every loop and every call of a recursion."""

from __future__ import annotations

import textwrap

from rlm_lsp.python.cost_front import read

CODE = textwrap.dedent('''
    dist = {}


    def init(graph):
        for v in graph:
            dist[v] = 0


    def inorder(root):
        res = []

        def go(node):
            if node:
                go(node.left)
                res.append(node.val)
                go(node.right)
        go(root)
        return res


    def keys(node, out):
        if node is None:
            return
        keys(node.left, out)
        out.append(node.key)
        keys(node.right, out)


    def subsets(xs, i, path, out):
        if i == len(xs):
            return
        path.append(xs[i])
        subsets(xs, i + 1, path, out)
        path.pop()


    def left_view(root, level, res):
        if not root:
            return
        if len(res) == level:
            res.append(root.key)
        left_view(root.left, level + 1, res)
        left_view(root.right, level + 1, res)


    def collect(node, keys):
        if node is None:
            return keys
        if node.left is not None:
            keys = collect(node.left, keys)
        keys.append(node.key)
        if node.right is not None:
            keys = collect(node.right, keys)
        return keys


    class Bag:
        def __init__(self):
            self.items = []

        def fill(self, xs):
            for x in xs:
                self.items.append(x)

        def push(self, x):
            self.items.append(x)
''')


def memory(name: str) -> str:
    s = read(CODE, name)
    assert s is not None
    return s.text("memory")


def test_an_accumulator_filled_at_every_node_holds_every_node():
    assert memory("keys") == "n"


def test_an_accumulator_handed_back_by_each_call_is_still_the_callers():
    assert memory("collect") == "n"


def test_a_closure_list_filled_at_every_node():
    assert memory("inorder") == "n"


def test_a_module_dict_filled_in_a_loop():
    assert memory("init") == "n"


def test_a_path_that_is_popped_again_is_not_an_accumulator():
    assert memory("subsets") != "2ⁿ"


def test_an_append_under_a_test_of_its_own_length_is_not_one_per_node():
    assert memory("left_view") != "n"


def test_self_state_filled_in_a_loop_and_one_push():
    assert memory("Bag.fill") == "n"
    assert memory("Bag.push") == "1"


def test_adding_to_a_set_adds_one_element_not_a_list():
    code = textwrap.dedent('''
        def dfs(gr, s, path):
            if s in path:
                return False
            path.add(s)
            for each in gr.neighbors(s):
                if each not in path:
                    dfs(gr, each, path)
    ''')
    s = read(code, "dfs")
    assert s is not None and s.growth("memory") == 1.0
