"""Rehouse rlm_lsp/ by family over one runtime, and training/ by stage (issue 50).

Run from the repository root:  python experiments/house/rehouse.py [--dry-run]

Every move is a `git mv`; then every text file the repository holds (tracked, or new and not
ignored) is rewritten by the tables below: Python imports (`from rlm_lsp import X`, split by
folder where one line names several; `import rlm_lsp.X`, `from rlm_lsp.X import`, relative
imports), dotted names anywhere (`python -m training.X`, mock.patch strings, importlib strings,
`rlm = "rlm_lsp.app.cli:main"`) and file paths (`rlm_lsp/X.py`, `training/device_v4.sh`). A moved
file that finds the repository by `Path(__file__)` goes one folder further up. It rewrites by
pattern, not by a list of edits, so a tree with other branches' new modules and edits gets the
same treatment; a second run changes nothing. The journal (experiments/log/)
and the changelog keep their history as written.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

# -- the mapping: old module -> new module (dotted). Folders get an __init__.py. -----------------

RLM_FOLDERS = {
    "runtime": ["model_dir", "sessions", "seq2seq", "decode", "numbers", "predictor", "prediction", "template",
                "model", "errors", "units", "machine", "source_text", "feature_trees", "readers",
                "lines", "model_schema", "sizes", "growth"],
    "python": ["snippets", "preprocess", "canonical", "canonical_scopes", "shapes", "code_census", "code_features",
               "loop_nests", "long_input"],
    "triton": ["kernels", "kernel_input"],
    "networks": ["nas", "onnx_reader", "graph_text", "graph_shapes"],
    "app": ["cli", "cli_jsonl", "rules", "project_config", "options"],
}
RLM_RENAMES = {"python_reader": "python.reader"}  # the Python family's reader, lent to the runtime

TRAINING_FOLDERS = {
    "measuring": ["harness", "runner", "sandbox", "build_dataset", "gen_inputs", "ladders", "mutations", "lc_corpus",
                  "py2to3", "remeasure", "dataset_stats", "curve_fit"],
    "learning": ["train", "loop", "rlm_model", "pretrain", "decoding", "augment", "train_data", "dataset", "shortcut",
                 "soup", "recover", "shards", "growth_trees"],
    "judging": ["evaluate", "gate_quality", "gate_variants", "baseline", "feature_trees", "growth_eval"],
}
TRAINING_RENAMES = {  # named after what they hold, not a version
    "measure_v2": "measuring.streams",
    "v2.execute": "measuring.execute",
    "v2.leetcode": "measuring.leetcode_ladders",
    "v2.sources": "measuring.sources",
    "v2.splits": "measuring.splits",
    "v2.variants": "measuring.variants",
    "v2.card": "measuring.data_card",
    "v4_data": "judging.shaped_examples",
}
PACKAGE_RENAMES = {"training.v2": "training.measuring"}  # a whole package: any module left in it follows
FILE_MOVES = {"training/judge.sh": "training/judging/judge.sh"}
FILE_GLOBS = {"training/device_*.sh": "training/device"}  # the device scripts, in a folder of their own

PACKAGE_DOCS = {
    "rlm_lsp/runtime": "The shared runtime: model directory, ONNX sessions, seq2seq decoding, number format, "
                       "template, Predictor and Prediction.",
    "rlm_lsp/python": "The Python family: functions read from source, normalised, censused and shaped.",
    "rlm_lsp/triton": "The Triton kernel family: a kernel's text, its GPU and shape context.",
    "rlm_lsp/networks": "The ONNX network family: a graph read, shaped and written as text for the model.",
    "rlm_lsp/app": "The application: the CLI, the gate's rules and the project settings (the server is rlm_lsp.server).",
    "training/measuring": "Measuring: the harness and sandbox, the datasets' programs, inputs, ladders and variants.",
    "training/learning": "Learning: the model, its data, training loops, pre-training, soups and checkpoints.",
    "training/judging": "Judging: evaluation, the gate's quality on pairs and variants, the baselines and trees.",
}
NEW_PACKAGES = [*PACKAGE_DOCS]
SETUP_PACKAGES = ["rlm_lsp.runtime", "rlm_lsp.python", "rlm_lsp.triton", "rlm_lsp.networks", "rlm_lsp.app"]

# Literal fixes the patterns cannot see: a path built in pieces from a module's own file.
SPECIAL = {
    'Path(cli.__file__).parent / "models"': 'Path(cli.__file__).parents[1] / "models"',
    '(Path(training.__file__).parent / "build_dataset.py")':
        '(Path(training.__file__).parent / "measuring" / "build_dataset.py")',
}
# History stays as written; this script names the old modules on purpose.
EXCLUDE = ("experiments/log" + ".md", "experiments/log/", "docs/CHANGELOG.md", "experiments/house/rehouse.py")


def build_modules() -> dict[str, str]:
    out = {}
    for folder, names in RLM_FOLDERS.items():
        out.update({f"rlm_lsp.{n}": f"rlm_lsp.{folder}.{n}" for n in names})
    out.update({f"rlm_lsp.{a}": f"rlm_lsp.{b}" for a, b in RLM_RENAMES.items()})
    for folder, names in TRAINING_FOLDERS.items():
        out.update({f"training.{n}": f"training.{folder}.{n}" for n in names})
    out.update({f"training.{a}": f"training.{b}" for a, b in TRAINING_RENAMES.items()})
    return out


def to_path(dotted: str) -> str:
    return dotted.replace(".", "/") + ".py"


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


class Rehouse:
    def __init__(self, dry: bool):
        self.dry = dry
        self.modules = build_modules()
        self.moves: list[tuple[str, str]] = []  # (old path, new path) done this run
        self.notes: list[str] = []

    # -- moves ------------------------------------------------------------------------------

    def plan(self) -> list[tuple[str, str]]:
        plan = [(to_path(a), to_path(b)) for a, b in self.modules.items()]
        plan += list(FILE_MOVES.items())
        for pattern, folder in FILE_GLOBS.items():
            plan += [(str(p), f"{folder}/{p.name}") for p in sorted(Path().glob(pattern))]
        for old_pkg, new_pkg in PACKAGE_RENAMES.items():  # modules another branch added to a renamed package
            old_dir = Path(old_pkg.replace(".", "/"))
            for p in sorted(old_dir.glob("*.py")) if old_dir.is_dir() else ():
                dotted = f"{old_pkg}.{p.stem}"
                if p.name != "__init__.py" and dotted not in self.modules:
                    self.modules[dotted] = f"{new_pkg}.{p.stem}"
                    plan.append((str(p), to_path(self.modules[dotted])))
        return plan

    def move_all(self) -> None:
        for folder in NEW_PACKAGES:
            init = Path(folder) / "__init__.py"
            if not init.exists():
                self.notes.append(f"new package {folder}/")
                if not self.dry:
                    init.parent.mkdir(parents=True, exist_ok=True)
                    init.write_text(f'"""{PACKAGE_DOCS[folder]}"""\n')
                    git("add", str(init))
        for old, new in self.plan():
            if not Path(old).exists():
                continue
            if Path(new).exists():
                sys.exit(f"rehouse: both {old} and {new} exist; merge them by hand, then run again")
            self.moves.append((old, new))
            if not self.dry:
                Path(new).parent.mkdir(parents=True, exist_ok=True)
                absolutize_file(Path(old))  # its relative imports meant its old folder
                git("mv", old, new)
                deepen_file_paths(Path(new), new.count("/") - old.count("/"), self.notes)
        for old_pkg in PACKAGE_RENAMES:
            old_dir = Path(old_pkg.replace(".", "/"))
            left = [p for p in old_dir.glob("*") if p.name not in ("__init__.py", "__pycache__")] if old_dir.is_dir() \
                else []
            if old_dir.is_dir() and not left:
                self.notes.append(f"removed {old_dir}/")
                if not self.dry:
                    if (old_dir / "__init__.py").exists():
                        git("rm", "-q", str(old_dir / "__init__.py"))
                    shutil.rmtree(old_dir, ignore_errors=True)

    # -- rewrites ---------------------------------------------------------------------------

    def files(self) -> list[Path]:
        names = git("ls-files", "-z").split("\0") + git("ls-files", "-z", "--others", "--exclude-standard").split("\0")
        out = []
        for name in dict.fromkeys(n for n in names if n):
            p = Path(name)
            if name.startswith(EXCLUDE) or not p.is_file() or p.is_symlink():
                continue
            out.append(p)
        return out

    def rewrite_all(self) -> list[Path]:
        every = {**self.modules, **PACKAGE_RENAMES}
        paths = {to_path(a): to_path(b) for a, b in self.modules.items()}
        paths.update(FILE_MOVES)
        for pattern, folder in FILE_GLOBS.items():
            # the scripts already moved, and any still at the old place
            for p in [*Path(folder).glob(Path(pattern).name), *Path().glob(pattern)]:
                paths[f"{Path(pattern).parent}/{p.name}"] = f"{folder}/{p.name}"
        for a, b in PACKAGE_RENAMES.items():
            paths[a.replace(".", "/") + "/"] = b.replace(".", "/") + "/"
            paths[a.replace(".", "/")] = b.replace(".", "/")
        path_re = re.compile(r"(?<![\w.-])(" + "|".join(re.escape(k) + ("" if k.endswith("/") else r"(?![\w])")
                                                          for k in sorted(paths, key=len, reverse=True)) + ")")
        changed = []
        for p in self.files():
            data = p.read_bytes()
            if b"\0" in data:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            new = text
            if p.suffix in (".py", ".pyi") and p.parts[0] in ("rlm_lsp", "training"):
                new = absolutize(new, p)
            new = split_from_imports(new, every)
            new = rewrite_dotted(new, every)
            new = path_re.sub(lambda m: paths[m.group(1)], new)
            new = rewrite_joined_paths(new, paths)
            for a, b in SPECIAL.items():
                new = new.replace(a, b)
            if p.name == "pyproject.toml":
                new = setup_packages(new)
            if new != text:
                changed.append(p)
                if not self.dry:
                    p.write_text(new, encoding="utf-8")
        return changed

    def report_unhoused(self) -> None:
        housed = {"__init__.py", "__main__.py"}
        for p in sorted(Path("rlm_lsp").glob("*.py")):
            if p.name not in housed:
                self.notes.append(f"left in place (not in the table): {p}; give it a folder in RLM_FOLDERS")
        for p in sorted(Path("training").glob("*.py")):
            if p.name not in housed:
                self.notes.append(f"left in place (not in the table): {p}; give it a stage in TRAINING_FOLDERS")


# -- the patterns ----------------------------------------------------------------------------

FROM_PKG = re.compile(r"^(?P<indent>[ \t]*)from (?P<pkg>[\w.]+) import (?P<names>\([^)]*\)|[^\n#]*?)"
                      r"(?P<comment>[ \t]*#[^\n]*)?$", re.M)


def split_from_imports(text: str, modules: dict[str, str]) -> str:
    """`from rlm_lsp import a, b as c` -> one line per new folder, the local names kept."""

    def fix(m: re.Match) -> str:
        pkg = m.group("pkg")
        if not any(k.startswith(pkg + ".") for k in modules):
            return m.group(0)
        raw = m.group("names").strip()
        inner = re.sub(r"#[^\n]*", "", raw[1:-1]) if raw.startswith("(") else raw  # comments inside: dropped
        items = [i.strip() for i in re.split(r",|\n", inner)]
        items = [i for i in items if i]
        if not items or any(not re.fullmatch(r"\w+(\s+as\s+\w+)?", i) for i in items):
            return m.group(0)
        groups: dict[str, list[str]] = {}
        for item in items:
            name, _, alias = (x.strip() for x in item.partition(" as "))
            target = modules.get(f"{pkg}.{name}")
            if target is None:
                groups.setdefault(pkg, []).append(item)
                continue
            parent, leaf = target.rsplit(".", 1)
            local = alias or name
            groups.setdefault(parent, []).append(leaf if leaf == local else f"{leaf} as {local}")
        if list(groups) == [pkg]:
            return m.group(0)
        indent, comment = m.group("indent"), m.group("comment") or ""
        lines = [f"{indent}from {parent} import {', '.join(names)}" for parent, names in groups.items()]
        lines[0] += comment
        return "\n".join(lines)

    return FROM_PKG.sub(fix, text)


DOTTED = re.compile(r"(?<![\w.])((?:rlm_lsp|training)(?:\.\w+)+)")


def rewrite_dotted(text: str, modules: dict[str, str]) -> str:
    """The longest moved module a dotted name starts with, renamed: `rlm_lsp.cli.main`, `training.v2.card`."""

    def fix(m: re.Match) -> str:
        parts = m.group(1).split(".")
        for n in range(len(parts), 1, -1):
            head = ".".join(parts[:n])
            if head in modules:
                return ".".join([modules[head], *parts[n:]])
        return m.group(1)

    return DOTTED.sub(fix, text)


RELATIVE = re.compile(r"^(?P<indent>[ \t]*)from (?P<dots>\.+)(?P<mod>[\w.]*) import ", re.M)


JOINED = re.compile(r"(?P<q>[\"'])[\w.-]+(?P=q)(?:\s*/\s*(?P=q)[\w.-]+(?P=q))+")


def rewrite_joined_paths(text: str, paths: dict[str, str]) -> str:
    """A path built in pieces, `ROOT / "rlm_lsp" / "cli.py"`, to its new pieces."""

    def fix(m: re.Match) -> str:
        q = m.group("q")
        parts = [s.strip().strip(q) for s in m.group(0).split("/")]
        new = paths.get("/".join(parts))
        return " / ".join(f"{q}{s}{q}" for s in new.split("/")) if new else m.group(0)

    return JOINED.sub(fix, text)


def absolutize(text: str, path: Path) -> str:
    """Relative imports -> absolute, from the file's folder as it is now (before a move, the old one)."""
    package = list(path.parent.parts)

    def fix(m: re.Match) -> str:
        up = len(m.group("dots")) - 1
        if up > len(package) - 1:
            return m.group(0)
        base = package[: len(package) - up] + ([m.group("mod")] if m.group("mod") else [])
        return f"{m.group('indent')}from {'.'.join(base)} import "

    return RELATIVE.sub(fix, text)


def absolutize_file(path: Path) -> None:
    if path.suffix == ".py":
        text = path.read_text()
        new = absolutize(text, path)
        if new != text:
            path.write_text(new)


FILE_UP = re.compile(r"Path\(__file__\)(?P<resolve>\.resolve\(\))?(?P<up>(?:\.parent(?![\w]))+|\.parents\[(?P<k>\d+)\])"
                     r"(?P<sibling>\s*/\s*[\"'][\w.-]+\.py[\"'])?")


def deepen_file_paths(path: Path, depth: int, notes: list[str]) -> None:
    """A file moved `depth` folders down finds the repository's folders (models/, data/, the repo root)
    that many folders further up; a path to a sibling module (`with_name("runner.py")`) is left."""
    if depth == 0 or path.suffix != ".py":
        return
    text = path.read_text()

    def fix(m: re.Match) -> str:
        if m.group("sibling"):
            notes.append(f"{path}: left as is, check it: {m.group(0)}")
            return m.group(0)
        levels = int(m.group("k")) + 1 if m.group("k") is not None else m.group("up").count(".parent")
        return f"Path(__file__){m.group('resolve') or ''}.parents[{levels + depth - 1}]"

    new = FILE_UP.sub(fix, text)
    for line in new.splitlines():
        if "__file__" in line and "Path(__file__)" not in line and "mutations.__file__" not in line \
                and ("dirname" in line or "os.path" in line):
            notes.append(f"{path}: check this path by hand: {line.strip()}")
    if new != text:
        path.write_text(new)


def setup_packages(text: str) -> str:
    """pyproject's `packages = [...]`: the new subpackages of rlm_lsp installed too."""
    m = re.search(r"^packages = \[(?P<list>[^\]]*)\]", text, re.M)
    if not m:
        return text
    have = re.findall(r'"([\w.]+)"', m.group("list"))
    missing = [p for p in SETUP_PACKAGES if p not in have]
    if not missing:
        return text
    at = have.index("rlm_lsp") + 1 if "rlm_lsp" in have else 0
    names = have[:at] + missing + have[at:]
    return text[: m.start("list")] + ", ".join(f'"{n}"' for n in names) + text[m.end("list"):]


def sort_imports(files: list[Path]) -> None:
    """Split import lines may now be out of isort order: ruff puts them back (import order only)."""
    py = [str(p) for p in files if p.suffix == ".py"]
    ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not py:
        return
    if not Path(ruff).exists() and not shutil.which("ruff"):
        print("rehouse: ruff not found; run `ruff check --select I --fix` on the changed files", file=sys.stderr)
        return
    subprocess.run([ruff, "check", "--select", "I", "--fix", "--quiet", *py], check=False)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="say what would move and change; change nothing")
    args = ap.parse_args(argv)
    if not (Path("rlm_lsp").is_dir() and Path("training").is_dir() and Path(".git").exists()):
        print("rehouse: run from the repository root", file=sys.stderr)
        return 2
    job = Rehouse(args.dry_run)
    job.move_all()
    changed = job.rewrite_all()
    if not args.dry_run:
        sort_imports(changed)
    job.report_unhoused()
    for old, new in job.moves:
        print(f"moved {old} -> {new}")
    print(f"rewrote {len(changed)} files" + (": " + ", ".join(map(str, changed)) if args.dry_run else ""))
    for note in job.notes:
        print("note:", note)
    return 0


if __name__ == "__main__":
    sys.exit(main())
