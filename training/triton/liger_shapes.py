"""Input tensor shapes of Liger-Kernel's benchmark scripts, as functions of a CSV row's named dims.

SHAPES[op](dims) lists the tensors `benchmark/scripts/benchmark_<op>.py` builds and hands to the Liger
op (inputs, targets/indices, weights of layers the Liger module owns), in the call's argument order,
so that a Liger row's work size means the same as a TritonBench row's: the largest tensor's element
count. Entries follow the script of the release that wrote the CSV rows (the stored
benchmark_scripts.jsonl.gz is a later release); where the two disagree, the CSV dims win.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

Dims = Mapping[str, float]


def _i(d: Dims, key: str, default: float | None = None) -> int:
    return int(d[key] if default is None else d.get(key, default))


def _rope_dims(d: Dims) -> tuple[int, int, int, int]:
    # benchmark_rope.py (0.2.1) / benchmark_llama4_rope.py (0.6.1): "x can be either hidden_size or seq_len":
    # hidden_size = cfg["hidden_size"] if present else x (x_name "H"); seq_len = cfg["seq_len"] if present
    # else x (x_name "T"); head_dim = hidden_size // num_q_heads
    hidden = int(d["hidden_size"] if "hidden_size" in d else d["H"])
    seq = int(d["seq_len"] if "seq_len" in d else d["T"])
    nq, nkv = _i(d, "num_q_heads"), _i(d, "num_kv_heads")
    return seq, nq, nkv, hidden // nq


def _grpo(d: Dims) -> list[list[int]]:
    B, T, H, V = _i(d, "B"), _i(d, "T"), _i(d, "H"), _i(d, "V")
    # argument order of LigerFusedLinearGRPOFunction: _input, weight, selected_token_ids, attention_mask,
    # advantages, ..., ref_input, ref_weight
    return [[B, T, H], [V, H], [B, T], [B, T], [B], [B, T, H], [V, H]]


def _mlp(d: Dims, bsz_key: str, bsz_default: float | None = None) -> list[list[int]]:
    b, t = _i(d, bsz_key, bsz_default), _i(d, "T")
    h, m = _i(d, "hidden_size"), _i(d, "intermediate_size")
    return [[b, t, h], [m, h], [m, h], [h, m]]


def _mta(d: Dims) -> list[list[int]]:
    b, L, cin, cout, k = _i(d, "B", 2), _i(d, "L"), _i(d, "C_in"), _i(d, "C_out"), _i(d, "K")
    return [[b, cin, L, L], [cout, cin // _i(d, "groups", 1), k, k], [cout]]


SHAPES: dict[str, Callable[[Dims], list[list[int]]]] = {
    # ---- embedding / norms / elementwise -------------------------------------------------------
    # benchmark_embedding.py (0.2.1): V = x; input_ids = randint(0, V, (B, T)); LigerEmbedding(V, D)
    "embedding": lambda d: [[_i(d, "B"), _i(d, "T")], [_i(d, "V"), _i(d, "D")]],
    # benchmark_rms_norm.py (0.2.1): x_shape = (M, N) with N = x (CSV x_name "H"); LigerRMSNorm(hidden_size=N).weight
    "rms_norm": lambda d: [[_i(d, "M"), _i(d, "H")], [_i(d, "H")]],
    # benchmark_fused_add_rms_norm.py (0.7.0): x, r = randn(M, H) (x = H); LigerFusedAddRMSNorm(H).weight
    # (the stored script's x is BT with cfg["hidden_size"]; CSV dims are H-sweep with M rows)
    "fused_add_rms_norm": lambda d: [[_i(d, "M"), _i(d, "H")], [_i(d, "M"), _i(d, "H")], [_i(d, "H")]],
    # benchmark_megatron_rms_norm.py: x = randn(S, B, H) (x = H); LigerMegatronRMSNorm(hidden_size=H).weight
    "megatron_rms_norm": lambda d: [[_i(d, "S"), _i(d, "B"), _i(d, "H")], [_i(d, "H")]],
    # benchmark_layer_norm.py (0.2.1/0.6.0): x_shape = (M, N) (x = N); LigerLayerNorm(N) weight, bias
    "layer_norm": lambda d: [[_i(d, "M"), _i(d, "N")], [_i(d, "N")], [_i(d, "N")]],
    # benchmark_group_norm.py (0.7.0): C = x; x_shape = (M, C, H); LigerGroupNorm(num_channels=C) weight, bias
    "group_norm": lambda d: [[_i(d, "M"), _i(d, "C"), _i(d, "H")], [_i(d, "C")], [_i(d, "C")]],
    # benchmark_softmax.py (0.5.8): N = x; x_shape = (M, N)
    "softmax": lambda d: [[_i(d, "M"), _i(d, "N")]],
    # benchmark_sparsemax.py (0.5.8): V = x; x_shape = (B * T, V)
    "sparsemax": lambda d: [[_i(d, "B") * _i(d, "T"), _i(d, "V")]],
    # benchmark_relu_squared.py (0.7.0): x = randn(M, N) (x = N, hidden size). The 0.7.0 script was not
    # found; the stored one takes x = M rows with cfg["hidden_size"]; CSV dims are {N: x, M} -> (M, N)
    "relu_squared": lambda d: [[_i(d, "M"), _i(d, "N")]],
    # ---- rope ------------------------------------------------------------------------------------
    # benchmark_rope.py (0.2.1): q = randn(1, seq_len, nq, head_dim).transpose(1, 2), k likewise with nkv;
    # pos_ids = arange(seq_len).unsqueeze(0); cos, sin = LlamaRotaryEmbedding(k, pos_ids) -> (1, seq_len, head_dim)
    "rope": lambda d: (lambda s, nq, nkv, hd: [[1, nq, s, hd], [1, nkv, s, hd], [1, s, hd], [1, s, hd], [1, s]])(
        *_rope_dims(d)),
    # benchmark_llama4_rope.py (0.6.1): q = randn(1, seq_len, nq, head_dim) (no transpose), k likewise;
    # freqs_cis = Llama4TextRotaryEmbedding(q, pos_ids) -> complex (1, seq_len, head_dim // 2)
    "llama4_rope": lambda d: (lambda s, nq, nkv, hd: [[1, s, nq, hd], [1, s, nkv, hd], [1, s, hd // 2]])(
        *_rope_dims(d)),
    # ---- losses over (BT, V) logits --------------------------------------------------------------
    # benchmark_cross_entropy.py (0.2.1): V = x; _input = randn(B * T, V); target = randint(V, (B * T, 1)).squeeze(1)
    "cross_entropy": lambda d: [[_i(d, "B") * _i(d, "T"), _i(d, "V")], [_i(d, "B") * _i(d, "T")]],
    # benchmark_kl_div.py (0.2.1): V = x; _input = randn(B * T, V).log_softmax(-1); target = randn(B * T, V).softmax(-1)
    "kl_div": lambda d: [[_i(d, "B") * _i(d, "T"), _i(d, "V")]] * 2,
    # benchmark_tvd.py (0.7.0): V = x; _input, target = randn(B * T, V).softmax(-1)
    "tvd": lambda d: [[_i(d, "B") * _i(d, "T"), _i(d, "V")]] * 2,
    # benchmark_jsd.py: 0.3.1 rows (x_name "V"): _input, target = randn(B * T, V).log_softmax(-1);
    # 0.8.0 rows (x_name "BT"): BT = x, V = cfg["vocab_size"] (bsz/seq_len are unused model-config keys)
    "jsd": lambda d: [[_i(d, "BT"), _i(d, "vocab_size")]] * 2 if "BT" in d
    else [[_i(d, "B") * _i(d, "T"), _i(d, "V")]] * 2,
    # benchmark_megatron_cross_entropy.py: v_local = V // TP; logits = randn(S, B, v_local);
    # target = randint(0, V, (S, B))
    "megatron_cross_entropy": lambda d: [[_i(d, "S"), _i(d, "B"), _i(d, "V") // _i(d, "TP", 1)],
                                         [_i(d, "S"), _i(d, "B")]],
    # ---- fused linear (lm_head) losses: the lm_head weight [V, H] is passed to the Liger op -------------
    # benchmark_fused_linear_cross_entropy.py (0.4.2): _input = randn(BT, H); target = randint(V, (BT, 1)).squeeze(1);
    # LigerLMHeadCE.lin = Linear(H, V) -> weight (V, H)
    # (listed in the Liger call's argument order: ce_loss(lin.weight, _input, target))
    "fused_linear_cross_entropy": lambda d: [[_i(d, "V"), _i(d, "H")], [_i(d, "BT"), _i(d, "H")], [_i(d, "BT")]],
    # benchmark_fused_linear_jsd.py (0.3.1): student_input, teacher_input = rand(BT, H);
    # student_lin.weight, teacher_lin.weight = rand(V, H); label None
    # (argument order: fused_jsd(student_input, student_lin.weight, teacher_input, teacher_lin.weight))
    "fused_linear_jsd": lambda d: [[_i(d, "BT"), _i(d, "H")], [_i(d, "V"), _i(d, "H")]] * 2,
    # benchmark_distill_jsd_loss.py (0.4.2): student = rand(BT, H // 2); teacher = rand(BT, H);
    # target = randint(0, V, (BT,)); student_lin = Linear(H // 2, V), teacher_lin = Linear(H, V) (bias False)
    # (argument order: jsd_loss(student, student_lin.weight, teacher, teacher_lin.weight, target))
    "distill_jsd_loss": lambda d: [[_i(d, "BT"), _i(d, "H") // 2], [_i(d, "V"), _i(d, "H") // 2],
                                   [_i(d, "BT"), _i(d, "H")], [_i(d, "V"), _i(d, "H")], [_i(d, "BT")]],
    # benchmark_grpo_loss.py (0.6.1): B = x; _input = randn(B, T, H); selected_token_ids = randint(0, V, (B, T));
    # attention_mask = ones(B, T); advantages = randn(B); ref_input = randn(B, T, H);
    # test_grpo_loss.LigerLMHeadGRPO: lin, ref_lin = Linear(H, V) -> weights (V, H)
    "fused_linear_grpo_loss_token": lambda d: _grpo(d),
    "fused_linear_grpo_loss_sequence": lambda d: _grpo(d),
    # ---- MLP activations -------------------------------------------------------------------------
    # benchmark_geglu.py (0.2.1): seq_len = x; x = randn(bsz, seq_len, hidden_size);
    # LigerGEGLUMLP: gate_proj, up_proj = Linear(hidden, intermediate), down_proj = Linear(intermediate, hidden)
    "geglu": lambda d: _mlp(d, "bsz"),
    # benchmark_swiglu.py (0.2.1): bsz = cfg["B"]; x = randn(bsz, seq_len, hidden_size); LigerSwiGLUMLP weights as geglu
    "swiglu": lambda d: _mlp(d, "B"),
    # benchmark_tiled_mlp.py (0.6.3): bsz = cfg.get("bsz", 2); x = randn(bsz, seq_len, hidden_size);
    # LigerTiled{GEGLU,SwiGLU}MLP weights as geglu (num_shards only tiles the sequence, no new tensors)
    "tiled_geglu": lambda d: _mlp(d, "bsz", 2),
    "tiled_swiglu": lambda d: _mlp(d, "bsz", 2),
    # benchmark_megatron_swiglu.py: x = randn(s, b, 2 * ffn_local) (fc1 output, gate and up concatenated)
    "megatron_swiglu": lambda d: [[_i(d, "S"), _i(d, "B"), 2 * _i(d, "ffn_local")]],
    # ---- attention -------------------------------------------------------------------------------
    # benchmark_multi_token_attention.py: x = randn(B, C_in, L, L) (B = cfg.get("B", 2), L = x);
    # LigerMultiTokenAttention conv weight (C_out, C_in // groups, K, K), bias (C_out) (cfg bias True)
    "multi_token_attention": lambda d: _mta(d),
    # benchmark_sparse_multi_token_attention.py: same tensors as multi_token_attention (sparse=True)
    "sparse_multi_token_attention": lambda d: _mta(d),
    # benchmark_fused_neighborhood_attention.py (0.5.10): x = randn(batch_size, seq_len, hidden_size)
    # (batch_size = cfg.get("batch_size", 2), seq_len = x); LigerFusedNeighborhoodAttention owns
    # q_proj, k_proj, v_proj, out_proj = Linear(hidden, hidden, bias=True)
    "fused_neighborhood_attention": lambda d: [[_i(d, "batch_size", 2), _i(d, "seq_len"), _i(d, "hidden_size")]]
    + [[_i(d, "hidden_size"), _i(d, "hidden_size")]] * 4 + [[_i(d, "hidden_size")]] * 4,  # x, 4 weights, 4 biases
}


def tensor_shapes(op: str, dims: Mapping[str, float]) -> list[list[int]] | None:
    """Shapes of the tensors Liger's benchmark for `op` builds at this row's dims; None if unknown."""
    fn = SHAPES.get(op)
    if fn is None:
        return None
    return [[int(n) for n in shape] for shape in fn(dims)]
