"""Golden predictions: the shipped models give the same numbers, byte for byte, on fixed inputs.

For each shipped model (`rlm_lsp/models/default`, `triton`, `nas`) this records every field of
every prediction (floats by `repr`, so a change in the last bit shows) on inputs written for this
test (`tests/fixtures/golden/`: Python functions, Triton kernels, `.onnx` networks; never corpus
code), and compares with `tests/golden/<model>.json`. A refactor of the runtime must leave them
unchanged; a new shipped model changes them on purpose. Then regenerate and commit the file:

    PYTHONPATH=. .venv/bin/python tests/test_golden.py --write            # every model
    PYTHONPATH=. .venv/bin/python tests/test_golden.py --write default    # one model

and say in the commit which model changed and why. The numbers are those of onnxruntime on the CPU
with one thread (the shipped defaults); another CPU family may differ in the last bits, and a sample
whose draw falls at a token's boundary then flips: a fresh machine of this project's kind gave one
or two such samples in each model's file with unchanged code (session 20, onnxruntime 1.30 to 1.31.1 and
numpy 2.3 and 2.4 alike). Check that the code did not change, then regenerate on that machine.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "golden"
GOLDEN = ROOT / "tests" / "golden"
MODELS = ROOT / "rlm_lsp" / "models"
NETWORKS = ("plain_cnn", "residual", "depthwise")
# Target devices for the networks: trained GPU, phone and CPUs, one the model was not trained on
# (silver_4114), and a custom device given by its latencies on the reference networks.
DEVICES = ("1080ti_1", "pixel3", "gold_6226", "silver_4114", "mydev=1,2,3,4,5,6,7,8,9,10")
KERNEL_SHAPES = ((None, None), ("NVIDIA H100 80GB HBM3", "B=8 T=2048"), ("RTX 4090", "4096x4096"))


def _num(x: float) -> str:
    return repr(float(x))


def _prediction(p) -> dict:
    return {"metric": p.metric, "value": _num(p.value), "low": _num(p.low), "high": _num(p.high), "unit": p.unit,
            "samples": [_num(s) for s in p.samples]}


def record_default() -> dict:
    from rlm_lsp.python import snippets
    from rlm_lsp.runtime.predictor import Predictor

    pred = Predictor.from_dir(MODELS / "default", device="cpu", threads=1)
    found = snippets.extract((FIXTURES / "functions.py").read_text())
    results = pred.predict([s.code for s in found])
    rows = [{"input": f"functions.py:{s.qualname}", "kind": s.kind, "tokens": len(pred.token_ids(s.code)),
             "predictions": {m: _prediction(p) for m, p in r.items()}} for s, r in zip(found, results)]
    return {"model_version": pred.config.model_version, "rows": rows}


def record_triton() -> dict:
    from rlm_lsp.python import snippets
    from rlm_lsp.runtime.predictor import Predictor
    from rlm_lsp.triton import kernels

    model = kernels.KernelModel.load(MODELS / "triton", device="cpu", threads=1)
    found = snippets.extract((FIXTURES / "kernels.py").read_text())
    rows = []
    for gpu, shape in KERNEL_SHAPES:
        kernel_snippets = [s for s in found if s.kind == "triton_kernel"]
        for s, p in zip(kernel_snippets, model.predict_kernels(found, gpu, shape), strict=True):
            rows.append({"input": f"kernels.py:{s.qualname}", "gpu": gpu, "shape_hint": shape,
                         "prediction": {**_prediction(p), "gpu": p.gpu, "shape": p.shape,
                                        "shape_assumed": p.shape_assumed}})
    # The routing path the CLI, the server and the gate take: kernels to the kernel model, the launcher
    # to the Python model.
    base = Predictor.from_dir(MODELS / "default", device="cpu", threads=1)
    both = kernels.with_kernels(base, model_dir=MODELS / "triton")
    routed = [{"input": f"kernels.py:{s.qualname}", "kind": s.kind,
               "predictions": {m: _prediction(p) for m, p in r.items()}}
              for s, r in zip(found, both.predict([s.code for s in found]))]
    return {"model_version": model.predictor.config.model_version, "rows": rows, "routed": routed}


def record_nas() -> dict:
    from rlm_lsp.networks import nas

    model = nas.load(MODELS / "nas", device="cpu", threads=1)
    rows = []
    for name in NETWORKS:
        for p in nas.predict_onnx_file(FIXTURES / f"{name}.onnx", list(DEVICES), predictor=model):
            rows.append({"input": f"{name}.onnx", "device": p.device, "graph_tokens": p.tokens,
                         "truncated": p.truncated, "trained_device": p.known_target, "prediction": _prediction(p)})
    return {"model_version": model.config.model_version, "rows": rows}


RECORDERS = {"default": record_default, "triton": record_triton, "nas": record_nas}


def _text(data: dict) -> str:
    return json.dumps(data, indent=1, sort_keys=True) + "\n"


def _close(a, b, rel: float = 1e-3) -> bool:
    """The same rows, every number within `rel` of its recorded value: onnxruntime releases move float
    sums (1.31 against the recording's: 3e-5 at most, and a sample recorded to 4 digits can round the
    other way, 20.55 against 20.56); a real change of the model or the runtime moves far more."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    return x == y or abs(x - y) <= rel * max(abs(x), abs(y))


@pytest.mark.parametrize("name", sorted(RECORDERS))
def test_golden_predictions_are_unchanged(name):
    if not (MODELS / name / "rlm_config.json").is_file():
        pytest.skip(f"no shipped {name} model")
    expected = json.loads((GOLDEN / f"{name}.json").read_text())
    assert _close(json.loads(_text(RECORDERS[name]())), expected), (
        f"predictions of the shipped {name} model changed; if on purpose, regenerate: "
        f"PYTHONPATH=. .venv/bin/python tests/test_golden.py --write {name}")


def test_golden_functions_fit_the_model():
    """The golden Python inputs are read whole, so changes to how long code is read leave them alone."""
    rows = json.loads((GOLDEN / "default.json").read_text())["rows"]
    limit = json.loads((MODELS / "default" / "rlm_config.json").read_text())["max_input_tokens"]
    assert rows and all(r["tokens"] <= limit for r in rows)
    assert {r["kind"] for r in rows} == {"function", "method"}


def main(argv: list[str]) -> int:
    if not argv or argv[0] != "--write":
        print(__doc__)
        return 2
    for name in argv[1:] or sorted(RECORDERS):
        (GOLDEN / f"{name}.json").write_text(_text(RECORDERS[name]()))
        print(f"wrote {GOLDEN / name}.json")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main(sys.argv[1:]))
