"""The model's usual spread: how wide its p10–p90 intervals are on the validation rows.

    python -m training.judging.usual_spread MODEL_DIR [--limit 400] [--write]

The editor's unsure mark (`?`, `rlm_lsp.server.unsure`) goes on a prediction whose interval is
wider than the widest fifth of the model's own intervals on problems it was never trained on:
per metric the p80 of log10(p90 / p10) of the values and of p90 − p10 of the growth exponents.
`--write` records them in the model's rlm_config.json as `usual_spread`, so the editor reads
them once per model; a model without the record keeps the fixed thresholds.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np

QUANTILE = 80


def widths(predictions: list[dict]) -> dict[str, float]:
    """metric -> p80 log10(high/low) and `<metric>_growth` -> p80 of growth_high − growth_low."""
    value: dict[str, list[float]] = {}
    growth: dict[str, list[float]] = {}
    for row in predictions:
        for metric, p in row.items():
            if p.low > 0 and p.high > 0:
                value.setdefault(metric, []).append(math.log10(p.high / p.low))
            if p.growth_low is not None and p.growth_high is not None:
                growth.setdefault(metric + "_growth", []).append(p.growth_high - p.growth_low)
    out = {m: round(float(np.percentile(v, QUANTILE)), 3) for m, v in value.items()}
    out.update({m: round(float(np.percentile(v, QUANTILE)), 3) for m, v in growth.items()})
    return out


def main(argv: list[str] | None = None) -> int:
    from rlm_lsp.runtime.predictor import Predictor
    from training.learning import dataset

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("model_dir")
    ap.add_argument("--limit", type=int, default=1000, help="at most this many validation rows, evenly spaced")
    ap.add_argument("--write", action="store_true", help="record it in the model's rlm_config.json")
    args = ap.parse_args(argv)
    _, val = dataset.split_by_problem(dataset.load_examples())
    val = val[:: max(1, -(-len(val) // args.limit))]  # spread over every source, not the first keys
    predictor = Predictor.from_dir(args.model_dir)
    preds = []
    for i in range(0, len(val), 16):
        preds += predictor.predict([e.code for e in val[i:i + 16]])
    record = {"quantile": QUANTILE, "rows": len(preds), "rows_from": "validation problems (dataset.is_validation)",
              "widths": widths(preds)}
    print(json.dumps(record, indent=2))
    if args.write:
        record_in_config(args.model_dir, "usual_spread", record)
    return 0


def record_in_config(model_dir: str | Path, key: str, record: dict) -> None:
    """`record` as `key` of the model directory's rlm_config.json (a figure about the model that the
    runtime reads once per model: `usual_spread`, `typical_n`), the rest of the file kept as it was."""
    path = Path(model_dir) / "rlm_config.json"
    config = json.loads(path.read_text())
    config[key] = record
    path.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
