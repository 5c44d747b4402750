"""NAS latency: graph text from .onnx == graph text from the NAS-Bench-201 arch; malformed files; the gate
function; prediction with the shipped model on a real exported .onnx file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rlm_lsp.gate import networks
from rlm_lsp.networks import graph_text, nas, onnx_reader
from rlm_lsp.networks.graph_text import GraphError, onnx_text
from training.nas.nb201_graph import nb201_text

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "rlm_lsp" / "models" / "nas"
ARCHS = [
    "|nor_conv_3x3~0|+|nor_conv_3x3~0|avg_pool_3x3~1|+|skip_connect~0|nor_conv_3x3~1|skip_connect~2|",
    "|avg_pool_3x3~0|+|nor_conv_1x1~0|skip_connect~1|+|nor_conv_1x1~0|skip_connect~1|skip_connect~2|",
    "|none~0|+|nor_conv_3x3~0|none~1|+|none~0|none~1|none~2|",  # node 1 dead, cell output zero
    "|skip_connect~0|+|none~0|none~1|+|none~0|nor_conv_3x3~1|none~2|",
]
SLOW = "|nor_conv_3x3~0|+|nor_conv_3x3~0|nor_conv_3x3~1|+|nor_conv_3x3~0|nor_conv_3x3~1|nor_conv_3x3~2|"
FAST = "|skip_connect~0|+|skip_connect~0|skip_connect~1|+|skip_connect~0|skip_connect~1|skip_connect~2|"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """Real ONNX exports (TorchScript exporter) of NB201 networks: {(arch, n): path}."""
    pytest.importorskip("torch")
    from training.nas.nb201_torch import export_onnx

    out = tmp_path_factory.mktemp("nb201")
    paths = {}
    for k, arch in enumerate(ARCHS):
        paths[(arch, 1)] = export_onnx(arch, out / f"a{k}_n1.onnx", n=1)
    for k, arch in enumerate([ARCHS[0], SLOW, FAST]):
        paths[(arch, 5)] = export_onnx(arch, out / f"a{k}_n5.onnx", n=5)  # the standard skeleton
    return paths


def test_onnx_text_equals_arch_text(exported):
    for (arch, n), path in exported.items():
        assert onnx_text(path) == nb201_text(arch, n=n), arch


def test_text_form_is_compact_and_shaped(exported):
    text = onnx_text(exported[(ARCHS[0], 5)])
    lines = text.splitlines()
    assert lines[0].startswith("count add*") and "rconv3*47" in lines[0].split()  # 3 x 15 cells + 2 blocks
    assert lines[1] == "input:3x32x32" and lines[-1] == "fc:10:-1"
    assert "x5{" in lines and len(lines) < 60  # the 5 cells of a stage are written once
    assert "rconv3/s2:32x16x16:-1" in lines and "gap:64x1x1:-1" in lines
    assert all(" " not in line for line in lines[1:])  # a node line is one word
    zero = nb201_text(ARCHS[2], n=1).splitlines()
    # every edge runs, as in the network HELP timed: `none` is x * 0, and the 3x3 conv on edge 0->2 stays
    # although its result only reaches `none` edges
    assert zero[3:10] == ["mul:-1", "rconv3:-2", "mul:-2", "add:-2:-1", "add:-4:-2", "mul:-2", "add:-2:-1"]


def test_count_line_matches_the_lines_below():
    from training.nas.baseline import op_counts  # counts the body, x5{ blocks 5 times

    for arch in ARCHS + [SLOW, FAST]:
        text = nb201_text(arch)
        census = dict(w.rsplit("*", 1) for w in text.splitlines()[0].split()[1:])
        body = op_counts(text)
        body.pop("input")
        assert {op: int(n) for op, n in census.items()} == dict(body), arch


def test_reader_agrees_with_onnx_package(exported):
    onnx = pytest.importorskip("onnx")
    path = exported[(ARCHS[0], 1)]
    model = onnx.load(str(path))
    raw = graph_text.read_onnx(path)
    assert [n.op for n in raw.nodes] == [n.op_type for n in model.graph.node]
    assert [n.inputs for n in raw.nodes] == [list(n.input) for n in model.graph.node]
    for mine, theirs in zip(raw.nodes, model.graph.node):
        for attr in theirs.attribute:
            assert mine.attrs[attr.name] == onnx.helper.get_attribute_value(attr)
    assert raw.initializers == {t.name: tuple(t.dims) for t in model.graph.initializer}
    assert graph_text.read_onnx(path.read_bytes()).nodes == raw.nodes


def test_runtime_modules_need_neither_onnx_nor_torch():
    code = ("import sys, importlib.util as u; "
            "s = u.spec_from_file_location('gt', 'rlm_lsp/networks/graph_text.py'); m = u.module_from_spec(s); "
            "sys.modules['gt'] = m; s.loader.exec_module(m); "
            "bad = [x for x in ('onnx', 'torch', 'numpy') if x in sys.modules]; "
            "import rlm_lsp.networks.nas; bad += [x for x in ('onnx', 'torch') if x in sys.modules]; print(bad); assert not bad")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.parametrize("content, message", [
    (b"", "empty file"),
    (b"this is a text file, not a model\n", "not a valid ONNX model"),
    (b"\x08\x07\x3a\xff\xff\xff\x0f\x00", "not a valid ONNX model"),  # graph field longer than the file
    (b"\x08\x07", "no graph"),  # a ModelProto with an ir_version and nothing else
])
def test_malformed_onnx_is_a_clear_error(tmp_path, content, message):
    path = tmp_path / "bad.onnx"
    path.write_bytes(content)
    with pytest.raises(GraphError, match=message) as info:
        nas.predict_onnx_file(path, ["pixel3"])  # fails on the file, before any model is needed
    assert str(path) in str(info.value)


def test_truncated_and_missing_files(tmp_path, exported):
    data = exported[(ARCHS[0], 1)].read_bytes()
    cut = tmp_path / "cut.onnx"
    cut.write_bytes(data[: len(data) // 3])
    with pytest.raises(GraphError, match="not a valid ONNX model"):
        onnx_text(cut)
    with pytest.raises(GraphError, match="cannot read"):
        onnx_text(tmp_path / "absent.onnx")


def test_huge_file_is_refused_before_reading(tmp_path, monkeypatch):
    path = tmp_path / "big.onnx"
    with open(path, "wb") as fh:  # sparse: large on paper, nothing written
        fh.truncate(64 << 20)
    monkeypatch.setattr(onnx_reader, "MAX_ONNX_BYTES", 32 << 20)
    with pytest.raises(GraphError, match="over the limit of 32 MiB"):
        onnx_text(path)


def test_cli_reports_bad_file_and_unknown_device(tmp_path):
    if not (SHIPPED / "rlm_config.json").is_file():
        pytest.skip("no shipped NAS model")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not onnx at all")
    import io

    out, err = io.StringIO(), io.StringIO()
    assert nas.predict_cli([bad], ["pixel3"], out=out, err=err, device="cpu") == 1
    assert f"skipped: {bad}: not a valid ONNX model" in err.getvalue()
    assert out.getvalue() == ""  # no table of headers alone
    err = io.StringIO()
    assert nas.predict_cli([bad], ["toaster"], out=out, err=err, device="cpu") == 2
    assert "unknown device 'toaster'" in err.getvalue()


def test_verdicts_are_a_pure_ratio_check():
    v = networks.latency_verdicts({"pixel3": 10.0, "eyeriss": 5.0}, {"pixel3": 12.0, "eyeriss": 5.2}, 1.1)
    by = {x.device: x for x in v}
    assert by["pixel3"].regressed and abs(by["pixel3"].ratio - 1.2) < 1e-9
    assert not by["eyeriss"].regressed
    assert not any(x.regressed for x in networks.latency_verdicts(None, {"pixel3": 50.0}, 1.1))  # added file
    per_device = networks.latency_verdicts({"pixel3": 10.0}, {"pixel3": 12.0}, {"pixel3": 1.25})
    assert not per_device[0].regressed
    overlap = networks.latency_verdicts({"pixel3": 10.0}, {"pixel3": 12.0}, 1.1, old_high={"pixel3": 13.0},
                                        new_low={"pixel3": 9.0}, require_separation=True)
    assert not overlap[0].regressed


def test_split_device_args():
    assert nas.split_device_args(None) == ("auto", [])
    assert nas.split_device_args(["cpu", "pixel3", "1080ti_1"]) == ("cpu", ["pixel3", "1080ti_1"])


@pytest.mark.skipif(not (SHIPPED / "rlm_config.json").is_file(), reason="no shipped NAS model")
def test_shipped_model_on_real_onnx_files(exported):
    """The gate case: a commit turns every edge of the cell into conv3x3; predicted latency must rise."""
    rows = nas.predict_onnx_file(exported[(ARCHS[0], 5)], ["pixel3", "1080ti_1"], device="cpu", samples=8)
    assert [r.device for r in rows] == ["pixel3", "1080ti_1"]
    for r in rows:
        assert r.unit == "ms" and 0 < r.low <= r.value <= r.high and not r.truncated and r.known_target
    verdicts = networks.check_onnx_change(exported[(FAST, 5)], exported[(SLOW, 5)], ["pixel3", "1080ti_1"],
                                          max_ratio=1.2, device="cpu", samples=8)
    assert all(v.regressed and v.ratio > 1.2 for v in verdicts), verdicts
    back = networks.check_onnx_change(exported[(SLOW, 5)], exported[(FAST, 5)], ["pixel3"], device="cpu",
                                      samples=8)
    assert not back[0].regressed
    # the gate asks once per changed file: one model per directory and settings, not one per call
    assert nas.load(device="cpu", samples=8) is nas.load(device="cpu", samples=8)
    assert nas.load(device="cpu", samples=4) is not nas.load(device="cpu", samples=8)


@pytest.mark.skipif(not (SHIPPED / "rlm_config.json").is_file(), reason="no shipped NAS model")
def test_custom_and_held_out_devices(exported):
    refs = "5,6,3,6,10,9,8,12,6,15"
    rows = nas.predict_onnx_file(exported[(ARCHS[0], 5)], [f"mycpu={refs}", "silver_4114"], device="cpu", samples=4)
    assert [r.device for r in rows] == ["mycpu", "silver_4114"]
    assert not any(r.known_target for r in rows) and all(r.value > 0 for r in rows)
    with pytest.raises(nas.UnknownDevice, match="NAME=l1"):
        nas.predict_onnx_file(exported[(ARCHS[0], 5)], ["mycpu=1,2"], device="cpu")


@pytest.mark.skipif(not (SHIPPED / "rlm_config.json").is_file(), reason="no shipped NAS model")
def test_device_context_names_trained_devices_and_hides_others():
    """Evaluations and `rlm predict` name a device through one function: trained devices by name,
    others (held out, custom) by the placeholder, followed by their reference latencies."""
    info = nas.load_devices(SHIPPED)
    trained = nas.device_context("gold_6240", info)["device"]
    held_out = nas.device_context("silver_4114", info)["device"]
    custom = nas.device_context("mycpu=" + ",".join(["2"] * 10), info)["device"]
    assert trained.split(" ")[0] == "gold_6240"
    assert held_out.split(" ")[0] == custom.split(" ")[0] == info["unknown_name"]
    assert held_out.split(" ")[1:] == nas.device_description("silver_4114", info["descriptions"]).split(" ")[1:]
    with pytest.raises(nas.UnknownDevice):
        nas.device_context("no_such_device", info)


@pytest.mark.skipif(not (SHIPPED / "rlm_config.json").is_file(), reason="no shipped NAS model")
def test_model_for_another_graph_text_version_is_refused(tmp_path):
    import json
    import shutil

    model = tmp_path / "nas"
    shutil.copytree(SHIPPED, model)
    info = json.loads((model / "devices.json").read_text())
    info["graph_text_version"] = 1
    (model / "devices.json").write_text(json.dumps(info))
    with pytest.raises(nas.ModelError, match="reads graph text v1"):
        nas.predict_graph_text(nb201_text(FAST), ["pixel3"], model_dir=model, device="cpu")


def _cli_routes_onnx() -> bool:
    return "nas.predict_cli" in (ROOT / "rlm_lsp" / "app" / "cli.py").read_text()


@pytest.mark.skipif(not (SHIPPED / "rlm_config.json").is_file(), reason="no shipped NAS model")
@pytest.mark.skipif(not _cli_routes_onnx(), reason="rlm_lsp/app/cli.py does not route .onnx files yet")
def test_rlm_predict_onnx_file_several_devices(exported, tmp_path):
    import json

    path = exported[(ARCHS[0], 5)]
    run = [sys.executable, "-m", "rlm_lsp.app.cli", "predict", str(path), "--device", "pixel3", "--device", "1080ti_1",
           "--device", "cpu"]
    out = subprocess.run(run, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "latency (p10–p90)" in lines[0]
    assert any("pixel3" in line and " ms (" in line for line in lines)
    assert any("1080ti_1" in line for line in lines)
    rows = json.loads(subprocess.run(run + ["--json"], capture_output=True, text=True, timeout=120,
                                     cwd=ROOT).stdout)
    assert [r["device"] for r in rows] == ["pixel3", "1080ti_1"] and rows[0]["unit"] == "ms"
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"\x0a\x05hello")
    out = subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", "predict", str(bad), "--device", "pixel3"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 1 and "not a valid ONNX model" in out.stderr


def test_trainer_device_weight_names_a_training_device(tmp_path):
    """--device-weight NAME=W must name a training device; a typo is an error, not a silent 1.0."""
    pytest.importorskip("torch")
    train = pytest.importorskip("training.nas.train")
    from training.nas import data

    if not data.NB201_CSV.is_file():
        pytest.skip("HELP corpus absent")
    with pytest.raises(SystemExit, match="not a training device: gold_624"):
        train.main(["--out", str(tmp_path / "run"), "--device-weight", "gold_624=3"])
    with pytest.raises(SystemExit, match="silver_4114"):  # the held-out device is not trained on either
        train.main(["--out", str(tmp_path / "run"), "--device-weight", "silver_4114=2"])
    for bad in ("gold_6240", "gold_6240=x", "gold_6240=0"):
        with pytest.raises(SystemExit, match="--device-weight 'gold_6240"):
            train.device_weights([bad])
    assert train.device_weights(["gold_6240=3", "pixel3=0.5"]) == {"gold_6240": 3.0, "pixel3": 0.5}


def test_trainer_seed_does_not_move_the_held_out_archs():
    """--seed changes initialisation and batch order; the arch split has its own --split-seed (0)."""
    pytest.importorskip("torch")
    train = pytest.importorskip("training.nas.train")
    from training.nas import data

    seeded = train.parse_args(["--seed", "1"])
    assert seeded.seed == 1 and train.arch_split(seeded) == data.split_archs(0)
    assert train.arch_split(train.parse_args(["--split-seed", "1"]))[2] != data.split_archs(0)[2]


def test_trainer_schedule_by_steps_or_by_clock():
    """--schedule-steps runs warm-up and cosine over N steps (same steps on any machine); else the clock."""
    pytest.importorskip("torch")
    train = pytest.importorskip("training.nas.train")

    by_steps = train.parse_args(["--schedule-steps", "1000", "--max-minutes", "60", "--warmup", "0.1"])
    assert train.progress(by_steps, 250, elapsed_s=3000) == 0.25  # the clock does not move it
    assert train.progress(by_steps, 1000, elapsed_s=10) == 1.0
    assert train.progress(by_steps, 10, elapsed_s=3600) == 1.0  # --max-minutes still stops it
    by_clock = train.parse_args(["--max-minutes", "10", "--max-steps", "50"])
    assert train.progress(by_clock, 5, elapsed_s=150) == 0.25
    assert train.progress(by_clock, 50, elapsed_s=1) == 1.0
    lr = [train.learning_rate(by_steps, f) for f in (0.0, 0.05, 0.1, 0.55, 1.0)]
    assert lr[0] == 0 and lr[1] == pytest.approx(1e-3) and lr[2] == pytest.approx(2e-3)
    assert lr[2] > lr[3] > lr[4] == pytest.approx(1e-4)
