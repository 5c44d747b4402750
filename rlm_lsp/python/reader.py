"""The Python family's reader, lent to the runtime (`rlm_lsp.runtime.readers`): the normalisers, the
derived template fields (census, kernel census, program shape), the trees' features and the
kernel-vs-function rule. Imported by `rlm_lsp/__init__.py`, so registered before any use.

`outside` (the context entry `readers.OUTSIDE`, `Snippet.outside`): the names the code's file
defines, which a canonical normaliser names by their kind as the file's own text would
(`rlm_lsp.python.outside`); the trees read the same canonical text, so they get them too."""

from __future__ import annotations

from rlm_lsp.cost.analyze import FEATURE_NAMES
from rlm_lsp.python import code_features, cost_front, long_input, loop_nests, preprocess, snippets
from rlm_lsp.python import outside as outside_names
from rlm_lsp.python.code_census import code_census, kernel_census
from rlm_lsp.python.shapes import program_shape
from rlm_lsp.runtime import readers

GROWTH_FEATURE_NAMES = tuple(code_features.FEATURE_NAMES) + tuple("nest_" + f for f in loop_nests.FEATURES)
_CANONICAL = {"canon_v1": preprocess.canon_v1, "canon_v2": preprocess.canon_v2}  # the normalisers that rename


def normalise(preprocess_name: str, code: str, outside: str = "") -> str:
    """`preprocess.apply`, with the file's names (`outside`) for a canonical normaliser."""
    if outside and preprocess_name in _CANONICAL:
        return _CANONICAL[preprocess_name](code, outside_names.kinds_for(outside, code))
    return preprocess.apply(preprocess_name, code)


def features(code: str, preprocess_name: str, outside: str = "") -> list[float]:
    """What the feature trees read: `code_features.features` of the code as the model reads it."""
    return code_features.features(normalise(preprocess_name, code, outside))


def growth_features(code: str, preprocess_name: str, outside: str = "") -> list[float]:
    """What the growth trees read (`rlm_lsp.runtime.growth`): the counts and loop nests of the canonical code."""
    canon = normalise(preprocess_name, code, outside)
    return code_features.features(canon) + loop_nests.read(canon).features()


READER = readers.CodeReader(normalise=normalise, features=features,
                            feature_names=tuple(code_features.FEATURE_NAMES), is_kernel=snippets.is_kernel,
                            cut=long_input.cut, growth_features=growth_features,
                            growth_feature_names=GROWTH_FEATURE_NAMES, cost=cost_front.read,
                            cost_feature_names=tuple(FEATURE_NAMES))
readers.register(READER, {"census": code_census, "kops": kernel_census, "shape": program_shape})
