"""embedding_bag designs side by side: the expert's gather-reduce kernel on other tiles (indices per chunk, dims per
program) and warp counts, and with its row loads under other cache policies, against its own L1 rung. Prints one
line per measurement as it goes, then a table of latencies (triton.testing.do_bench, L2 flushed, output allocation
included) and the elapsed time.

    python benchmarks/embedding_bag_designs.py [--workloads W ...] [--designs SUBSTRING ...] [--peer FILE]
    TRITON_INTERPRET=1 python benchmarks/embedding_bag_designs.py --check-interpret [--peer FILE]
    python benchmarks/embedding_bag_designs.py --compile-check     (CPU: every candidate compiles for sm_90)

Why it exists: in the H200 run of experts, rungs and peers timed together (2026-12-03 13:06 UTC, commit 41bff07,
`benchmarks/suite_gpu.py --together --peers MANIFEST --peer-root ROOT --jobs 4 --budget 0.3`, one eval per task;
docs/runs/2026-12-03-h200-together/part1.log), on dlrm-criteo-fp32-sum / torchrec-fp16-dim64-sum /
fp16-dim256-mean (us):

    expert (program per bag, [IDX_BLOCK, BLOCK_D] 2-D gathers, 4 warps)  432.8 / 391.8 / 374.1
    L1 rung (program per bag, one row a step, 4 warps)                   431.9 / 314.4 / 222.8
    L1+L2 rung (the expert's gathers, a cross-warp tl.sum per chunk)     675.8 / 620.1 / 1106.2

The fp32-dim128 and fp16-dim256 workloads gather rows of the same 512 bytes in bags of the same mean length (50):
the rung moves them at the same rate (4.0 and 3.9 TB/s of SOL bytes), the expert does on fp32 (4.0) but not on
fp16-dim256 (2.3). On torchrec-fp16-dim64-sum (128-byte rows, bags of 20) the rung reaches 1.2 TB/s, the expert
1.0. Nsight Compute there (docs/runs/2026-12-03-h200-profiles/) puts the expert at 17% of DRAM bandwidth with its
busiest memory unit, L1, at 94%, 40 registers and 12 programs resident per SM. What differs (registers from Triton
3.6's ptxas -v for sm_90, compiled here; programs per SM from them; neither measured on the GPU):

- rows requested at once: the expert asks for a whole chunk per program (32 rows at dim 64 and 128, 16 at 256) and
  its 2-D fp32 accumulator costs 40 / 96 / 64 registers (dim 64 / 128 / 256): 12 / 5 / 8 programs per SM, so 384 /
  160 / 128 rows outstanding per SM. The rung's kernel (28 registers: 16 programs, the 2048-thread limit) has one
  row in flight per program (its loop is not software-pipelined: one row load an iteration, no async copies): 16
  rows per SM. The rung is faster on fp16 with 1/8-1/24 of the expert's requests outstanding, so the expert is not
  short of loads in flight; its requests queue at L1 (ncu's 94%) while DRAM idles.
- the per-bag epilogue: the expert reduces [IDX_BLOCK, BLOCK_D] across its 4 warps at the end of each bag (shared
  memory and a barrier); the rung's 1-D accumulator needs none. With 131072 bags of mean length 20 (torchrec) it is
  paid every ~20 rows. The L1+L2 rung pays it every chunk, which is why it is the slowest.
- L1 allocation: both read every row through L1 with the default policy (allocating a line per row read once).

The candidates (names: warps, indices per chunk against the expert's, the row load's policy; registers and
programs per SM at dim 64 / 128 / 256):

- "w4, 8 indices": the expert's warps, 8 rows a chunk (32 / 32 / 40 registers; 16 / 16 / 12 programs): 128 / 128 /
  96 rows outstanding per SM, a third of the expert's at dim 64.
- "w2, half tile" (40 / 66 / 64 registers; 25 / 14 / 16 programs) and "w1, quarter tile" (54 / 64 / 62; 32 / 32 /
  32): the bag's final reduction within fewer warps, more programs, about the expert's rows outstanding (400 / 224 /
  128 and 256 / 256 / 128). "w2, same tile" (56 / 168 / 128 registers) doubles each thread's accumulator.
- "w4, 2 programs/bag at dim 256": BLOCK_D 128 at dim 256 (two programs per bag, each 32 rows of 256 bytes a chunk,
  56 registers); the other workloads as the expert.
- "rows .cg" / "rows evict_first": the expert's kernel and tiles with its row loads not allocated in L1
  (cache_modifier=".cg": ld.global.cg, cached in L2 only) or marked first to evict: the suite.md verdict's untried
  fix for the L1 path.

Prediction (not yet measured): the fp16 gap is request queueing at L1, not DRAM or latency. So "rows .cg" and
"w4, 8 indices" should be the two largest steps on torchrec-fp16-dim64-sum (toward the rung's 314.4 us) and on
fp16-dim256-mean, with dlrm-criteo-fp32-sum within ~2% of the expert (already at the bandwidth); "w2, half tile"
and "w1, quarter tile", which keep as many rows outstanding, should gain little (< 5%), and "w2, same tile" should
be slower at dim 128 and 256 (fewer programs). The weakest link in this reasoning is dim 256, where the expert has
fewer rows outstanding (128 per SM) than on fp32 (160) yet is 1.7x slower per byte; if no candidate moves it, the
difference is in the fp16 tile itself (the [16, 256] layout, the casts) and the rung's one-row loop is the better
expert design there.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import triton
import triton.language as tl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from design_sweep import TaskFiles, load, sweep_main, with_config  # noqa: E402

TASK = "embedding_bag"
Config = tuple[int, int, int]  # (BLOCK_D, IDX_BLOCK, num_warps), as the expert's _config returns


def next_power_of_2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def rule(warps: int, tile_scale: float = 1.0, block_d_cap: int = 256,
         idx_block: int | None = None) -> Callable[[int], Config]:  # fmt: skip
    """A `_config` rule: `warps` warps, the expert's indices per chunk times `tile_scale` (or `idx_block`), BLOCK_D
    capped at `block_d_cap`."""

    def config(dim: int, itemsize: int = 4) -> Config:  # the expert's rule before 2026-12-03 18:30
        block_d = min(next_power_of_2(dim), block_d_cap)
        expert_idx = max(16, min(32, 4096 // min(next_power_of_2(dim), 256)))
        chosen = idx_block if idx_block else max(1, int(expert_idx * tile_scale))
        return block_d, chosen, warps

    return config


# The expert as shipped (w4, 32 / 32 / 16 indices per chunk) is timed as it is; these swap its _config for a call.
CONFIGS: dict[str, Callable[[int], Config]] = {
    "w2, same tile": rule(2),
    "w2, half tile": rule(2, 0.5),
    "w1, quarter tile": rule(1, 0.25),
    "w4, 8 indices": rule(4, idx_block=8),
    "w4, 2 programs/bag at dim 256": rule(4, block_d_cap=128, idx_block=32),
}


@triton.jit
def _bag_policy_kernel(
    w_ptr, idx_ptr, off_ptr, out_ptr, dim, stride_w, stride_o,
    IS_MEAN: tl.constexpr, BLOCK_D: tl.constexpr, IDX_BLOCK: tl.constexpr,
    ROW_CACHE: tl.constexpr, ROW_EVICT: tl.constexpr,
):  # fmt: skip
    """The expert's kernel with the row gather's cache modifier and eviction policy as parameters."""
    bag = tl.program_id(0)
    pid_d = tl.program_id(1)
    start = tl.load(off_ptr + bag)
    end = tl.load(off_ptr + bag + 1)
    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    mask_d = offs_d < dim
    lanes = tl.arange(0, IDX_BLOCK)
    acc = tl.zeros([IDX_BLOCK, BLOCK_D], dtype=tl.float32)
    j = start + lanes
    idx = tl.load(idx_ptr + j, mask=j < end, other=0, eviction_policy="evict_first")
    for chunk in range(start, end, IDX_BLOCK):
        j_next = chunk + IDX_BLOCK + lanes
        idx_next = tl.load(idx_ptr + j_next, mask=j_next < end, other=0, eviction_policy="evict_first")
        valid = (chunk + lanes) < end
        rows = tl.load(w_ptr + idx[:, None] * stride_w + offs_d[None, :], mask=valid[:, None] & mask_d[None, :],
                       other=0.0, cache_modifier=ROW_CACHE, eviction_policy=ROW_EVICT)  # fmt: skip
        acc += rows.to(tl.float32)
        idx = idx_next
    total = tl.sum(acc, axis=0)
    if IS_MEAN:
        total = total / tl.maximum(end - start, 1).to(tl.float32)
    tl.store(out_ptr + bag.to(tl.int64) * stride_o + offs_d, total.to(out_ptr.dtype.element_ty), mask=mask_d)


def policy_candidate(expert: Any, cache: str, evict: str) -> Callable[..., Any]:
    """The expert's launch (its own _config) of the kernel above with the row loads' policy set."""

    def solution(weight: Any, indices: Any, offsets: Any, mode: str) -> Any:
        import torch

        num_bags, dim = offsets.numel() - 1, weight.shape[1]
        out = torch.empty((num_bags, dim), dtype=weight.dtype, device=weight.device)
        if num_bags == 0:
            return out
        block_d, idx_block, num_warps = expert._config(dim, weight.element_size())
        _bag_policy_kernel[(num_bags, triton.cdiv(dim, block_d))](
            weight, indices, offsets, out, dim, weight.stride(0), out.stride(0),
            IS_MEAN=mode == "mean", BLOCK_D=block_d, IDX_BLOCK=idx_block, ROW_CACHE=cache, ROW_EVICT=evict,
            num_warps=num_warps,
        )  # fmt: skip
        return out

    return solution


POLICIES = {"rows .cg": (".cg", ""), "rows evict_first": ("", "evict_first")}

# Beyond the task's interpret workload (dim 96, fp16, mean, empty bags): each GPU workload's dim and dtype on a small
# table, so that --check-interpret runs each candidate with the tile it takes on the H200.
GPU_LIKE_SHAPES = [
    (f"gpu-like-{dtype}-dim{dim}-{mode}",
     {"num_rows": 300, "dim": dim, "num_bags": 24, "nnz": 700, "dtype": dtype, "mode": mode, "min_bag": 0}, 90 + i)
    for i, (dtype, dim, mode) in enumerate((("float32", 128, "sum"), ("float16", 64, "sum"), ("float16", 256, "mean")))
]  # fmt: skip


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_config(files.expert, config) for name, config in CONFIGS.items()}
    designs |= {name: policy_candidate(files.expert, *policy) for name, policy in POLICIES.items()}
    designs["l1 rung"] = files.ladder_modules()["l1"].solution
    return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}


_FILES: list[TaskFiles] = []


def solution(weight: Any, indices: Any, offsets: Any, mode: str) -> Any:
    """For --compile-check (benchmarks/sweep_compile.py records its launches): every candidate as it would run on
    each GPU workload, on a small table of that workload's dim, dtype and mode; returns the expert's output on
    these inputs."""
    if not _FILES:
        _FILES.append(load(TASK))
    files = _FILES[0]
    for _, params, seed in GPU_LIKE_SHAPES:
        args = files.inputs.make_inputs(params, seed, weight.device)
        for design in candidates(files, None).values():
            design(*args)
    return files.expert.solution(weight, indices, offsets, mode)


def main() -> int:
    return sweep_main(TASK, Path(__file__), __doc__, candidates, GPU_LIKE_SHAPES)


if __name__ == "__main__":
    sys.exit(main())
