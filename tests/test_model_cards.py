"""Each shipped model directory carries its own card, which names the model it describes.

A card is an extra file in the directory: loading (with sha256 checks of the model files) must
not mind it, and the wheel's package data must take it along.
"""

from __future__ import annotations

import fnmatch
import json
import re
import sys
from pathlib import Path

import pytest

from rlm_lsp.runtime.model_dir import ModelConfig

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
MODELS = ROOT / "rlm_lsp" / "models"
SHIPPED = sorted(p.name for p in MODELS.iterdir() if (p / "rlm_config.json").is_file())


def test_the_three_models_are_shipped():
    assert SHIPPED == ["default", "nas", "triton"]


@pytest.mark.parametrize("name", SHIPPED)
def test_card_names_the_shipped_model_version(name):
    card = (MODELS / name / "MODEL_CARD.md").read_text(encoding="utf-8")
    version = json.loads((MODELS / name / "rlm_config.json").read_text())["model_version"]
    assert f"`{version}`" in card.splitlines()[0], "a re-exported model needs its card updated"
    for section in ("## What it predicts", "## Headline figures", "## Limits", "## Reproduce"):
        assert section in card


@pytest.mark.parametrize("name", SHIPPED)
def test_card_links_resolve(name):
    card_dir = MODELS / name
    links = re.findall(r"\]\(([^)#]+)\)", (card_dir / "MODEL_CARD.md").read_text(encoding="utf-8"))
    assert links
    for link in links:
        assert (card_dir / link).resolve().exists(), link


@pytest.mark.parametrize("name", SHIPPED)
def test_a_card_does_not_disturb_loading_with_hash_checks(name):
    config = ModelConfig.load(MODELS / name, verify_hashes=True)
    assert config.model_version


def test_the_wheel_takes_the_cards():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    patterns = setuptools["package-data"]["rlm_lsp"]
    for name in SHIPPED:
        assert any(fnmatch.fnmatch(f"models/{name}/MODEL_CARD.md", p) for p in patterns), patterns
