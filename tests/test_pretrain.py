"""Span-denoising pre-training: corruption is invertible, validation problems stay out, and a
pre-trained checkpoint is one the fine-tune starts from."""

from __future__ import annotations

import gzip
import json

import numpy as np

from training.learning import dataset, pretrain


def _restore(inp: list[int], tgt: list[int], mask_id: int, eos_id: int) -> list[int]:
    spans, cur = [], None
    for t in tgt[:-1]:
        if t == mask_id:
            cur = []
            spans.append(cur)
        else:
            cur.append(t)
    out, k = [], 0
    for t in inp:
        if t == mask_id:
            out.extend(spans[k])
            k += 1
        else:
            out.append(t)
    assert k == len(spans)
    return out


def test_corrupt_masks_spans_after_the_header_and_is_invertible():
    mask_id, eos_id = 2, 1
    seq = np.array(list(range(100, 400)) + [eos_id])
    for seed in range(5):
        inp, tgt = pretrain.corrupt(seq, mask_id, eos_id, np.random.default_rng(seed))
        assert inp[: pretrain.HEADER_TOKENS] == list(range(100, 100 + pretrain.HEADER_TOKENS))
        assert inp[-1] == eos_id and tgt[-1] == eos_id
        n_masked = sum(1 for t in tgt if t not in (mask_id, eos_id))
        assert 0.08 * 300 <= n_masked <= 0.25 * 300
        assert tgt.count(mask_id) == inp.count(mask_id) >= 1
        assert _restore(inp, tgt, mask_id, eos_id) == list(seq)
    short = np.array([100, 101, eos_id])  # shorter than the header: nothing to mask
    assert pretrain.corrupt(short, mask_id, eos_id, np.random.default_rng(0)) == ([100, 101, eos_id], [eos_id])


def _corpus(path, problems):
    with gzip.open(path, "wt") as f:
        for i, pid in enumerate(problems):
            for lang, code in (("python", f"def f{i}(n):\n    return [0] * n\n"),
                               ("cpp", f"int f{i}(int n) {{ return n; }}\n")):
                f.write(json.dumps({"source": "t", "path": f"{lang}/{i}", "problem_id": pid,
                                    "language": lang, "code": code}) + "\n")


def test_texts_leave_out_validation_problems(tmp_path):
    problems = [str(i) for i in range(40)]
    val = [p for p in problems if dataset.is_validation(p, 0.1)]
    assert val, "the hash should put some of 40 problems in validation"
    _corpus(tmp_path / "c.jsonl.gz", problems)
    texts, counts = pretrain.corpus_texts(str(tmp_path / "c.jsonl.gz"), 0.1)
    assert counts["validation_problem_rows_skipped"] == 2 * len(val)
    assert counts["cpp"] == len(problems) - len(val)
    for i, pid in enumerate(problems):
        assert any(f"f{i}(" in t for t in texts) == (pid not in val)
    assert all(t.startswith("<metrics> memory latency <lang> ") for t in texts)


def test_pretrain_then_fine_tune_from_it(tmp_path):
    from training.learning import train
    from training.learning.rlm_model import load_checkpoint

    _corpus(tmp_path / "c.jsonl.gz", [str(i) for i in range(30)])
    ids = pretrain.main(["texts", "--corpus", str(tmp_path / "c.jsonl.gz"), "--out", str(tmp_path / "ids.npz")])
    best = pretrain.main(["train", "--ids", str(ids), "--out", str(tmp_path / "pre"), "--size", "tiny",
                          "--max-steps", "3", "--batch-size", "4", "--log-every", "1", "--threads", "1"])
    meta = json.loads((best / "rlm_meta.json").read_text())
    assert meta["pretraining"]["steps"] == 3 and meta["number_format"]["kind"] == "P10"
    log = [json.loads(line) for line in (tmp_path / "pre" / "pretrain_log.jsonl").read_text().splitlines()]
    assert [r["step"] for r in log] == [1, 2, 3] and all(np.isfinite(r["loss"]) for r in log)

    ft = train.train(["--synthetic", "24", "--init-from", str(best), "--batch-size", "8", "--max-steps", "2",
                      "--epochs", "1", "--out", str(tmp_path / "ft"), "--no-progress", "--eval-max", "8"])
    model, tok, _ = load_checkpoint(ft)
    assert tok.to_str() == load_checkpoint(best)[1].to_str()
    assert model.config.d_model == 32  # the tiny pre-trained architecture, not the trainer's default
