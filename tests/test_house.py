"""The house's import direction (issue 50): runtime <- families <- application, and no circle in training/.

Imports are read with ast (every import, also those inside functions), so nothing is run.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = "rlm_lsp.runtime"
COST = "rlm_lsp.cost"  # the cost analyzer over the loop-and-call form: shared by the families, like the runtime
FAMILIES = ("rlm_lsp.python", "rlm_lsp.triton", "rlm_lsp.networks", "rlm_lsp.polyglot")
APPLICATION = ("rlm_lsp.app", "rlm_lsp.server", "rlm_lsp.gate", "rlm_lsp.export", "rlm_lsp.measure")
POLICY = "rlm_lsp.policy"  # the rules and settings the gate and the editor judge by: below app, server and gate


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports(path: Path) -> set[str]:
    """The dotted names `path` imports, relative imports resolved; `from P import m` gives P and P.m."""
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return out


def _within(name: str, prefixes) -> bool:
    return any(name == p or name.startswith(p + ".") for p in ((prefixes,) if isinstance(prefixes, str) else prefixes))


def test_the_folders_exist():
    for folder in ("runtime", "python", "triton", "networks", "policy", "app", "server"):
        assert (ROOT / "rlm_lsp" / folder / "__init__.py").is_file(), folder


def test_the_runtime_imports_no_family_and_no_application():
    bad = {}
    for path in (ROOT / "rlm_lsp" / "runtime").rglob("*.py"):
        wrong = {m for m in imports(path) if m.startswith("rlm_lsp.") and not _within(m, RUNTIME)}
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"the runtime imports above itself: {bad}"


def test_the_cost_analyzer_imports_nothing_of_the_package_but_itself():
    """Its front ends (a family's) feed it the loop-and-call form; it reads no family and no runtime."""
    bad = {}
    for path in (ROOT / "rlm_lsp" / "cost").rglob("*.py"):
        wrong = {m for m in imports(path) if m.startswith("rlm_lsp.") and not _within(m, COST)}
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"the cost analyzer imports above itself: {bad}"


def _reads(folder: str, above) -> dict[str, list[str]]:
    bad = {}
    for path in (ROOT / folder.replace(".", "/")).rglob("*.py"):
        wrong = {m for m in imports(path) if _within(m, above)}
        if wrong:
            bad[str(path.relative_to(ROOT))] = sorted(wrong)
    return bad


def test_the_policy_reads_no_application_and_the_server_no_app():
    """#60 item 6: the rules and settings sit below both surfaces, so the server reads them, not the
    command line's package (no more server -> app -> server)."""
    assert not _reads(POLICY, APPLICATION), _reads(POLICY, APPLICATION)
    assert not _reads("rlm_lsp.server", "rlm_lsp.app"), _reads("rlm_lsp.server", "rlm_lsp.app")


def test_a_family_imports_only_the_runtime_and_its_own_folder():
    bad = {}
    for family in FAMILIES:
        for path in (ROOT / family.replace(".", "/")).rglob("*.py"):
            wrong = {m for m in imports(path) if m.startswith("rlm_lsp.") and not _within(m, (RUNTIME, COST, family))}
            if wrong:
                bad[str(path.relative_to(ROOT))] = sorted(wrong)
    assert not bad, f"a family imports another family or the application: {bad}"


def test_nothing_but_the_package_top_lives_at_the_top():
    """rlm_lsp/__init__.py (the public names) and __main__.py only: every module has a folder."""
    top = sorted(p.name for p in (ROOT / "rlm_lsp").glob("*.py"))
    assert top == ["__init__.py", "__main__.py"], top


def _training_graph() -> dict[str, set[str]]:
    paths = {_module(p): p for p in (ROOT / "training").rglob("*.py")}
    graph = {}
    for name, path in paths.items():
        # `from training.x import y` names module training.x.y only when y is a module
        graph[name] = {m for m in imports(path) if m in paths and m != name and not name.startswith(m + ".")}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of `graph` as [a, b, ..., a], or None (depth-first, colouring)."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node], _ = 1, stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node], _ = 2, stack.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_find_cycle_finds_the_circle_issue_50_broke():
    # gate_quality -> v4_data -> gate_variants -> both, as it was before the rehousing
    old = {"gq": {"v4"}, "v4": {"gv"}, "gv": {"gq", "v4"}, "dataset": set()}
    assert find_cycle(old) == ["gq", "v4", "gv", "gq"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_two_modules_of_training_import_each_other_in_a_circle():
    graph = _training_graph()
    assert len(graph) > 40 and graph["training.judging.gate_variants"]  # the imports were read
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or ())
