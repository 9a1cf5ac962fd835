"""Batched Levenshtein distance: one program per pair, one DP row per step as a min-plus scan in registers.

D[i][j] = min(D[i-1][j] + 1, D[i][j-1] + 1, D[i-1][j-1] + (a[i-1] != b[j-1])), answer D[la][lb].

* Rows as scans (L1.1). Within a row, the left neighbour is the only sequential dependency, and it
  unrolls into a prefix minimum: with E[j] = min(D[i-1][j] + 1, D[i-1][j-1] + cost),
  D[i][j] = min(D[i][0] + j, min over j' <= j of E[j'] + j - j') = j + cummin(E - j), column 0 folded
  in. A row is one data-parallel step (elementwise mins and one log-depth tl.associative_scan), so a
  pair takes la dependent steps, against la + lb for an anti-diagonal wavefront, whose diagonals also
  leave lanes idle at both ends. On an H200 the wavefront (this task's first expert) was 1.8-3.9x
  slower (benchmarks/edit_distance_designs.py).
* Only the pair's own rows and columns (L1.2): the loop runs to la, lanes past lb are masked out of b;
  row 0 and column 0 (D[0][j] = j, D[i][0] = i) are computed, not stored. Lane k holds column j = k + 1
  and column 0 is a scalar, so a pair of length L takes next_pow2(L) lanes, not next_pow2(L + 1).
* One program per pair, the row in registers (L2.1): b[j - 1] is loaded once per lane, a[i - 1] is one
  scalar per row, and the one-lane shift that gives D[i-1][j-1] is a register gather (tl.gather), not a
  store to a scratch row, a barrier and a reload on every row's critical path.
* Warps sized to the lanes (L3.1): 256 lanes per warp (8 per thread: 1 warp at L = 256, 4 at 1024), so
  short pairs run as many small programs per SM that hide each other's scan latency. int32 state (an
  int16 state measured slower: the conversions cost more than the registers saved).

Traffic per pair: (la + lb) * 4 bytes of tokens, 16 bytes of lengths, 4 bytes out; the work is
la * lb cells over la dependent row steps.

SOL on the H200 (docs/runs/2026-12-04-h200-b, 2026-12-04 04:01-04:24 UTC):
Fractions, bounds, expert latencies and SOL times are from that run's suite.json. The profiles are in
docs/runs/2026-12-04-h200/profiles/ (the same expert code), summed up in that run's README.md, "Profiles".
- asr-cer-4k-utterances: 11.4% of SOL, bound by the dependency floor; expert 162.8 us, SOL 18.6 us.
  Profile (edit_distance__asr-cer-4k-utterances.txt): `_lev_rows_kernel` 159.4 us; compute-bound by ncu (SM 61%,
  memory 48%); DRAM 40.30 GB/s, 1%; grid 4096 x 32 threads, 59 registers, occupancy 31% of 50% possible.
- mt-bpe-512: 12.1% of SOL, bound by the dependency floor; expert 306.5 us, SOL 37.1 us.
  Profile (edit_distance__mt-bpe-512.txt): `_lev_rows_kernel` 304.6 us; memory 67% of peak, on chip (DRAM 10.40
  GB/s; ncu points at L1); SM 34%; 48 registers, occupancy 21% of 62% possible.
- code-edit-1k: 16.4% of SOL, bound by the dependency floor; expert 452.3 us, SOL 74.3 us.
  Profile (edit_distance__code-edit-1k.txt): `_lev_rows_kernel` 439.9 us; latency-bound (memory 46%, SM 25%); ncu
  "only 0.2 full waves"; grid 256 x 128 threads, 54 registers, occupancy 11% of 56% possible.
Why, all three: the SOL is the chain of dependent row steps at the measured step (0.081 us in this run), and the
expert does take one row per step. But its row step costs far more: a tl.gather, elementwise minima and an
associative_scan over the row's lanes. The earlier profile of code-edit-1k put a row at about 0.48 us, about 6x the
measured step, with DRAM idle and the on-chip traffic most likely the scan's exchange between warps (docs/suite.md,
"Workloads under 40% of SOL, and why (profiled)"). The chain is the problem's; the cost of a step is the expert's.
A cheaper row step (bit-parallel rows as in Myers' algorithm, or a row held by fewer warps) is untried.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _min(x, y):
    return tl.minimum(x, y)


@triton.jit
def _lev_rows_kernel(a_ptr, a_len_ptr, b_ptr, b_len_ptr, out_ptr, L, BLOCK: tl.constexpr):
    # Lane k holds D[i][k + 1] of the current row i; D[i][0] = i is a scalar.
    p = tl.program_id(0).to(tl.int64)
    la = tl.load(a_len_ptr + p).to(tl.int32)
    lb = tl.load(b_len_ptr + p).to(tl.int32)
    k = tl.arange(0, BLOCK)
    b_tok = tl.load(b_ptr + p * L + k, mask=k < lb, other=-2)  # b[j - 1] for j = k + 1
    src = tl.maximum(k - 1, 0)
    row = k + 1  # D[0][j] = j
    for i in range(1, la + 1):
        a_tok = tl.load(a_ptr + p * L + i - 1)
        diag = tl.where(k == 0, i - 1, tl.gather(row, src, axis=0))  # D[i-1][j-1]: a one-lane shift
        e = tl.minimum(row + 1, diag + (b_tok != a_tok).to(tl.int32))
        row = tl.minimum(tl.associative_scan(e - k, 0, _min) + k, i + k + 1)  # the left term, column 0 too
    dist = tl.sum(tl.where(k == lb - 1, row, 0), axis=0)
    tl.store(out_ptr + p, tl.where(lb == 0, la, dist))


def solution(a: torch.Tensor, a_len: torch.Tensor, b: torch.Tensor, b_len: torch.Tensor) -> torch.Tensor:
    assert a.shape == b.shape and a.is_contiguous() and b.is_contiguous()
    batch, length = a.shape
    dist = torch.empty(batch, dtype=torch.int32, device=a.device)
    block = max(16, triton.next_power_of_2(length))
    num_warps = min(8, max(1, block // 256))  # 8 lanes per thread
    _lev_rows_kernel[(batch,)](a, a_len, b, b_len, dist, length, BLOCK=block, num_warps=num_warps)
    return dist
