"""The gate on measured variant curves (issue 48's "Gate"): variant programs beside their parents at
the cost curves' sizes, judged by the gate's rule.

    python -m training.judging.gate_curves [--model DIR] [--split validation|training|all] [--structure none,s0,s1]
                                           [--threads 1] [--json out.json]

Issue 48 asks, on validation problems: at least 80% of the variants whose time or memory growth
class rose are flagged; at least 60% of the variants measured ≥ 2× costlier; at most 5% of the
neutral variants.

**Pairs.** `leetcode_variant_curves.pairs.jsonl.gz` holds one row per (variant program, curve rung):
the variant (a mutation of a LeetCode program, `training.measuring.mutations`) and its parent, run
on the same input of each rung (`curve:<rung>:s0`, rungs 1/64 to 4 of the problem's reference
size). A pair is one variant program beside its parent, both ok on 3+ of the same sizes (the
stricter count of `training.measuring.curves_card.variant_lines`).

**Measured labels.** Per metric (memory; latency, whose growth is the curves' "time"):

- class rose: the variant's fitted growth class (`leetcode_variant_curves.growth.jsonl.gz`) above
  its parent's (`leetcode_curves.growth.jsonl.gz`), in `curve_fit.CLASSES` order; unknown where
  either side has no class;
- ≥ 2× costlier: variant / parent at the compared size: rung "1" (the reference size) where both
  ran ok there, else the largest size both ran ok;
- neutral: a mutation expected to change nothing (`mutations.EXPECTED`: `rename`, `swap`);
- near-equal: measured within 1.25× of each other at the compared size.

"any" is either metric: rose in either, ≥ 2× in either, near-equal in both; flagged in either.

**The gate's decision.** As `training.judging.gate_variants.judged` makes it: the variant's code
again by `mutations.mutate(parent, kind, seed=0)` (a pair the engine no longer makes is left
out), no change where the canonical forms agree (`rules.changed`), else `rules.judge_metric`
(ratio 2.0, the metric's confidence level, the growth step where the model predicts growth). A
model that reads n is asked at the compared size's n (`at_n.ask`, as the gate asks at
`[tool.rlm]`'s n); any other model at its reference n.

`--structure s0` or `s1` (or several, `none,s0,s1`: one table each) adds rule S, the growth step
read from the loop nests (`rlm_lsp.policy.structural`), as the gate's `structural-growth` applies it.

Validation problems only by default (the LeetCode split, `training.learning.dataset`); `--split
training` takes the others (to choose a rule on), `--split all` (or `--all`) both; the model may
have trained on the training problems' parents. Needs the LeetCode corpus for
the parents' code; runs no user code.
"""
from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import defaultdict
from collections.abc import Iterable, Sequence
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rlm_lsp.policy import rules, structural  # noqa: E402
from training.judging.gate_quality import NEAR_EQUAL, _pct, _rate, _wilson  # noqa: E402
from training.judging.gate_variants import METRICS, REGRESSION, is_validation, judged, parent_codes, structure_words  # noqa: E402
from training.measuring.curve_fit import class_rose  # noqa: E402
from training.measuring.mutations import EXPECTED  # noqa: E402
from training.measuring.packing import MIN_SIZES, curve_pair_sizes  # noqa: E402

DATA = ROOT / "training" / "data"
PAIRS = DATA / "leetcode_variant_curves.pairs.jsonl.gz"
VARIANT_GROWTH = DATA / "leetcode_variant_curves.growth.jsonl.gz"
PARENT_GROWTH = DATA / "leetcode_curves.growth.jsonl.gz"
CLASS_OF = {"memory": "memory", "latency": "time"}  # the gate's metric -> the growth files' metric
REFERENCE_RUNG = "1"
ANY = "any"
TARGETS = {"class_rose": (">=", 0.80), "regressions": (">=", 0.60), "neutral_kinds": ("<=", 0.05)}
SPLITS = {"validation": "validation problems", "training": "training problems", "all": "all problems"}
GROUPS = {"class_rose": "class rose", "regressions": "measured ≥ 2×", "neutral_kinds": "neutral mutations",
          "near_equal": "near-equal (< 1.25×)", "near_equal_flat": "near-equal, class not risen"}


def read_rows(path: Path) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def rung(row: dict) -> str:
    """`1/64` of `curve:1/64:s0`."""
    return row["input_id"].split(":")[1]


def curve_pairs(rows: Iterable[dict], min_sizes: int = MIN_SIZES) -> list[dict]:
    """One pair per variant program whose variant and parent both ran ok on `min_sizes`+ of the same
    sizes (`packing.curve_pair_sizes`): the row of the compared size (rung "1" where both ran ok
    there, else the largest size both ran ok) with `sizes`, how many sizes both ran ok."""
    out = []
    for by_input in curve_pair_sizes(rows, min_sizes).values():
        at = [r for r in by_input.values() if rung(r) == REFERENCE_RUNG]
        # the largest by n; rungs order the sizes of one program where n is missing
        compared = at[0] if at else max(by_input.values(), key=lambda r: (r.get("input_size") or 0, Fraction(rung(r))))
        out.append(dict(compared, sizes=len(by_input)))
    return out


def labels(pair: dict, variant_growth: dict[str, dict], parent_growth: dict[str, dict]) -> dict:
    """The measured labels of one pair: {rose, ratio: metric -> bool / float or None, neutral}."""
    v, p = variant_growth.get(pair["key"], {}), parent_growth.get(pair["parent"], {})
    rose, ratio = {}, {}
    for metric, (pa, va) in METRICS.items():
        cv, cp = v.get(f"{CLASS_OF[metric]}_class"), p.get(f"{CLASS_OF[metric]}_class")
        rose[metric] = class_rose(cv, cp)
        ratio[metric] = pair[va] / pair[pa] if pair.get(pa) and pair.get(va) is not None else None
    return {"rose": rose, "ratio": ratio, "neutral": EXPECTED[pair["mutation"]][0] == "neutral"}


def groups(label: dict, flags: dict[str, bool]) -> dict[str, dict[str, bool]]:
    """metric (and "any") -> group -> whether the pair is in it; flagged: `flags`, any: either."""
    out: dict[str, dict[str, bool]] = {}
    for metric in METRICS:
        x = label["ratio"][metric]
        if metric not in flags or x is None:
            continue
        out[metric] = {"class_rose": bool(label["rose"][metric]), "regressions": x >= REGRESSION,
                       "neutral_kinds": label["neutral"], "near_equal": 1 / NEAR_EQUAL < x < NEAR_EQUAL,
                       "near_equal_flat": 1 / NEAR_EQUAL < x < NEAR_EQUAL and not label["rose"][metric]}
    if out:
        out[ANY] = {"class_rose": any(g["class_rose"] for g in out.values()),
                    "regressions": any(g["regressions"] for g in out.values()),
                    "neutral_kinds": label["neutral"],
                    "near_equal": len(out) == len(METRICS) and all(g["near_equal"] for g in out.values()),
                    "near_equal_flat": len(out) == len(METRICS) and all(g["near_equal_flat"] for g in out.values())}
    return out


def _rated(flags: list[bool]) -> dict:
    return {"n": len(flags), "flagged": _rate(flags), "ci95": _wilson(flags)}


def summarise(rows: Sequence[dict], variant_growth: dict[str, dict], parent_growth: dict[str, dict]) -> dict:
    """metric (memory, latency, any) -> group -> {n, flagged, ci95}, and by mutation kind."""
    member: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    kinds: dict[str, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        label = labels(r["pair"], variant_growth, parent_growth)
        flags = dict(r["flags"], **({ANY: any(r["flags"].values())} if r["flags"] else {}))
        for metric, inside in groups(label, r["flags"]).items():
            for name, yes in inside.items():
                if yes:
                    member[metric][name].append(flags[metric])
            kinds[metric][r["pair"]["mutation"]].append((inside["class_rose"], inside["regressions"], flags[metric]))
    out: dict = {}
    for metric in (*METRICS, ANY):
        if metric not in kinds:
            continue
        out[metric] = {name: _rated(member[metric][name]) for name in GROUPS}
        out[metric]["by_kind"] = {k: {"n": len(g), "class_rose": _rate([a for a, _, _ in g]),
                                      "measured_2x": _rate([b for _, b, _ in g]), "flagged": _rate([f for _, _, f in g])}
                                  for k, g in sorted(kinds[metric].items())}
    return out


def _cell(m: dict) -> str:
    ci = m["ci95"]
    return f"{_pct(m['flagged'])} of {m['n']}" + (f" ({_pct(ci[0])}–{_pct(ci[1])})" if ci else "")


def markdown(summary: dict, meta: dict) -> str:
    lines = [f"Model `{meta['model_version']}`, {meta['pairs']} variant/parent curve pairs ({meta['split']}; "
             f"{meta.get('left_out', 0)} left out: parent not in the corpus or variant no longer made), "
             f"asked {meta['asked']}; the gate's rule (ratio {rules.DEFAULT_RATIO:g}, each metric at its confidence "
             f"level, `rules.level_for`{structure_words(meta.get('structure'))}). Flagged share of each group, "
             "95% Wilson interval in brackets.", "",
             "| metric | " + " | ".join(f"{GROUPS[g]} flagged" for g in GROUPS) + " |", "|---|" + "---|" * len(GROUPS)]
    for metric, m in summary.items():
        lines.append(f"| {metric} | " + " | ".join(_cell(m[g]) for g in GROUPS) + " |")
    lines.append("| target (issue 48) | " + " | ".join(
        f"{'≥' if TARGETS[g][0] == '>=' else '≤'} {_pct(TARGETS[g][1])}" if g in TARGETS else "–" for g in GROUPS) + " |")
    if ANY in summary:
        lines += ["", f"{ANY}, by mutation: | kind | pairs | class rose | measured ≥ 2× | flagged |", "|---|---|---|---|---|"]
        lines += [f"| {k} | {v['n']} | {_pct(v['class_rose'])} | {_pct(v['measured_2x'])} | {_pct(v['flagged'])} |"
                  for k, v in summary[ANY]["by_kind"].items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="model directory (default: the shipped model)")
    ap.add_argument("--pairs", default=str(PAIRS))
    ap.add_argument("--variant-growth", default=str(VARIANT_GROWTH))
    ap.add_argument("--parent-growth", default=str(PARENT_GROWTH))
    ap.add_argument("--split", choices=SPLITS, default="validation",
                    help="whose problems' pairs: validation (default), training (to choose a rule on), all")
    ap.add_argument("--all", action="store_true", help="as --split all (training parents may be trained on)")
    ap.add_argument("--structure", default="none",
                    help="rule S variants to judge with, comma-separated: none (the gate without S), "
                         f"{', '.join(structural.VARIANTS)} (rlm_lsp.policy.structural); one table each")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--sample", type=int, help="judge this many pairs drawn at random (seed 0) from the split")
    ap.add_argument("--not-sample", type=int, metavar="N",
                    help="leave out the N pairs that --sample N draws (a look on pairs an earlier sample never judged)")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    variants = [None if v == "none" else v for v in a.structure.split(",") if v]
    if not variants or any(v not in (None, *structural.VARIANTS) for v in variants):
        print(f"gate_curves: --structure {a.structure!r}: expected none, s0, s1, s2 or s3, comma-separated", file=sys.stderr)
        return 2
    split = "all" if a.all else a.split
    try:
        pairs = curve_pairs(read_rows(Path(a.pairs)))
        variant_growth = {g["key"]: g for g in read_rows(Path(a.variant_growth))}
        parent_growth = {g["key"]: g for g in read_rows(Path(a.parent_growth))}
    except (OSError, ValueError, KeyError) as e:  # missing, not gzip, not JSON lines, or rows without the fields
        print(f"gate_curves: cannot read the measured curves: {e}", file=sys.stderr)
        return 2
    pairs = [p for p in pairs if split == "all" or is_validation(p) == (split == "validation")]
    if a.not_sample is not None:
        import random
        drawn = {id(p) for p in random.Random(0).sample(pairs, min(a.not_sample, len(pairs)))}
        pairs = [p for p in pairs if id(p) not in drawn]
    if a.sample is not None and a.sample < len(pairs):
        import random
        pairs = random.Random(0).sample(pairs, a.sample)
    from rlm_lsp.runtime import at_n
    from rlm_lsp.runtime.predictor import Predictor

    predictor = Predictor.from_dir(a.model, threads=a.threads) if a.model else Predictor.default(threads=a.threads)
    codes, out = parent_codes(pairs), []
    for variant in variants:  # the predictor's cache answers the second and later passes
        rows = judged(pairs, codes, predictor, n_of=lambda p: p.get("input_size"), structure=variant)
        meta = {"model_version": predictor.config.model_version, "pairs": len(rows), "left_out": len(pairs) - len(rows),
                "split": SPLITS[split], "structure": variant,
                "asked": "at the compared size's n" if at_n.reads_n(predictor) else "at its reference n (it does not read n)"}
        summary = summarise(rows, variant_growth, parent_growth)
        print(markdown(summary, meta) + "\n")
        out.append({"meta": meta, "summary": summary})
    if a.json:
        Path(a.json).write_text(json.dumps(out[0] if len(out) == 1 else out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
