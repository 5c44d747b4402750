"""The model loaded while the server process starts (rlm_lsp.server.preload, #61): taken by the first
load when the client's settings name the same model, dropped otherwise; RLM_PRELOAD=off: none."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from lsp_client import LspClient, file_uri

from rlm_lsp.server import model, preload
from rlm_lsp.server.settings import Settings

DEMO = "def total(values):\n    out = 0\n    for v in values:\n        out += v\n    return out\n"


@pytest.fixture
def fake_load(monkeypatch):
    """model.load without a model: records the settings it was asked for; `gate` holds it."""
    asked: list[Settings] = []
    gate = threading.Event()
    gate.set()

    class Analyzer:
        predicted = 5

        def analyze(self, uri, text, head):
            return []

        def forget(self, uri):
            pass

    def load(settings):
        asked.append(settings)
        gate.wait(10)
        return model.Loaded(Analyzer(), "fake", "fake-1")

    monkeypatch.setattr(model, "load", load)
    monkeypatch.setattr(preload, "_job", None)
    return asked, gate


def test_taken_once_by_the_same_settings(fake_load):
    asked, gate = fake_load
    gate.clear()  # still loading when the server asks: take() waits for it
    assert preload.start({"RLM_PRELOAD": json.dumps({"threads": 2, "debounceMs": 10})})
    assert preload.start({})  # once per process
    threading.Timer(0.2, gate.set).start()
    loaded = preload.take(Settings(threads=2, debounce_ms=999))  # only the model's settings must agree
    assert loaded is not None and loaded.words == "fake" and loaded.analyzer.predicted == 0  # the warm-up not counted
    assert [s.threads for s in asked] == [2]
    assert preload.take(Settings(threads=2)) is None  # a later load (a settings change) loads afresh


def test_dropped_for_another_model_and_off(fake_load):
    assert preload.start({"RLM_PRELOAD": "not json"})  # the defaults: the shipped model
    assert preload.take(Settings(model_path="/elsewhere")) is None
    assert not preload.start({"RLM_PRELOAD": "off"})
    assert preload.take(Settings()) is None


def _first_hints(root: Path, settings: dict, env: dict) -> list[str]:
    (root / "demo.py").write_text(DEMO)
    uri = file_uri(root / "demo.py")
    with LspClient(settings=settings, cwd=root, env={"RLM_LOG_LEVEL": "INFO", **env}) as c:
        c.initialize(root)
        c.open(uri, DEMO)
        assert c.wait_hints(uri, 1)
        return [m["params"]["message"] for m in c.messages("window/logMessage")]


def test_the_server_takes_the_preload_its_launcher_named(tiny_model_dir, tmp_path):
    settings = {"modelPath": str(tiny_model_dir), "debounceMs": 10}
    logs = _first_hints(tmp_path, settings, {})  # LspClient names the model in RLM_PRELOAD, as VS Code does
    assert any("model taken from the preload" in m for m in logs), logs
    logs = _first_hints(tmp_path, settings, {"RLM_PRELOAD": "{}"})  # the shipped model preloaded: not this one
    assert any("preloaded model dropped" in m for m in logs) and not any("taken from" in m for m in logs), logs
    logs = _first_hints(tmp_path, settings, {"RLM_PRELOAD": "off"})
    assert not any("preload" in m for m in logs), logs
