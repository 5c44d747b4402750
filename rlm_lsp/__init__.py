"""rlm-lsp: predict how code performs from its text.

Public API:

    from rlm_lsp import Predictor, Prediction, ModelError
    predictor = Predictor.default()
    [preds] = predictor.predict(["def f(n):\n    return list(range(n))\n"])
    preds["memory"].value   # bytes

Names load lazily, so `import rlm_lsp.python.snippets` (or the language server starting up)
does not pay for onnxruntime before it needs a model.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from rlm_lsp.polyglot import reader as polyglot_reader  # noqa: F401  (C++, Java and Go: their own normalisers)
from rlm_lsp.python import reader as python_reader  # noqa: F401  (the Python family lends the runtime its code reader)

__all__ = ["ConfigError", "InputError", "Model", "ModelConfig", "ModelError", "Prediction", "Predictor", "RlmError",
           "Router"]
__version__ = "0.1.0"

_WHERE = {"ModelConfig": "rlm_lsp.runtime.model_dir", "ModelError": "rlm_lsp.runtime.errors", "RlmError": "rlm_lsp.runtime.errors",
          "InputError": "rlm_lsp.runtime.errors", "ConfigError": "rlm_lsp.runtime.errors",
          "Prediction": "rlm_lsp.runtime.prediction", "Predictor": "rlm_lsp.runtime.predictor", "Model": "rlm_lsp.runtime.model",
          "Router": "rlm_lsp.runtime.model"}

if TYPE_CHECKING:
    from rlm_lsp.runtime.errors import ConfigError, InputError, ModelError, RlmError
    from rlm_lsp.runtime.model import Model, Router
    from rlm_lsp.runtime.model_dir import ModelConfig
    from rlm_lsp.runtime.prediction import Prediction
    from rlm_lsp.runtime.predictor import Predictor


def __getattr__(name: str):
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'rlm_lsp' has no attribute {name!r}")
