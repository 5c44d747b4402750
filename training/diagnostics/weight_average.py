"""Average the weights of several checkpoints of one architecture ("model soup").

    python -m training.diagnostics.weight_average OUT CHECKPOINT CHECKPOINT...
"""
import sys, torch
from training.rlm_model import load_checkpoint, save_checkpoint
out = sys.argv[1]; cks = sys.argv[2:]
models = [load_checkpoint(c) for c in cks]
base, tok, meta = models[0]
sd = {k: sum(m[0].state_dict()[k].float() for m in models) / len(models) for k in base.state_dict()}
base.load_state_dict(sd)
meta = dict(meta); meta["soup_of"] = cks
save_checkpoint(base, tok, out, meta)
