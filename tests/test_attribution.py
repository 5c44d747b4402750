"""Which statements drive a value: the statement split (rlm_lsp.python.leave_out), the ranking
(rlm_lsp.runtime.attribution), the hover's line and `rlm predict --why`; on the shipped model, functions
whose answer is known (an n×n table built in one statement, a loop nest doing the work)."""

from __future__ import annotations

import ast
import json
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from rlm_lsp.python.leave_out import CAP, leave_each_out
from rlm_lsp.runtime.attribution import Attribution, Attributor, Effect, attribute

SHIPPED = Path(__file__).resolve().parents[1] / "rlm_lsp" / "models" / "default"


def code(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def lines_and_texts(variants):
    return [(s.line, s.end_line, s.text) for s, _ in variants.items]


# -- the split ----------------------------------------------------------------------------------


NESTED = code('''
    def f(xs):
        """Docstring: not a statement to leave out."""
        total = 0
        for x in xs:
            if x > 0:
                total += x
            else:
                total -= 1
        try:
            y = 1 / total
        except ZeroDivisionError:
            y = 0
        finally:
            done = True
        return y
''')


def test_statements_in_source_order_outer_before_inner_docstring_skipped():
    assert lines_and_texts(leave_each_out(NESTED)) == [
        (3, 3, "total = 0"),
        (4, 8, "for x in xs:"),
        (5, 8, "if x > 0:"),
        (6, 6, "total += x"),
        (8, 8, "total -= 1"),
        (9, 14, "try:"),
        (10, 10, "y = 1 / total"),
        (12, 12, "y = 0"),
        (14, 14, "done = True"),
        (15, 15, "return y"),
    ]


def test_each_variant_parses_and_lacks_only_its_statement():
    variants = leave_each_out(NESTED)
    for _, variant in variants.items:
        assert len(ast.parse(variant).body) == 1  # never a syntax error
    kinds = {s.line: [type(n).__name__ for n in ast.parse(v).body[0].body] for s, v in variants.items}
    assert kinds[4] == ["Expr", "Assign", "Try", "Return"]  # the loop and its body gone, the docstring kept
    assert kinds[3] == ["Expr", "For", "Try", "Return"]
    assert kinds[15] == ["Expr", "Assign", "For", "Try"]
    inner = {s.line: v for s, v in variants.items}[10]
    assert "y = 1 / total" not in inner and "y = 0" in inner and "done = True" in inner


def test_a_block_left_empty_gets_pass():
    variants = dict((s.line, v) for s, v in leave_each_out(NESTED).items)
    assert "if x > 0:\n            pass\n        else:" in variants[6]  # the if's only statement
    assert "else:\n            pass" in variants[8]
    only = code('''
        def g(n):
            """Only a docstring is left."""
            return n
    ''')
    assert leave_each_out(only).items == ()  # its only statement: without it nothing is left to compare


def test_decorators_count_as_lines_but_are_no_statements():
    decorated = code('''
        @functools.cache
        @other(1)
        def fib(n):
            n = int(n)
            return n if n < 2 else fib(n - 1) + fib(n - 2)
    ''')
    (statement, variant), _ = leave_each_out(decorated).items
    assert (statement.line, statement.text) == (4, "n = int(n)")
    assert variant.startswith("@functools.cache\n@other(1)\ndef fib(n):\n    return n if n < 2")


def test_async_functions_and_their_blocks():
    text = code('''
        async def fetch(urls, session):
            out = []
            async with session:
                async for u in urls:
                    out.append(await u)
            return out
    ''')
    assert lines_and_texts(leave_each_out(text)) == [
        (2, 2, "out = []"), (3, 5, "async with session:"), (4, 5, "async for u in urls:"),
        (5, 5, "out.append(await u)"), (6, 6, "return out"),
    ]


def test_nested_def_and_match_cases():
    text = code('''
        def outer(cmd):
            def inner():
                """Inner docstring."""
                return 1
            match cmd:
                case "a":
                    x = inner()
                case _:
                    x = 0
            return x
    ''')
    found = lines_and_texts(leave_each_out(text))
    assert [line for line, _, _ in found] == [2, 4, 5, 7, 9, 10]
    for _, variant in leave_each_out(text).items:
        ast.parse(variant)


def test_the_cap_keeps_the_first_statements_and_says_how_many_there_are():
    text = "def long(x):\n" + "".join(f"    x{i} = {i}\n" for i in range(55))
    variants = leave_each_out(text)
    assert len(variants.items) == CAP == 40 and variants.total == 55
    assert variants.items[-1][0].line == 41
    assert len(leave_each_out(text, cap=5).items) == 5


def test_long_statement_text_is_cut():
    text = "def f():\n    x = 1\n    return " + " + ".join(f"v{i}" for i in range(40)) + "\n"
    _, (statement, _) = leave_each_out(text).items
    assert len(statement.text) <= 48 and statement.text.endswith("…")


@pytest.mark.parametrize("text", ["def broken(:\n    pass\n", "x = 1\n", "", "class C:\n    y = 2\n"])
def test_no_function_or_no_parse_gives_nothing(text):
    assert leave_each_out(text).items == () and leave_each_out(text).total == 0


# -- the ranking, with a predictor whose answer is set --------------------------------------------


@dataclass
class Value:
    value: float


class Scripted:
    """memory: 1000 bytes, or 100 without a `table`; latency: 10 ms, or 1 without the `for`."""

    def __init__(self):
        self.calls = []

    def predict(self, codes, language="python", context=None):
        self.calls.append(list(codes))
        return [{"memory": Value(100.0 if "table" not in c else 1000.0),
                 "latency": Value(1.0 if "for " not in c else 10.0)} for c in codes]


SCRIPTED = code('''
    def f(n):
        a = 1
        table = [0] * n
        for i in range(n):
            a += i
        return a
''')


def test_attribute_ranks_the_statement_whose_removal_lowers_the_value_most():
    found = attribute(Scripted(), SCRIPTED, leave_each_out(SCRIPTED))
    memory, latency = found.effects["memory"], found.effects["latency"]
    assert [e.part.line for e in memory] == [3]  # nothing else lowers it: only drops are listed
    assert memory[0].drop == pytest.approx(0.9)
    assert [e.part.text for e in latency] == ["for i in range(n):"]
    assert (found.tried, found.total) == (5, 5)


def test_attribute_predicts_once_in_one_batch_and_the_attributor_caches_by_text():
    predictor = Scripted()
    attributor = Attributor(predictor, leave_each_out)
    first = attributor(SCRIPTED)
    assert attributor(SCRIPTED) is first and attributor.cached(SCRIPTED) is first
    assert len(predictor.calls) == 1 and len(predictor.calls[0]) == 6  # the code and its 5 variants
    assert attributor.cached(SCRIPTED + "\n# edited\n") is None


# -- the hover's line ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Part:
    line: int
    end_line: int
    text: str


def test_driver_line_names_the_statement_in_document_lines_when_it_takes_half_or_more():
    from rlm_lsp.server.hover import driver_line

    table = Effect(Part(4, 4, "table = [[0] * n for _ in range(n)]"), -1.9)  # −85%
    loop = Effect(Part(5, 8, "for i in range(n):"), -0.5)  # −39%: below the bar
    drivers = Attribution({"memory": (table,), "latency": (loop,)}, 6, 6)
    assert driver_line(drivers, "memory", 10) == \
        "mostly from line 14 (`table = [[0] * n for _ in range(n)]`): −85% without it"
    assert driver_line(drivers, "latency", 10) == ""  # nothing stands out: nothing said
    assert driver_line(None, "memory", 10) == ""
    loud = Attribution({"latency": (Effect(Part(5, 8, "for `x` in y:"), -3.0),)}, 40, 52)
    assert driver_line(loud, "latency", 0) == \
        "mostly from lines 5–8 (`for 'x' in y:`): −95% without it (of its first 40 statements)"


# -- the shipped model: functions whose answer is known --------------------------------------------

# Each: the function, the metric, the line (in the function's code) whose removal must lower it most.
# Checked by hand first (predicting every variant); where the shipped model answers otherwise the
# example is not here: see the report of issue 48 (an LCS table beside its double loop: the model puts
# the table ahead of the loop for latency too).
KNOWN = {
    "a table beside cheap statements": (code('''
        def count_paths(grid):
            n = len(grid)
            m = len(grid[0])
            total = 0
            table = [[0] * n for _ in range(n)]
            table[0][0] = 1
            return total + m
    '''), "memory", 5),
    "a grid by a nested comprehension": (code('''
        def build(n):
            size = n * 2
            label = "grid"
            grid = [[i * j for j in range(n)] for i in range(n)]
            count = len(label)
            return size + count
    '''), "memory", 4),
    "a dict of every word": (code('''
        def index(words):
            first = words[0]
            where = {w: i for i, w in enumerate(words)}
            return where.get(first)
    '''), "memory", 3),
    "a sorted copy": (code('''
        def median(nums):
            k = len(nums) // 2
            ordered = sorted(nums)
            return ordered[k]
    '''), "memory", 3),
    "a pair loop": (code('''
        def pairs(nums, target):
            n = len(nums)
            best = 0
            seen = 0
            for i in range(n):
                for j in range(i + 1, n):
                    if nums[i] + nums[j] == target:
                        best += 1
            return best + seen
    '''), "latency", 5),
    "a triple loop": (code('''
        def floyd(dist):
            n = len(dist)
            ok = True
            for k in range(n):
                for i in range(n):
                    for j in range(n):
                        if dist[i][k] + dist[k][j] < dist[i][j]:
                            dist[i][j] = dist[i][k] + dist[k][j]
            return ok
    '''), "latency", 4),
    "a while loop": (code('''
        def collatz(limit):
            steps = 0
            x = limit
            while x != 1:
                x = x // 2 if x % 2 == 0 else 3 * x + 1
                steps += 1
            return steps
    '''), "latency", 4),
}


@pytest.fixture(scope="module")
def shipped():
    if not (SHIPPED / "rlm_config.json").is_file():
        pytest.skip("shipped model not present (rlm_lsp/models/default)")
    from rlm_lsp.runtime.predictor import Predictor

    return Predictor.from_dir(SHIPPED, threads=1)


@pytest.mark.parametrize("name", list(KNOWN))
def test_the_shipped_model_ranks_the_known_statement_first(shipped, name):
    text, metric, line = KNOWN[name]
    found = attribute(shipped, text, leave_each_out(text))
    first = found.effects[metric][0]
    assert first.part.line == line, (name, [(e.part.line, round(e.drop, 2)) for e in found.effects[metric]])
    assert first.drop >= 0.5  # enough for the hover to say it


FLAT = {
    "arithmetic": code('''
        def area(w, h):
            a = w * h
            b = a + 1
            c = b - 1
            return c
    '''),
    "two tests": code('''
        def clamp(x, lo, hi):
            if x < lo:
                return lo
            if x > hi:
                return hi
            return x
    '''),
}


@pytest.mark.parametrize("name", list(FLAT))
def test_the_shipped_model_names_nothing_in_a_flat_function(shipped, name):
    from rlm_lsp.server.hover import driver_line

    found = attribute(shipped, FLAT[name], leave_each_out(FLAT[name]))
    assert found.tried == found.total > 0
    assert driver_line(found, "memory", 0) == driver_line(found, "latency", 0) == "", found


def test_the_shipped_model_answers_the_same_every_time(shipped):
    text = KNOWN["a table beside cheap statements"][0]
    assert attribute(shipped, text, leave_each_out(text)) == attribute(shipped, text, leave_each_out(text))


def test_rlm_predict_why_on_the_shipped_model(shipped, tmp_path, capsys):
    from rlm_lsp.app.cli import main

    path = tmp_path / "prog.py"
    path.write_text("import sys\n\n\n" + KNOWN["a table beside cheap statements"][0] + "\n\nclass P:\n"
                    + textwrap.indent(KNOWN["a pair loop"][0], "    "))
    assert main(["predict", str(path), "--why", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows[0]["why"]["memory"][0]["line"] == 8 and rows[0]["why"]["memory"][0]["text"].startswith("table =")
    assert rows[1]["function"] == "P.pairs" and rows[1]["why"]["latency"][0]["line"] == 18  # `for i`, file lines
    assert main(["predict", str(path), "--why"]) == 0
    out = capsys.readouterr().out
    assert f"{path}:4 count_paths: memory: line 8 −" in out and "lines 18–21 −" in out


@pytest.mark.timeout(120)
def test_the_server_hover_says_which_statement_drives_the_memory(shipped, tmp_path):
    """The real server over stdio with the shipped model: the hover of a function with an n×n table
    names the table's line (document lines), and a flat function's hover names none."""
    from lsp_client import LspClient, file_uri

    text = "import sys\n\n\n" + KNOWN["a table beside cheap statements"][0] + "\n\n" + FLAT["arithmetic"]
    (tmp_path / "demo.py").write_text(text)
    with LspClient(settings={"modelPath": str(SHIPPED), "debounceMs": 50}, cwd=tmp_path) as c:
        c.initialize(tmp_path)
        uri = file_uri(tmp_path / "demo.py")
        c.open(uri, text)
        c.wait_hints(uri, 2)
        table = c.hover(uri, 3, 6)["contents"]["value"]  # on "count_paths"
        assert "mostly from line 8 (`table = [[0] * n for _ in range(n)]`): −" in table, table
        flat = c.hover(uri, 12, 6)["contents"]["value"]  # on "area"
        assert "**area**" in flat and "mostly from" not in flat, flat
        assert c.garbage == []


def test_a_slow_attribution_answers_pending_once_then_the_result_and_runs_once():
    """The hover waits at most `wait_s`; past that it answers PENDING (and says so), the work goes
    on, a second hover meanwhile starts no second run, and the next hover has the result."""
    import asyncio
    import threading
    from types import SimpleNamespace

    from rlm_lsp.server.drivers import PENDING, Explainer
    from rlm_lsp.server.hover import STILL_WORKING, markdown
    from rlm_lsp.server.settings import Settings

    release, done = threading.Event(), Attribution({}, 3, 3)

    class SlowAnalyzer:
        def __init__(self):
            self.cache, self.runs = {}, 0
            self.drivers = SimpleNamespace(cached=lambda code, language, n=None, context=None: self.cache.get(code))

        def explain(self, result):
            self.runs += 1
            release.wait(10)
            self.cache[result.snippet.code] = done
            return done

    analyzer = SlowAnalyzer()
    result = SimpleNamespace(snippet=SimpleNamespace(code="def f():\n    pass\n", outside="", reading="", context=dict),
                             language="python", predictions={})
    explainer = Explainer(wait_s=0.05)

    async def hovers():
        first = await explainer.drivers(analyzer, result)
        second = await explainer.drivers(analyzer, result)
        release.set()
        while explainer._running:  # the work finishing in its thread
            await asyncio.sleep(0.01)
        return first, second, await explainer.drivers(analyzer, result)

    first, second, third = asyncio.run(hovers())
    assert first is PENDING and second is PENDING and third is done
    assert analyzer.runs == 1

    from test_server_unit import SOURCE, FakePredictor

    from rlm_lsp.server.analysis import Analyzer

    r = Analyzer(FakePredictor()).analyze("u", SOURCE, None)[0]  # a real FunctionResult to render
    assert STILL_WORKING in markdown(r, Settings(), {}, "m", drivers=PENDING)
    assert STILL_WORKING not in markdown(r, Settings(), {}, "m", drivers=done)


def test_the_analyzer_explains_python_functions_only_and_never_raises():
    from test_server_unit import SOURCE, FakePredictor

    from rlm_lsp.server.analysis import Analyzer

    analyzer = Analyzer(FakePredictor(metrics=("memory", "latency", "kernel_latency")))
    results = {r.snippet.qualname: r for r in analyzer.analyze("u", SOURCE, None)}
    grow = analyzer.explain(results["Box.grow"])
    assert grow is not None and (grow.tried, grow.total) == (0, 0)  # `return [0] * n`: its only statement
    assert analyzer.explain(results["add_kernel"]) is None  # a kernel: another model's
    grown = results["Box.grow"].snippet
    assert analyzer.drivers.cached(grown.code, "python", None, grown.context()) is grow

    class Broken(FakePredictor):
        def predict(self, codes, language="python", metrics=None, context=None):
            raise RuntimeError("onnxruntime fell over")

    broken = Analyzer(Broken())
    r = Analyzer(FakePredictor()).analyze("v", "def two(n):\n    k = n\n    return k + 1\n", None)[0]
    assert broken.explain(r) is None  # logged; the hover goes on without it


def test_the_only_statement_of_a_function_is_not_left_out_but_its_insides_are():
    from rlm_lsp.python.leave_out import leave_each_out
    one = leave_each_out("def f(n):\n    return [[i * j for j in range(n)] for i in range(n)]\n")
    assert one.items == () and one.total == 0  # an empty function says nothing about its one line
    loop = leave_each_out("def f(xs):\n    for x in xs:\n        print(x)\n        x += 1\n")
    assert [part.line for part, _ in loop.items] == [3, 4]


def test_why_on_a_one_statement_function_says_so():
    """Issue 61: `--why` printed nothing after the colon for a function of one statement."""
    from rlm_lsp.app.cli_why import format_why
    lines = format_why([{"file": "one.py", "line": 1, "function": "one", "why": {}}])
    assert lines[-1] == "  one.py:1 one: one statement only: nothing to leave out"
