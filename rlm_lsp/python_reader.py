"""The Python family's reader, lent to the runtime (`rlm_lsp.readers`): the normalisers, the
derived template fields (census, kernel census, program shape), the trees' features and the
kernel-vs-function rule. Imported by `rlm_lsp/__init__.py`, so registered before any use."""

from __future__ import annotations

from rlm_lsp import code_features, preprocess, readers, snippets
from rlm_lsp.code_census import code_census, kernel_census
from rlm_lsp.shapes import program_shape

READER = readers.CodeReader(normalise=preprocess.apply, features=code_features.of,
                            feature_names=tuple(code_features.FEATURE_NAMES), is_kernel=snippets.is_kernel)
readers.register(READER, {"census": code_census, "kops": kernel_census, "shape": program_shape})
