"""Which point estimate ranks best: greedy, greedy mantissa + expected exponent, or the leading digit
enumerated (9 branches) with the expected exponent. PyTorch, on the validation split.

    python -m training.diagnostics.point_estimates CHECKPOINT

Model card: "Other point estimates, tried on v3 and not adopted".
"""
import os, sys, math
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np, torch
from rlm_lsp import numbers
from training import dataset
from training.evaluate import encode_inputs, spearman, _pad
from training.rlm_model import load_checkpoint

torch.set_num_threads(1)
ck = sys.argv[1]
model, tok, meta = load_checkpoint(ck); model.eval()
M = ["memory", "latency"]
ex = dataset.load_examples([dataset.DEFAULT_DATA], dataset.DEFAULT_CORPUS, tiers=["large"])
val = dataset.split_by_problem(ex, 0.1)[1]
ids = encode_inputs(tok, meta, [e.code for e in val], M)
T = lambda t: tok.token_to_id(t)
dig = [T(f"<{d}>") for d in range(10)]
exps = [T(f"<E{e}>") for e in range(numbers.EXP_MIN, numbers.EXP_MAX + 1)]
evals = np.arange(numbers.EXP_MIN, numbers.EXP_MAX + 1)
plus = T("<+>")

def step(enc, mask, prefix):
    with torch.no_grad():
        out = model(encoder_outputs=(enc,), attention_mask=mask, decoder_input_ids=prefix)
    return out.logits[:, -1, :].float()

def block(enc, mask, prefix, mode):
    """-> (log10 estimate per row, tokens of a representative block to condition the next metric)"""
    B = enc.shape[0]
    p = torch.cat([prefix, torch.full((B, 1), plus)], 1)
    if mode == "enum":
        lg = step(enc, mask, p)[:, dig[1:]]; p1 = torch.softmax(lg, -1)  # (B, 9)
        est = torch.zeros(B)
        rep = None
        for d in range(1, 10):
            q = torch.cat([p, torch.full((B, 1), dig[d])], 1)
            for _ in range(3):
                q = torch.cat([q, dig_t[step(enc, mask, q)[:, dig].argmax(-1)].unsqueeze(1)], 1)
            pe = torch.softmax(step(enc, mask, q)[:, exps], -1)
            mant = torch.tensor([float(f"{tok.id_to_token(int(q[i, -4]))[1]}.{''.join(tok.id_to_token(int(t))[1] for t in q[i, -3:])}") for i in range(B)])
            est += p1[:, d - 1] * (torch.log10(mant) + pe @ torch.tensor(evals, dtype=torch.float32))
        # representative: greedy block
        _, rep = block(enc, mask, prefix, "greedy")
        return est, rep
    q = p
    for _ in range(4):
        q = torch.cat([q, dig_t[step(enc, mask, q)[:, dig].argmax(-1)].unsqueeze(1)], 1)
    lg = step(enc, mask, q)[:, exps]
    pe = torch.softmax(lg, -1)
    mant = torch.tensor([float(f"{tok.id_to_token(int(q[i, -4]))[1]}.{''.join(tok.id_to_token(int(t))[1] for t in q[i, -3:])}") for i in range(q.shape[0])])
    am = lg.argmax(-1)
    e_arg = torch.tensor(evals, dtype=torch.float32)[am]
    e_exp = pe @ torch.tensor(evals, dtype=torch.float32)
    q = torch.cat([q, exps_t[am].unsqueeze(1)], 1)
    est = torch.log10(mant) + (e_exp if mode == "expexp" else e_arg)
    return est, q

dig_t = torch.tensor(dig); exps_t = torch.tensor(exps)
res = {m: {k: [] for k in ("greedy", "expexp", "enum")} for m in M}
for s in range(0, len(val), 64):
    x, mask = _pad(ids[s:s + 64], 0)
    x, mask = torch.as_tensor(x), torch.as_tensor(mask)
    with torch.no_grad():
        enc = model.get_encoder()(input_ids=x, attention_mask=mask).last_hidden_state
    start = torch.zeros((x.shape[0], 1), dtype=torch.long)
    for mode in ("greedy", "expexp", "enum"):
        e1, q = block(enc, mask, start, mode)
        e2, _ = block(enc, mask, q, mode)
        res["memory"][mode] += e1.tolist(); res["latency"][mode] += e2.tolist()
    print(s, file=sys.stderr)
for m in M:
    idx = [j for j, e in enumerate(val) if e.values.get(m)]
    print(m, {k: round(spearman([val[j].values[m] for j in idx], np.array(v)[idx]), 3) for k, v in res[m].items()})
