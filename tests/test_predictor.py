"""The predictor on real ONNX sessions of the tiny exported model."""

import json

import numpy as np
import pytest

from rlm_lsp import ModelError, Prediction, Predictor
from rlm_lsp.runtime.predictor import InputError

CODES = [
    "def f(n):\n    return sum(range(n))\n",
    "def g(n):\n    return [list(range(n)) for _ in range(n)]\n",
    "def h(s):\n    return s[::-1]\n",
    "x = 1\n",
    "def long(n):\n" + "    n += 1\n" * 400 + "    return n\n",  # truncated to max_input_tokens
]


@pytest.fixture(scope="module")
def predictor(tiny_model_dir):
    return Predictor.from_dir(tiny_model_dir, samples=8)


def test_predictions_have_every_metric_with_ordered_interval(predictor):
    results = predictor.predict(CODES)
    assert len(results) == len(CODES)
    for result in results:
        assert set(result) == {"memory", "latency"}
        for metric, p in result.items():
            assert isinstance(p, Prediction) and p.metric == metric
            assert p.unit == {"memory": "bytes", "latency": "ms"}[metric]
            assert 0 <= p.low <= p.value <= p.high  # nonnegative metrics, p10 <= median <= p90


def test_same_input_same_output_across_instances_and_batches(tiny_model_dir, predictor):
    fresh = Predictor.from_dir(tiny_model_dir, samples=8)
    together = fresh.predict(CODES)
    alone = [Predictor.from_dir(tiny_model_dir, samples=8).predict([c])[0] for c in CODES]
    assert together == alone
    assert predictor.predict(CODES) == together


def test_cache_serves_repeats_without_running_the_model(predictor, monkeypatch):
    predictor.predict(CODES[:2])
    assert predictor.cached(CODES[0]) is not None
    monkeypatch.setattr(predictor, "_run", lambda *a, **k: pytest.fail("model ran on a cached input"))
    predictor.predict(CODES[:2])


def test_cache_is_bounded(tiny_model_dir):
    small = Predictor.from_dir(tiny_model_dir, samples=1, cache_size=3)
    small.predict([f"def f{i}():\n    return {i}\n" for i in range(10)])
    assert len(small._cache) == 3


def test_greedy_has_a_point_interval(tiny_model_dir):
    greedy = Predictor.from_dir(tiny_model_dir, samples=1)
    for p in greedy.predict(CODES[:2])[0].values():
        assert p.low == p.value == p.high


def test_metric_filter(predictor):
    assert set(predictor.predict(CODES[:1], metrics=["memory"])[0]) == {"memory"}


def test_no_fixed_padding(predictor, monkeypatch):
    widths = []
    encode = predictor.model.encode
    monkeypatch.setattr(predictor.model, "encode", lambda ids, mask: widths.append(ids.shape[1]) or encode(ids, mask))
    predictor.predict(["def a():\n    return 1\n", "def b():\n    return 2\n"])
    assert widths and max(widths) < 40  # padded to the longest input, not to max_input_tokens


def test_bad_inputs_raise_input_error(predictor):
    with pytest.raises(InputError, match="empty"):
        predictor.predict(["   \n"])
    with pytest.raises(InputError, match="unknown language"):
        predictor.predict(["int main() {}"], language="cobol")


def test_threads_and_cpu_device(tiny_model_dir):
    p = Predictor.from_dir(tiny_model_dir, device="cpu", threads=2, samples=1)
    assert p.device == "cpu"
    assert p.predict(CODES[:1])


def test_cuda_request_falls_back_to_cpu_quietly(tiny_model_dir, capfd):
    p = Predictor.from_dir(tiny_model_dir, device="cuda", samples=1)
    assert p.device in ("cpu", "cuda")
    p.predict(CODES[:1])
    if p.device == "cpu":
        assert capfd.readouterr().err == ""


def test_onnx_greedy_equals_pytorch_greedy_token_for_token(tiny_checkpoint, tiny_model_dir_fp32):
    from rlm_lsp.export.parity import check_parity

    codes = CODES + [f"def f{i}(a, b):\n    return a * {i} + b\n" for i in range(10)]
    report = check_parity(tiny_checkpoint, tiny_model_dir_fp32, codes)
    assert report["inputs"] == len(codes)
    assert report["token_exact"] == len(codes), report["mismatches"]


def test_default_model_error_is_clear(monkeypatch, tmp_path):
    from rlm_lsp.runtime import predictor as predictor_module

    monkeypatch.setattr(predictor_module, "DEFAULT_DIR", tmp_path / "nothing")
    with pytest.raises(ModelError, match="no shipped default model"):
        Predictor.default()


def test_export_report_is_written(tiny_model_dir):
    report = json.loads((tiny_model_dir / "export_report.json").read_text())
    assert report["parity"]["token_exact"] == report["parity"]["inputs"]
    config = json.loads((tiny_model_dir / "rlm_config.json").read_text())
    assert config["precision"] == "int8"
    assert np.isfinite(report["size_bytes"])


def test_sample_draws_are_stratified_per_position(tiny_model_dir):
    predictor = Predictor.from_dir(tiny_model_dir, samples=16)
    u = predictor._uniforms("ab" * 8, 16)
    assert u.shape == (16, 12) and (u >= 0).all() and (u < 1).all()
    for column in u.T:  # one draw in each sixteenth of [0, 1) at every position
        assert sorted(np.floor(column * 16).astype(int)) == list(range(16))
    assert np.array_equal(u, predictor._uniforms("ab" * 8, 16))
    assert not np.array_equal(u[:, 0], u[:, 1])  # positions are shuffled independently


def test_config_temperature_drives_sampling(model_copy):
    """The config's temperature reaches the sampler: near zero, the median is the greedy decode
    (the tiny model's logits are too flat for the whole interval to collapse)."""
    import json

    from rlm_lsp import ModelConfig

    def predictor(temperature, samples=16):
        raw = json.loads((model_copy / "rlm_config.json").read_text())
        raw["sampling_temperature"] = temperature
        raw["point_estimate"] = "median"  # the middle sample: the greedy one when nearly all agree
        (model_copy / "rlm_config.json").write_text(json.dumps(raw))
        return Predictor(ModelConfig.load(model_copy, verify_hashes=False), samples=samples)

    greedy = predictor(1.0, samples=1).predict(CODES[:3])
    cold = predictor(0.05).predict(CODES[:3])
    for g, c in zip(greedy, cold):
        for metric in g:
            assert c[metric].value == pytest.approx(g[metric].value)
    warm = predictor(1.0).predict(CODES[:3])
    numbers = lambda preds: [(p.value, p.low, p.high) for row in preds for p in row.values()]  # noqa: E731
    assert numbers(warm) != numbers(cold)  # same draws, other temperature: other samples


def test_sample_values_are_what_predict_aggregates(predictor):
    """`Predictor.sample_values` returns the raw draws behind `predict`, in input order: their
    point estimate and p10/p90 are its value and interval, and they are its samples."""
    import numpy as np

    from rlm_lsp.runtime.predictor import point_estimate

    drawn = predictor.sample_values(CODES)
    assert drawn.shape == (len(CODES), predictor.samples, len(predictor.config.metrics))
    for values, result in zip(drawn, predictor.predict(CODES)):
        for j, metric in enumerate(predictor.config.metric_names):
            low, high = np.percentile(values[:, j], [10, 90])
            smooth = np.array(result[metric].smooth_samples)
            mid = point_estimate(values[:, j], predictor.config.point_estimate, smooth)
            assert (result[metric].low, result[metric].value, result[metric].high) == (low, mid, high)
            assert result[metric].samples == tuple(values[:, j])
            assert smooth.shape == values[:, j].shape and (smooth > 0).all()


def test_read_limit_says_when_only_part_of_the_code_is_read(predictor):
    short = "def f(n):\n    return n\n"
    long = "def g(n):\n" + "\n".join(f"    a{i} = n * {i}" for i in range(200)) + "\n    return a0\n"
    limit = predictor.config.max_input_tokens
    assert predictor.read_limit(short) is None
    read, total = predictor.read_limit(long)
    assert read == limit and total == len(predictor.token_ids(long)) > limit


def test_head_and_tail_keeps_both_ends_and_the_limit():
    from rlm_lsp.runtime.predictor import HEAD_SHARE, head_and_tail

    ids = list(range(1000))
    assert head_and_tail(ids[:10], 10) == ids[:10]  # fits: unchanged
    read = head_and_tail(ids, 100, marker=[-1, -2])
    head = int(98 * HEAD_SHARE)
    assert len(read) == 100 and read[:head] == ids[:head] and read[head:head + 2] == [-1, -2]
    assert read[head + 2:] == ids[-(98 - head):] and read[-1] == 999  # the final </s> stays last
    assert head_and_tail(ids, 100, marker=[-1] * 30) == ids[:66] + ids[-34:]  # a marker too long for the budget
    assert head_and_tail(ids, 100) == head_and_tail(list(ids), 100)  # deterministic


def test_long_code_is_scored_by_head_and_tail_never_refused(predictor):
    """#25.1: an input over max_input_tokens is predicted, says so, and its middle does not count."""
    limit = predictor.config.max_input_tokens
    middle = lambda k: "\n".join(f"    a{i} = [n * {k if 40 <= i < 110 else 1}] * {i}"  # noqa: E731
                                  for i in range(150))
    long = "def g(n):\n    out = []\n" + middle(1) + "\n    return out\n"
    other_middle = "def g(n):\n    out = []\n" + middle(7) + "\n    return out\n"
    short = "def f(n):\n    return n\n"
    predictor.check(long)  # no InputError
    [long_p, short_p] = predictor.predict([long, short])
    assert all(p.truncated and p.tokens == len(predictor.token_ids(long)) > limit for p in long_p.values())
    assert not any(p.truncated for p in short_p.values())
    assert all(p.tokens == len(predictor.token_ids(short)) for p in short_p.values())
    # what the model reads: the head and the tail, `limit` tokens; the same ends give the same reading
    [(_, ids, n)] = predictor._encode([("k", predictor.render(long))])
    full = predictor.tokenizer.encode(predictor.render(long)).ids
    assert len(ids) == limit and n == len(full) and ids[:100] == full[:100] and ids[-50:] == full[-50:]
    [(_, ids2, _)] = predictor._encode([("k", predictor.render(other_middle))])
    head = int((limit - len(predictor._elision)) * 2 / 3)
    assert ids2[:40] == ids[:40] and ids2[head:] == ids[head:]


def test_codes_the_model_reads_alike_share_one_cache_entry(predictor):
    """A rename or a reformat renders to the same input under canonical names: one entry, one run."""
    from dataclasses import replace

    canon = replace(predictor.config, preprocess="canon_v1")
    p = Predictor(canon, samples=4)
    a = "def f(xs):\n    total = 0\n    for x in xs:\n        total += x * x\n    return total\n"
    b = "def g(values):\n    acc = 0\n    for v in values:  # square them\n        acc += v*v\n    return acc\n"
    [pa] = p.predict([a])
    assert len(p._cache) == 1
    [pb] = p.predict([b])
    assert len(p._cache) == 1 and pa == pb


def test_point_estimates():
    from rlm_lsp.runtime.predictor import point_estimate

    s = np.array([1.0, 10.0, 100.0, 1000.0])
    assert point_estimate(s, "median") == pytest.approx(55.0)
    assert point_estimate(s, "log_mean") == pytest.approx(10 ** 1.5)  # the geometric mean
    # one sample jumping between modes moves the median by the whole gap, the log-mean by 1/N of it
    a = np.array([1.0] * 8 + [100.0] * 8)
    b = a.copy()
    b[7] = 100.0
    assert point_estimate(b, "median") / point_estimate(a, "median") > 1.9
    assert point_estimate(b, "log_mean") / point_estimate(a, "log_mean") == pytest.approx(100 ** (1 / 16))
    outlier = np.array([1e6] * 15 + [1e-9])  # kept inside p10..p90
    assert np.percentile(outlier, 10) <= point_estimate(outlier, "log_mean") <= np.percentile(outlier, 90)
    assert point_estimate(np.array([0.0, 2.0, 4.0]), "log_mean") == 2.0  # a zero sample: the median
