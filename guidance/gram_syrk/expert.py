"""Gram matrix C = A^T A of a tall-skinny A [M, N] (a SYRK), fp16/bf16 in, fp32 out, both triangles written.

Design (one item of the guidance per idea):

* Symmetry (L1.1, L1.2). C is symmetric, so only the tiles (i, j) with j >= i of the BLOCK x BLOCK tile grid are
  computed: NT * (NT + 1) / 2 tiles instead of NT^2, about half the tensor-core work. Each tile is stored twice, at
  (i, j) and transposed at (j, i). On a diagonal tile only the upper half (col >= row) is kept, written in place and
  mirrored, so every element of C is written exactly once and C is exactly symmetric.
* Split-K over the long M (L2.1, L2.2). With N = 256 there are only 3 tiles of 128 x 128: one program per tile
  would use 3 of 132 SMs. The rows of A are cut into `n_splits` contiguous ranges; program (split, tile) writes its
  fp32 partial tile to a workspace, and a second, small kernel adds the partials of each tile in a fixed order
  (deterministic, unlike fp32 atomics into a zeroed C) and stores the result and its mirror. `n_splits` comes from
  a cost model: waves of programs on the SMs times the k-steps per program, plus the workspace traffic; when one
  split is best the first kernel stores straight into C and the second kernel is not launched.
* Program -> tile (L2.3). The linear program id is split-major (all tiles of one split are adjacent in launch
  order, so the programs running together stream the same rows of A and each slab of A comes from HBM about once,
  the other tiles reading it from L2), and the tile rank inside the upper triangle maps to (i, j) in closed form.
* Tiles (L3.1, L3.2). 128 x 128 output tiles (64 when N <= 192), BLOCK_K = 64, 4 warps, 4 stages, `tl.dot` on
  the fp16/bf16 tiles with an fp32 accumulator. The left operand is a [BLOCK_K, BLOCK] slab of A, loaded row-major
  and handed to `tl.dot` through `tl.trans`, so A^T is never materialised and both loads are contiguous along N.
  On an H200 this config (226 registers, 128 KB of shared memory, one program per SM) beat 8 warps x 3 stages by
  10-20% at N = 256, 512 and 2048 (N = 1024 was not compared). Loading a diagonal tile's slab once and
  feeding it to both operands (behind a runtime `if i == j`) was measured 40-60% slower: the branch costs more
  than the saved L2 traffic.
* Reduce (L3.3). Pass 2 works on 32 x 32 pieces and loads 8 partials at once, so its loads overlap.

Memory traffic per call (the problem's minimum is M*N*itemsize read + N*N*4 written):
  pass 1: A read once from HBM (n_tiles programs per split share each slab through L2; from L2 each tile reads two
          column blocks: n_tiles * 2 * BLOCK * M * itemsize bytes), partials written: n_splits * n_tiles * BLOCK^2 * 4.
  pass 2: partials read once, C written once (N*N*4).

Speed on an H200 (132 SMs; the harness's ceilings ~4.2 TB/s and ~773 TFLOP/s; measured with this file's config
and split choice unless marked):
  N=256,  M=524288, fp16: 3 tiles x 44 splits = 132 programs, one wave; 51.5 GFLOP computed (three 128-tiles
          cover 1.5x the triangle) and 8.6 MB of partials: ~110 us; SOL 63 us (memory) -> ~57% of SOL.
  N=512,  M=262144, bf16: 10 tiles x 13 splits = 130 programs; 85.9 GFLOP computed (diagonal tiles are 4 of 10):
          ~140 us; SOL 87 us (compute) -> ~62%.
  N=1024, M=65536, fp16: 36 tiles x 11 splits = 396 programs, three full waves; 77.3 GFLOP: ~175-185 us with
          8 warps x 3 stages (~48%); this config not measured separately.
  N=2048, M=65536, bf16: 136 tiles x 13 splits = 1768 programs; 292 GFLOP computed: ~536 us; SOL 348 us -> ~65%.
For comparison, cuBLAS on the full square product `A.T @ A` (fp16/bf16 out) took 110, 189, 194 and 723 us.
The gap to SOL is the tensor-core rate a pointer-load Triton loop reaches (~550 TFLOP/s here), the half-wasted
diagonal tiles (up to 1.5x the triangle at N = 256) and the wave tail; TMA descriptors, a persistent stream-K
schedule or packing diagonal tiles would be the next steps.
"""

import functools

import torch
import triton
import triton.language as tl

_BLOCK_K = 64
_NUM_WARPS = 4
_NUM_STAGES = 4
_REDUCE_SUB = 32  # pass 2 works on SUB x SUB pieces of a tile: rows of 128 B, coalesced both ways
_SPLIT_CHUNK = 8  # partials pass 2 loads at once, so eight loads are in flight per program
_MAX_SPLITS = 128
_PROGRAMS_PER_SM = 1  # 4 warps x 226 registers and 128 KB of shared memory: one program per SM
# Cost model for the split count, in units of one BLOCK x BLOCK x BLOCK_K step of one program on one SM.
# Writing and re-reading one fp32 partial tile (8 * BLOCK^2 bytes) costs ~4 * rate / (bandwidth * BLOCK_K) ~ 8
# steps of SM time at 600 TFLOP/s and 4.3 TB/s, whatever BLOCK is; the extra launch costs ~10 steps.
_PARTIAL_STEPS = 8.0
_REDUCE_LAUNCH_STEPS = 10.0
_INTERPRETER_SMS = 16  # a small pretend machine on CPU: small grids, and the split path still runs


@triton.jit
def _upper_tile(t, NT):
    """Rank t of the upper-triangular tile grid, row-major, -> tile (i, j) with j >= i.

    Row i holds NT - i tiles and starts at rank i*NT - i*(i-1)/2; inverting that quadratic gives i, and two integer
    corrections absorb any rounding of the fp32 square root.
    """
    b = 2 * NT + 1
    i = ((b - tl.sqrt((b * b - 8 * t).to(tl.float32))) * 0.5).to(tl.int32)
    start = i * NT - (i * (i - 1)) // 2
    i = tl.where(t < start, i - 1, i)
    start = i * NT - (i * (i - 1)) // 2
    i = tl.where(t >= start + NT - i, i + 1, i)
    start = i * NT - (i * (i - 1)) // 2
    return i, i + (t - start)


@triton.jit
def gram_tile_kernel(
    a_ptr,
    c_ptr,
    part_ptr,
    M,
    N,
    stride_am,
    stride_an,
    stride_cm,
    stride_cn,
    NT,
    n_tiles,
    iters_per_split,
    BLOCK: tl.constexpr,
    BLOCK_K: tl.constexpr,
    DIRECT: tl.constexpr,
):
    """One (split, upper tile) pair: acc = A[k-range, cols_i]^T @ A[k-range, cols_j] in fp32.

    DIRECT (one split): store the tile and its mirror into C. Otherwise store the partial tile to slot pid of the
    workspace for gram_reduce_kernel.
    """
    pid = tl.program_id(0)
    # Split-major: the n_tiles programs of one split are neighbours in launch order and run together, so they
    # stream the same rows of A, which then come from HBM once and from L2 for the other tiles.
    split = pid // n_tiles
    t = pid % n_tiles
    tile_i, tile_j = _upper_tile(t, NT)

    offs_i = tile_i * BLOCK + tl.arange(0, BLOCK)
    offs_j = tile_j * BLOCK + tl.arange(0, BLOCK)
    offs_k = tl.arange(0, BLOCK_K)
    k_start = split * iters_per_split * BLOCK_K

    # Both operands are [BLOCK_K, BLOCK] slabs of A, contiguous along N. The left one enters the dot through
    # tl.trans, which the MMA takes as a transposed shared-memory operand: no A^T copy anywhere.
    a_base = a_ptr + k_start.to(tl.int64) * stride_am
    xi_ptrs = a_base + offs_k[:, None] * stride_am + offs_i[None, :] * stride_an
    xj_ptrs = a_base + offs_k[:, None] * stride_am + offs_j[None, :] * stride_an
    mask_i = offs_i[None, :] < N
    mask_j = offs_j[None, :] < N

    # Every split runs iters_per_split steps (one trip count for all programs); only the last split can run past
    # M, and the mask turns its extra steps into zero loads.
    acc = tl.zeros((BLOCK, BLOCK), dtype=tl.float32)
    for it in range(0, iters_per_split):
        mask_k = offs_k[:, None] < M - k_start - it * BLOCK_K
        xi = tl.load(xi_ptrs, mask=mask_k & mask_i, other=0.0)
        xj = tl.load(xj_ptrs, mask=mask_k & mask_j, other=0.0)
        acc = tl.dot(tl.trans(xi), xj, acc)
        xi_ptrs += BLOCK_K * stride_am
        xj_ptrs += BLOCK_K * stride_am

    if DIRECT:
        rows = offs_i[:, None]
        cols = offs_j[None, :]
        inside = (rows < N) & (cols < N)
        # Off-diagonal tiles are all strictly upper (cols > rows), so both stores take everything; on a diagonal
        # tile the upper half goes in place and its strict part to the mirror: each element written once.
        tl.store(c_ptr + rows * stride_cm + cols * stride_cn, acc, mask=inside & (cols >= rows))
        tl.store(c_ptr + cols * stride_cm + rows * stride_cn, acc, mask=inside & (cols > rows))
    else:
        offs_t = tl.arange(0, BLOCK)
        part = part_ptr + pid.to(tl.int64) * BLOCK * BLOCK
        tl.store(part + offs_t[:, None] * BLOCK + offs_t[None, :], acc)


@triton.jit
def gram_reduce_kernel(
    part_ptr,
    c_ptr,
    N,
    stride_cm,
    stride_cn,
    NT,
    n_tiles,
    n_splits,
    BLOCK: tl.constexpr,
    SUB: tl.constexpr,
    SPLIT_CHUNK: tl.constexpr,
):
    """C[tile] = sum over splits of the partial tiles, in split order; stored in place and mirrored.

    One program per SUB x SUB piece of an upper tile; SPLIT_CHUNK partials are loaded at once so that the loads
    overlap, and summed in a fixed order (a tree inside the chunk, chunks in sequence): the result does not
    depend on scheduling.
    """
    pid = tl.program_id(0)
    SUBS: tl.constexpr = BLOCK // SUB
    t = pid // (SUBS * SUBS)
    piece = pid % (SUBS * SUBS)
    tile_i, tile_j = _upper_tile(t, NT)

    loc_r = (piece // SUBS) * SUB + tl.arange(0, SUB)
    loc_c = (piece % SUBS) * SUB + tl.arange(0, SUB)
    rows = (tile_i * BLOCK + loc_r)[:, None]
    cols = (tile_j * BLOCK + loc_c)[None, :]
    # Pieces below the diagonal of a diagonal tile keep nothing: their loads are masked off and cost no traffic.
    keep = (rows < N) & (cols < N) & (cols >= rows)

    tile_ptrs = part_ptr + t.to(tl.int64) * BLOCK * BLOCK + loc_r[:, None] * BLOCK + loc_c[None, :]
    offs_s = tl.arange(0, SPLIT_CHUNK)
    acc = tl.zeros((SUB, SUB), dtype=tl.float32)
    for s0 in range(0, n_splits, SPLIT_CHUNK):
        split = s0 + offs_s
        slot = (split.to(tl.int64) * n_tiles * BLOCK * BLOCK)[:, None, None]
        vals = tl.load(
            tile_ptrs[None, :, :] + slot, mask=(split < n_splits)[:, None, None] & keep[None, :, :], other=0.0
        )
        acc += tl.sum(vals, axis=0)

    tl.store(c_ptr + rows * stride_cm + cols * stride_cn, acc, mask=keep)
    tl.store(c_ptr + cols * stride_cm + rows * stride_cn, acc, mask=keep & (cols > rows))


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


@functools.lru_cache(maxsize=256)
def _choose_splits(n_tiles: int, k_iters: int, num_sms: int) -> tuple[int, int]:
    """(n_splits, k-steps per split) minimising waves x steps per program plus the partials' cost."""
    slots = num_sms * _PROGRAMS_PER_SM
    best = (float("inf"), 1, k_iters)
    for s in range(1, min(k_iters, _MAX_SPLITS) + 1):
        steps = _cdiv(k_iters, s)
        splits = _cdiv(k_iters, steps)  # no empty trailing split
        programs = n_tiles * splits
        cost = _cdiv(programs, slots) * steps * _PROGRAMS_PER_SM
        if splits > 1:
            cost += _PARTIAL_STEPS * programs / num_sms + _REDUCE_LAUNCH_STEPS
        if cost < best[0]:
            best = (cost, splits, steps)
    return best[1], best[2]


@functools.lru_cache(maxsize=16)
def _num_sms(device: torch.device) -> int:
    if device.type != "cuda":
        return _INTERPRETER_SMS
    return torch.cuda.get_device_properties(device).multi_processor_count


def solution(A: torch.Tensor) -> torch.Tensor:
    """C = A^T A as a new contiguous float32 [N, N] tensor, both triangles written."""
    assert A.dim() == 2 and A.dtype in (torch.float16, torch.bfloat16)
    M, N = A.shape
    C = torch.empty((N, N), dtype=torch.float32, device=A.device)

    BLOCK = 128 if N > 192 else 64
    NT = _cdiv(N, BLOCK)
    n_tiles = NT * (NT + 1) // 2
    k_iters = _cdiv(M, _BLOCK_K)
    n_splits, steps = _choose_splits(n_tiles, k_iters, _num_sms(A.device))

    direct = n_splits == 1
    # n_splits * n_tiles fp32 tiles: 8.6 MB for N=256 (44 splits), 117 MB for N=2048 (13 splits).
    part = C if direct else torch.empty((n_splits * n_tiles, BLOCK, BLOCK), dtype=torch.float32, device=A.device)
    gram_tile_kernel[(n_splits * n_tiles,)](
        A,
        C,
        part,
        M,
        N,
        A.stride(0),
        A.stride(1),
        C.stride(0),
        C.stride(1),
        NT,
        n_tiles,
        steps,
        BLOCK=BLOCK,
        BLOCK_K=_BLOCK_K,
        DIRECT=direct,
        num_warps=_NUM_WARPS,
        num_stages=_NUM_STAGES,
    )
    if not direct:
        pieces = (BLOCK // _REDUCE_SUB) ** 2
        gram_reduce_kernel[(n_tiles * pieces,)](
            part,
            C,
            N,
            C.stride(0),
            C.stride(1),
            NT,
            n_tiles,
            n_splits,
            BLOCK=BLOCK,
            SUB=_REDUCE_SUB,
            SPLIT_CHUNK=_SPLIT_CHUNK,
            num_warps=4,
        )
    return C
