"""optimum's ONNX exporter, then either the fast layout (`build_fast`) or the legacy int8 (`quantize_int8`)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from rlm_lsp.runtime.errors import ExportError  # noqa: F401 - one error hierarchy (rlm_lsp.runtime.errors)

GRAPHS = ("encoder_model.onnx", "decoder_model.onnx", "decoder_with_past_model.onnx")


def check_checkpoint(checkpoint: Path) -> dict:
    """Returns rlm_meta.json after checking the checkpoint is a T5 RLM with a tokenizer."""
    if not checkpoint.is_dir():
        raise ExportError(f"checkpoint directory not found: {checkpoint}")
    for name in ("config.json", "tokenizer.json", "rlm_meta.json"):
        if not (checkpoint / name).is_file():
            what = "tokenizer" if name == "tokenizer.json" else name
            raise ExportError(f"checkpoint {checkpoint} has no {what} ({name} missing)")
    hf_config = json.loads((checkpoint / "config.json").read_text())
    if hf_config.get("model_type") != "t5":
        raise ExportError(f"unsupported architecture {hf_config.get('model_type')!r} in {checkpoint / 'config.json'}: "
                          "rlm-export handles T5 encoder-decoder checkpoints written by training.learning.train")
    if not any((checkpoint / w).is_file() for w in ("model.safetensors", "pytorch_model.bin")):
        raise ExportError(f"checkpoint {checkpoint} has no weights (model.safetensors)")
    return json.loads((checkpoint / "rlm_meta.json").read_text())


def export_fp32(checkpoint: Path, out_dir: Path) -> None:
    """Runs optimum's exporter (text2text-generation-with-past); it checks outputs at atol 1e-4."""
    from optimum.exporters.onnx import main_export

    with tempfile.TemporaryDirectory() as tmp:
        source = _with_hf_tokenizer(checkpoint, Path(tmp) / "ckpt")
        main_export(str(source), output=str(Path(tmp) / "onnx"), task="text2text-generation-with-past",
                    atol=1e-4, no_post_process=True, device="cpu")
        out_dir.mkdir(parents=True, exist_ok=True)
        for name in GRAPHS:
            shutil.copyfile(Path(tmp) / "onnx" / name, out_dir / name)


def narrow_head(onnx_dir: Path, token_ids: list[int]) -> None:
    """Cuts both decoders' output projection to the columns of `token_ids` (the number tokens).

    Constrained decoding only ever picks number tokens, so the other ~8k logits are work
    thrown away at every step and every sample; the lm_head MatMul is about half of a
    decoder step of the small model. Column j of the new logits is token_ids[j]
    (`logits_token_ids` in rlm_config.json); the values are the same dot products as before.
    """
    import numpy as np
    import onnx
    from onnx import numpy_helper

    for name in GRAPHS[1:]:
        path = onnx_dir / name
        model = onnx.load(str(path))
        graph = model.graph
        head = next((n for n in graph.node if "logits" in n.output), None)
        inits = {i.name: i for i in graph.initializer}
        if head is None or head.op_type != "MatMul" or head.input[1] not in inits:
            raise ExportError(f"{name}: logits do not come from a MatMul with a weight; cannot narrow the head")
        users = [n for n in graph.node if head.input[1] in n.input]
        if len(users) != 1:
            raise ExportError(f"{name}: the lm_head weight is shared with other nodes; cannot narrow the head")
        weight = numpy_helper.to_array(inits[head.input[1]])  # (d_model, vocab)
        narrowed = numpy_helper.from_array(np.ascontiguousarray(weight[:, token_ids]), head.input[1])
        inits[head.input[1]].CopyFrom(narrowed)
        for out in graph.output:
            if out.name == "logits":
                out.type.tensor_type.shape.dim[-1].Clear()
                out.type.tensor_type.shape.dim[-1].dim_value = len(token_ids)
        onnx.save(model, str(path))


def quantize_int8(fp32_dir: Path, out_dir: Path) -> None:
    """Weight-only int8 of every MatMul (MatMulNBits, bits=8, blocks of 32); embeddings stay fp32.

    Activations are quantized per row and block inside the kernel (accuracy_level 4,
    int8 compute), so a row's result does not depend on the other rows of its batch. Dynamic int8 (QuantizeLinear on activations) picks one scale per
    tensor over the whole batch, which made a snippet's prediction depend on its
    neighbours; the runtime promises the same output for the same input.
    """
    import logging

    import onnx
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

    logging.getLogger("onnxruntime.quantization.matmul_nbits_quantizer").setLevel(logging.WARNING)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in GRAPHS:
        quantizer = MatMulNBitsQuantizer(
            onnx.load(str(fp32_dir / name)), bits=8, block_size=32, is_symmetric=True, accuracy_level=4,
            op_types_to_quantize=("MatMul",), quant_axes=(("MatMul", 0),),
        )
        quantizer.process()
        quantizer.model.save_model_to_file(str(out_dir / name), use_external_data_format=False)


def _with_hf_tokenizer(checkpoint: Path, dest: Path) -> Path:
    """optimum loads a transformers tokenizer; make one from tokenizer.json if the checkpoint has none."""
    if (checkpoint / "tokenizer_config.json").is_file():
        return checkpoint
    from tokenizers import Tokenizer
    from transformers import PreTrainedTokenizerFast

    shutil.copytree(checkpoint, dest)
    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer.from_file(str(checkpoint / "tokenizer.json")),
                                  model_input_names=["input_ids", "attention_mask"],
                                  pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    tok.save_pretrained(dest)
    return dest


def build_fast(fp32_dir: Path, out_dir: Path, int8: bool, decoder_token_ids: list[int]) -> None:
    """The fast layout (issue 28) from optimum's fp32 graphs in `fp32_dir` (head already narrowed).

    All three graphs: int8 MatMulInteger with per-row activation scales (`int8`; the encoder's
    then one scale per input, fused: `per_input_scales`), the decoders'
    embeddings cut to `decoder_token_ids` and their self-attention bias read from a table
    (`self_bias_table`), the encoder's embedding in int8 rows (`int8`) and its position bias
    gathered by distance, not sliced again, and laid out from one run of its table
    (`encoder_bias_gather`, `encoder_bias_unsliced`, `encoder_bias_toeplitz`), and
    decoder_with_past reading the cross-attention K/V once per input (`share_cross_kv`); each graph
    saved after onnxruntime's basic optimisations (`pre_optimize`: fewer nodes, a faster start).
    With int8=False the rewrites are exact (fp32 everywhere, same layout).

    The decoders' number head (the MatMul giving `logits`, d_model x 33, a few kFLOP a row) stays
    fp32: its per-row quantization moved the logits straight, and the greedy decode of c1 agreed
    with fp32 on 30 of 40 inputs with it in fp32 against 21 with it in int8 (KL 0.00041 vs 0.00047).
    """
    import onnx

    from rlm_lsp.export import fast_graphs

    out_dir.mkdir(parents=True, exist_ok=True)
    for name in GRAPHS:
        model = onnx.load(str(fp32_dir / name))
        if name == "encoder_model.onnx":
            if int8:
                fast_graphs.quantize_embedding(model)
            fast_graphs.encoder_bias_gather(model)
            fast_graphs.encoder_bias_unsliced(model)
            fast_graphs.encoder_bias_toeplitz(model)
        else:
            fast_graphs.self_bias_table(model)
            fast_graphs.trim_embeddings(model, decoder_token_ids)
        if name == "decoder_with_past_model.onnx":
            fast_graphs.share_cross_kv(model)
        if int8:  # the decoders' number head (d_model x 33) stays fp32: see the docstring
            head = [n.name for n in model.graph.node if n.op_type == "MatMul" and "logits" in n.output]
            fast_graphs.int8_matmuls(model, skip=head)
            if name == "encoder_model.onnx":
                fast_graphs.per_input_scales(model)
        fast_graphs.set_layout(model, fast_graphs.SHARED_CROSS_KV)
        onnx.checker.check_model(model)
        onnx.save(fast_graphs.pre_optimize(model), str(out_dir / name))
