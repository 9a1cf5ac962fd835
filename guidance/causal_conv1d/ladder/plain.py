"""Ladder rung 0 (plain): the formula ported to Triton with no guidance.

y[b, t, c] = act(bias[c] + sum_{j < W} weight[c, j] * x[b, t - (W - 1) + j, c]),  x = 0 before t = 0.

As the reference does, x is first copied into a zero-padded [B, T + W - 1, C] buffer (allocation and a copy), so
the kernel needs no causal mask. Kernel 1 is one program per output row (b, t): it loads the W padded rows of all
C channels (a power-of-two block), multiplies by the taps and writes the fp32 sum to a scratch tensor. Kernel 2 is
an elementwise pass that adds the bias, applies SiLU and rounds to bf16.

Traffic: the padded copy reads and writes x (4 bytes / element), kernel 1 reads it W times from L2/HBM and writes
4 bytes of fp32, kernel 2 reads those 4 and writes 2: ~16 bytes per element from HBM against the problem's 4,
in three passes.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _conv_kernel(xp_ptr, w_ptr, z_ptr, T, C, Tp, W: tl.constexpr, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    b = row // T
    t = row % T
    offs_c = tl.arange(0, BLOCK_C)
    mask_c = offs_c < C
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for j in range(W):
        # padded time t + j is original time t - (W - 1) + j
        x_j = tl.load(xp_ptr + (b * Tp + t + j) * C + offs_c, mask=mask_c, other=0.0)
        w_j = tl.load(w_ptr + offs_c * W + j, mask=mask_c, other=0.0)
        acc += x_j.to(tl.float32) * w_j.to(tl.float32)
    tl.store(z_ptr + row * C + offs_c, acc, mask=mask_c)


@triton.jit
def _bias_act_kernel(z_ptr, b_ptr, y_ptr, n, C, SILU: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    z = tl.load(z_ptr + offs, mask=mask, other=0.0)
    z += tl.load(b_ptr + offs % C, mask=mask, other=0.0).to(tl.float32)
    if SILU:
        z = z / (1.0 + tl.exp(-z))
    tl.store(y_ptr + offs, z.to(y_ptr.dtype.element_ty), mask=mask)


def solution(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, silu: bool) -> torch.Tensor:
    assert x.dim() == 3 and weight.dim() == 2 and bias.dim() == 1
    B, T, C = x.shape
    W = weight.shape[1]
    y = torch.empty((B, T, C), dtype=x.dtype, device=x.device)
    if B == 0 or T == 0 or C == 0:
        return y
    weight = weight.contiguous()
    bias = bias.contiguous()
    xp = torch.zeros((B, T + W - 1, C), dtype=x.dtype, device=x.device)
    xp[:, W - 1 :] = x
    z = torch.empty((B, T, C), dtype=torch.float32, device=x.device)

    _conv_kernel[(B * T,)](xp, weight, z, T, C, T + W - 1, W=W, BLOCK_C=triton.next_power_of_2(C))
    n = B * T * C
    BLOCK = 1024
    _bias_act_kernel[(triton.cdiv(n, BLOCK),)](z, bias, y, n, C, SILU=bool(silu), BLOCK=BLOCK)
    return y
