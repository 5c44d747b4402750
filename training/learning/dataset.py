"""Training examples: measured rows of `training/data/` joined with corpus code by key.

A measurement row names its program by `key` = "<source>:<path>" and carries
`problem_id`, `language`, `tier`, `status`, `memory_bytes`, `latency_ms`. The code
itself stays in `../shared/corpora/leetcode/solutions.jsonl.gz` (never committed
here); `load_examples` joins the two. Rows of one (key, tier) measured more than
once are merged by the median.

The validation split is by problem: a problem's solutions are all in train or all
in validation, decided by a hash of the problem id, so the split is the same in
every run and in the baseline, the trainer and the evaluator.

`synthetic_examples` makes small fake programs with known scaling, for tests and
for developing without measurements.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import json
import random
import statistics
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_DATA = str(ROOT / "training" / "data" / "*.jsonl*")
DEFAULT_CORPUS = str(ROOT.parent / "shared" / "corpora" / "leetcode" / "solutions.jsonl.gz")
METRICS = (
    {
        "name": "memory",
        "unit": "bytes",
        "definition": "tracemalloc peak bytes of one call of the program on its input",
    },
    {
        "name": "latency",
        "unit": "ms",
        "definition": "median wall-clock milliseconds of one call of the program on its input",
    },
)
METRIC_NAMES = tuple(m["name"] for m in METRICS)
_ROW_FIELDS = {"memory": "memory_bytes", "latency": "latency_ms"}


@dataclass
class Example:
    key: str
    problem_id: str
    code: str
    values: dict[str, float | None]  # metric name -> measured value (None: missing)
    language: str = "python"
    tier: str = ""
    extra: dict = field(default_factory=dict)


def open_text(path: str | Path):
    path = str(path)
    return gzip.open(path, "rt", encoding="utf-8") if path.endswith(".gz") else open(path, encoding="utf-8")


def read_jsonl(paths: Iterable[str | Path]) -> Iterator[dict]:
    for path in paths:
        with open_text(path) as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    yield json.loads(line)
                except json.JSONDecodeError:
                    continue  # a half-written last line of a file still being appended


def expand(patterns: str | Sequence[str]) -> list[str]:
    if isinstance(patterns, str):
        patterns = [patterns]
    out: list[str] = []
    for pattern in patterns:
        hits = sorted(glob.glob(pattern)) if any(c in pattern for c in "*?[") else [pattern]
        out.extend(h for h in hits if Path(h).is_file())
    return sorted(dict.fromkeys(out))


def load_corpus(path: str = DEFAULT_CORPUS, language: str | None = "python") -> dict[str, dict]:
    """key "<source>:<path>" -> corpus row (with `code`)."""
    corpus: dict[str, dict] = {}
    for row in read_jsonl([path]):
        if language and row.get("language") != language:
            continue
        corpus[f"{row['source']}:{row['path']}"] = row
    return corpus


def program_code(row: dict) -> str:
    """The code as measured: kamyu's Python 2 files run after `training.measuring.py2to3.convert`."""
    if row.get("py2") and row.get("language") == "python":
        from training.measuring.py2to3 import convert

        try:
            return convert(row["code"])
        except Exception:  # noqa: BLE001 - a converter hiccup must not lose the row
            return row["code"]
    return row["code"]


def corpus_texts(path: str = DEFAULT_CORPUS, language: str = "python") -> list[str]:
    return [program_code(row) for row in load_corpus(path, language).values()]


def _value(row: dict, metric: str) -> float | None:
    v = row.get(_ROW_FIELDS.get(metric, metric))
    if v is None:
        return None
    try:
        v = float(v)
    except (TypeError, ValueError):
        return None
    return v if v == v and v >= 0 else None


def load_examples(
    data: str | Sequence[str] = DEFAULT_DATA,
    corpus: str | dict = DEFAULT_CORPUS,
    tiers: Sequence[str] = ("large",),
    statuses: Sequence[str] = ("ok",),
    language: str = "python",
) -> list[Example]:
    """Measured rows joined with code; one Example per (key, tier), repeats merged by median."""
    code_by_key = load_corpus(corpus, language) if isinstance(corpus, str) else corpus
    groups: dict[tuple[str, str], list[dict]] = {}
    for row in read_jsonl(expand(data)):
        if row.get("status") not in statuses or row.get("language", language) != language:
            continue
        tier = row.get("tier", "")
        if tiers and tier not in tiers:
            continue
        key = row.get("key") or f"{row.get('source')}:{row.get('path')}"
        if key not in code_by_key:
            continue
        groups.setdefault((key, tier), []).append(row)
    examples = []
    for (key, tier), rows in sorted(groups.items()):
        values = {}
        for metric in METRIC_NAMES:
            vals = [v for v in (_value(r, metric) for r in rows) if v is not None]
            values[metric] = statistics.median(vals) if vals else None
        if all(v is None for v in values.values()):
            continue
        crow = code_by_key[key]
        pid = rows[0].get("problem_id", crow.get("problem_id"))
        examples.append(
            Example(
                key=key,
                problem_id=str(pid if pid is not None else key),
                code=program_code(crow),
                values=values,
                language=language,
                tier=tier,
                extra={"source": crow.get("source")},
            )
        )
    return examples


def is_validation(problem_id: str, fraction: float = 0.1, salt: str = "rlm-split-v1") -> bool:
    digest = hashlib.sha256(f"{salt}:{problem_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < fraction


def split_by_problem(
    examples: Sequence[Example], fraction: float = 0.1
) -> tuple[list[Example], list[Example]]:
    """By problem: `is_validation` of the problem id, unless the example carries its own split
    (`extra["validation"]`: data v2's Kattis problems, split by their own hash)."""
    def held_out(e: Example) -> bool:
        own = e.extra.get("validation")
        return own if isinstance(own, bool) else is_validation(e.problem_id, fraction)

    train = [e for e in examples if not held_out(e)]
    val = [e for e in examples if held_out(e)]
    return train, val


def summary(examples: Sequence[Example], val: Sequence[Example] | None = None) -> dict:
    out = {
        "examples": len(examples),
        "problems": len({e.problem_id for e in examples}),
        "tiers": sorted({e.tier for e in examples}),
        "sources": sorted({str(e.extra.get("source")) for e in examples}),
    }
    for metric in METRIC_NAMES:
        vals = sorted(e.values[metric] for e in examples if e.values.get(metric) is not None)
        if vals:
            out[f"{metric}_median"] = vals[len(vals) // 2]
            out[f"{metric}_min"], out[f"{metric}_max"] = vals[0], vals[-1]
    if val is not None:
        out["validation_examples"] = len(val)
        out["validation_problems"] = len({e.problem_id for e in val})
    return out


# --- synthetic data ---------------------------------------------------------------------------

_SYNTH_TEMPLATES = [
    # (code template, memory(n, k), latency(n, k))
    (
        "class Solution:\n    def build{k}(self, n: int) -> int:\n"
        "        # make a list\n        a = [0] * ({n} * {k})\n        return len(a)\n",
        lambda n, k: 56 + 8 * n * k,
        lambda n, k: 1e-4 * n * k,
    ),
    (
        "def loop{k}(n):\n    s = 0\n    for i in range({n}):\n        for j in range({k}):\n"
        "            s += i * j\n    return s\n",
        lambda n, k: 200.0,
        lambda n, k: 5e-5 * n * k,
    ),
    (
        "import sys\ndata = sys.stdin.read().split()\nd = {{}}\n"
        "for i in range({n}):\n    d[i] = str(i) * {k}\nprint(len(d))\n",
        lambda n, k: 100 * n + 2 * n * k,
        lambda n, k: 2e-4 * n,
    ),
]


def synthetic_examples(n: int = 64, seed: int = 0, problems: int = 12) -> list[Example]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        t = i % len(_SYNTH_TEMPLATES)
        template, mem, lat = _SYNTH_TEMPLATES[t]
        size = rng.choice([10, 100, 1000, 10000, 100000])
        k = rng.randint(1, 9)
        noise = lambda: rng.uniform(0.9, 1.1)  # noqa: E731
        pid = f"synth{(i // len(_SYNTH_TEMPLATES)) % problems}"
        out.append(
            Example(
                key=f"synthetic:{i}",
                problem_id=pid,
                code=template.format(n=size, k=k),
                values={
                    "memory": mem(size, k) * noise(),
                    "latency": lat(size, k) * noise() if i % 7 else None,
                },
                tier="large",
                extra={"source": "synthetic"},
            )
        )
    return out
