"""Run options that cost memory or threads are bounded, and a bad one is one line (issue 52, item 7).

`rlm predict --samples 100000` grew to 8.7 GB, `--threads 10000` started 1,700 threads, and
`--seed -5` was a traceback. The same options on `rlm gate`, and the server's `threads`.
"""

from __future__ import annotations

import pytest

from rlm_lsp.app import cli
from rlm_lsp.gate import gate
from rlm_lsp.policy import options
from rlm_lsp.server.settings import Settings


@pytest.mark.parametrize("argv, says", [
    (["--samples", "100000"], f"at most {options.MAX_SAMPLES}"),
    (["--samples", "257"], f"at most {options.MAX_SAMPLES}"),
    (["--threads", "10000"], f"at most {options.MAX_THREADS}"),
    (["--threads", "0"], "at least 1"),
    (["--seed", "-5"], "at least 0"),
    (["--seed", "x"], "at least 0"),
])
def test_predict_refuses_out_of_range_options_in_one_line(argv, says, tmp_path, capsys):
    (tmp_path / "a.py").write_text("def f(n):\n    return n\n")
    with pytest.raises(SystemExit) as stop:
        cli.main(["predict", str(tmp_path / "a.py"), "--model", str(tmp_path / "no-model"), *argv])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert argv[0] in last and says in last, err


@pytest.mark.parametrize("argv, says", [
    (["--samples", "100000"], f"at most {options.MAX_SAMPLES}"),
    (["--samples", "0"], "at least 1"),
    (["--threads", "10000"], f"at most {options.MAX_THREADS}"),
])
def test_gate_refuses_out_of_range_options_in_one_line(argv, says, capsys):
    with pytest.raises(SystemExit) as stop:
        gate.main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and says in err.strip().splitlines()[-1], err


def test_the_caps_themselves_are_accepted():
    assert options.samples(str(options.MAX_SAMPLES)) == options.MAX_SAMPLES
    assert options.threads(str(options.MAX_THREADS)) == options.MAX_THREADS
    assert options.seed("0") == 0


def test_server_threads_over_the_cap_keep_the_previous_value():
    base = Settings.from_dict({"threads": 4})
    assert Settings.from_dict({"threads": options.MAX_THREADS + 1}, base).threads == 4
    assert Settings.from_dict({"threads": options.MAX_THREADS}, base).threads == options.MAX_THREADS
