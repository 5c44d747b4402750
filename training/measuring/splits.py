"""Validation splits of data v2, fixed by hash of whole problems (never by row).

* **Second split (Kattis, script shape).** ``is_kattis_validation(shortname)``: the rule of
  ``training.learning.dataset.is_validation`` (SHA-256 of ``salt:name``, first 8 bytes as a fraction of 2^64,
  below ``fraction``) with its own salt ``rlm-split-v2-kattis``, on the problem's short name, lower
  case.  The short name, not the package path, so a problem that two repositories both carry (or a
  contest re-export of it) lands on one side.
* **LeetCode rows of v2** (ladders, LeetCode variants) keep the first split:
  ``training.learning.dataset.is_validation(str(problem_id))``, so a ladder rung or a variant of a validation
  problem never trains.
* Euler and Rosetta rows have no split of their own (``None``).

``validation(row)`` gives the side of any v2 row (parents and variants included: a variant is on its
parent's problem), ``split(rows)`` the (train, validation) pair.
"""
from __future__ import annotations

from training.learning.dataset import is_validation

KATTIS_SALT = "rlm-split-v2-kattis"


def kattis_name(row: dict) -> str:
    """The name the Kattis split hashes: the short name, else the last part of ``problem_id``, lower case."""
    name = row.get("kattis_shortname") or str(row.get("problem_id", "")).rstrip("/").rsplit("/", 1)[-1]
    return str(name).strip().lower()


def is_kattis_validation(kattis_shortname: str, fraction: float = 0.1) -> bool:
    return is_validation(str(kattis_shortname).strip().lower(), fraction, salt=KATTIS_SALT)


def validation(row: dict, fraction: float = 0.1) -> bool | None:
    """True / False for Kattis and LeetCode rows (whole problems), None where a source has no split."""
    src = row.get("source")
    if src == "kattis":
        return is_kattis_validation(kattis_name(row), fraction)
    if src in ("leetcode", "curves", "variant-curves"):  # the LeetCode programs (and variants) at five sizes: one split
        return is_validation(str(row["problem_id"]), fraction)
    return None


def split(rows, fraction: float = 0.1) -> tuple[list, list]:
    """(train, validation) of the rows that have a split; rows of a source without one go to train."""
    train, val = [], []
    for r in rows:
        (val if validation(r, fraction) else train).append(r)
    return train, val
