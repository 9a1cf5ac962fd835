"""k passes of a row argmax that knock each winner out by writing -inf into the logits themselves.

Each pass reads the row, takes the maximum (smallest column among equals) and stores value and index;
then it overwrites that logit with -inf so the next pass finds the next one. The outputs are right, but
the caller's logits come back with k entries per row destroyed (and the sampler that follows would
sample from them): inputs must not be modified. It also reads the row k times.
"""
# expect: incorrect:input-modified

import torch
import triton
import triton.language as tl


@triton.jit
def _argmax_passes_kernel(x_ptr, val_ptr, idx_ptr, V, stride_row, K_SEL: tl.constexpr, BLOCK_V: tl.constexpr):
    row = tl.program_id(0)
    row_ptr = x_ptr + row.to(tl.int64) * stride_row
    offs = tl.arange(0, BLOCK_V)
    for j in range(K_SEL):
        best = float("-inf")
        best_col = V
        for off in range(0, V, BLOCK_V):
            cols = off + offs
            x = tl.load(row_ptr + cols, mask=cols < V, other=float("-inf")).to(tl.float32)
            m = tl.max(x, axis=0)
            c = tl.min(tl.where(x == m, cols, V), axis=0)
            better = m > best
            best_col = tl.where(better, c, best_col)
            best = tl.maximum(m, best)
        tl.store(val_ptr + row * K_SEL + j, best.to(val_ptr.dtype.element_ty))
        tl.store(idx_ptr + row * K_SEL + j, best_col.to(tl.int64))
        tl.store(row_ptr + best_col, float("-inf"))
        tl.debug_barrier()


def solution(logits: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    B, V = logits.shape
    values = torch.empty((B, k), dtype=logits.dtype, device=logits.device)
    indices = torch.empty((B, k), dtype=torch.int64, device=logits.device)
    _argmax_passes_kernel[(B,)](logits, values, indices, V, logits.stride(0), K_SEL=k, BLOCK_V=1024)
    return values, indices
