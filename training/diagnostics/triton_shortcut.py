"""Does the kernel model read the exponent from the code, or from the mantissa it was fed?

    python -m training.diagnostics.triton_shortcut CHECKPOINT

Teacher-forced on 400 non-training rows: the expected exponent after the true mantissa, and after a
fixed one (3.162). Similar Spearman for both means no mantissa-grain shortcut.
"""
import sys, numpy as np, torch
from rlm_lsp import numbers
from training import rlm_model
from training.evaluate import spearman, _pad
from training.triton import data
from training.triton.train import render_row
torch.set_num_threads(1)
model, tok, meta = rlm_model.load_checkpoint(sys.argv[1]); model.eval()
rows = [r for r in data.load_rows() if r["split"] != "train"]
import random; random.Random(0).shuffle(rows); rows = rows[:400]
eos = tok.token_to_id(rlm_model.EOS)
ids = []
for r in rows:
    x = tok.encode(render_row(r)).ids
    ids.append(x[:191] + [eos] if len(x) > 192 else x)
exps = [tok.token_to_id(f"<E{e}>") for e in range(numbers.EXP_MIN, numbers.EXP_MAX + 1)]
ev = np.arange(numbers.EXP_MIN, numbers.EXP_MAX + 1)
for fixed in (False, True):
    out = []
    for s in range(0, len(rows), 32):
        x, m = _pad(ids[s:s+32], 0)
        lab = torch.tensor([rlm_model.target_ids(tok, [3.162 if fixed else r["ms"]]) for r in rows[s:s+32]])
        with torch.no_grad():
            lg = model(input_ids=x, attention_mask=m, decoder_input_ids=model._shift_right(lab)).logits
        p = torch.softmax(lg[:, 5, exps].float(), -1).numpy()
        out += list(p @ ev)
    print("fixed" if fixed else "true", round(spearman([r["ms"] for r in rows], out), 3))
