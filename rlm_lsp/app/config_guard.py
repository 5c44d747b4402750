"""A change that loosens its own gate (issue 61.3): `[tool.rlm]` read at the base and at the head,
the stricter of each setting applied, and every loosening said.

    base's [tool.rlm] + head's [tool.rlm] -> stricter(base, head) -> (the settings judged with,
                                                                     what the head loosened)

A loosening is a finding of the gate (it fails, exit 1) unless `--trust-head-config` is given;
then the head's settings are used and the loosening is still said. A setting the head makes
stricter is taken as the head's.
"""

from __future__ import annotations

import dataclasses

from rlm_lsp.policy.project_config import GateConfig


def stricter(base: GateConfig, head: GateConfig) -> tuple[GateConfig, list[str]]:
    """(the head's settings with each loosened one put back to the base's, the loosenings in words)."""
    said: list[str] = []
    keep: dict = {}
    metrics = set(base.metrics) | set(head.metrics)
    if any(head.ratio(m) > base.ratio(m) for m in metrics):
        worst = [m for m in sorted(metrics) if head.ratio(m) > base.ratio(m)]
        said += [f"{m} ratio {base.ratio(m):g} → {head.ratio(m):g}" for m in worst]
        keep.update(default_ratio=min(base.default_ratio, head.default_ratio),
                    ratios={m: min(base.ratio(m), head.ratio(m)) for m in metrics})
    for m, b in base.budgets.items():
        h = head.budgets.get(m)
        if h is None or h.value > b.value:
            said.append(f"{m} budget {b.text} → {'none' if h is None else h.text}")
            keep["budgets"] = {**head.budgets, m: b}
    added = [p for p in head.exclude if p not in base.exclude]
    if added:
        said.append("exclude adds " + ", ".join(repr(p) for p in added))
        keep["exclude"] = base.exclude
    if head.include != base.include and head.include:
        said.append("include " + (", ".join(repr(p) for p in base.include) or "everything") + " → " +
                    ", ".join(repr(p) for p in head.include))
        keep["include"] = base.include
    dropped = [m for m in base.metrics if m not in head.metrics]
    if dropped:
        said.append("metrics drop " + ", ".join(dropped))
        keep["metrics"] = tuple(dict.fromkeys((*head.metrics, *dropped)))
    if head.confidence is not None and (base.confidence is None or head.confidence > base.confidence):
        said.append(f"confidence {'the default' if base.confidence is None else f'{base.confidence:g}'} → "
                    f"{head.confidence:g}")
        keep["confidence"] = base.confidence
    for flag in ("fail_unjudged", "fail_inconclusive"):
        if getattr(base, flag) and not getattr(head, flag):
            said.append(f"{flag.replace('_', '-')} turned off")
            keep[flag] = True
    if base.structural_growth is not None and head.structural_growth is None:
        said.append("structural-growth turned off")
        keep["structural_growth"] = base.structural_growth
    if base.measure is not None and head.measure != base.measure and head.measure != "all":
        said.append(f"measure {base.measure} → {head.measure or 'off'}")
        keep["measure"] = base.measure
    if base.measure is not None and head.measure_budget < base.measure_budget:
        said.append(f"measure-budget {base.measure_budget:g} → {head.measure_budget:g} s")
        keep["measure_budget"] = base.measure_budget
    if head.model != base.model:
        said.append(f"model {base.model or 'the shipped one'} → {head.model or 'the shipped one'}")
        keep["model"] = base.model
    if head.path_budgets != base.path_budgets:
        lost = [g for g, b in base.path_budgets if dict(head.path_budgets).get(g) != b]
        if lost:
            said.append("budgets for " + ", ".join(repr(g) for g in lost) + " changed")
            keep["path_budgets"] = base.path_budgets
    return dataclasses.replace(head, **keep), said
