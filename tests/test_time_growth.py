"""Time's growth in the shipped default (session 41, time-v7: the cost analyzer's exponent, corrected
by time-class trees fitted on real functions): #60's new-user case, on every surface that has a
place for it — `rlm predict` (table, `--json`, `--n`), the editor's hints and the gate's defaults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ROOT / "rlm_lsp" / "models" / "default"
pytestmark = pytest.mark.skipif(not (DEFAULT / "rlm_config.json").is_file(), reason="no shipped default model")

SIX = textwrap.dedent('''
    def constant(xs):
        return xs[0] + 1


    def linear(xs):
        t = 0
        for x in xs:
            t += x
        return t


    def nested(xs):
        c = 0
        for i in range(len(xs)):
            for j in range(len(xs)):
                if xs[i] > xs[j]:
                    c += 1
        return c


    def sort_it(xs):
        return sorted(xs)


    def counts(xs):
        d = {}
        for x in xs:
            d[x] = d.get(x, 0) + 1
        return d


    def triple(xs):
        n = len(xs)
        t = 0
        for i in range(n):
            for j in range(n):
                for k in range(n):
                    t += xs[i] * xs[j] * xs[k]
        return t
''')

LOOP = "def total(xs):\n    t = 0\n    for x in xs:\n        t += x\n    return t\n"
NESTED = "def total(xs):\n    t = 0\n    for x in xs:\n        for y in xs:\n            t += x * y\n    return t\n"
RENAMED = "def total(values):\n    acc = 0\n    for v in values:\n        acc += v\n    return acc\n"
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def _rlm(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def _predict(tmp_path, *extra):
    path = tmp_path / "six.py"
    path.write_text(SIX)
    out = _rlm("predict", str(path), "--json", *extra)
    assert out.returncode == 0, out.stderr
    return {r["function"]: r["latency"] for r in json.loads(out.stdout)}


def test_the_six_functions_rank_and_grow_by_their_loops(tmp_path):
    lat = _predict(tmp_path)
    classes = {f: lat[f]["growth_class"] for f in lat}
    assert classes == {"constant": "1", "linear": "n", "nested": "n²", "sort_it": "n log n", "counts": "n",
                       "triple": "n³"}
    assert lat["triple"]["value"] > lat["nested"]["value"] > lat["linear"]["value"]
    assert lat["nested"]["cost"] == "n²" and lat["nested"]["cost_lines"]


def test_n_moves_each_time_by_its_own_growth(tmp_path):
    at4, at5 = _predict(tmp_path), _predict(tmp_path, "--n", "100000")
    ratio = {f: at5[f]["value"] / at4[f]["value"] for f in at4}
    assert ratio["constant"] == pytest.approx(1.0)
    assert ratio["linear"] == pytest.approx(10.0, rel=0.01)
    assert ratio["nested"] == pytest.approx(100.0, rel=0.01)
    assert ratio["triple"] == pytest.approx(1000.0, rel=0.01)


def _gate(tmp_path, old, new):
    env = {**os.environ, **GIT_ENV}
    for args in (["init", "-q"],):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, env=env)
    (tmp_path / "m.py").write_text(old)
    subprocess.run(["git", "add", "m.py"], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "base"], cwd=tmp_path, check=True, env=env)
    (tmp_path / "m.py").write_text(new)
    subprocess.run(["git", "add", "m.py"], cwd=tmp_path, check=True, env=env)
    return _rlm("gate", cwd=tmp_path)


def test_the_default_gate_blocks_a_loop_turned_nested_and_names_the_step(tmp_path):
    out = _gate(tmp_path, LOOP, NESTED)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "~n → ~n²" in out.stdout and "lines 3–4" in out.stdout


def test_the_default_gate_passes_a_rename(tmp_path):
    out = _gate(tmp_path, LOOP, RENAMED)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.timeout(120)
def test_the_editor_leads_with_time_growth_and_the_hover_names_the_loops(tmp_path):
    sys.path.insert(0, str(Path(__file__).parent))
    from lsp_client import LspClient, file_uri

    (tmp_path / "t.py").write_text(NESTED)
    client = LspClient(settings={"modelPath": str(DEFAULT), "debounceMs": 50}, cwd=tmp_path)
    client.initialize(tmp_path)
    with client as c:
        uri = file_uri(tmp_path / "t.py")
        c.open(uri, NESTED)
        label = c.wait_hints(uri, 1)[0]["label"]
        assert "~n²" in label, label
        text = c.hover(uri, 0, 5)["contents"]["value"]
        assert "read as n² from lines 3–4" in text, text
