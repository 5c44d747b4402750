"""Where the measured rows of data v2 live, and reading them back.

``WORK`` holds the append-only work files (``training/work``, git-ignored; ``RLM_TRAINING_WORK``), ``DATA``
the committed files (``training/data``; ``RLM_TRAINING_DATA``).  The paths are read from the module's
globals at call time, so a test patches ``workfiles.WORK`` and ``workfiles.DATA`` in this one place
(``streams`` measures into these files, ``packing`` packs them).
"""
from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

# LeetCode's C++, Java and Go solutions on the Python ladders' rungs (issue 51; not in "all": compilers needed)
POLYGLOT = ("leetcode-cpp", "leetcode-java", "leetcode-go")
# Rosetta Code's C, C++, Go and Java programs as scripts, compiled (issue 51; not in "all" either)
ROSETTA_COMPILED = ("rosetta-c", "rosetta-cpp", "rosetta-go", "rosetta-java")
# the committed file of a source, where it is not "<source>_v2"
DATA_NAMES = {"curves": "leetcode_curves", "variant-curves": "leetcode_variant_curves",
              "leetcode-cpp": "leetcode_cpp", "leetcode-java": "leetcode_java", "leetcode-go": "leetcode_go",
              **{s: s.replace("-", "_") for s in ROSETTA_COMPILED}}
CURVED = ("curves", "variant-curves")  # sources measured at the cost curves' rungs

ROOT = Path(__file__).resolve().parents[1]
WORK = Path(os.environ.get("RLM_TRAINING_WORK", ROOT / "work"))
DATA = Path(os.environ.get("RLM_TRAINING_DATA", ROOT / "data"))
# "measure-v2": the runner built the stdin buffer inside the traced region (~4 B/char) and rows carried a
# ``memory_baseline_bytes`` to subtract; "measure-v2.1": the buffer is made before tracing, memory is the
# program's own.  Only rows of the current harness are resumed from and packed.
HARNESS = "measure-v2.1"


def work_path(source: str) -> Path:
    return WORK / "v2" / f"{source}.jsonl"


def data_path(source: str) -> Path:
    return DATA / ("%s.jsonl.gz" % DATA_NAMES.get(source, source + "_v2"))


def growth_path(source: str) -> Path:
    return DATA / ("%s.growth.jsonl.gz" % DATA_NAMES.get(source, source + "_v2"))


def pairs_path() -> Path:
    return DATA / "variants_v2.pairs.jsonl.gz"


def read_rows(path: Path):
    if not path.exists():
        return
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue  # a torn line of a killed run
            if isinstance(r, dict) and "key" in r and r.get("harness") == HARNESS:
                yield r
