"""rlm-gate: block a commit whose functions' predicted memory or latency blows up.

pre-commit runs it (`.pre-commit-hooks.yaml`, id `rlm-gate`) with the staged Python files (and C++,
Java and Go files, judged when the model reads their language: `rlm_lsp.gate.languages`);
`rlm gate` and `rlm-gate` run it by hand or in CI. For every changed file it reads the
version in HEAD and the staged version (or `--base REF` against `--head REF` or the working
tree), finds the functions whose normalized code changed (`rlm_lsp.gate.compare`), predicts both
versions in one batch, and fails a function when a metric grows by the configured ratio or
more, or its new prediction exceeds a budget. New functions meet the budgets only.

It only reads: git plumbing, file bytes, the model. It never runs the code it judges, never
writes the working tree or the index, and gives the same answer for the same input (fixed
seed, one CPU thread by default). The model is loaded only when something needs predicting.
With `--measure` (`[tool.rlm] measure`) it does run code, in the sandbox only: the committed
and the new version of what the prediction flags (`--measure=all`: of every changed function),
on the same inputs, and a measured rise of the growth class decides (`rlm_lsp.gate.measured`);
the curves are appended to `.rlm/measured.jsonl`.

Exit status: 0 passed, 1 a regression, 2 the gate could not judge (a bad option or setting,
a git error, a shallow clone without the base, a model that cannot load or predict);
`--exit-zero` turns 1 into 0, `--fail-open` lets a model failure pass with a warning. An
inconclusive growth is reported and passes, unless `--fail-inconclusive`. A file it cannot
judge (binary, undecodable, a syntax error) gets a note and passes, unless `--fail-unjudged`
/ `fail-unjudged = true` is set. Output: `--format text|json|github|sarif|markdown`, and
`--summary FILE` for the Markdown summary (`rlm_lsp.gate.formats`).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rlm_lsp.app import config_guard
from rlm_lsp.gate import args as args_mod
from rlm_lsp.gate import compare, formats, git, languages, measured, networks, report
from rlm_lsp.gate.compare import Function
from rlm_lsp.gate.report import GateResult, Note
from rlm_lsp.networks.onnx_reader import MAX_ONNX_BYTES
from rlm_lsp.policy import project_config as config_mod
from rlm_lsp.policy import sources
from rlm_lsp.policy.project_config import ConfigError, GateConfig
from rlm_lsp.runtime import source_text
from rlm_lsp.runtime.errors import FileProblem, ModelError

MAX_FILE_BYTES = 1_000_000  # bigger "source" files are generated code; skipped with a note
PYTHON_SUFFIXES = (".py", ".pyw")
JUDGED_SUFFIXES = PYTHON_SUFFIXES + sources.POLYGLOT_SUFFIXES + (networks.ONNX_SUFFIX,)  # C++, Java, Go: languages.py


class ModelUnavailable(ModelError):
    """The model could not be loaded or could not predict; --fail-open lets this pass."""


@dataclass(frozen=True)
class FileVersions:
    """Both sides of one changed file, as bytes (None where the side does not exist)."""

    path: str  # new path (old path for a deletion)
    old_path: str | None
    old: bytes | None
    new: bytes | None
    deleted: bool = False
    problem: str | None = None  # why the new side cannot be read
    old_problem: str | None = None  # why the old side was not read (old is None then)


PredictorLoader = Callable[[], Any]  # -> object with .config.metrics/.model_version and .predict()
KernelWrapper = Callable[[Any], Any]  # predictor -> predictor that also sends @triton.jit code to the kernel model
KERNEL_METRIC = "kernel_latency"


def main(argv: Sequence[str] | None = None, *, loader: PredictorLoader | None = None) -> int:
    """Run the gate; `loader` replaces the model loading (tests). Returns the exit status:
    0 passed, 1 a regression, 2 the gate could not judge (usage, settings, git, model)."""
    args = args_mod.parser().parse_args(argv)
    out = sys.stdout
    try:
        out.reconfigure(errors="replace")  # type: ignore[union-attr]  # arrows on odd consoles
    except AttributeError:
        pass
    result = run(args, loader)
    text = report.text(result, verbose=args.verbose)
    body = formats.render(args.format, result, args.verbose)
    code = result.exit_code
    try:
        if args.report_file in (None, "-"):
            out.write(body)  # the report replaces the text lines
        else:
            out.write(text)
            code = _write(args.report_file, body, "report", out) or code
        if args.summary:
            code = _write(args.summary, formats.to_markdown(result), "summary", out) or code
        out.flush()
    except OSError as exc:  # stdout closed or full: an error of the run (2), never the regression code (1)
        try:
            sys.stderr.write(f"rlm-gate: cannot write the report: {exc.strerror or exc}\n")
        except OSError:
            pass
        return report.EXIT_ERROR
    return report.EXIT_PASSED if args.exit_zero and code == report.EXIT_REGRESSION else code


def _base_config(root: Path, base: str | None, pyproject: Path) -> GateConfig | None:
    """`[tool.rlm]` of the same pyproject.toml at the base (HEAD by default); None where the base has
    none, cannot be read, or the file lies outside the repository."""
    try:
        rel = pyproject.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    if base == git.EMPTY_TREE or (base is None and not git.has_head(root)):
        return None
    data = git.show(base or "HEAD", rel, root)
    if data is None:
        return None
    try:
        return config_mod.from_text(data, pyproject.parent, f"{base or 'HEAD'}:{rel}")
    except ConfigError:
        return None  # a base that cannot be read bounds nothing; the head's own errors are said as ever


def _write(path: str, body: str, what: str, out: Any) -> int:
    """Write a report file; 0, or EXIT_ERROR with one line when it cannot be written. Only a regular
    file is written (`source_text.write_regular`: never through a symlink, never a FIFO or a device),
    and a relative path only inside the current directory."""
    target = Path(path)
    if not target.is_symlink() and not target.is_absolute() and \
            not (Path.cwd() / target).resolve().is_relative_to(Path.cwd().resolve()):
        out.write(f"rlm-gate: cannot write the {what}: {path} leads outside the working directory; "
                  "give an absolute path to write there\n")
        return report.EXIT_ERROR
    try:
        source_text.write_regular(target, body)
    except FileProblem as exc:
        out.write(f"rlm-gate: cannot write the {what} to {path}: {exc}\n")
        return report.EXIT_ERROR
    return 0


def run(args: argparse.Namespace, loader: PredictorLoader | None = None) -> GateResult:
    """Everything but the printing: settings, git, matching, prediction, verdict."""
    cwd = Path(args.cwd or ".")
    args_mod.measure_files(args)
    base_label, head_label = _labels(args)
    try:
        root = git.toplevel(cwd)
        if args.base is None and args.head is not None:
            # `--head REF` alone: judge the commit REF, i.e. against its first parent
            args.base = git.parent(args.head, root)
            base_label = f"{args.head}~1" if args.base != git.EMPTY_TREE else "empty tree"
        elif args.base is None and args.head is None:
            # `pre-commit run --from-ref A --to-ref B` (CI, pre-push): judge what B adds to A
            from_ref, to_ref = os.environ.get("PRE_COMMIT_FROM_REF"), os.environ.get("PRE_COMMIT_TO_REF")
            if from_ref and to_ref:
                args.base, args.head = git.merge_base(from_ref, to_ref, root), to_ref
                base_label, head_label = from_ref, to_ref
        elif args.base is not None and git.has_head(root):
            # `--base origin/main` on a branch: what the branch changed since it forked, not main's newer
            # commits read backwards (a pull request's diff); the same commit when main has not moved
            args.base = git.merge_base(args.base, args.head or "HEAD", root)
    except git.GitError as exc:
        return GateResult(GateConfig(), base_label, head_label, error=str(exc))
    try:
        pyproject = Path(args.config) if args.config else config_mod.find_pyproject(root)
        file_config, loosened = config_mod.load(pyproject), []
        if not args.config and pyproject is not None:  # the change's own settings against the base's
            base_config = _base_config(root, args.base, pyproject)
            if base_config is not None:
                strict, loosened = config_guard.stricter(base_config, file_config)
                file_config = file_config if args.trust_head_config else strict
        config = config_mod.override(
            file_config,
            ratios=args.ratio,
            confidence=args.confidence,
            budgets=args.budget,
            metrics=args.metrics,
            include=args.include,
            exclude=args.exclude,
            model=args.model,
            gpu=args.gpu,
            fail_unjudged=args.fail_unjudged or None,
            fail_inconclusive=args.fail_inconclusive or None,
            measure=args.measure,
            measure_budget=args.measure_budget,
        )
        args_mod.check_counts(args)
    except ConfigError as exc:
        return GateResult(GateConfig(), base_label, head_label, error=f"bad setting: {exc}")
    result = GateResult(config, base_label, head_label, loosened=loosened, trusted=args.trust_head_config)
    if config.unknown:
        result.notes.append(Note(config.source or "[tool.rlm]", "[tool.rlm]: ignored unknown setting "
                                 + ", ".join(config.unknown)))
    try:
        versions = collect(root, args.base, _head(args), args.filenames, cwd, config)
    except git.GitError as exc:
        result.error = str(exc)
        return result
    kernels: KernelWrapper | None = None
    if loader is None:
        loader = lambda: load_predictor(  # noqa: E731
            config.model, args.threads, args.samples, args.device, not args.independent_draws
        )
        kernels = lambda base: add_kernel_model(base, config.gpu)  # noqa: E731
    nets = [v for v in versions if v.path.endswith(networks.ONNX_SUFFIX)]
    code, unread = languages.readable_files([v for v in versions if not v.path.endswith(networks.ONNX_SUFFIX)])
    result.notes.extend(unread)
    result = evaluate(code, config, loader, result, fail_open=args.fail_open, kernels=kernels)
    if config.measure:
        measured.apply(result, *_texts(code), root, config)
    networks.judge_networks(nets, args.onnx_device or networks.DEFAULT_DEVICES, config.ratio("latency"), result)
    return result


def collect(
    root: Path,
    base: str | None,
    head: str,
    filenames: Sequence[str],
    cwd: Path,
    config: GateConfig,
) -> list[FileVersions]:
    """The two versions of every changed Python file the gate should judge."""
    changes = git.changes(root, base, head)
    wanted = {_relative(f, cwd, root) for f in filenames} if filenames else None
    picked: list[git.Change] = []
    for change in changes:
        if change.status == "D":
            if change.path.endswith(JUDGED_SUFFIXES):
                picked.append(change)  # a deleted file's functions may reappear elsewhere (a move)
            continue
        if wanted is not None:
            if change.path not in wanted:
                continue
        elif not change.path.endswith(JUDGED_SUFFIXES):
            continue
        if config.wants(change.path):
            picked.append(change)
    wanted_blobs = {b: _max_bytes(c.path) for c in picked for b in (c.old_blob, c.new_blob) if b is not None and _is_file(c, b)}
    sizes = git.blob_sizes(wanted_blobs, root)  # sizes first: a 2 GB blob is never read to learn it is too big
    blobs = git.read_blobs([b for b, limit in wanted_blobs.items() if sizes[b] <= limit], root)
    too_big = {b: f"larger than {source_text.size_text(limit)}" for b, limit in wanted_blobs.items() if sizes[b] > limit}
    out = []
    for change in sorted(picked, key=lambda c: c.path):
        old = blobs.get(change.old_blob) if change.old_blob else None
        old_problem = too_big.get(change.old_blob) if change.old_blob else None
        if change.status == "D":
            out.append(FileVersions(change.path, change.old_path, old, None, deleted=True))
            continue
        if change.status == "U":
            out.append(FileVersions(change.path, change.old_path, None, None, problem="unresolved merge conflict"))
            continue
        if change.new_mode not in git.FILE_MODES:
            out.append(FileVersions(change.path, change.old_path, None, None, problem="not a regular file"))
            continue
        if change.new_blob is not None:
            new = blobs.get(change.new_blob)
            if new is None:
                out.append(FileVersions(change.path, change.old_path, None, None, problem=too_big[change.new_blob]))
                continue
        else:
            try:
                new = git.read_worktree(change.path, root, _max_bytes(change.path))
            except FileProblem as exc:
                out.append(FileVersions(change.path, change.old_path, None, None, problem=str(exc)))
                continue
        if change.old_mode not in git.FILE_MODES:
            old = old_problem = None
        out.append(FileVersions(change.path, change.old_path, old, new, old_problem=old_problem))
    return out


def evaluate(
    versions: Sequence[FileVersions],
    config: GateConfig,
    loader: PredictorLoader,
    result: GateResult,
    fail_open: bool = False,
    kernels: KernelWrapper | None = None,
) -> GateResult:
    """Match, predict and judge `versions`; fills and returns `result`. `kernels`, when given,
    adds the kernel latency model for changed @triton.jit kernels."""
    old: dict[str, list[Function]] = {}
    new: dict[str, list[Function]] = {}
    old_path_of: dict[str, str] = {}
    for fv in versions:
        if fv.old is not None and fv.old_path is not None:
            functions, problem = languages.functions_of(fv.old_path, fv.old, MAX_FILE_BYTES)
            if problem is None:
                old[fv.old_path] = functions
            elif not fv.deleted:
                result.notes.append(Note(fv.path, f"previous version {problem}; its functions count as new"))
        elif fv.old_problem is not None and not fv.deleted:
            result.notes.append(Note(fv.path, f"previous version {fv.old_problem}; its functions count as new"))
        if fv.deleted:
            continue
        if fv.new is None:
            result.notes.append(Note(fv.path, f"skipped: {fv.problem or 'cannot read'}"))
            continue
        functions, problem = languages.functions_of(fv.path, fv.new, MAX_FILE_BYTES)
        if problem is not None:
            result.notes.append(Note(fv.path, f"skipped: {problem}"))
            continue
        new[fv.path] = functions
        result.files += 1
        if fv.old_path is not None and fv.old_path != fv.path:
            old_path_of[fv.path] = fv.old_path
        for fn in functions:
            if fn.pragma_problem:
                result.notes.append(Note(fv.path, f"line {fn.line}: {fn.pragma_problem}"))
    matching = compare.match(old, new, old_path_of)
    result.matching = matching
    if not matching.changed:
        result.metrics = list(config.metrics)
        return result

    try:
        predictor = loader()
        specs = {spec.name: spec for spec in predictor.config.metrics}
        result.model = str(getattr(predictor.config, "model_version", None) or "") or None
    except Exception as exc:  # noqa: BLE001  # any load failure is "no model"; the message says which
        return _model_failure(result, f"cannot load the model: {_describe(exc)}", fail_open)

    result.matching, unread = languages.judged(matching, predictor, old, new, old_path_of)
    result.notes.extend(unread)
    result.files -= len({n.path for n in unread} - {c.path for c in result.matching.changed})
    matching = result.matching
    if not matching.changed:
        result.metrics = [m for m in config.metrics if m in specs]
        return result
    changed_kernels = any(c.new.snippet.kind == "triton_kernel" for c in matching.changed)
    if changed_kernels and KERNEL_METRIC in config.metrics and KERNEL_METRIC not in specs and kernels:
        try:
            predictor = kernels(predictor)
            specs = {spec.name: spec for spec in predictor.config.metrics}
            result.model = str(getattr(predictor.config, "model_version", None) or "") or result.model
        except Exception as exc:  # noqa: BLE001
            result.notes.append(Note("(model)", f"no kernel latency model ({_describe(exc)}); kernels not judged"))
    metrics = [m for m in config.metrics if m in specs]
    known = ", ".join(sorted(specs))
    unknown = [m for m in config.metrics if m not in specs and m != KERNEL_METRIC]
    if unknown or not config.metrics:  # a typo must not switch the gate off in silence
        what = f"{', '.join(map(repr, unknown))} not predicted by this model" if unknown else "none named"
        result.error = f"bad setting: metrics: {what} (it predicts {known})"
        return result
    in_globs = [m for _, budgets in config.path_budgets for m in budgets]
    named = [m for m in dict.fromkeys((*config.ratios, *config.budgets, *in_globs)) if m not in specs and m != KERNEL_METRIC]
    if named:  # `--ratio memroy=3`, `memroy-budget = ...`: the limit the user meant would not apply
        result.error = f"bad setting: ratio or budget for {', '.join(map(repr, named))}, not predicted by this model (it predicts {known})"
        return result
    if KERNEL_METRIC in config.metrics and KERNEL_METRIC not in specs and changed_kernels:
        result.notes.append(Note("(settings)", f"metric {KERNEL_METRIC!r} is not predicted by this model; ignored"))
    result.metrics = metrics
    try:
        args_mod.check_budget_units(config, specs)
    except ConfigError as exc:
        result.error = f"bad setting: {exc}"
        return result

    try:  # one batch per language (Python's: the one it always was)
        result.predictions = languages.predict(predictor, matching.changed, metrics, config.n)
    except Exception as exc:  # noqa: BLE001
        return _model_failure(result, f"prediction failed: {_describe(exc)}", fail_open)
    try:  # the rule may read the model's feature trees (rlm_lsp.runtime.feature_trees) for the first time here
        result.findings = compare.judge(matching.changed, result.predictions, config, metrics)
    except ModelError as exc:
        return _model_failure(result, f"judging failed: {_describe(exc)}", fail_open)
    return result


def load_predictor(model: str | None, threads: int, samples: int | None, device: str, common_draws: bool = True) -> Any:
    """The runtime Predictor, imported here so that a run with nothing to predict stays fast."""
    from rlm_lsp.runtime.predictor import Predictor

    kwargs: dict[str, Any] = {"device": device, "threads": threads, "shared_draws": common_draws}
    if samples is not None:
        kwargs["samples"] = samples
    return Predictor.default(**kwargs) if model is None else Predictor.from_dir(model, **kwargs)


def add_kernel_model(base: Any, gpu: str | None) -> Any:
    """`base` plus the shipped Triton kernel latency model (for @triton.jit code), if there is one."""
    from rlm_lsp.triton.kernels import with_kernels

    return with_kernels(base, gpu=gpu)


# -- helpers ----------------------------------------------------------------------------------


def _texts(versions: Sequence[FileVersions]) -> tuple[dict[str, str], dict[str, str]]:
    """(new path -> new text, old path -> committed text) of the Python files, for `--measure`."""
    new: dict[str, str] = {}
    old: dict[str, str] = {}
    for fv in versions:
        for side, path, out in ((fv.new, fv.path, new), (fv.old, fv.old_path, old)):
            if side is not None and path is not None and path.endswith(PYTHON_SUFFIXES):
                try:
                    out[path] = source_text.decode(side)
                except ValueError:
                    pass  # its functions were skipped with a note already
    return new, old


def _max_bytes(path: str) -> int:
    """How much of a file the gate reads: a source file up to MAX_FILE_BYTES, a network up to protobuf's limit."""
    return MAX_ONNX_BYTES if path.endswith(networks.ONNX_SUFFIX) else MAX_FILE_BYTES


def _model_failure(result: GateResult, message: str, fail_open: bool) -> GateResult:
    result.error = message
    result.fail_open = fail_open
    return result


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _is_file(change: git.Change, blob: str) -> bool:
    mode = change.old_mode if blob == change.old_blob else change.new_mode
    return mode in git.FILE_MODES


def _relative(filename: str, cwd: Path, root: Path) -> str:
    path = Path(filename)
    if not path.is_absolute():
        path = cwd.resolve() / path
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return Path(os.path.relpath(path, root)).as_posix()


def _head(args: argparse.Namespace) -> str:
    if args.head:
        return args.head
    if args.base:
        return git.WORKTREE
    return git.INDEX


def _labels(args: argparse.Namespace) -> tuple[str, str]:
    head = args.head or ("working tree" if args.base else "index")
    return args.base or "HEAD", head


if __name__ == "__main__":
    raise SystemExit(main())
