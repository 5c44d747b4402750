"""Library allocations memory counts (mem-v6): the text of a container (`str(xs)`), and a string
rebuilt around itself each turn (`s = f"{s} {x}"`, `s = sep.join([s, x])`), which grows as `s += x`."""

from __future__ import annotations

import textwrap

from rlm_lsp.python.cost_front import read

CODE = textwrap.dedent('''
    def text_of(xs):
        total = 0
        for x in xs:
            total += x
        return str(xs)


    def arrows(head):
        s = "head"
        cur = head
        while cur:
            s = " -> ".join([s, str(cur.data)])
            cur = cur.next
        return s


    def spaced(xs):
        s = ""
        for x in xs:
            s = f"{s} {x}"
        return s


    def last(xs):
        s = ""
        for x in xs:
            s = f"{x}"
        return s
''')


def memory(name: str) -> str:
    s = read(CODE, name)
    assert s is not None
    return s.text("memory")


def test_the_text_of_a_list_is_as_long_as_the_list():
    assert memory("text_of") == "n"


def test_a_string_joined_around_itself_each_turn_grows():
    assert memory("arrows") == "n"
    assert memory("spaced") == "n"


def test_a_string_set_afresh_each_turn_does_not():
    assert memory("last") == "1"
