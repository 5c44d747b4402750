"""The Python family's reader, lent to the runtime (`rlm_lsp.runtime.readers`): the normalisers, the
derived template fields (census, kernel census, program shape), the trees' features and the
kernel-vs-function rule. Imported by `rlm_lsp/__init__.py`, so registered before any use."""

from __future__ import annotations

from rlm_lsp.python import code_features, long_input, loop_nests, preprocess, snippets
from rlm_lsp.python.code_census import code_census, kernel_census
from rlm_lsp.python.shapes import program_shape
from rlm_lsp.runtime import readers

GROWTH_FEATURE_NAMES = tuple(code_features.FEATURE_NAMES) + tuple("nest_" + f for f in loop_nests.FEATURES)


def growth_features(code: str, preprocess_name: str) -> list[float]:
    """What the growth trees read (`rlm_lsp.runtime.growth`): the counts and loop nests of the canonical code."""
    canon = preprocess.apply(preprocess_name, code)
    return code_features.features(canon) + loop_nests.read(canon).features()


READER = readers.CodeReader(normalise=preprocess.apply, features=code_features.of,
                            feature_names=tuple(code_features.FEATURE_NAMES), is_kernel=snippets.is_kernel,
                            cut=long_input.cut, growth_features=growth_features,
                            growth_feature_names=GROWTH_FEATURE_NAMES)
readers.register(READER, {"census": code_census, "kops": kernel_census, "shape": program_shape})
