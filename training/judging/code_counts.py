"""The polyglot code counts: `rlm_lsp.polyglot.counts` (their home since the language trees read them at run time)."""
from rlm_lsp.polyglot.counts import CONTAINERS, GROUPS, LANGUAGES, LOOPS, NAMES, counts

__all__ = ["CONTAINERS", "GROUPS", "LANGUAGES", "LOOPS", "NAMES", "counts"]
