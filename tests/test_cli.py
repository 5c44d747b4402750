"""`rlm predict` end to end, as a subprocess, on the tiny model."""

import json
import subprocess
import sys

import pytest

from rlm_lsp.app.cli import format_table

SOURCE = '''import triton

def make(n):
    return [0] * n

class Parser:
    def parse(self, text):
        return text.split()

@triton.jit
def add_kernel(x_ptr, n):
    pass
'''


def rlm(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.py").write_text(SOURCE)
    (tmp_path / "script.py").write_text("import sys\nprint(sum(map(int, sys.stdin.read().split())))\n")
    (tmp_path / "blob.py").write_bytes(b"\x00\x01\xff binary")
    (tmp_path / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    return tmp_path


def test_table_has_a_row_per_function_and_notes_kernels(files, tiny_model_dir):
    out = rlm("predict", str(files / "a.py"), str(files / "script.py"), "--model", str(tiny_model_dir))
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "memory (p10–p90)" in lines[0] and "latency (p10–p90)" in lines[0]
    assert any("a.py:3" in line and "make" in line for line in lines)
    assert any("Parser.parse" in line for line in lines)
    assert any("add_kernel" in line and "no kernel-latency metric" in line for line in lines)
    assert any("<module>" in line for line in lines)
    assert "functions: per call, for a typical large input; p10–p90: the middle 80% of the model's samples" in lines


def test_python_dash_m_rlm_lsp_predict_is_rlm_predict(files, tiny_model_dir):
    """`python -m rlm_lsp predict ...` (no `rlm` on PATH) runs the CLI, not the server's parser."""
    args = ("predict", str(files / "a.py"), "--json", "--model", str(tiny_model_dir))
    via_m = subprocess.run([sys.executable, "-m", "rlm_lsp", *args], capture_output=True, text=True, timeout=120)
    assert via_m.returncode == 0, via_m.stderr
    assert via_m.stdout == rlm(*args).stdout


def test_json_is_deterministic_across_runs(files, tiny_model_dir):
    args = ("predict", str(files / "a.py"), "--json", "--model", str(tiny_model_dir))
    first, second = rlm(*args), rlm(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    rows = json.loads(first.stdout)
    make = next(r for r in rows if r["function"] == "make")
    assert make["line"] == 3 and make["memory"]["unit"] == "bytes" and make["latency"]["unit"] == "ms"
    assert make["memory"]["low"] <= make["memory"]["value"] <= make["memory"]["high"]


def test_bad_files_get_a_message_and_the_rest_is_scored(files, tiny_model_dir):
    out = rlm("predict", str(files / "blob.py"), str(files / "latin1.py"), str(files / "a.py"),
              str(files / "missing.py"), "--model", str(tiny_model_dir))
    assert out.returncode == 1
    assert "blob.py: skipped: binary file" in out.stderr
    assert "latin1.py: skipped: not UTF-8 text" in out.stderr
    assert "missing.py: skipped: No such file" in out.stderr
    assert "Parser.parse" in out.stdout


def test_a_file_that_does_not_parse_is_scored_and_says_so(tmp_path, tiny_model_dir):
    (tmp_path / "half.py").write_text("def ok(n):\n    return n * 2\n\ndef bad(:\n    pass\n")
    (tmp_path / "broken.py").write_text("x = (1,\n")
    out = rlm("predict", str(tmp_path / "half.py"), str(tmp_path / "broken.py"), "--model", str(tiny_model_dir))
    assert out.returncode == 0, out.stderr
    assert any("half.py:1" in line and " ok " in line for line in out.stdout.splitlines())
    assert f"note: {tmp_path / 'half.py'}:4: does not parse (invalid syntax); only the functions that parse " \
        "on their own are scored" in out.stdout
    assert any("broken.py:1" in line and "<module>" in line for line in out.stdout.splitlines())
    assert f"note: {tmp_path / 'broken.py'}:1: does not parse (" in out.stdout
    assert "the <module> row reads it as text" in out.stdout
    as_json = rlm("predict", str(tmp_path / "half.py"), "--json", "--model", str(tiny_model_dir))
    assert [r["function"] for r in json.loads(as_json.stdout)] == ["ok"]
    assert "half.py:4: does not parse" in as_json.stderr


def test_nothing_to_score_prints_no_empty_table(files, tiny_model_dir):
    skipped = rlm("predict", str(files / "blob.py"), "--model", str(tiny_model_dir))
    assert skipped.returncode == 1 and skipped.stdout == ""
    assert "blob.py: skipped: binary file" in skipped.stderr
    (files / "empty.py").write_text("\n\n")
    empty = rlm("predict", str(files / "empty.py"), "--model", str(tiny_model_dir))
    assert empty.returncode == 0 and empty.stdout == ""
    assert "nothing to score: no code in" in empty.stderr and "empty.py" in empty.stderr


def test_missing_model_is_one_clear_line(files, tmp_path):
    out = rlm("predict", str(files / "a.py"), "--model", str(tmp_path / "gone"))
    assert out.returncode == 2
    assert out.stderr.strip() == f"rlm: model error: model directory not found: {tmp_path / 'gone'}"


def test_jsonl_scores_rows_and_reports_bad_ones(tiny_model_dir):
    rows = [
        {"id": "ok", "code": "def f(n):\n    return n * 2\n", "language": "python"},
        {"id": "empty", "code": "  "},
        {"id": "lang", "code": "int main() {}", "language": "cobol"},
        {"id": "long", "code": "x = 1\n" * 2000},
        {"id": "default-lang", "code": "print(1)\n"},
    ]
    stdin = "\n".join(json.dumps(r) for r in rows) + "\nnot json\n"
    out = rlm("predict", "--jsonl", "-", "--model", str(tiny_model_dir), stdin=stdin)
    assert out.returncode == 0, out.stderr
    got = [json.loads(line) for line in out.stdout.splitlines()]
    assert [g["id"] for g in got] == ["ok", "empty", "lang", "long", "default-lang", None]
    assert set(got[0]) == {"id", "language", "memory", "latency"} and got[0]["memory"]["unit"] == "bytes"
    assert got[1]["error"] == "empty code"
    assert "unknown language 'cobol'" in got[2]["error"]
    assert "error" not in got[3] and got[3]["truncated"] is True and got[3]["memory"]["value"] > 0  # scored
    assert "truncated" not in got[0]
    assert "memory" in got[4]
    assert "invalid JSON" in got[5]["error"]


def test_format_table_aligns_columns():
    rows = [{"file": "a.py", "line": 3, "function": "f",
             "memory": {"value": 48e6, "low": 12e6, "high": 96e6, "unit": "bytes"},
             "latency": {"value": 120.0, "low": 80.0, "high": 300.0, "unit": "ms"}}]
    table = format_table(rows, ["memory", "latency"])
    assert "48 MB (12 MB–96 MB)" in table and "120 ms (80 ms–300 ms)" in table


def test_shipped_models_print_kernel_latency_and_say_when_the_gpu_is_unknown(files):
    from rlm_lsp.triton import kernels

    if not kernels.KernelModel.available():
        pytest.skip("no shipped kernel model")
    known = rlm("predict", str(files / "a.py"), "--gpu", "A100")
    assert known.returncode == 0, known.stderr
    kernel_rows = [line for line in known.stdout.splitlines() if "add_kernel" in line]
    assert kernel_rows and ("µs" in kernel_rows[0] or "ms" in kernel_rows[0])
    assert "kernel_latency: GPU A100, assuming work size" in known.stdout and "note:" not in known.stdout
    unknown = rlm("predict", str(files / "a.py"), "--gpu", "NVIDIA H200")
    assert "kernel_latency: GPU H200" in unknown.stdout
    assert "note: H200 is not among the GPUs the model was trained on (A100" in unknown.stdout


def test_a_function_longer_than_the_models_input_is_marked(tmp_path, tiny_model_dir):
    body = "\n".join(f"    v{i} = [j * {i} for j in range(n)]" for i in range(60))
    (tmp_path / "long.py").write_text(f"def big(n):\n{body}\n    return v0\n\n\ndef small(n):\n    return n\n")
    out = rlm("predict", str(tmp_path / "long.py"), "--model", str(tiny_model_dir))
    assert out.returncode == 0, out.stderr
    rows = {line.split()[1]: line for line in out.stdout.splitlines()[1:] if ".py:" in line}
    assert rows["big"].split()[2] == "*" and "*" not in rows["small"]
    assert "* longer than the model's input: it read only the start and the end (256 tokens) of 1 function" \
        in out.stdout
    as_json = json.loads(rlm("predict", str(tmp_path / "long.py"), "--model", str(tiny_model_dir), "--json").stdout)
    read = {r["function"]: r.get("read_tokens") for r in as_json}
    assert read["small"] is None and read["big"]["read"] == 256 and read["big"]["of"] > 256
    truncated = {r["function"]: r.get("truncated") for r in as_json}
    assert truncated == {"big": True, "small": None}


def test_files_are_read_as_python_reads_them(tmp_path, tiny_model_dir):
    (tmp_path / "bom.py").write_bytes(b"\xef\xbb\xbfdef with_bom(s):\n    return [c for c in s]\n")
    (tmp_path / "cookie.py").write_bytes(b"# -*- coding: latin-1 -*-\ndef cafe(s):\n    return 'caf\xe9' + s\n")
    (tmp_path / "odd.py").write_bytes(b"# coding: no-such-codec\ndef f(s):\n    return s\n")
    out = rlm("predict", *(str(tmp_path / n) for n in ("bom.py", "cookie.py", "odd.py")), "--model", str(tiny_model_dir))
    assert out.returncode == 1
    assert "with_bom" in out.stdout and "cafe" in out.stdout and "does not parse" not in out.stdout
    assert "odd.py: skipped: bad coding cookie: unknown encoding" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_reader_that_leaves_early_gets_no_traceback(files, tiny_model_dir):
    proc = subprocess.Popen([sys.executable, "-m", "rlm_lsp.app.cli", "predict", *[str(files / "a.py")] * 200,
                             "--model", str(tiny_model_dir)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()  # the header, then the reader goes away
    proc.stdout.close()
    _, err = proc.communicate(timeout=300)
    assert proc.returncode in (0, 141) and b"Traceback" not in err and b"BrokenPipe" not in err, err
