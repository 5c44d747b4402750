"""`rlm predict` on hostile input (issue 23): a bad row, file or flag gets one clear line,
never a traceback, and never costs the rows around it. Runs on the shipped model."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from rlm_lsp.app import cli
from rlm_lsp.runtime.predictor import InputError

MODEL = Path(cli.__file__).parents[1] / "models" / "default"
GOOD = "def f(n):\n    return [0] * n\n"

pytestmark = pytest.mark.skipif(not (MODEL / "rlm_config.json").is_file(), reason="no shipped model")


def rlm(*args: str, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rlm_lsp.app.cli", *args], input=stdin, capture_output=True,
                          timeout=timeout)


def strict_json(line: str):
    """json.loads that refuses NaN and Infinity, as every parser but Python's does."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(line, parse_constant=refuse)


BAD_ROWS = [
    (b'{"id": "good1", "code": "def f(n):\\n    return [0] * n\\n"}', None),
    (b'{"id": "good2", "code": "x = 1\\n"}', None),
    (b'{"id": "good3", "code": "print(2)\\n"}', None),
    (b'{"id": 4}', 'missing "code"'),
    (b'{"id": 5, "code": 7}', '"code" must be a string, got int'),
    (b'{"id": 6, "code": null}', '"code" must be a string, got null'),
    (b'{"id": 7, "code": ["def f(): pass"]}', '"code" must be a string, got list'),
    (b'{"id": 8, "code": "def f():\\n    return \'\\ud800\'\\n"}', "lone surrogate"),
    (b'{"id": 9, "code": "x = 1\\n", "language": 3}', '"language" must be a string, got int'),
    (b'[1, 2]', "not a JSON object"),
    (b'not json', "invalid JSON"),
    (b'{"id": "bytes", "code": "x = \'\xff\'"}', "not UTF-8"),
    (b'[[[[' * 50000, "invalid JSON"),
    (b'{"id": NaN, "code": "y = 2\\n"}', None),
    (b'{"id": [1, Infinity], "code": "y = 3\\n"}', None),
    (b'{"id": "\\ud83d", "code": "y = 4\\n"}', None),
    (b'{"id": "last", "code": "z = [1, 2]\\n"}', None),
]


@pytest.mark.parametrize("with_model", [False, True], ids=["shipped", "--model"])
def test_every_bad_row_gets_an_error_and_the_run_goes_on(with_model):
    stdin = b"\n".join(line for line, _ in BAD_ROWS) + b"\n\n"
    args = ["predict", "--jsonl", "-", "--samples", "1"] + (["--model", str(MODEL)] if with_model else [])
    out = rlm(*args, stdin=stdin)
    assert out.returncode == 0, out.stderr.decode()
    assert b"Traceback" not in out.stderr
    lines = out.stdout.decode("utf-8").splitlines()
    assert len(lines) == len(BAD_ROWS)
    got = [strict_json(line) for line in lines]  # NaN ids must not make the output invalid JSON
    for (_, error), row in zip(BAD_ROWS, got):
        if error is None:
            assert "error" not in row and row["memory"]["unit"] == "bytes", row
        else:
            assert error in row["error"] and "\n" not in row["error"], row
    assert [g["id"] for g in got[:9]] == ["good1", "good2", "good3", 4, 5, 6, 7, 8, 9]
    assert got[13]["id"] == "NaN" and got[14]["id"] == "[1, Infinity]"  # non-finite ids become their text
    assert got[15]["id"] == "\ud83d" and got[-1]["id"] == "last"


def test_the_same_messages_with_and_without_model():
    stdin = b"\n".join(line for line, error in BAD_ROWS if error) + b"\n"
    shipped = rlm("predict", "--jsonl", "-", "--samples", "1", stdin=stdin)
    explicit = rlm("predict", "--jsonl", "-", "--samples", "1", "--model", str(MODEL), stdin=stdin)
    assert shipped.returncode == explicit.returncode == 0, (shipped.stderr, explicit.stderr)
    assert shipped.stdout == explicit.stdout and shipped.stdout.count(b"\n") == len(stdin.splitlines())


def test_jsonl_missing_file_or_directory_is_one_line(tmp_path):
    for target, why in [(tmp_path / "gone.jsonl", "No such file"), (tmp_path, "Is a directory")]:
        out = rlm("predict", "--jsonl", str(target))
        assert out.returncode == 2
        err = out.stderr.decode()
        assert err.count("\n") == 1 and "Traceback" not in err and why in err and str(target) in err, err


def test_model_whose_template_names_an_unknown_field_is_one_line(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    for f in MODEL.iterdir():
        (model / f.name).symlink_to(f)
    config = json.loads((MODEL / "rlm_config.json").read_text())
    config["input_template"] = "<metrics> {metrics} <lang> {language} on {device} <code>\n{code}"
    (model / "rlm_config.json").unlink()
    (model / "rlm_config.json").write_text(json.dumps(config))
    (tmp_path / "a.py").write_text(GOOD)
    for args in (["--jsonl", "-"], [str(tmp_path / "a.py")]):
        out = rlm("predict", *args, "--model", str(model), stdin=b'{"id": 1, "code": "x = 1"}\n')
        err = out.stderr.decode()
        assert out.returncode == 2 and "Traceback" not in err, err
        assert err.count("\n") == 1 and "input_template" in err and "device" in err, err


def test_a_batch_whose_prediction_fails_keeps_its_other_rows():
    class Flaky:
        config = SimpleNamespace(max_input_tokens=100)

        def check(self, code, language="python"):
            if not code.strip():
                raise InputError("empty code")

        def token_ids(self, code, language="python"):
            return [1]

        def predict(self, codes, language="python", context=None):
            if any("boom" in c for c in codes):
                raise RuntimeError("onnxruntime says no")
            return [{"memory": cli.Prediction("memory", 1.0, 1.0, 1.0, "bytes")} for _ in codes]

    rows = [{"id": i, "code": "boom()" if i == 1 else f"x = {i}"} for i in range(3)]
    out = io.StringIO()
    cli.score_jsonl(Flaky(), io.StringIO("".join(json.dumps(r) + "\n" for r in rows)), out)
    got = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [g["id"] for g in got] == [0, 1, 2]
    assert "memory" in got[0] and "memory" in got[2]
    assert got[1]["error"] == "prediction failed: RuntimeError: onnxruntime says no"


def test_predict_checks_size_before_reading_and_skips_non_regular_files(tmp_path):
    sparse = tmp_path / "huge.py"
    with open(sparse, "wb") as fh:
        fh.truncate(2 * 1024**3)  # 2 GB, sparse: reading it would take 2 GB of memory
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    (tmp_path / "ok.py").write_text(GOOD)
    paths = [sparse, fifo, Path("/dev/zero"), tmp_path, tmp_path / "ok.py"]
    out = rlm("predict", *map(str, paths), "--samples", "1", "--model", str(MODEL), timeout=60)
    err = out.stderr.decode()
    assert out.returncode == 1 and "Traceback" not in err
    assert f"{sparse}: skipped: file is larger than 1 MB" in err
    assert f"{fifo}: skipped: not a regular file (a FIFO)" in err
    assert "/dev/zero: skipped: not a regular file (a character device)" in err
    assert f"{tmp_path}: skipped: not a regular file (a directory)" in err
    assert len(err.splitlines()) == 4
    assert "ok.py:1" in out.stdout.decode()


def test_read_source_never_reads_a_large_file(tmp_path, monkeypatch):
    big = tmp_path / "big.py"
    big.write_bytes(b"#" * (cli.MAX_FILE_BYTES + 1))
    def refuse(*args, **kwargs):
        raise AssertionError("opened a file over the limit")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr("builtins.open", refuse)
    with pytest.raises(cli.FileProblem, match="larger than 1 MB"):
        cli.read_source(big)


@pytest.mark.parametrize("value", ["0", "-3", "x"])
def test_samples_below_one_is_rejected(value):
    out = rlm("predict", "--jsonl", "-", "--samples", value, stdin=b"")
    err = out.stderr.decode()
    assert out.returncode == 2 and "--samples" in err and "Traceback" not in err, err
    assert "a whole number of at least 1" in err


def test_a_row_longer_than_the_line_limit_is_an_error_and_never_held():
    chunks = cli._lines(io.BytesIO(b'{"id": 1}\n' + b"x" * 100 + b"\n" + b"y" * 25 + b'\n{"id": 2}'), limit=10)
    assert list(chunks) == [b'{"id": 1}\n', None, None, b'{"id": 2}']
    huge = json.dumps({"id": "huge", "code": "x = 1\n" * 800_000}).encode()  # 5 MB
    stdin = b'{"id": "a", "code": "x = 1\\n"}\n' + huge + b'\n{"id": "b", "code": "y = 2\\n"}\n'
    out = rlm("predict", "--jsonl", "-", "--samples", "1", "--model", str(MODEL), stdin=stdin)
    got = [strict_json(line) for line in out.stdout.decode().splitlines()]
    assert out.returncode == 0 and [g["id"] for g in got] == ["a", None, "b"], out.stderr
    assert got[1]["error"] == "line 2: longer than 4 MB" and "memory" in got[0] and "memory" in got[2]
