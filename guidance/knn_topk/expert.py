"""Exact k-nearest-neighbour search: a distance GEMM with the top-k selection fused into its tile loop.

dist[m, n] = |q_m|^2 + |k_n|^2 - 2 q_m . k_n; per query the k smallest (dist, n), ascending.

* The cross term is a GEMM: tl.dot on tensor cores with an fp32 accumulator. The entries are integers
  with |x| <= 255 and every partial sum stays below 2^24, so fp16 or TF32 operands (both exact for
  integers up to 2048) and fp32 accumulation give the exact distance in any order. fp32 inputs stay
  fp32 and run as TF32: casting them to fp16 on load would double the MMA rate, but on an H200 the
  cast and the register round trip cost more than that saves (1.3x slower on sift1m-b1024).
* Tiles: 64 queries x 64 keys on 4 warps, D in chunks of 64 (fp16) or 32 (fp32), 3 stages. Wider key
  tiles (128) on 8 warps, tried first, were 1.06-1.3x slower, everything else the same: every extra key
  in a tile widens each top-k insertion pass (benchmarks/knn_topk_configs.py).
* The M x N distance matrix is never written. Each program owns BLOCK_M queries and one slice of the
  keys; it keeps a running top-k list per query in registers, packed as an int64 key
  (fp32 distance bits << 32 | key index), so one integer compare orders by (distance, index) and the
  tie rule comes for free. A tile costs one fp32 compare per distance against the query's current
  k-th distance tau; only survivors are inserted, one per query per pass, and the number of passes
  is the largest survivor count of any query in the tile (on average k * ln(N / k) insertions per
  query over a whole slice, so most late tiles need zero or one pass).
* Keys within a program are visited in increasing index order, so a candidate whose distance equals
  tau never beats the list (its index is larger): the strict compare is exact.
* Traffic: |q|^2 and |k|^2 come from a small pre-pass ((M + N) * D * itemsize read, (M + N) * 4
  written); the main kernel reads its BLOCK_M query rows once (kept on chip when D fits one chunk)
  and streams its key slice; the grid runs query blocks fastest, so the programs that share a key
  slice run together and the slice crosses HBM about once. Few queries (M / BLOCK_M programs would
  leave SMs idle) split the keys into slices; each writes a partial list (M * n_split * K_PAD * 8
  bytes) and a second kernel merges them by k passes of a row minimum.

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-03-h200-late/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
- sift1m-b1024: 7.6% of SOL, bound by bf16 tensor cores; expert 4386.7 us, SOL 333.4 us.
  Profile (knn_topk__sift1m-b1024.txt): `_knn_slice_kernel` 4.221 ms, 96% of the kernels' time; latency-bound
  (memory 34%, SM 39%); ncu "only 0.7 full waves"; grid (16, 17) x 128 threads, 164 registers, occupancy 13% of
  19% possible.
- sift-fp16-graph-4k: 9.9% of SOL, bound by bf16 tensor cores; expert 3531.1 us, SOL 349.6 us.
  Profile (knn_topk__sift-fp16-graph-4k.txt): `_knn_slice_kernel` 3.462 ms, 97%; latency-bound (memory 27%, SM
  54%); ncu "only 0.8 full waves"; grid (64, 5) x 128 threads, 164 registers, occupancy 14% of 19% possible.
- minilm-sq-1m-b512: 15.9% of SOL, bound by bf16 tensor cores; expert 3300.4 us, SOL 524.4 us.
  Profile (knn_topk__minilm-sq-1m-b512.txt): `_knn_slice_kernel` 3.011 ms, 92%; latency-bound (memory 35%, SM
  54%); ncu "only 0.7 full waves"; grid (8, 33) x 128 threads, 168 registers, occupancy 12% of 19% possible;
  `_sqnorm_kernel` 109.4 us a launch (two a call, 7%).
Why, all three: the SOL is the distance GEMM at the 16-bit tensor-core rate (fp32 inputs too: their values are
integers). Each program alternates a 64 x 64 MMA tile (TF32 for fp32 inputs) with the top-k selection on CUDA cores,
in one instruction stream. At 164-168 registers and under one wave, neither the MMA nor the selection of one program
overlaps another's, and no unit is busy (docs/suite.md, "Workloads under 40% of SOL, and why (profiled)"). The
profiles do not count tensor-core throughput. Four programs a SM instead of two was 10% faster on sift1m and 20%
slower on minilm (docs/runs/2026-12-04-h200/README.md), so the expert is unchanged. Warps that select while others
multiply are untried.
"""

import functools

import torch
import triton
import triton.language as tl

BLOCK_M = 64  # one Hopper warpgroup MMA tile in M
BLOCK_N = 64  # keys per tile: a wider tile doubles the candidates of every top-k insertion pass
PROGRAMS_PER_SM = 2
MERGE_KEYS = 4096  # int64 keys per merge program: 32 registers per thread at 4 warps
MIN_TILES_PER_SLICE = 4  # shorter slices spend more on warming up their list than on the GEMM


@triton.jit
def _sqnorm_kernel(x_ptr, out_ptr, rows, D, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    # |x_r|^2 in fp32 (exact: integer entries, sums below 2^24). rows * D * itemsize read once.
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask_r = offs_r < rows
    acc = tl.zeros([BLOCK_R], dtype=tl.float32)
    for d0 in range(0, D, BLOCK_D):
        offs_d = d0 + tl.arange(0, BLOCK_D)
        x = tl.load(
            x_ptr + offs_r.to(tl.int64)[:, None] * D + offs_d[None, :],
            mask=mask_r[:, None] & (offs_d[None, :] < D),
            other=0.0,
        ).to(tl.float32)
        acc += tl.sum(x * x, axis=1)
    tl.store(out_ptr + offs_r, acc, mask=mask_r)


@triton.jit
def _empty_list(BLOCK_M: tl.constexpr, K_SEL: tl.constexpr, K_PAD: tl.constexpr):
    """[BLOCK_M, K_PAD] int64 keys: K_SEL distinct 'empty' keys (distance +inf) that any candidate beats,
    then K_PAD - K_SEL padding slots of -1 that are never the worst, so never replaced."""
    slot = tl.arange(0, K_PAD)
    empty = (tl.full([K_PAD], 0x7F800000, tl.int64) << 32) + slot.to(tl.int64)
    init = tl.where(slot < K_SEL, empty, -1)
    return tl.broadcast_to(init[None, :], [BLOCK_M, K_PAD])


@triton.jit
def _insert_survivors(dist, offs_n, lst, tau, K_SEL: tl.constexpr):
    """Insert every distance of the tile that beats its row's tau into the row's list; returns (lst, tau).

    dist: [BLOCK_M, BLOCK_N] fp32 (+inf for masked keys); offs_n: [BLOCK_N] key indices, all larger than
    any index already in lst; lst: [BLOCK_M, K_PAD] int64 keys; tau: [BLOCK_M] fp32 k-th distance.
    """
    surv = dist < tau[:, None]
    # Passes extract each row's survivors in increasing order, and only a tile's K_SEL smallest can
    # enter the list: at most K_SEL passes (the first tile of a slice), usually zero or one later on.
    n_pass = tl.minimum(tl.max(tl.sum(surv.to(tl.int32), axis=1), axis=0), K_SEL)
    cand = tl.where(surv, dist, float("inf"))
    for _ in range(n_pass):
        best_d = tl.min(cand, axis=1)
        best_n = tl.min(tl.where(cand == best_d[:, None], offs_n[None, :], 2147483647), axis=1)
        take = best_d < tau
        key = (best_d.to(tl.int32, bitcast=True).to(tl.int64) << 32) | best_n.to(tl.int64)
        worst = tl.max(lst, axis=1)
        lst = tl.where((lst == worst[:, None]) & take[:, None], key[:, None], lst)
        tau = (tl.max(lst, axis=1) >> 32).to(tl.int32).to(tl.float32, bitcast=True)
        cand = tl.where((offs_n[None, :] == best_n[:, None]) | (cand >= tau[:, None]), float("inf"), cand)
    return lst, tau


@triton.jit
def _knn_slice_kernel(
    q_ptr,
    k_ptr,
    qn_ptr,
    kn_ptr,
    part_ptr,
    M,
    N,
    D,
    slice_len,
    n_split,
    K_SEL: tl.constexpr,
    K_PAD: tl.constexpr,
    BLOCK_M: tl.constexpr,
    BLOCK_N: tl.constexpr,
    BLOCK_D: tl.constexpr,
    MMA_F16: tl.constexpr,
):
    # Program (query block, key slice). Reads BLOCK_M * D query entries once and its slice of keys
    # (slice_len * D, an L2 hit for all but the first of the query blocks sharing the slice); writes
    # BLOCK_M * K_PAD int64 keys.
    pid_m = tl.program_id(0)
    pid_s = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = offs_m < M
    offs_d = tl.arange(0, BLOCK_D)
    q_rows = q_ptr + offs_m.to(tl.int64)[:, None] * D
    qn = tl.load(qn_ptr + offs_m, mask=mask_m, other=0.0)

    lst = _empty_list(BLOCK_M, K_SEL, K_PAD)
    tau = tl.full([BLOCK_M], float("inf"), tl.float32)
    n_lo = pid_s * slice_len
    n_hi = tl.minimum(n_lo + slice_len, N)
    for n0 in range(n_lo, n_hi, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask_n = offs_n < n_hi
        k_cols = k_ptr + offs_n.to(tl.int64)[None, :] * D
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for d0 in range(0, D, BLOCK_D):
            dd = d0 + offs_d
            qc = tl.load(q_rows + dd[None, :], mask=mask_m[:, None] & (dd[None, :] < D), other=0.0)
            kt = tl.load(k_cols + dd[:, None], mask=mask_n[None, :] & (dd[:, None] < D), other=0.0)
            if MMA_F16:
                qc = qc.to(tl.float16)
                kt = kt.to(tl.float16)
            acc = tl.dot(qc, kt, acc)
        kn = tl.load(kn_ptr + offs_n, mask=mask_n, other=float("inf"))
        dist = tl.maximum(qn[:, None] + kn[None, :] - 2.0 * acc, 0.0)
        lst, tau = _insert_survivors(dist, offs_n, lst, tau, K_SEL)

    slot = tl.arange(0, K_PAD)
    dst = part_ptr + (offs_m.to(tl.int64)[:, None] * n_split + pid_s) * K_PAD + slot[None, :]
    tl.store(dst, lst, mask=mask_m[:, None])


@triton.jit
def _knn_merge_kernel(part_ptr, idx_ptr, dist_ptr, M, n_cand, K_SEL: tl.constexpr, K_PAD: tl.constexpr,
                      BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):  # fmt: skip
    # BLOCK_R queries per program: n_cand = n_split * K_PAD partial keys in (8 bytes each), k results out.
    offs_r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    mask_r = offs_r < M
    offs_c = tl.arange(0, BLOCK_C)
    keys = tl.load(
        part_ptr + offs_r.to(tl.int64)[:, None] * n_cand + offs_c[None, :],
        mask=mask_r[:, None] & (offs_c[None, :] < n_cand),
        other=-1,
    )
    keys = tl.where(keys < 0, 9223372036854775807, keys)  # padding slots and lanes never win
    # k passes of a row minimum: k * n_cand compares per query, a few microseconds in all, and no
    # shuffle network as a bitonic sort of n_cand keys would need.
    out = offs_r.to(tl.int64) * K_SEL
    for j in tl.static_range(K_SEL):
        best = tl.min(keys, axis=1)
        keys = tl.where(keys == best[:, None], 9223372036854775807, keys)
        tl.store(idx_ptr + out + j, best.to(tl.int32).to(tl.int64), mask=mask_r)  # low 32 bits: the index
        tl.store(dist_ptr + out + j, (best >> 32).to(tl.int32).to(tl.float32, bitcast=True), mask=mask_r)


@functools.cache
def _num_sms(device_index: int) -> int:
    return torch.cuda.get_device_properties(device_index).multi_processor_count


def _sqnorms(x: torch.Tensor) -> torch.Tensor:
    rows, D = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    _sqnorm_kernel[(triton.cdiv(rows, 128),)](x, out, rows, D, BLOCK_R=128, BLOCK_D=128, num_warps=8)
    return out


def _config(dtype: torch.dtype, D: int) -> tuple[int, int, int, int, bool]:
    """(BLOCK_N, BLOCK_D, num_warps, num_stages, fp16 MMA operands) of the main kernel, as measured on an H200
    (benchmarks/knn_topk_configs.py): 64-key tiles on 4 warps; fp16 inputs in 64-wide D chunks; fp32 inputs stay
    fp32 (TF32 MMA, exact for these integers) in 32-wide chunks: casting them to fp16 on load was 1.3x slower."""
    if dtype == torch.float32:
        return BLOCK_N, min(32, max(16, triton.next_power_of_2(D))), 4, 3, False
    return BLOCK_N, min(64, max(16, triton.next_power_of_2(D))), 4, 3, True


def solution(queries: torch.Tensor, keys: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    assert queries.ndim == 2 and keys.ndim == 2 and queries.shape[1] == keys.shape[1]
    assert queries.dtype == keys.dtype and queries.is_contiguous() and keys.is_contiguous()
    M, D = queries.shape
    N = keys.shape[0]
    assert 1 <= k <= 32 and N >= k and N < 2**31
    idx = torch.empty((M, k), dtype=torch.int64, device=queries.device)
    dist = torch.empty((M, k), dtype=torch.float32, device=queries.device)

    qn, kn = _sqnorms(queries), _sqnorms(keys)
    block_n, block_d, num_warps, num_stages, mma_f16 = _config(queries.dtype, D)
    k_pad = max(8, triton.next_power_of_2(k))

    # The H200 has 132 SMs; the interpreter (CPU tensors) plans for it too.
    num_sms = _num_sms(queries.device.index or 0) if queries.is_cuda else 132
    m_blocks = triton.cdiv(M, BLOCK_M)
    n_tiles = triton.cdiv(N, block_n)
    n_split = max(1, min(triton.cdiv(PROGRAMS_PER_SM * num_sms, m_blocks), n_tiles // MIN_TILES_PER_SLICE))
    slice_len = triton.cdiv(n_tiles, n_split) * block_n
    n_split = triton.cdiv(N, slice_len)

    part = torch.empty(M * n_split * k_pad, dtype=torch.int64, device=queries.device)
    _knn_slice_kernel[(m_blocks, n_split)](
        queries,
        keys,
        qn,
        kn,
        part,
        M,
        N,
        D,
        slice_len,
        n_split,
        K_SEL=k,
        K_PAD=k_pad,
        BLOCK_M=BLOCK_M,
        BLOCK_N=block_n,
        BLOCK_D=block_d,
        MMA_F16=mma_f16,
        num_warps=num_warps,
        num_stages=num_stages,
    )
    n_cand = n_split * k_pad
    block_c = triton.next_power_of_2(n_cand)
    block_r = max(1, min(MERGE_KEYS // block_c, triton.next_power_of_2(M)))
    _knn_merge_kernel[(triton.cdiv(M, block_r),)](
        part, idx, dist, M, n_cand, K_SEL=k, K_PAD=k_pad, BLOCK_R=block_r, BLOCK_C=block_c, num_warps=4
    )
    return idx, dist
