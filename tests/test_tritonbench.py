"""TritonBench re-timing: the worker/parent orchestration on a fake staged bench, on the CPU.

No triton and no GPU: `--dry cpu` times with a wall-clock window; the staged "operators" are plain
torch functions, one of which works, one raises, one kills its process and one hangs."""

from __future__ import annotations

import json
import textwrap
import time

import pytest

from training.triton import tritonbench

pytest.importorskip("torch")

UTILS = '''
class Performance_Metrics:
    def __init__(self, op_name, dtype=None, is_backward=False, **kwargs):
        self.op_name, self.dtype, self.input_tensors = op_name, dtype, []
'''

PERF = '''
import os, sys
sys.path.append(os.path.abspath(os.path.join(os.path.dirname(__file__), '..')))
from TritonBench_v1.{module} import run
from performance_utils import Performance_Metrics
import torch

class performance_metrics(Performance_Metrics):
    def __init__(self, dtype=None, is_backward=False, **kwargs):
        super().__init__('{module}', dtype=dtype, is_backward=is_backward, **kwargs)

    def get_input_tensors(self):
        self.input_tensors = [(torch.rand(2 ** i), 3) for i in (4, 6, 8)]

    def to_cuda(self, input_tensor):
        x, k = input_tensor
        return (x.cuda(), k)

    def call_op(self, input_tensor):
        run(*input_tensor)
'''

MODULES = {
    "good": "import torch\ndef run(x, k):\n    return (x * k).sum()\n",
    "raises": "def run(x, k):\n    raise ValueError('bad launch')\n",
    "crashes": "import os\ndef run(x, k):\n    os._exit(7)\n",
    "hangs": "import time\ndef run(x, k):\n    time.sleep(600)\n",
}


@pytest.fixture
def bench(tmp_path):
    (tmp_path / "TritonBench_v1").mkdir()
    (tmp_path / "golden_metrics").mkdir()
    (tmp_path / "TritonBench_v1" / "__init__.py").write_text("")
    (tmp_path / "performance_utils.py").write_text(UTILS)
    for name, code in MODULES.items():
        (tmp_path / "TritonBench_v1" / f"{name}.py").write_text(code)
        (tmp_path / "golden_metrics" / f"{name}_perf.py").write_text(textwrap.dedent(PERF.format(module=name)))
    ops = [{"op": name, "module": name, "script": "", "rows": 3} for name in sorted(MODULES)]
    (tmp_path / "ops.json").write_text(json.dumps(ops))
    return tmp_path


def _rows(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_time_all_survives_raising_crashing_and_hanging_ops_and_resumes(bench, tmp_path):
    out = tmp_path / "times.jsonl"
    args = ["time", str(bench), "--out", str(out), "--dry", "cpu", "--window-s", "0.002", "--op-timeout", "8"]
    tritonbench.main(args)
    states = tritonbench.op_states(out)
    assert states == {"good": "done", "raises": "done", "crashes": "failed", "hangs": "failed"}
    rows = _rows(out)
    good = [r for r in rows if r["op"] == "good" and not r.get("marker")]
    assert [r["input_index"] for r in good] == [0, 1, 2]
    assert [r["input_size"] for r in good] == [[[16], 3], [[64], 3], [[256], 3]]  # as run_benchmark writes it
    assert all(r["status"] == "ok" and r["ms"] > 0 and r["protocol"] == "window" for r in good)
    raised = [r for r in rows if r["op"] == "raises" and not r.get("marker")]
    assert len(raised) == 3 and all("ValueError: bad launch" in r["error"] for r in raised)

    # a rerun has nothing left to do: every op is done or failed, and no line is added
    before = out.read_text()
    tritonbench.main(args)
    assert out.read_text() == before


def test_max_inputs_and_op_selection(bench, tmp_path):
    out = tmp_path / "t.jsonl"
    tritonbench.main(["time", str(bench), "--out", str(out), "--dry", "cpu", "--window-s", "0.002",
                      "--ops", "good", "--max-inputs", "1"])
    rows = [r for r in _rows(out) if not r.get("marker")]
    assert [(r["op"], r["input_index"]) for r in rows] == [("good", 0)]
    assert tritonbench.op_states(out) == {"good": "done"}


def test_remeasured_rows_join_by_op_and_input_size(tmp_path):
    from training.triton import data

    base = [{"id": f"tb:addop:{i}", "source": "tritonbench", "op": "addop", "family": "elementwise",
             "split": "test", "gpu": "A100", "gpu_name": "A100 (inferred)", "shape": f"[{n}] | work 2^{i}",
             "input_size": [[n], 3], "ms": 0.01 * (i + 1), "code": "src"} for i, n in enumerate((16, 64))]
    base.append({**base[0], "id": "liger:1", "source": "liger", "op": "addop"})  # never a join target
    times = tmp_path / "h200.jsonl"
    lines = [
        {"key": "tb:addop:started:NVIDIA H200", "op": "addop", "marker": True, "status": "started"},
        {"op": "addop", "gpu": "NVIDIA H200", "status": "ok", "input_size": [[64], 3], "ms": 0.5},
        {"op": "addop", "gpu": "NVIDIA H200", "status": "ok", "input_size": [[16], 3], "ms": 0.25},
        {"op": "addop", "gpu": "NVIDIA H200", "status": "ok", "input_size": [[32], 3], "ms": 0.3},  # failed upstream
        {"op": "addop", "gpu": "NVIDIA H200", "status": "error", "input_size": [[16], 3], "error": "x"},
        {"op": "other", "gpu": "NVIDIA H200", "status": "ok", "input_size": [[16], 3], "ms": 0.1},
    ]
    times.write_text("".join(json.dumps(r) + "\n" for r in lines))
    rows, counts = data.remeasured_rows(base, [times])
    assert counts == {"joined": 2, "unmatched": 2}
    assert [(r["id"], r["gpu"], r["ms"], r["shape"], r["split"], r["source"]) for r in rows] == [
        ("tb:addop:1@H200", "H200", 0.5, "[64] | work 2^1", "test", "tritonbench-retimed"),
        ("tb:addop:0@H200", "H200", 0.25, "[16] | work 2^0", "test", "tritonbench-retimed"),
    ]


def test_extra_times_never_move_the_family_split(tmp_path):
    from training.triton import data

    if not (data.CORPUS / "tritonbench" / "perf_measurements.jsonl.gz").is_file():
        pytest.skip("TritonBench corpus not present")
    rows = data.load_rows(val_frac=0.15)
    tb = [r for r in rows if r["source"] == "tritonbench"]
    # an H200 re-timing of every TritonBench row: a large new GPU must not change which families are held out
    times = tmp_path / "all.jsonl"
    times.write_text("".join(json.dumps({"op": r["op"], "gpu": "NVIDIA H200", "status": "ok",
                                         "input_size": r["input_size"], "ms": r["ms"] / 2}) + "\n" for r in tb))
    more = data.load_rows(val_frac=0.15, extra_times=[times])
    assert len(more) == len(rows) + len(tb)
    split = {r["family"]: r["split"] for r in rows}
    assert all(split[r["family"]] == r["split"] for r in more)
    assert {r["gpu"] for r in more if r["source"] == "tritonbench-retimed"} == {"H200"}


def test_deadline_interrupts_without_failing_the_op(bench, tmp_path, monkeypatch):
    out = tmp_path / "d.jsonl"
    real_watch = tritonbench._watch

    def watch_once_started(proc, out, quiet_s, deadline):
        # the worker imports torch before it starts an op; on a loaded machine that alone can outlast the
        # budget (the op is then "not reached", not interrupted). Wait for the start, then watch as usual.
        limit = time.time() + 120
        while tritonbench.op_states(out).get("hangs") != "started" and proc.poll() is None and time.time() < limit:
            time.sleep(0.1)
        real_watch(proc, out, quiet_s, deadline)

    monkeypatch.setattr(tritonbench, "_watch", watch_once_started)
    # "hangs" sleeps 600 s; a 0.1-minute budget stops the run in the middle of it
    tritonbench.main(["time", str(bench), "--out", str(out), "--dry", "cpu", "--ops", "hangs",
                      "--max-minutes", "0.1", "--op-timeout", "60"])
    assert tritonbench.op_states(out) == {"hangs": "interrupted"}
    # the next run tries it again (and this time the watchdog fails it)
    tritonbench.main(["time", str(bench), "--out", str(out), "--dry", "cpu", "--ops", "hangs", "--op-timeout", "3"])
    assert tritonbench.op_states(out) == {"hangs": "failed"}


def test_module_code_adds_the_test_halfs_missing_imports():
    code = "import triton\n\ndef f(x):\n    return torch.zeros(3)\n"
    test = "import torch\nimport triton\nfrom math import pi\n\ndef test_f():\n    import os\n"
    out = tritonbench.module_code(code, test)
    assert out.splitlines()[:2] == ["import torch", "from math import pi"] and out.endswith(code)
    assert tritonbench.module_code(code, "") == code
