"""The gate's pure parts: normalization, pragma, matching, verdict, settings, git output parsing."""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from rlm_lsp.gate import compare, git, report
from rlm_lsp.gate.compare import FunctionChange, normalize, parse_functions
from rlm_lsp.policy import project_config as config
from rlm_lsp.policy.project_config import Budget, ConfigError, GateConfig


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


@dataclass(frozen=True)
class P:
    value: float
    unit: str
    low: float = 0.0
    high: float = 0.0


# -- normalization --------------------------------------------------------------------------

BASE = src('''
    def total(values):
        """Sum them."""
        out = 0
        for v in values:
            out += v
        return out
''')


@pytest.mark.parametrize(
    "edited",
    [
        BASE.replace('"""Sum them."""', '"""Add all of them up, carefully."""'),  # docstring
        BASE.replace("out = 0", "out = 0  # running sum"),  # trailing comment
        BASE.replace("    for v", "    # loop\n\n    for v"),  # comment line, blank line
        BASE.replace("out += v", "out  +=  v"),  # whitespace
        BASE.replace('    """Sum them."""\n', ""),  # docstring removed
    ],
)
def test_comment_docstring_and_format_edits_normalize_equal(edited):
    assert normalize(edited) == normalize(BASE)


def test_code_edit_normalizes_different_and_renames_normalize_equal():
    changed = BASE.replace("out += v", "out += v * v")
    assert normalize(changed)[0] != normalize(BASE)[0]
    assert normalize(changed)[2] != normalize(BASE)[2]
    renamed = BASE.replace("def total", "def summed")  # the function's own name is canonical (f0)
    assert normalize(renamed) == normalize(BASE)
    locals_renamed = BASE.replace("out", "acc").replace("for v in", "for item in").replace("+= v", "+= item")
    assert normalize(locals_renamed) == normalize(BASE)
    hinted = BASE.replace("def total(values)", "def total(values: list[int]) -> int")
    assert hinted != BASE and locals_renamed != BASE
    assert normalize(hinted) == normalize(BASE)


def test_decorator_change_is_a_change():
    assert normalize("@cache\n" + BASE)[0] != normalize(BASE)[0]


# -- pragma ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "source, reason",
    [
        ("def f(x):  # rlm: allow-regression caching the table\n    return x\n", "caching the table"),
        ("# rlm: allow-regression needs the whole list\ndef f(x):\n    return x\n", "needs the whole list"),
        ("# why: see #12\n# rlm: allow-regression: by design\n\ndef g(): pass\ndef f(x):\n    return x\n", None),
        ("# rlm: allow-regression above decorator\n@dec\ndef f(x):\n    return x\n", "above decorator"),
        ("@dec  # rlm: allow-regression on decorator\ndef f(x):\n    return x\n", "on decorator"),
        ("def f(\n    x,  # rlm: allow-regression in header\n):\n    return x\n", "in header"),
        ("def f(x):\n    # rlm: allow-regression in body, too late\n    return x\n", None),
        ("def f(x):\n    return '# rlm: allow-regression in a string'\n", None),
        ("def f(x):  #rlm:allow-regression   tight spacing  \n    return x\n", "tight spacing"),
        ("def f(x):  # rlm: allow-regression\n    return x\n", ""),
        ("def f(x):\n    return x\n", None),
    ],
)
def test_pragma_positions(source, reason):
    [fn] = [fn for fn in parse_functions("m.py", source) if fn.qualname == "f"]
    assert fn.pragma == reason


# -- matching -------------------------------------------------------------------------------


def fns(path: str, source: str) -> list[compare.Function]:
    return parse_functions(path, src(source))


OLD = """
    class Parser:
        def parse(self, lines):
            for line in lines:
                yield line.split()

    def helper(n):
        return n + 1

    def gone(n):
        return n * 7
"""


def test_match_modified_unchanged_added_removed():
    new = """
        class Parser:
            def parse(self, lines):
                # materialized
                return [line.split() for line in lines]

        def helper(n):
            '''Docstring added: not a change.'''
            return n + 1

        def fresh(n):
            return list(range(n))
    """
    m = compare.match({"a.py": fns("a.py", OLD)}, {"a.py": fns("a.py", new)}, {})
    assert [(c.kind, c.new.qualname, c.old and c.old.qualname) for c in m.changed] == [
        ("modified", "Parser.parse", "Parser.parse"),
        ("added", "fresh", None),
    ]
    assert m.unchanged == 1 and m.removed == 1 and m.renamed == []


def test_rename_only_is_not_a_change_and_moves_between_files_are_found():
    new_a = """
        class Parser:
            def parse_lines(self, lines):
                for line in lines:
                    yield line.split()
    """
    new_b = """
        def helper(n):
            return n + 1

        def times_seven(n):
            return n * 7
    """
    m = compare.match({"a.py": fns("a.py", OLD)}, {"a.py": fns("a.py", new_a), "b.py": fns("b.py", new_b)}, {})
    assert m.changed == []
    assert sorted((o.qualname, n.qualname) for o, n in m.renamed) == [
        ("Parser.parse", "Parser.parse_lines"),
        ("gone", "times_seven"),
    ]
    assert m.unchanged == 1  # helper moved to b.py unchanged


def test_file_rename_matches_by_old_path():
    m = compare.match({"old.py": fns("old.py", OLD)}, {"new.py": fns("new.py", OLD)}, {"new.py": "old.py"})
    assert m.changed == [] and m.unchanged == 3 and m.renamed == []


def test_rename_with_edits_is_compared_with_the_old_function():
    old = """
        def load_rows(path, sep=","):
            rows = []
            with open(path) as fh:
                for line in fh:
                    rows.append(line.rstrip().split(sep))
            return rows
    """
    new = """
        def read_rows(path, sep=","):
            rows = []
            with open(path) as fh:
                for line in fh:
                    rows.append(line.strip().split(sep))
            return rows
    """
    m = compare.match({"a.py": fns("a.py", old)}, {"a.py": fns("a.py", new)}, {})
    [change] = m.changed
    assert (change.kind, change.old.qualname, change.new.qualname) == ("renamed", "load_rows", "read_rows")


def test_same_qualname_twice_keeps_getter_and_setter_apart():
    old = """
        class A:
            @property
            def x(self):
                return self._x

            @x.setter
            def x(self, value):
                self._x = value
    """
    new = old.replace("self._x = value", "self._x = list(value)")
    m = compare.match({"a.py": fns("a.py", old)}, {"a.py": fns("a.py", new)}, {})
    [change] = m.changed
    assert change.new.line == 7 and m.unchanged == 1


# -- verdict --------------------------------------------------------------------------------


def one_change(old_code: str | None, new_code: str, pragma: str | None = None) -> FunctionChange:
    new = compare.Function("x.py", parse_functions("x.py", new_code)[0].snippet, "n", "n", (), pragma)
    old = None if old_code is None else parse_functions("x.py", old_code)[0]
    return FunctionChange("added" if old is None else "modified", new, old)


OLD_F = "def parse(x):\n    return x\n"
NEW_F = "def parse(x):\n    return [x]\n"


def preds(old_mem: float, new_mem: float, old_lat: float = 10.0, new_lat: float = 10.0):
    return {
        OLD_F: {"memory": P(old_mem, "bytes"), "latency": P(old_lat, "ms")},
        NEW_F: {"memory": P(new_mem, "bytes"), "latency": P(new_lat, "ms")},
    }


def test_ratio_is_inclusive_and_per_metric():
    change = one_change(OLD_F, NEW_F)
    cfg = GateConfig(ratios={"latency": 3.0})
    [f] = compare.judge([change], preds(12e6, 24e6, 10, 29.9), cfg, ["memory", "latency"])
    assert (f.metric, f.rule, f.ratio, f.limit, f.failed) == ("memory", "ratio", 2.0, 2.0, True)
    assert compare.judge([change], preds(12e6, 23.9e6, 10, 30), cfg, ["memory", "latency"])[0].metric == "latency"


def test_finding_line_matches_the_documented_shape():
    [f] = compare.judge([one_change(OLD_F, NEW_F)], preds(12e6, 96e6), GateConfig(), ["memory", "latency"])
    assert report.finding_line(f) == "x.py:1: parse(): predicted peak memory 12 MB → 96 MB (8.0×) exceeds 2.0×"


def test_budget_applies_to_new_functions_and_pragma_allows():
    cfg = GateConfig(budgets={"latency": Budget(100.0, "ms", "100 ms")})
    added = one_change(None, NEW_F)
    [f] = compare.judge([added], preds(1, 1, 1, 250), cfg, ["memory", "latency"])
    assert (f.rule, f.failed, f.old) == ("budget", True, None)
    assert report.finding_line(f) == "x.py:1: parse() (new): predicted latency 250 ms exceeds budget 100 ms"
    allowed = one_change(None, NEW_F, pragma="batch job, runs nightly")
    [f] = compare.judge([allowed], preds(1, 1, 1, 250), cfg, ["memory", "latency"])
    assert not f.failed
    assert report.finding_line(f).endswith("; allowed by pragma: batch job, runs nightly")
    # a new function never meets the ratio
    assert compare.judge([added], preds(1, 1e9), GateConfig(), ["memory"]) == []


def test_growth_edge_cases():
    assert compare.growth(2.0, 8.0) == 4.0
    assert math.isinf(compare.growth(0.0, 1.0))
    assert compare.growth(0.0, 0.0) == 1.0
    assert compare.growth(4.0, 1.0) == 0.25


# -- settings -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value, unit",
    [
        ("512 MB", 512e6, "bytes"),
        ("1.5GiB", 1.5 * 2**30, "bytes"),
        ("64kB", 64e3, "bytes"),
        ("200 ms", 200.0, "ms"),
        ("2 s", 2000.0, "ms"),
        ("300us", 0.3, "ms"),
        ("1e3", 1000.0, ""),
        (250, 250.0, ""),
    ],
)
def test_parse_quantity(text, value, unit):
    budget = config.parse_quantity(text, "t")
    assert budget.value == pytest.approx(value) and budget.unit == unit


@pytest.mark.parametrize("bad", ["12 parsecs", "fast", "-3 MB", True, "nan"])
def test_parse_quantity_rejects(bad):
    with pytest.raises(ConfigError):
        config.parse_quantity(bad, "memory-budget")


def test_pyproject_then_command_line(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text(
        src("""
            [tool.rlm]
            model = "models/m"
            metrics = ["memory"]
            ratio = 3.0
            latency_ratio = 5
            memory-budget = "1 GB"
            exclude = ["tests/", "*_pb2.py"]
            serve-debounce-ms = 300   # another tool's key: ignored
        """)
    )
    cfg = config.load(config.find_pyproject(tmp_path))
    assert cfg.metrics == ("memory",)
    assert (cfg.ratio("memory"), cfg.ratio("latency")) == (3.0, 5.0)
    assert cfg.budgets["memory"].value == 1e9
    assert cfg.model == str((tmp_path / "models/m").resolve())
    assert not cfg.wants("tests/test_x.py") and not cfg.wants("pkg/api_pb2.py") and cfg.wants("pkg/api.py")

    cli = config.override(cfg, ratios=["memory=1.5"], budgets=["latency=2s"], metrics="memory,latency")
    assert (cli.ratio("memory"), cli.ratio("latency")) == (1.5, 5.0)
    assert cli.budgets["latency"].value == 2000.0 and cli.budgets["memory"].value == 1e9
    assert config.override(cfg, ratios=["4"]).ratios == {}
    assert config.override(cfg, ratios=["4"]).ratio("latency") == 4.0
    assert config.override(cfg, include=["src/**"]).wants("src/a/b.py")
    assert not config.override(cfg, include=["src/**"]).wants("lib/a.py")


def test_defaults_without_pyproject(tmp_path: Path):
    cfg = config.load(config.find_pyproject(tmp_path))
    assert cfg == GateConfig() and cfg.ratio("memory") == 2.0 and cfg.ratio("latency") == 2.0


@pytest.mark.parametrize(
    "body",
    ["ratio = 0.5", 'memory-ratio = "x"', 'memory-budget = "3 furlongs"', 'metrics = "memory', "include = 3"],
)
def test_bad_settings_name_the_key(tmp_path: Path, body):
    (tmp_path / "pyproject.toml").write_text(f"[tool.rlm]\n{body}\n")
    with pytest.raises(ConfigError) as err:
        config.load(tmp_path / "pyproject.toml")
    assert "pyproject.toml" in str(err.value)


# -- git output -----------------------------------------------------------------------------


def test_parse_raw_with_rename_add_delete():
    a, b, z = "a" * 40, "b" * 40, "0" * 40
    out = (
        f":100644 100644 {a} {b} M\0src/m.py\0"
        f":000000 100644 {z} {b} A\0new file.py\0"
        f":100644 000000 {a} {z} D\0old.py\0"
        f":100644 100644 {a} {b} R087\0x/one.py\0y/two.py\0"
    ).encode()
    changes = git.parse_raw(out)
    assert [(c.status, c.path, c.old_path, c.old_blob, c.new_blob) for c in changes] == [
        ("M", "src/m.py", "src/m.py", a, b),
        ("A", "new file.py", None, None, b),
        ("D", "old.py", "old.py", a, None),
        ("R", "y/two.py", "x/one.py", a, b),
    ]
    assert changes[3].similarity == 87


def test_each_metric_is_judged_at_its_own_level_unless_the_project_sets_one():
    from rlm_lsp.policy import rules
    from rlm_lsp.runtime.prediction import Prediction

    assert GateConfig().level("memory") == rules.CONFIDENCE_BY_METRIC["memory"] == 0.65
    assert GateConfig().level("latency") == rules.CONFIDENCE_BY_METRIC["latency"] == 0.6
    assert GateConfig(confidence=0.9).level("latency") == 0.9 and GateConfig(confidence=0.0).level("memory") == 0.0
    # 10 of 16 paired draws grew 3x (0.625): enough at latency's 0.6, not at memory's 0.65
    old = {m: Prediction(m, 1.0, 1.0, 1.0, u, samples=(1.0,) * 16) for m, u in (("memory", "bytes"), ("latency", "ms"))}
    new = {m: Prediction(m, 3.0, 1.0, 3.0, u, samples=(3.0,) * 10 + (1.0,) * 6)
           for m, u in (("memory", "bytes"), ("latency", "ms"))}
    findings = compare.judge([one_change(OLD_F, NEW_F)], {OLD_F: old, NEW_F: new}, GateConfig(), ["memory", "latency"])
    assert [(f.metric, f.outcome) for f in findings] == [("memory", "inconclusive"), ("latency", "regressed")]
    assert [f.metric for f in findings if f.failed] == ["latency"]
    assert report.finding_line(findings[0]).endswith(
        "past 2.0×, but only 62% of the paired draws agree (needs 65%); not blocking")
    both = compare.judge([one_change(OLD_F, NEW_F)], {OLD_F: old, NEW_F: new}, GateConfig(confidence=0.6),
                         ["memory", "latency"])
    assert [f.metric for f in both] == ["memory", "latency"]
