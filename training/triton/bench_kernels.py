"""Built-in Triton kernels for time_kernels.py: vector add, row softmax, tiled matmul.

Each `setup_<name>(size, device, dtype) -> (launch, meta)` allocates inputs and returns a
zero-argument callable that launches the kernel once. Imported only when triton is importable
(real GPU, or the CPU interpreter with TRITON_INTERPRET=1 set before the import).
"""

from __future__ import annotations

import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_stride + cols, y, mask=mask)


@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                  stride_cm, stride_cn, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + rm[:, None] * stride_am + (k + rk)[None, :] * stride_ak,
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * stride_bk + rn[None, :] * stride_bn,
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


def setup_vector_add(size: int, device: str, dtype=torch.float32):
    x = torch.rand(size, device=device, dtype=dtype)
    y = torch.rand(size, device=device, dtype=dtype)
    out = torch.empty_like(x)
    grid = (triton.cdiv(size, 1024),)
    return (lambda: add_kernel[grid](x, y, out, size, BLOCK_SIZE=1024)), {"shapes": [[size], [size]], "n": size}


def setup_softmax(size: int, device: str, dtype=torch.float32):
    rows, cols = max(1, size // 1024), 1024
    x = torch.randn(rows, cols, device=device, dtype=dtype)
    out = torch.empty_like(x)
    return (lambda: softmax_kernel[(rows,)](out, x, x.stride(0), out.stride(0), cols, BLOCK_SIZE=1024)), \
        {"shapes": [[rows, cols]], "M": rows, "N": cols}


def setup_matmul(size: int, device: str, dtype=torch.float16):
    n = size
    if device == "cpu":
        dtype = torch.float32  # the interpreter's tl.dot on CPU
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    c = torch.empty(n, n, device=device, dtype=torch.float32)
    bm = bn = 64 if device != "cpu" else 16
    bk = 32 if device != "cpu" else 16
    grid = (triton.cdiv(n, bm), triton.cdiv(n, bn))
    return (lambda: matmul_kernel[grid](a, b, c, n, n, n, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                        c.stride(0), c.stride(1), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk)), \
        {"shapes": [[n, n], [n, n]], "M": n, "N": n, "K": n}


SETUPS = {"vector_add": setup_vector_add, "softmax": setup_softmax, "matmul": setup_matmul}
