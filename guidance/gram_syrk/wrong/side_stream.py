"""Wrong: a correct symmetric-tile kernel, launched on a torch.cuda.Stream created inside solution().

Work on a side stream escapes the timer that runs on the current stream, and the returned C may not be ready when
the caller reads it. Forbidden by the static rules whatever the numbers are.
"""
# expect: static:side-stream

import torch
import triton
import triton.language as tl


@triton.jit
def gram_kernel(
    a_ptr,
    c_ptr,
    M,
    N,
    stride_am,
    stride_an,
    stride_cm,
    stride_cn,
    NT,
    k_iters,
    BLOCK: tl.constexpr,
    BLOCK_K: tl.constexpr,
):
    t = tl.program_id(0)
    b = 2 * NT + 1
    tile_i = ((b - tl.sqrt((b * b - 8 * t).to(tl.float32))) * 0.5).to(tl.int32)
    start = tile_i * NT - (tile_i * (tile_i - 1)) // 2
    tile_i = tl.where(t < start, tile_i - 1, tile_i)
    start = tile_i * NT - (tile_i * (tile_i - 1)) // 2
    tile_i = tl.where(t >= start + NT - tile_i, tile_i + 1, tile_i)
    start = tile_i * NT - (tile_i * (tile_i - 1)) // 2
    tile_j = tile_i + (t - start)

    offs_i = tile_i * BLOCK + tl.arange(0, BLOCK)
    offs_j = tile_j * BLOCK + tl.arange(0, BLOCK)
    offs_k = tl.arange(0, BLOCK_K)
    xi_ptrs = a_ptr + offs_k[:, None] * stride_am + offs_i[None, :] * stride_an
    xj_ptrs = a_ptr + offs_k[:, None] * stride_am + offs_j[None, :] * stride_an
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for it in range(0, k_iters):
        mask_k = offs_k[:, None] < M - it * BLOCK_K
        xi = tl.load(xi_ptrs, mask=mask_k & (offs_i[None, :] < N), other=0.0)
        xj = tl.load(xj_ptrs, mask=mask_k & (offs_j[None, :] < N), other=0.0)
        acc = tl.dot(tl.trans(xi), xj, acc)
        xi_ptrs += BLOCK_K * stride_am
        xj_ptrs += BLOCK_K * stride_am

    rows = offs_i[:, None]
    cols = offs_j[None, :]
    inside = (rows < N) & (cols < N)
    tl.store(c_ptr + rows * stride_cm + cols * stride_cn, acc, mask=inside & (cols >= rows))
    tl.store(c_ptr + cols * stride_cm + rows * stride_cn, acc, mask=inside & (cols > rows))


def solution(A: torch.Tensor) -> torch.Tensor:
    M, N = A.shape
    C = torch.empty((N, N), dtype=torch.float32, device=A.device)
    BLOCK, BLOCK_K = (128 if N > 192 else 64), 64
    NT = triton.cdiv(N, BLOCK)
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        gram_kernel[(NT * (NT + 1) // 2,)](
            A,
            C,
            M,
            N,
            A.stride(0),
            A.stride(1),
            C.stride(0),
            C.stride(1),
            NT,
            triton.cdiv(M, BLOCK_K),
            BLOCK=BLOCK,
            BLOCK_K=BLOCK_K,
            num_warps=8,
            num_stages=3,
        )
    return C
