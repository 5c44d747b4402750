"""`rlm predict` and the gate with a model that predicts growth (tests/conftest.py `growth_model_dir`):
values at a stated n (--n, --input, --input-bytes, `# rlm: n=`, `[tool.rlm] n`, a --jsonl row's
"n" or "input_bytes"), the JSON growth fields, and the gate's growth step naming its lines. A
model without growth keeps its output exactly."""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from rlm_lsp.app import cli
from rlm_lsp.app.cli_jsonl import score_jsonl
from rlm_lsp.gate import compare, formats, report
from rlm_lsp.policy.project_config import GateConfig
from rlm_lsp.runtime import template
from rlm_lsp.runtime.growth import at
from rlm_lsp.runtime.predictor import Predictor
from tests.conftest import GROWTH_CODES

CONSTANT, LINEAR, PAIRS = GROWTH_CODES[:3]
PROG = CONSTANT + "\n\n" + PAIRS + "\n\n# rlm: n=10**6\n" + LINEAR  # linear_sum at its own n
GROWTH_KEYS = {"value", "low", "high", "unit", "n", "growth", "growth_low", "growth_high", "growth_class"}


def _run(capsys, *args):
    code = cli.main(["predict", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def _rows(capsys, *args) -> dict[str, dict]:
    code, out, err = _run(capsys, *args, "--json")
    assert code == 0, err
    return {r["function"]: r for r in json.loads(out)}


@pytest.fixture
def prog(tmp_path) -> Path:
    path = tmp_path / "prog.py"
    path.write_text(PROG)
    return path


@pytest.fixture(scope="module")
def reference(growth_model_dir):
    """The Predictions at the model's reference n, as the CLI's default predicts them."""
    pr = Predictor.from_dir(growth_model_dir)
    return dict(zip(("constant", "count_pairs", "linear_sum"), pr.predict([CONSTANT, PAIRS, LINEAR])))


@pytest.fixture(scope="module")
def shaped_growth_dir(growth_model_dir, tmp_path_factory) -> Path:
    """The growth model reading the program's shape: a file's top-level code is a `<script>` row."""
    out = tmp_path_factory.mktemp("shaped") / "model"
    shutil.copytree(growth_model_dir, out)
    config = json.loads((out / "rlm_config.json").read_text())
    config["input_template"] = template.SHAPED_TEMPLATE
    (out / "rlm_config.json").write_text(json.dumps(config))
    return out


def test_json_gives_each_metric_its_n_and_growth_fields(prog, growth_model_dir, reference, capsys):
    rows = _rows(capsys, prog, "--model", growth_model_dir)
    pairs = rows["count_pairs"]["latency"]
    assert set(pairs) == GROWTH_KEYS
    assert (pairs["n"], pairs["growth_class"]) == (10_000, "n²")
    assert (rows["linear_sum"]["latency"]["growth_class"], rows["constant"]["latency"]["growth_class"]) == ("n", "1")
    p = reference["count_pairs"]["latency"]
    assert (pairs["value"], pairs["growth"], pairs["growth_low"], pairs["growth_high"]) == (
        p.value, p.growth, p.growth_low, p.growth_high)


def test_n_moves_every_function_along_its_curve_and_wins_over_the_pragma(prog, growth_model_dir, reference, capsys):
    rows = _rows(capsys, prog, "--model", growth_model_dir, "--n", "1e5")
    for name, result in reference.items():
        for metric, p in result.items():
            got = rows[name][metric]
            assert got["n"] == 100_000  # linear_sum's `# rlm: n=10**6` gives way to --n
            assert got["value"] == pytest.approx(at(p, 100_000).value)
    assert rows["count_pairs"]["latency"]["value"] == pytest.approx(
        reference["count_pairs"]["latency"].value * 10 ** reference["count_pairs"]["latency"].growth)
    _, out, _ = _run(capsys, prog, "--model", growth_model_dir, "--n", "100k")
    assert out.splitlines()[-1] == "values at n = 10⁵ (--n)" and "@ n=" not in out


def test_the_table_says_which_n_and_marks_a_functions_own(prog, growth_model_dir, reference, capsys):
    rows = _rows(capsys, prog, "--model", growth_model_dir)
    assert rows["linear_sum"]["latency"]["n"] == 1e6 and rows["count_pairs"]["latency"]["n"] == 1e4
    assert rows["linear_sum"]["latency"]["value"] == pytest.approx(at(reference["linear_sum"]["latency"], 1e6).value)
    code, out, err = _run(capsys, prog, "--model", growth_model_dir)
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert "linear_sum @ n=10⁶" in lines[3] and "@" not in lines[1] + lines[2]
    assert " ~n² (" in lines[2]
    assert lines[-2] == "functions: per call; p10–p90: the middle 80% of the model's samples"
    assert lines[-1] == ("values at n = 10⁴, the model's reference size (set it with --n); "
                         "@: a row's own n (# rlm: n=)")


def test_tool_rlm_n_sets_the_default_and_the_pragma_wins_over_it(tmp_path, growth_model_dir, capsys):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.rlm]\nn = "10**3"\n')
    path = project / "src" / "prog.py"
    path.write_text(PROG)
    rows = _rows(capsys, path, "--model", growth_model_dir)
    assert (rows["count_pairs"]["memory"]["n"], rows["linear_sum"]["memory"]["n"]) == (1e3, 1e6)
    _, out, _ = _run(capsys, path, "--model", growth_model_dir)
    assert out.splitlines()[-1] == "values at n = 10³ ([tool.rlm] n); @: a row's own n (# rlm: n=)"
    (project / "pyproject.toml").write_text('[tool.rlm]\nn = "lots"\n')
    code, out, err = _run(capsys, path, "--model", growth_model_dir)
    assert code == 2 and out == ""
    assert err == (f"rlm predict: {project / 'pyproject.toml'}: [tool.rlm] n: "
                   "n must be a size like 100000, 1e5 or 10**5, not 'lots'\n")


def test_a_malformed_pragma_is_a_note_and_the_function_keeps_the_default(tmp_path, growth_model_dir, capsys):
    path = tmp_path / "p.py"
    path.write_text("# rlm: n=many\n" + LINEAR)
    code, out, err = _run(capsys, path, "--model", growth_model_dir, "--json")
    [row] = json.loads(out)
    assert code == 0 and row["latency"]["n"] == 1e4
    assert err.startswith(f"note: {path}:1: `# rlm: n=` ignored: n must be a size like")


def test_input_sizes_a_script_by_its_input_file_and_never_reads_it(tmp_path, shaped_growth_dir, capsys):
    script = tmp_path / "s.py"
    script.write_text("import sys\n\n\n" + PAIRS + "\n\nxs = sys.stdin.read().split()\nprint(count_pairs(xs))\n")
    data = tmp_path / "data.txt"
    data.write_bytes(b"7 " * 26_170)  # 52,340 bytes
    os.chmod(data, 0o200)  # not readable: only its size is looked at
    by_file = _rows(capsys, script, "--model", shaped_growth_dir, "--input", data)
    by_number = _rows(capsys, script, "--model", shaped_growth_dir, "--input-bytes", "52340")
    plain = _rows(capsys, script, "--model", shaped_growth_dir)
    assert by_file == by_number
    script_row, fn = by_file["<script>"]["latency"], by_file["count_pairs"]["latency"]
    assert script_row["n"] == 52_340 and fn == plain["count_pairs"]["latency"]  # a function keeps its n
    p = plain["<script>"]["latency"]
    assert script_row["value"] == pytest.approx(p["value"] * (52_340 / p["n"]) ** p["growth"])
    _, out, _ = _run(capsys, script, "--model", shaped_growth_dir, "--input", data)
    assert "<script> @ n=52,340" in out
    assert out.splitlines()[-1] == (f"values at n = 10⁴, the model's reference size (set it with --n); "
                                    f"@: a row's own n (--input {data}: its size in bytes)")


@pytest.mark.parametrize("args, message", [
    (["--n", "abc"], "rlm predict: --n abc: n must be a size like 100000, 1e5 or 10**5, not 'abc'"),
    (["--n", "0"], "rlm predict: --n 0: n must be from 1 to 1e+12, not '0'"),
    (["--n", "1e999"], "rlm predict: --n 1e999: n must be from 1 to 1e+12, not '1e999'"),
    (["--input-bytes", "-3"], "rlm predict: --input-bytes -3: n must be a size like 100000, 1e5 or 10**5, not '-3'"),
    (["--input-bytes", "5", "--input", "x"], "rlm predict: give --input or --input-bytes, not both"),
    (["--input", "/dev/zero"], "rlm predict: --input /dev/zero: not a regular file (a character device)"),
    (["--input", "/no/such/file"], "rlm predict: --input /no/such/file: cannot read: No such file or directory"),
])
def test_a_bad_size_is_one_line_and_exit_2(prog, growth_model_dir, capsys, args, message):
    code, out, err = _run(capsys, prog, "--model", growth_model_dir, *args)
    assert (code, out, err) == (2, "", message + "\n")


def test_an_empty_or_special_input_file_is_refused(tmp_path, growth_model_dir, prog, capsys):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opening it must not wait for a writer
    for path, why in ((empty, "an empty file has no size to predict for"), (fifo, "not a regular file (a FIFO)")):
        code, out, err = _run(capsys, prog, "--model", growth_model_dir, "--input", path)
        assert code == 2 and out == "" and why in err and len(err.splitlines()) == 1


def test_jsonl_rows_carry_their_own_size(growth_model_dir, reference):
    rows = [{"id": "ref", "code": PAIRS}, {"id": "n", "code": PAIRS, "n": 100_000},
            {"id": "text", "code": PAIRS, "n": "10**5"}, {"id": "bytes", "code": PAIRS, "input_bytes": 1e5},
            {"id": "bad", "code": PAIRS, "n": "huge"}, {"id": "both", "code": PAIRS, "n": 5, "input_bytes": 5},
            {"id": "list", "code": PAIRS, "n": [1, 2]}]
    out = io.StringIO()
    score_jsonl(Predictor.from_dir(growth_model_dir), [json.dumps(r) for r in rows], out)
    got = {r["id"]: r for r in map(json.loads, out.getvalue().splitlines())}
    p = reference["count_pairs"]["latency"]
    assert got["ref"]["latency"]["n"] == 10_000 and got["ref"]["latency"]["value"] == p.value
    for key in ("n", "text", "bytes"):
        assert got[key]["latency"]["n"] == 100_000
        assert got[key]["latency"]["value"] == pytest.approx(at(p, 100_000).value)
    assert got["bad"]["error"].startswith('"n" must be a size from 1 to 1e+12 like 100000, 1e5 or "10**5", got "huge"')
    assert got["both"] == {"id": "both", "error": 'give "n" or "input_bytes", not both'}
    assert got["list"]["error"].endswith("got [1, 2]")


def test_jsonl_takes_no_size_flags(growth_model_dir, capsys):
    code, out, err = _run(capsys, "--jsonl", "-", "--n", "1e5", "--model", growth_model_dir)
    assert (code, out) == (2, "") and err == 'rlm predict: with --jsonl, give each row its "n" or "input_bytes"\n'


def test_a_model_without_growth_writes_what_it_always_wrote(prog, tiny_model_dir, capsys):
    code, out, err = _run(capsys, prog, "--model", tiny_model_dir)
    assert code == 0 and err == "" and "n =" not in out and "@" not in out
    assert out.splitlines()[-1] == ("functions: per call, for a typical large input; p10–p90: the middle 80% "
                                    "of the model's samples")
    rows = _rows(capsys, prog, "--model", tiny_model_dir)
    assert all(set(r[m]) == {"value", "low", "high", "unit"} for r in rows.values() for m in ("memory", "latency"))
    code, sized, err = _run(capsys, prog, "--model", tiny_model_dir, "--n", "1e5")
    assert code == 0 and sized == out + ("note: this model predicts no growth, so --n, --input and --input-bytes "
                                         "do not apply: its values are per call, for a typical large input\n")
    out_rows = io.StringIO()
    score_jsonl(Predictor.from_dir(tiny_model_dir), [json.dumps({"id": 1, "code": PAIRS, "n": 5})], out_rows)
    assert set(json.loads(out_rows.getvalue())["latency"]) == {"value", "low", "high", "unit"}


# -- the gate ---------------------------------------------------------------------------------

OLD_FILE = "import os\n\n\n" + LINEAR.replace("linear_sum", "parse")
NEW_FILE = "import os\n\n\n" + PAIRS.replace("count_pairs", "parse")  # the nested loop: file lines 7-9


def test_the_gate_names_the_lines_that_carry_a_growth_step(growth_model_dir):
    [old] = compare.parse_functions("x.py", OLD_FILE)
    [new] = compare.parse_functions("x.py", NEW_FILE)
    change = compare.FunctionChange("modified", new, old)
    pr = Predictor.from_dir(growth_model_dir)
    codes = compare.codes_to_predict([change])
    predictions = dict(zip(codes, pr.predict(codes)))
    findings = [f for f in compare.judge([change], predictions, GateConfig(), ["memory", "latency"])
                if f.rule == "growth"]
    [f] = findings
    assert (f.metric, f.carrier, f.lines, f.failed) == ("latency", "nested loop", (7, 9), True)
    line = report.finding_line(f)
    assert line.startswith("x.py:4: parse(): predicted time grows ~n → ~n² (nested loop, lines 7–9; exponent 1.")
    result = report.GateResult(GateConfig(), "HEAD", "index", findings=findings, metrics=["latency"])
    [finding] = report.to_dict(result)["findings"]
    assert (finding["carried_by"], finding["lines"], finding["message"]) == ("nested loop", [7, 9], line)
    assert "| time | ~n | ~n² |" not in formats.to_markdown(result)  # the table names the metric as the gate does
    assert "in the exponent (nested loop, lines 7–9) |" in formats.to_markdown(result)
    assert "::error file=x.py,line=4,title=" in formats.to_github(result)
    assert "predicted time grows ~n → ~n² (nested loop, lines 7–9;" in formats.to_github(result)
    [sarif] = json.loads(formats.to_sarif(result))["runs"][0]["results"]
    assert sarif["properties"]["carriedBy"] == "nested loop, lines 7–9"
    assert sarif["relatedLocations"][0]["physicalLocation"]["region"] == {"startLine": 7, "endLine": 9}


def test_a_growth_step_without_a_loop_nest_says_so_without_lines():
    f = compare.Finding("x.py", 1, "parse", "modified", "memory", "exponent", "growth", 1.0, 2.1, None, 0.75)
    assert report.finding_line(f) == ("x.py:1: parse(): predicted memory grows ~n → ~n² "
                                      "(exponent 1.0 → 2.1, a step of 1.1, limit 0.75)")
    assert "relatedLocations" not in formats.to_sarif(report.GateResult(GateConfig(), "HEAD", "index", findings=[f]))


def test_a_typical_large_input_says_its_n_where_the_model_records_it(prog, model_copy, tmp_path, capsys):
    """`typical_n` (the sizes of the inputs the training rows ran on: the large tier's input is the
    curves' rung 1) turns "a typical large input" into an n a user can check."""
    import gzip

    from rlm_lsp.runtime.sizes import per_call
    from training.judging import typical_n

    data = tmp_path / "data"
    data.mkdir()
    sizes = [100, 1000, 10_000, 10_000, 10_000, 100_000, 100_000]
    large = [{"key": f"p{i}", "tier": "large", "status": "ok", "input_sha1": f"s{i}"} for i in range(len(sizes))]
    rung1 = [{"key": f"p{i}", "rung": "1", "status": "ok", "input_size": n, "input_sha1": f"s{i}"}
             for i, n in enumerate(sizes)]
    rung1.append({"key": "p0", "rung": "1/4", "status": "ok", "input_size": 25, "input_sha1": "x"})  # not rung 1
    rung1.append({"key": "q", "rung": "1", "status": "ok", "input_size": 7, "input_sha1": "q"})      # no large row
    for name, rows in (("leetcode_v1.jsonl.gz", large), ("leetcode_curves.jsonl.gz", rung1)):
        with gzip.open(data / name, "wt") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    assert typical_n.main([str(model_copy), "--data", str(data), "--write"]) == 0
    record = json.loads((model_copy / "rlm_config.json").read_text())["typical_n"]
    assert (record["median"], record["p10"], record["p90"], record["rows"]) == (10_000, 1000, 100_000, 7)  # nearest ranks
    words = per_call(Predictor.from_dir(model_copy).config)
    assert words == ("per call, for a typical large input (n ≈ 10⁴, the median size of the inputs it learnt "
                     "from; 80% of them from 10³ to 10⁵)")
    capsys.readouterr()
    code, out, _ = _run(capsys, prog, "--model", model_copy)
    assert code == 0 and out.splitlines()[-1] == f"functions: {words}; p10–p90: the middle 80% of the model's samples"
