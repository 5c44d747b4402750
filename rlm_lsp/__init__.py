"""rlm-lsp: predict how code performs from its text.

Public API:

    from rlm_lsp import Predictor, Prediction, ModelError
    predictor = Predictor.default()
    [preds] = predictor.predict(["def f(n):\n    return list(range(n))\n"])
    preds["memory"].value   # bytes
"""

from rlm_lsp.model_dir import ModelConfig, ModelError
from rlm_lsp.predictor import Prediction, Predictor

__all__ = ["ModelConfig", "ModelError", "Prediction", "Predictor"]
__version__ = "0.1.0"
