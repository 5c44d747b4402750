"""A snippet's helpers by their written names (T) or by canonical ones (O): which should the model read?

    python -m experiments.snippet_callees [--threads 1] [--json out.json]

The editor, `rlm predict` and the gate feed the model one function at a time. A helper the function
calls that its file defines (`_siftup` in `heapify`) keeps its written name today (T), though in
training every helper is defined in the same text and canonicalised to `f1`, `f2`, ...; so renaming
a helper moves its callers' predictions. O canonicalises those names too (`preprocess.canon_v1(code,
outside)`, as the gate's change check does: `g0`, `g1`, ...); O2 names them as the file's own text
would (`f1` for a function, `C0` for a class: `canonical_scopes.defined_kinds`). On validation LeetCode programs (the
`large` tier) whose entry function calls another function of the file: the entry's snippet alone
predicted both ways against the measured program (Spearman, bootstrap SD of the paired difference
over programs), and the share of entries whose prediction moves 1.25x or more when every helper of
the file is renamed (`bench/rewrites.rename_functions`). Rule: experiments/log (session 35).
Computes nothing at import.
"""
from __future__ import annotations

import argparse
import ast
import json
import random
import sys
from pathlib import Path

import numpy as np

METRICS = ("memory", "latency")


def entry_cases(limit: int | None = None) -> list[dict]:
    """{key, code (the file), entry (its snippet's code), names (the file's other names), values}."""
    from rlm_lsp.policy.rules import file_names
    from rlm_lsp.python import canonical_scopes, snippets
    from training.learning import dataset
    from training.measuring import build_dataset as bd
    P = bd.problems()
    out = []
    for e in dataset.load_examples(tiers=("large",)):
        if not dataset.is_validation(e.problem_id, 0.1):
            continue
        pr = P.get(int(e.problem_id)) if str(e.problem_id).isdigit() else None
        if pr is None:
            continue
        found = [s for s in snippets.extract(e.code) if s.name == pr.entry]
        if len(found) != 1:
            continue
        own = {n.name for n in ast.walk(ast.parse(found[0].code))
               if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        names = file_names(e.code) - own
        called = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(ast.parse(found[0].code))
                  if isinstance(n, (ast.Name, ast.Attribute))}
        if not names & called:
            continue  # no helper of the file called: T and O read the same text
        kinds = {k: v for k, v in canonical_scopes.defined_kinds(ast.parse(e.code)).items() if k in names}
        out.append({"key": e.key, "problem": str(e.problem_id), "code": e.code, "entry": found[0].code,
                    "name": pr.entry, "names": names, "kinds": kinds, "values": e.values})
        if limit and len(out) >= limit:
            break
    return out


def renamed_entry(case: dict, seed: int = 0) -> tuple[str, frozenset, dict] | None:
    """The entry's snippet and the file's other names after every helper of the file is renamed."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    import rewrites

    from rlm_lsp.policy.rules import file_names
    from rlm_lsp.python import snippets
    new = rewrites.rename_functions(case["code"], random.Random(seed))
    if new is None:
        return None
    # the entry keeps its name only if rename_functions renamed it too: find it by position instead
    old = [s.name for s in snippets.extract(case["code"])]
    got = snippets.extract(new)
    if len(got) != len(old):
        return None
    entry = got[old.index(case["name"])]
    own = {n.name for n in ast.walk(ast.parse(entry.code))
           if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    from rlm_lsp.python import canonical_scopes
    names = file_names(new) - own
    return entry.code, names, {k: v for k, v in canonical_scopes.defined_kinds(ast.parse(new)).items() if k in names}


def main(argv=None) -> int:
    from scipy.stats import spearmanr

    from rlm_lsp.python import preprocess
    from rlm_lsp.runtime.predictor import Predictor
    ap = argparse.ArgumentParser(prog="python -m experiments.snippet_callees")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    cases = entry_cases(a.limit)
    pred = Predictor.default(threads=a.threads)
    texts = {"T": [c["entry"] for c in cases],
             "O": [preprocess.canon_v1(c["entry"], frozenset(c["names"])) for c in cases],
             "O2": [preprocess.canon_v1(c["entry"], c["kinds"]) for c in cases]}
    moved_texts: dict = {k: [] for k in texts}
    moved_idx = []
    for i, c in enumerate(cases):
        r = renamed_entry(c)
        if r is None:
            continue
        moved_idx.append(i)
        moved_texts["T"].append(r[0])
        moved_texts["O"].append(preprocess.canon_v1(r[0], frozenset(r[1])))
        moved_texts["O2"].append(preprocess.canon_v1(r[0], r[2]))
    got = {k: pred.predict(v) for k, v in texts.items()}
    again = {k: pred.predict(v) for k, v in moved_texts.items()}
    report: dict = {"cases": len(cases), "renamed": len(moved_idx), "model": pred.config.model_version}
    rng = np.random.default_rng(0)
    for m in METRICS:
        have = [i for i, c in enumerate(cases) if c["values"].get(m)]
        y = np.log10([cases[i]["values"][m] for i in have])
        p = {k: np.log10([got[k][i][m].value for i in have]) for k in texts}
        rho = {k: float(spearmanr(y, p[k])[0]) for k in p}
        diffs: dict = {"O": [], "O2": []}
        for _ in range(500):
            b = rng.integers(0, len(have), len(have))
            for k in diffs:
                diffs[k].append(spearmanr(y[b], p[k][b])[0] - spearmanr(y[b], p["T"][b])[0])
        moved = {k: float(np.mean([max(got[k][i][m].value, again[k][j][m].value)
                                   >= 1.25 * min(got[k][i][m].value, again[k][j][m].value)
                                   for j, i in enumerate(moved_idx)])) for k in texts}
        report[m] = {"n": len(have), **{f"spearman_{k}": round(v, 4) for k, v in rho.items()},
                     **{f"diff_sd_{k}": round(float(np.std(v)), 4) for k, v in diffs.items()},
                     **{f"moved_1.25x_{k}": round(v, 3) for k, v in moved.items()}}
        print(m, json.dumps(report[m]), flush=True)
    print("cases", len(cases), "renamed", len(moved_idx))
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
