"""HELP's NAS-Bench-201 latency table: rows, graph texts, device descriptions, the splits.

    /work/shared/corpora/nas/help/nasbench201_latency.csv.gz
    search_space,arch_index,arch,device,device_base,batch_size,latency_ms     (15,625 archs x 27 settings)

Device description (what `{device}` in the template is filled with): the device name, then its latency on
HELP's 10 reference architectures (`nasbench201_hardware_embedding_index` in help_meta.json, the
"hardware embedding" HELP uses for few-shot transfer): the geometric mean in ms with two significant
digits, then each one as a percentage of that mean, rounded to 5 %:

    pixel3 ms=9.3 85 120 65 ...

A device never seen in training is described the same way from 10 measurements; that is how the
held-out-device transfer is run. The 10 reference architectures are always in the training split.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import random
from collections import defaultdict
from pathlib import Path

from rlm_lsp.networks.graph_text import GRAPH_TEXT_VERSION
from rlm_lsp.networks.nas import describe_device  # the runtime renders devices with the same function
from training.nas.nb201_graph import nb201_text

CORPUS = Path(os.environ.get("RLM_NAS_CORPUS", "/work/shared/corpora/nas/help"))  # override: another machine
NB201_CSV = CORPUS / "nasbench201_latency.csv.gz"
CACHE = Path(__file__).resolve().parents[1] / "work" / "nas"
N_ARCHS = 15625

# the paper's NAS-Bench-201 latency devices -> HELP device names (the paper figure for each)
PAPER = {"pixel3": 0.73, "eyeriss": 0.47}
PAPER_FAMILIES = {"Intel CPU": (0.96, ["gold_6226", "gold_6240", "silver_4114", "silver_4210r"]),
                  "NVIDIA GPU": (0.94, ["1080ti_1", "2080ti_1", "titan_rtx_1", "titanx_1", "titanxp_1"])}


def load_latency(path: Path = NB201_CSV) -> tuple[dict[int, str], dict[str, dict[int, float]]]:
    """-> ({arch_index: arch}, {device: {arch_index: latency_ms}}); cached under training/work/nas/."""
    import pickle

    cache = CACHE / "nb201_latency.pickle"
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if cache.is_file():
        with cache.open("rb") as fh:
            stored = pickle.load(fh)
        if stored["key"] == key:
            return stored["archs"], stored["lat"]
    archs: dict[int, str] = {}
    lat: dict[str, dict[int, float]] = defaultdict(dict)
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            i = int(row["arch_index"])
            archs[i] = row["arch"]
            lat[row["device"]][i] = float(row["latency_ms"])
    CACHE.mkdir(parents=True, exist_ok=True)
    with cache.open("wb") as fh:
        pickle.dump({"key": key, "archs": archs, "lat": dict(lat)}, fh)
    return archs, dict(lat)


def reference_archs() -> list[int]:
    meta = json.loads((CORPUS / "help_meta.json").read_text())
    return list(meta["nasbench201_hardware_embedding_index"])


def graph_texts(archs: dict[int, str]) -> dict[int, str]:
    """Arch index -> graph text (standard skeleton C=16, N=5, 32x32), cached under training/work/nas/."""
    CACHE.mkdir(parents=True, exist_ok=True)
    cache = CACHE / f"nb201_text_v{GRAPH_TEXT_VERSION}.json.gz"
    if cache.is_file():
        with gzip.open(cache, "rt") as fh:
            stored = {int(k): v for k, v in json.load(fh).items()}
        if len(stored) == len(archs):
            return stored
    texts = {i: nb201_text(a) for i, a in archs.items()}
    with gzip.open(cache, "wt") as fh:
        json.dump(texts, fh)
    return texts


def device_descriptions(lat: dict[str, dict[int, float]]) -> dict[str, str]:
    refs = reference_archs()
    return {d: describe_device(d, [lat[d][i] for i in refs]) for d in sorted(lat)}


def split_archs(seed: int = 0, test_fraction: float = 0.2, val_fraction: float = 0.04):
    """-> (train, val, test) arch indices; the reference archs are always in train."""
    refs = set(reference_archs())
    order = [i for i in range(N_ARCHS) if i not in refs]
    random.Random(seed).shuffle(order)
    n_test = int(N_ARCHS * test_fraction)
    n_val = int(N_ARCHS * val_fraction)
    test = sorted(order[:n_test])
    val = sorted(order[n_test : n_test + n_val])
    train = sorted(order[n_test + n_val :] + list(refs))
    return train, val, test


def eval_subset(test: list[int], n: int = 300) -> list[int]:
    """The held-out archs the RLM is scored on (greedy decoding of every device is slow on CPU)."""
    return sorted(random.Random(1).sample(test, min(n, len(test))))


def scored_archs(split: str = "test", n: int = 300) -> list[int]:
    """The archs an evaluation scores: the first `n` validation archs, or `n` test archs (the fixed
    300-arch sample, or over 300 a larger one, up to all 3,125)."""
    _, val, test = split_archs()
    return val[:n] if split == "val" else eval_subset(test, max(300, n))[:n]
