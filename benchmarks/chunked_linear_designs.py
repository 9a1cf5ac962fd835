"""chunked_linear_attention designs side by side: the expert's fused chunk kernel on other warp counts, pipeline
depths, value-block widths (programs per SM) and chunk lengths, against its own L1+L2 rung and, with --peer, a
peer's wrapper. Prints one line per measurement as it goes, then a table of latencies (triton.testing.do_bench,
L2 flushed, output allocation included) and the elapsed time.

    python benchmarks/chunked_linear_designs.py [--workloads W ...] [--designs SUBSTRING ...] [--peer FILE]
    TRITON_INTERPRET=1 python benchmarks/chunked_linear_designs.py --check-interpret [--peer FILE]
    python benchmarks/chunked_linear_designs.py --compile-check     (CPU: every candidate compiles for sm_90)

Why it exists: on the H200 (docs/suite.md) the expert (8 warps, the chunk loop pipelined over 2 stages) took 256.9 us
on gpt2-medium-linear-8k (B = 4, H = 16, T = 8192, D = 64) where its own L1+L2 rung (the same one-pass design: 4
warps, a plain loop, TF32 products) took 158.4 and flash-linear-attention's two-kernel chunk form 164.2; at D = 128
the expert wins (686.7 against 763.8, 180.1 against 196.8). At these sizes the fused kernel is latency-bound, not
bandwidth-bound: 128 programs, one per SM, each walks T / 64 chunks in order (the state is a prefix sum), and each
chunk is a chain of four small dependent products (q k^T, the masked P v, q S, S += k^T v) with two layout
conversions through shared memory (P and the state into operand layouts) and their barriers. 256.9 us is 2.0 us a
chunk on gpt2 (the rung: 1.2 us), while q, k, v and o cross HBM in ~60 us. So the knobs are the ones that shorten a
chunk's chain or put more chains on an SM:

- w4 / w8: one warpgroup (4 warps) issues a 64-row wgmma alone; two warpgroups split 64-row products by columns
  (16 or 32 wide at BLOCK_V = 32) and double the threads that meet at each barrier.
- s1 / s2 / s3: tl.range's software pipelining of the chunk loop (s1: none). It prefetches the next chunk's q, k, v
  but adds shared-memory buffers and waits to a loop that is bound by its dependent products, not its loads.
- 1/SM, 2/SM, 4/SM: BLOCK_V chosen for about that many programs per SM (the expert: one). More programs hide each
  other's latency; the price is q k^T recomputed and q, k re-read (from L2) once per value block.
- C128: chunks of 128 tokens, half the steps of the chain, twice the intra-chunk work (8 warps).

The rung (l1_l2) is timed as it is. FLA's design (per-chunk states written by one kernel, then every chunk's output
in parallel by a second) is the peer's; its autotuner compiles and times dozens of configurations on its first call
(it dominates the run when --peer is given, and is printed last with the configurations it chose).

What it found: the first H200 run (2026-12-03 12:55 UTC, commit 3e8c19a, `python3 benchmarks/chunked_linear_designs.py
--peer <fla wrapper>`; minimax-01-16k / linearized-llama3-8b-4k / gpt2-medium-linear-8k, us): 1/SM w4 s3 351.9 /
93.0 / 114.5, fastest everywhere, against the expert (1/SM w8 s2) 683.1 / 181.3 / 257.5, the rung 764.6 / 195.7 /
157.6 and FLA 716.8 / 189.3 / 164.4. The pipeline depth is the knob: at 1/SM w4, s1 / s2 / s3 took 737.4 / 528.5
/ 351.9 on minimax, 0.4-0.8 us a chunk saved by each chunk of prefetch distance on every workload, so a lone
program per SM waits on its loads more than on its products; more programs per SM (2/SM, 4/SM) or 8 warps were
slower at the same depth. The expert is now 1/SM w4 s3; the old expert is kept as "1/SM w8 s2". The candidates
added after that run probe around the winner: a fourth stage (180 KB of shared memory at D = 128), 2/SM at 3
stages, and 128-token chunks on 4 warps over 2 stages (at 3 stages they need 256 KB at D = 128, over the H200's
227 KB).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from design_sweep import TaskFiles, load, sweep_main, with_config  # noqa: E402

TASK = "chunked_linear_attention"
H200_SMS = 132
Config = tuple[int, int, int, int]  # (CHUNK, BLOCK_V, num_warps, num_stages), as the expert's _config returns


def block_v_for(bh: int, head_dim: int, programs: int) -> int:
    """The widest value block (a power of two, not under 16) that gives at least ~90% of `programs` programs."""
    block_v = head_dim
    while block_v > 16 and bh * (head_dim // block_v) * 10 < programs * 9:
        block_v //= 2
    return block_v


def rule(per_sm: int, warps: int, stages: int, chunk: int = 64) -> Callable[[int, int, int], Config]:
    """A `_config` rule: `chunk`-token chunks, about `per_sm` programs per SM, `warps` warps, `stages` stages."""

    def config(bh: int, head_dim: int, num_sms: int) -> Config:
        return chunk, block_v_for(bh, head_dim, num_sms * per_sm), warps, stages

    return config


# The expert as shipped (1/SM w4 s3) is timed as it is (its own _config); these swap its _config for a call.
CONFIGS: dict[str, Callable[[int, int, int], Config]] = {
    "1/SM w8 s2 (the expert until 2026-12-03)": rule(1, 8, 2),
    "1/SM w4 s4": rule(1, 4, 4),
    "2/SM w4 s3": rule(2, 4, 3),
    "C128 1/SM w4 s2": rule(1, 4, 2, chunk=128),
    "1/SM w4 s2": rule(1, 4, 2),
    "1/SM w4 s1": rule(1, 4, 1),
    "2/SM w4 s2": rule(2, 4, 2),
    "4/SM w4 s2": rule(4, 4, 2),
    "2/SM w8 s2": rule(2, 8, 2),
    "C128 1/SM w8 s2": rule(1, 8, 2, chunk=128),
}

# Beyond the task's interpret workloads: the GPU workloads' head counts and head dims at a short T (two chunks, the
# last ragged), so that --check-interpret runs each candidate with the BLOCK_V it takes on the H200.
GPU_LIKE_SHAPES = [
    ("gpu-heads-d128", {"batch": 1, "heads": 64, "seq_len": 70, "head_dim": 128, "dtype": "bfloat16"}, 91),
    ("gpu-heads-d64", {"batch": 4, "heads": 16, "seq_len": 70, "head_dim": 64, "dtype": "bfloat16"}, 92),
]


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_config(files.expert, config) for name, config in CONFIGS.items()}
    designs["l1_l2 rung"] = files.ladder_modules()["l1_l2"].solution
    return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}


_FILES: list[TaskFiles] = []


def solution(q: Any, k: Any, v: Any) -> Any:
    """For --compile-check (benchmarks/sweep_compile.py records its launches): every candidate configuration as it
    would be chosen for each GPU workload of this head dim, run on these inputs; returns the expert's output."""
    if not _FILES:
        _FILES.append(load(TASK))
    files = _FILES[0]
    head_dim = q.shape[-1]
    for config_rule in CONFIGS.values():
        for w in files.workloads(interpret=False):
            params = dict(w.params)
            if int(params["head_dim"]) == head_dim:
                chosen = config_rule(int(params["batch"]) * int(params["heads"]), head_dim, H200_SMS)
                with_config(files.expert, lambda *_, c=chosen: c)(q, k, v)
    return files.expert.solution(q, k, v)


def main() -> int:
    return sweep_main(TASK, Path(__file__), __doc__, candidates, GPU_LIKE_SHAPES)


if __name__ == "__main__":
    sys.exit(main())
