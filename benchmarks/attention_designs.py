"""flash_attention_causal designs side by side: the expert's kernel on other tiles (BLOCK_M, BLOCK_N), warp counts,
pipeline depths and launch orders, against, with --peer, a peer's wrapper. Prints one line per measurement as it
goes, then a table of latencies (triton.testing.do_bench, L2 flushed, output allocation included) and the elapsed
time.

    python benchmarks/attention_designs.py [--workloads W ...] [--designs SUBSTRING ...] [--peer FILE]
    TRITON_INTERPRET=1 python benchmarks/attention_designs.py --check-interpret [--peer FILE]
    python benchmarks/attention_designs.py --compile-check     (CPU: every candidate compiles for sm_90)

Why it exists: on the H200 the Triton tutorial's fused attention was 1.07x faster than the expert on
opt-1.3b-prefill-2k (D = 64, 256 heads of 2048) and 1.12x on llama3-8b-prefill-4k (D = 128, 64 heads of 4096);
the expert won on llama3-8b-tp8-prefill-16k (D = 128, 4 heads of 16384). The two kernels share the algorithm and
most low-level choices (online softmax in log2 units with the scale folded into one multiplier, off-band tiles
without a mask then the diagonal tiles masked, Q on chip, fp32 accumulator, P cast to the input dtype for the second
product). They differ in:

- tiles, warps, stages: the expert fixes 128 x 64 tiles, 3 stages, 4 warps at D = 64 and 8 at D = 128; the
  tutorial autotunes per (S, D) over BLOCK_M 64/128, BLOCK_N 32/64 and 3/4/7 stages, and its filter keeps 8 warps
  only for 128 x 128 tiles, which its list does not contain: it always runs on 4 warps (one warpgroup).
- launch order: the expert starts each head's heaviest query block first; the tutorial the lightest first. With
  4 heads of 128 query blocks (16k) the heavy-first order shortens the tail; with 64-256 heads the tail is a small
  part of the run.
- the tutorial specialises the kernel on S (N_CTX is a constexpr) and stores the row log-sum-exp (4 bytes a row);
  it loads through block pointers, the expert through pointer tensors (the same loads once lowered, when S is a
  multiple of the tile, as on every timed workload).

So the candidates are the expert's kernel under other `_config` rules (names: BLOCK_M x BLOCK_N, warps, stages at
D = 64 / D = 128 where they differ): one warpgroup at D = 128, 64-row query blocks (twice the programs, half the
accumulator registers, more programs resident per SM), a fourth stage, 8 warps at D = 64, and the lightest-first
order. The peer's autotuner compiles and times its configurations on its first call for each (S, D) (it dominates
the run when --peer is given); it is timed last and the configurations it chose are printed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from chunked_linear_designs import load_peer, print_autotuned  # noqa: E402
from design_sweep import TaskFiles, check_interpret, load, sweep, with_config  # noqa: E402

TASK = "flash_attention_causal"
Config = tuple[int, int, int, int, bool]  # (BLOCK_M, BLOCK_N, num_warps, num_stages, heavy_first): the expert's


def per_head_dim(d64: Config, d128: Config) -> Callable[[int, int], Config]:
    """A `_config` rule: one configuration for D = 64 and one for D = 128, at every S."""

    def config(seq_len: int, head_dim: int) -> Config:
        return d64 if head_dim == 64 else d128

    return config


# The expert as shipped: (128, 64, 4, 3, True) at D = 64 and (128, 64, 8, 3, True) at D = 128, timed as it is.
CONFIGS: dict[str, Callable[[int, int], Config]] = {
    "128x64 w4 s4 / w8 s4": per_head_dim((128, 64, 4, 4, True), (128, 64, 8, 4, True)),
    "128x64 w4 s3 (D128 on w4)": per_head_dim((128, 64, 4, 3, True), (128, 64, 4, 3, True)),
    "128x64 w4 s4 (D128 on w4)": per_head_dim((128, 64, 4, 4, True), (128, 64, 4, 4, True)),
    "64x64 w4 s3": per_head_dim((64, 64, 4, 3, True), (64, 64, 4, 3, True)),
    "64x64 w4 s4": per_head_dim((64, 64, 4, 4, True), (64, 64, 4, 4, True)),
    "128x64 w8 s3 (D64 on w8)": per_head_dim((128, 64, 8, 3, True), (128, 64, 8, 3, True)),
    "expert tiles, lightest first": per_head_dim((128, 64, 4, 3, False), (128, 64, 8, 3, False)),
}

# Beyond the task's interpret workloads (S = 300, 129, 17: all ragged): S a multiple of every BLOCK_M, the unmasked
# (EVEN) path that every GPU workload takes, at both head dims and both dtypes.
EVEN_SHAPES = [
    ("even-d64-fp16", {"batch": 1, "heads": 2, "seq_len": 256, "head_dim": 64, "dtype": "float16"}, 91),
    ("even-d128-bf16", {"batch": 1, "heads": 2, "seq_len": 256, "head_dim": 128, "dtype": "bfloat16"}, 92),
]


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_config(files.expert, config) for name, config in CONFIGS.items()}
    return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}


_FILES: list[TaskFiles] = []


def solution(q: Any, k: Any, v: Any) -> Any:
    """For --compile-check (benchmarks/sweep_compile.py records its launches): every candidate configuration as it
    would be chosen for each GPU workload of this head dim, run on these inputs and, where S holds a whole 128-row
    block, on the first whole blocks (the unmasked path the GPU workloads take); returns the expert's output."""
    if not _FILES:
        _FILES.append(load(TASK))
    files = _FILES[0]
    seq_len, head_dim = q.shape[-2], q.shape[-1]
    even = seq_len // 128 * 128
    shapes = [(q, k, v)] + ([tuple(t[:, :, :even].contiguous() for t in (q, k, v))] if even else [])
    for config_rule in CONFIGS.values():
        for w in files.workloads(interpret=False):
            params = dict(w.params)
            if int(params["head_dim"]) == head_dim:
                chosen = config_rule(int(params["seq_len"]), head_dim)
                for args in shapes:
                    with_config(files.expert, lambda *_, c=chosen: c)(*args)
    return files.expert.solution(q, k, v)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", nargs="+", default=None)
    parser.add_argument("--designs", nargs="+", default=None, help="only the designs whose name holds one of these")
    parser.add_argument("--peer", default=None, help="a peer's wrapper file (solution(q, k, v)), loaded at run time")
    parser.add_argument("--check-interpret", action="store_true")
    parser.add_argument("--compile-check", action="store_true")
    args = parser.parse_args()
    if args.compile_check:
        from sweep_compile import compile_designs

        return compile_designs(TASK, Path(__file__))
    started = time.perf_counter()
    files = load(TASK)
    designs = candidates(files, args.designs)
    peer = load_peer(args.peer) if args.peer else None
    if peer:
        designs[peer[0]] = peer[1].solution  # last: its autotuning should not delay the expert's candidates
    if args.check_interpret:
        status = check_interpret(files, designs, EVEN_SHAPES)
    else:
        sweep(files, designs, args.workloads, f"{TASK} designs")
        status = 0
    if peer:
        print_autotuned(peer[1])
    print(f"elapsed {time.perf_counter() - started:.1f} s", flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
