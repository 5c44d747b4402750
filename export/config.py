"""Writes rlm_config.json for an exported model directory."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

from rlm_lsp.runtime import numbers
from rlm_lsp.runtime.model_dir import CONFIG_NAME, FORMAT_VERSION, MODEL_FILES, sha256_file


def number_tokens(directory: Path) -> dict[str, int]:
    """Number token -> id, from the directory's tokenizer.json."""
    tokenizer = json.loads((directory / "tokenizer.json").read_text())
    vocab = tokenizer["model"]["vocab"]
    added = {t["content"]: t["id"] for t in tokenizer["added_tokens"]}
    return {t: added.get(t, vocab.get(t)) for t in numbers.ALL_TOKENS}


def head_token_ids(directory: Path) -> list[int]:
    """The ids of the number tokens, ascending: the columns a number-only head keeps."""
    return sorted(number_tokens(directory).values())


def write_model_config(out_dir: Path, checkpoint: Path, meta: dict, model_version: str, extra: dict) -> dict:
    """Copies tokenizer.json next to the ONNX files and writes a validated rlm_config.json."""
    shutil.copyfile(checkpoint / "tokenizer.json", out_dir / "tokenizer.json")
    hf_config = json.loads((checkpoint / "config.json").read_text())
    token_ids = number_tokens(out_dir)
    config = {
        "format_version": FORMAT_VERSION,
        "model_version": model_version,
        "metrics": meta["metrics"],
        "number_format": numbers.format_of(meta).config(),
        "max_input_tokens": int(meta.get("max_input_tokens", 512)),
        "input_template": meta["input_template"],
        "languages": meta.get("languages", ["python"]),
        "preprocess": meta.get("preprocess", "none"),
        "decoder_start_token_id": int(hf_config["decoder_start_token_id"]),
        "pad_token_id": int(hf_config.get("pad_token_id", 0)),
        "number_tokens": token_ids,
        "training_data": meta.get("training_data", {}),
        # a model that reads n (its template's {n}): the n it reads when the caller states none
        **({"reference_n": int(meta["reference_n"])} if meta.get("reference_n") else {}),
        "architecture": {k: hf_config.get(k) for k in ("model_type", "d_model", "num_layers", "num_decoder_layers",
                                                       "num_heads", "vocab_size")},
        **extra,
        "files": {name: sha256_file(out_dir / name) for name in MODEL_FILES},
    }
    (out_dir / CONFIG_NAME).write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    return config


def _rewrite_config(out_dir: Path, change) -> dict:
    """Loads an exported model's rlm_config.json (checked, as the runtime loads it), lets
    `change(config, loaded)` edit the raw dict, and writes it back."""
    from rlm_lsp.runtime.model_dir import ModelConfig

    loaded = ModelConfig.load(out_dir)
    config = copy.deepcopy(loaded.raw)
    change(config, loaded)
    (out_dir / CONFIG_NAME).write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    return config


def keep_leading_metrics(out_dir: Path, keep: list[str]) -> dict:
    """Ships only the first `keep` metrics of an exported model (rewrites its rlm_config.json).

    The decoder writes one number after another, in the config's order, so a prefix of the metrics
    decodes to exactly the numbers the full model gives them: cutting a trailing metric (a growth
    that failed its bar) changes no other number. The encoder must still read the names it was
    trained with, so the template's `{metrics}` becomes the full list, written out, and the shared
    draws stay laid out for all of its positions (`draw_positions`)."""

    def change(config: dict, full) -> None:
        names = full.metric_names
        if not keep or keep != names[:len(keep)]:
            raise ValueError(f"metrics {','.join(keep)}: must be a leading part of the model's "
                             f"{','.join(names)}, in that order")
        if len(keep) < len(names):
            config["input_template"] = config["input_template"].replace("{metrics}", " ".join(names))
            config["metrics"] = config["metrics"][:len(keep)]
            config["cut_metrics"] = names[len(keep):]
            config["draw_positions"] = full.draw_positions or full.positions

    return _rewrite_config(out_dir, change)


def set_growth_temperature(out_dir: Path, temperature: float) -> dict:
    """Gives every growth metric of an exported model its own sampling temperature (rewrites its
    rlm_config.json): a growth's p10-p90 is calibrated apart from the values'. The metrics decoded
    before it (model v4's memory and latency) do not change."""
    from rlm_lsp.runtime.model_dir import check_temperature
    from rlm_lsp.runtime.prediction import is_growth

    check_temperature(temperature, "growth temperature")

    def change(config: dict, _) -> None:
        growths = [m for m in config["metrics"] if is_growth(m["name"])]
        if not growths:
            raise ValueError("the model predicts no growth")
        for m in growths:
            m["sampling_temperature"] = temperature

    return _rewrite_config(out_dir, change)
