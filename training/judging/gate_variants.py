"""The gate on controlled variants: measured parent/variant pairs of data v2, judged by the gate's rule.

    python -m training.judging.gate_variants [--model DIR] [--all] [--json out.json]

Each pair of ``variants_v2.pairs.jsonl.gz`` (``training.measuring.variants``: a mutation such as
``materialize`` or ``nxn_table`` applied to a measured program, checked for the same output on the
same input) is a commit from the parent to the variant. The variant's code is made again with
``training.measuring.mutations.mutate(parent, kind, seed=0)``, as the measuring run made it. The gate's own
rule decides (``rlm_lsp.policy.rules``): no change when the canonical forms agree (``rules.changed``),
else a metric is flagged by ``rules.judge_metric`` (ratio 2.0, paired draws, the metric's confidence
level; for a model with growth, its growth step too), as the gate and the editor flag it.

Per metric with measurements on both sides (data v2's variants are memory-only so far):

- recall: pairs measured ≥ 2× costlier in the variant, flagged;
- neutral flagged: pairs of a neutral mutation (``rename``, ``swap``) that were flagged;
- near-equal flagged: pairs measured within 1.25× of each other (any mutation), flagged;
- and the same per mutation kind.

Only pairs of validation problems by default (``training.judging.shaped_examples``'s split: LeetCode by v1's
split, Kattis by its own, Euler and Rosetta by the hash of the prefixed problem id); ``--all``
also takes the rest, whose parents the model may have trained on. Needs the corpora; runs no
user code.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.policy import rules, structural  # noqa: E402
from rlm_lsp.runtime import at_n  # noqa: E402
from training.judging.gate_quality import NEAR_EQUAL, _pct, _rate, _wilson  # noqa: E402
from training.judging.shaped_examples import usable  # noqa: E402  (with the variant examples it filters: no import circle)
from training.learning import dataset  # noqa: E402
from training.measuring.mutations import EXPECTED, mutate  # noqa: E402

PAIRS = ROOT / "training" / "data" / "variants_v2.pairs.jsonl.gz"
REGRESSION = 2.0
METRICS = {"memory": ("memory_parent", "memory_variant"), "latency": ("latency_parent", "latency_variant")}
# sources whose parents are LeetCode programs (`leetcode_ladders.program`): data v2's and the curves' variants
LEETCODE = ("leetcode", "variant-curves")


def is_validation(pair: dict) -> bool:
    """The split model v4 trains by (`training.judging.shaped_examples`)."""
    if pair["source"] in LEETCODE:
        return dataset.is_validation(pair["problem_id"])
    if isinstance(pair.get("validation"), bool):
        return pair["validation"]
    return dataset.is_validation("%s:%s" % (pair["source"], pair["problem_id"]))


def parent_codes(pairs: Sequence[dict], corpora: Path | None = None) -> dict[str, str]:
    """parent key -> code as measured."""
    from training.judging import shaped_examples as v4_data

    out: dict[str, str] = {}
    wanted = {p["parent"] for p in pairs}
    for source in sorted({p["source"] for p in pairs} - set(LEETCODE)):
        out.update({k: c for k, c in v4_data.program_codes(source, corpora).items() if k in wanted})
    lc = [p for p in pairs if p["source"] in LEETCODE]
    if lc:
        from training.measuring import leetcode_ladders as leetcode

        for p in lc:
            if p["parent"] not in out:
                try:
                    out[p["parent"]] = leetcode.program(int(p["problem_id"]), p["parent"]).code
                except (KeyError, StopIteration):  # no longer in the corpus: its pairs are left out
                    continue
    return out


def judged(pairs: Sequence[dict], codes: dict[str, str], predictor,
           n_of: Callable[[dict], float | None] | None = None, structure: str | None = None) -> list[dict]:
    """Per pair: {pair, changed, flags: metric -> bool, ratio: metric -> predicted new/old,
    structure: metric -> whether rule S flagged it}.

    `n_of(pair)`: the input size to ask both versions at, for a model that reads n (`at_n.ask`, as
    the gate asks at `[tool.rlm]`'s n); any other model, or no `n_of`, is asked at its reference n.
    `structure`: rule S's variant (`rlm_lsp.policy.structural`, "s0" or "s1"), as the gate's
    `structural-growth` applies it (a model with growth keeps its own step); None: off."""
    todo = []
    for p in pairs:
        parent = codes.get(p["parent"])
        variant = mutate(parent, p["mutation"], seed=0) if parent is not None else None
        if variant is None or variant.code == parent:
            continue  # the engine no longer makes this variant: not the measured one
        n = n_of(p) if n_of is not None and at_n.reads_n(predictor) else None
        todo.append((p, parent, variant.code, n))
    by_n: dict[float | None, set[str]] = defaultdict(set)
    for _, old, new, n in todo:
        by_n[n].update((old, new))
    predicted = {}
    for n, group in by_n.items():
        unique = sorted(group)
        predicted.update({(c, n): r for c, r in zip(unique, at_n.ask(predictor, unique, n=n), strict=True)})
    out = []
    for p, old, new, n in todo:
        change = rules.changed(old, new, rules.file_names(old), rules.file_names(new))
        flags, ratios, read = {}, {}, {}
        for metric in METRICS:
            a, b = predicted[old, n].get(metric), predicted[new, n].get(metric)
            if a is None or b is None:
                continue
            judged = rules.judge_metric(a, b, rules.DEFAULT_RATIO, rules.level_for(metric, None, a, b))
            step = structural.judge(old, new, metric, a, b, structure)
            read[metric] = change and step is not None and step.regressed
            flags[metric] = change and (judged.regressed or read[metric])
            ratios[metric] = judged.value.ratio
        out.append({"pair": p, "changed": change, "flags": flags, "ratio": ratios, "n": n, "structure": read})
    return out


def summarise(rows: Sequence[dict]) -> dict:
    out: dict = {}
    for metric, (pa, va) in METRICS.items():
        # (mutation, measured variant/parent, flagged) per pair measured on both sides
        have = [(r["pair"]["mutation"], r["pair"][va] / r["pair"][pa], r["flags"][metric]) for r in rows
                if metric in r["flags"] and r["pair"].get(pa) and r["pair"].get(va)]
        if not have:
            continue
        groups = {
            "regressions": [f for _, x, f in have if x >= REGRESSION],
            "neutral_kinds": [f for kind, _, f in have if EXPECTED[kind][0] == "neutral"],
            "near_equal": [f for _, x, f in have if 1 / NEAR_EQUAL < x < NEAR_EQUAL],
        }
        m = {name: {"n": len(g), "flagged": _rate(g), "ci95": _wilson(g)} for name, g in groups.items()}
        kinds = defaultdict(list)
        for kind, x, f in have:
            kinds[kind].append((x, f))
        m["by_kind"] = {k: {"n": len(g), "measured_2x": _rate([x >= REGRESSION for x, _ in g]),
                            "flagged": _rate([f for _, f in g])} for k, g in sorted(kinds.items())}
        out[metric] = m
    return out


def markdown(summary: dict, meta: dict) -> str:
    lines = [f"Model `{meta['model_version']}`, {meta['pairs']} pairs ({meta['split']}); the gate's rule "
             f"(ratio {rules.DEFAULT_RATIO:g}, each metric at its confidence level, `rules.level_for`"
             f"{structure_words(meta.get('structure'))}).", "",
             "| metric | ≥ 2× regressions flagged | neutral mutations flagged | near-equal (< 1.25×) flagged |",
             "|---|---|---|---|"]
    for metric, m in summary.items():
        cells = [f"{_pct(m[g]['flagged'])} of {m[g]['n']}" for g in ("regressions", "neutral_kinds", "near_equal")]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    for metric, m in summary.items():
        lines += ["", f"{metric}, by mutation: | kind | pairs | measured ≥ 2× | flagged |", "|---|---|---|---|"]
        lines += [f"| {k} | {v['n']} | {_pct(v['measured_2x'])} | {_pct(v['flagged'])} |" for k, v in m["by_kind"].items()]
    return "\n".join(lines)


def structure_words(variant: str | None) -> str:
    """`; with rule S1 (a growth step read from the loop nests)`, for a table's heading."""
    return f"; with rule {variant.upper()} (a growth step read from the loop nests)" if variant else ""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="model directory (default: the shipped model)")
    ap.add_argument("--pairs", default=str(PAIRS))
    ap.add_argument("--all", action="store_true", help="training problems too (their parents may be trained on)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--structure", choices=structural.VARIANTS, help="with rule S (rlm_lsp.policy.structural)")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    from rlm_lsp.runtime.predictor import Predictor

    with gzip.open(a.pairs, "rt", encoding="utf-8") as f:
        pairs = usable([json.loads(line) for line in f if line.strip()])
    if not a.all:
        pairs = [p for p in pairs if is_validation(p)]
    predictor = Predictor.from_dir(a.model, threads=a.threads) if a.model else Predictor.default(threads=a.threads)
    rows = judged(pairs, parent_codes(pairs), predictor, structure=a.structure)
    meta = {"model_version": predictor.config.model_version, "pairs": len(rows),
            "split": "all problems" if a.all else "validation problems", "structure": a.structure}
    summary = summarise(rows)
    print(markdown(summary, meta))
    if a.json:
        Path(a.json).write_text(json.dumps({"meta": meta, "summary": summary}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
