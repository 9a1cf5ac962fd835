"""Ladder rung plain: the reference's row-by-row dynamic program, ported to one program per pair.

No guidance items. Like the reference, each row i of the DP is a vector over j:
E[j] = min(D[i-1][j] + 1, D[i-1][j-1] + cost), E[0] = i, D[i][j] = j + cummin(E - j), the cummin
a tl.associative_scan over the row. The row lives in registers; its one-element shift (D[i-1][j-1])
goes through a two-slot global scratch row with a barrier per row.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _min(x, y):
    return tl.minimum(x, y)


@triton.jit
def _lev_rows_kernel(a_ptr, a_len_ptr, b_ptr, b_len_ptr, buf_ptr, out_ptr, L, BLOCK_J: tl.constexpr):
    # Lane k holds column j = k of the current row. Traffic: la + lb tokens, 4 bytes out.
    p = tl.program_id(0).to(tl.int64)
    la = tl.load(a_len_ptr + p).to(tl.int32)
    lb = tl.load(b_len_ptr + p).to(tl.int32)
    k = tl.arange(0, BLOCK_J)
    b_prev = tl.load(b_ptr + p * L + k - 1, mask=(k >= 1) & (k <= lb), other=-2)  # b[j-1]
    buf = buf_ptr + p * 2 * BLOCK_J
    row = k  # D[0][j] = j
    for i in range(1, la + 1):
        a_tok = tl.load(a_ptr + p * L + i - 1)
        # slot i % 2 was last read on row i - 1, before that row's barrier
        tl.store(buf + (i % 2) * BLOCK_J + k, row)
        tl.debug_barrier()
        row_prev = tl.load(buf + (i % 2) * BLOCK_J + k - 1, mask=k >= 1, other=0)  # D[i-1][j-1]
        e = tl.minimum(row + 1, row_prev + (b_prev != a_tok).to(tl.int32))
        e = tl.where(k == 0, i, e)
        row = tl.associative_scan(e - k, 0, _min) + k
    tl.store(out_ptr + p, tl.sum(tl.where(k == lb, row, 0), axis=0))


def solution(a: torch.Tensor, a_len: torch.Tensor, b: torch.Tensor, b_len: torch.Tensor) -> torch.Tensor:
    assert a.shape == b.shape and a.is_contiguous() and b.is_contiguous()
    batch, length = a.shape
    dist = torch.empty(batch, dtype=torch.int32, device=a.device)
    block_j = max(16, triton.next_power_of_2(length + 1))
    buf = torch.empty((batch, 2, block_j), dtype=torch.int32, device=a.device)
    _lev_rows_kernel[(batch,)](a, a_len, b, b_len, buf, dist, length, BLOCK_J=block_j, num_warps=4)
    return dist
