"""The model `rlm predict` scores with: the Python model and the kernel model behind one Router."""

from __future__ import annotations

from rlm_lsp.runtime import model
from rlm_lsp.runtime.errors import ModelError
from rlm_lsp.runtime.predictor import Predictor
from rlm_lsp.triton import kernels


def load_model(args, kwargs: dict) -> model.Model:
    """The Python model (--model, else the shipped one) and, unless --model alone was given, the
    kernel model behind one Router; the kernel model alone where no Python model is shipped."""
    def with_kernels(python: Predictor | None) -> model.Model:
        return kernels.with_kernels(python, gpu=args.gpu, shape_hint=args.shape, model_dir=args.kernel_model)

    try:
        python = Predictor.from_dir(args.model, **kwargs) if args.model else Predictor.default(**kwargs)
    except ModelError:
        if args.model or not kernels.KernelModel.available(args.kernel_model):
            raise
        return with_kernels(None)  # no Python model shipped: kernels only
    if args.kernel_model or not args.model:  # an explicit --model alone means exactly that model
        return with_kernels(python)
    return python


def check_template(predictor) -> None:
    """ModelError when the Python model's input_template cannot be filled here (a field such as
    {device} that only another tool supplies, or a malformed template)."""
    base = predictor.model(model.FUNCTION) if isinstance(predictor, model.Router) else predictor
    if not isinstance(base, Predictor):  # kernels only
        return
    try:
        base.render("pass\n")
    except (KeyError, IndexError, ValueError) as exc:
        raise ModelError(f"input_template of {base.config.path} cannot be filled by rlm predict: "
                         f"{type(exc).__name__}: {exc}") from None
