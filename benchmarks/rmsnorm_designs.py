"""rmsnorm_residual designs side by side: the expert's fused add + RMSNorm kernel under other launch shapes (programs
per SM, warps, rows per tile, one tile per program), against its own L1 rung and, with --peer, a peer's wrapper.
Prints one line per measurement as it goes, then a table of latencies (triton.testing.do_bench, L2 flushed, output
allocation included) and the elapsed time.

    python benchmarks/rmsnorm_designs.py [--workloads W ...] [--designs SUBSTRING ...] [--peer FILE]
    TRITON_INTERPRET=1 python benchmarks/rmsnorm_designs.py --check-interpret [--peer FILE]
    python benchmarks/rmsnorm_designs.py --compile-check     (CPU: every candidate compiles for sm_90)

Why it exists: in the H200 run of experts, rungs and peers timed together (2026-12-03 13:06 UTC, commit 41bff07,
`benchmarks/suite_gpu.py --together --peers MANIFEST --peer-root ROOT --jobs 4 --budget 0.3`, one eval per task;
docs/runs/2026-12-03-h200-together/part1.log), on llama3-8b / deepseek-v3 / llama3-70b / llama3-405b prefill (us):

    expert (2 programs of 16 warps per SM, persistent, next tile prefetched)  139.1 / 120.8 / 136.9 / 136.9
    L1 rung (one row per program, 8 warps)                                    134.8 / 118.3 / 135.1 / 136.3
    Liger's fused add + RMSNorm (one row per program, 8 warps at 4096, 16 above) 135.0 / 117.8 / 133.5 / 134.8

All three move the same 8 bytes an element (Liger 4 more a row, its rstd) at 91-97% of SOL, so the 1-3% gap is in
how the loads are issued, not in what is moved. What differs:

- launch shape: the rung and Liger launch one program per row (4096-16384 programs) and let the hardware keep as
  many resident per SM as registers allow; the expert launches 264 programs (2 per SM of 16 warps) that each walk
  rows with a grid stride.
- bytes in flight per SM, set by registers. Compiled for sm_90 here (Triton 3.6's ptxas -v; not measured on the
  GPU), the rung's kernel takes 32 / 50 / 128 registers at 8 warps (hidden 4096 / 8192 / 16384), so 8 / 4 / 2
  programs are resident per SM, each with a whole row of x and residual in flight: ~128 KB per SM at every size.
  The expert's takes 57 / 64 / 128 at 16 warps (its prefetched tile is held in registers), so 2 / 2 / 1 programs
  fit, each with one tile in flight: 32 / 64 / 64 KB per SM. (At 16384 the second program of each SM cannot be
  resident: 128 x 512 threads fill the register file; the grid runs as two waves of 132.) By Little's law 4.3
  TB/s at ~1-2 us of loaded latency needs ~33-65 KB per SM, so the expert is short at 4096 and at the edge above.
- the tail: 8192 rows over 264 programs is 31.03 tiles each, so 8 programs walk a 32nd tile nearly alone (16384 /
  264 = 62.06 and 4096 / 264 = 15.5 leave a part-tile the same way); one program per row has no such tail.
- Liger's llama casting (x * rstd rounded to bf16 before the weight multiply) and its rstd store are not the gap:
  the rung computes as the expert does and is as fast as Liger.

The candidates (the expert's kernel, its `_config` swapped for the call; names: programs per SM, warps):

- "1 row/program w8": grid = rows, 8 warps: the rung's launch shape in the expert's kernel (its loop runs once, the
  prefetch masked off, but its registers still held: 64 / 128 / 255 registers, so 4 / 2 / 1 resident per SM).
- "1 row/program w8|w16": Liger's warps (16 from hidden 8192).
- "2/SM w16 balanced": the expert with the grid cut to an equal tile count per program (8192 rows: 256 programs of
  32 tiles instead of 264 of 31-32): the tail alone.
- "2/SM w16 8192-elem tiles": two rows a tile at hidden 4096 (the only workload whose tile is under 8192 elements):
  twice the bytes in flight per program where the gap is largest (64 registers, 16 bytes spilled).
- "4/SM w8 at 4096": four programs of 8 warps per SM at hidden 4096 (64 registers: all four resident, twice the
  expert's loads in flight); wider rows keep the expert's 2/SM w16 (at 8 warps they take 128+ registers).

Prediction (not yet measured): the gap follows bytes in flight per SM, not the tail. It is largest at hidden 4096
(3.2%), where the expert has a quarter of the rung's bytes in flight, and smallest at 16384 (0.4%), where it has
half of them but 64 KB; the tail predicts the opposite order (smallest at 4096: 62.06 tiles a program). So
"2/SM w16 8192-elem tiles" and "4/SM w8 at 4096" should close most of the 4096 gap (to within ~1% of the rung),
"2/SM w16 balanced" should stay within the run-to-run spread (~1%) of the expert, and the two "1 row/program"
candidates should land between the expert and the rung (their prefetch registers keep half the rung's rows
resident: 4 / 2 / 1 at 8 warps). If none of them moves the expert, the body is the difference (the rung reloads the
weight per row, without an eviction hint) and the next candidates are kernel-body ones: the expert without the
register prefetch, or with it at 8 warps and a lower register bound.

Since 2026-12-03 18:40 UTC the expert is the "1 row/program w8|w16" design in a kernel of its own (one tile per
program, no loop): the candidates below swap the _config of the persistent, prefetching kernel it replaced, so
this sweep runs against that expert, at commit 96656d4 (`git worktree add /tmp/at-96656d4 96656d4`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from design_sweep import TaskFiles, load, sweep_main, with_config  # noqa: E402

TASK = "rmsnorm_residual"
H200_SMS = 132
Config = tuple[int, int, int, int]  # (BLOCK_N, ROWS_PER_TILE, num_warps, programs), as the expert's _config returns


def next_power_of_2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def one_row_per_program(warps: Callable[[int], int]) -> Callable[[int, int, int], Config]:
    """A program per row (grid = rows), `warps(BLOCK_N)` warps: the rung's and Liger's launch shape."""

    def config(n_rows: int, n_cols: int, num_sms: int) -> Config:
        block_n = next_power_of_2(n_cols)
        return block_n, 1, warps(block_n), n_rows

    return config


def persistent(per_sm: int, warps: int, tile_elems: int = 4096, balanced: bool = False,
               up_to: int | None = None) -> Callable[[int, int, int], Config]:  # fmt: skip
    """The expert's persistent grid: `per_sm` programs of `warps` warps per SM, tiles of ~`tile_elems` elements;
    `balanced`: the grid cut so every program walks the same number of tiles. With `up_to`, rows wider than that
    take the expert's own 2 programs of 16 warps."""

    def config(n_rows: int, n_cols: int, num_sms: int) -> Config:
        block_n = next_power_of_2(n_cols)
        rows_per_tile = max(1, min(16, tile_elems // block_n))
        num_tiles = cdiv(n_rows, rows_per_tile)
        n_sm, n_warps = (2, 16) if up_to and block_n > up_to else (per_sm, warps)
        programs = min(num_tiles, num_sms * n_sm)
        if balanced:
            programs = cdiv(num_tiles, cdiv(num_tiles, programs))
        return block_n, rows_per_tile, n_warps, programs

    return config


# The expert as shipped (2/SM w16, 4096-element tiles) is timed as it is (its own _config); these swap its _config.
CONFIGS: dict[str, Callable[[int, int, int], Config]] = {
    "1 row/program w8 (the rung's launch)": one_row_per_program(lambda block_n: 8),
    "1 row/program w8|w16 (Liger's warps)": one_row_per_program(lambda block_n: 16 if block_n >= 8192 else 8),
    "2/SM w16 balanced": persistent(2, 16, balanced=True),
    "2/SM w16 8192-elem tiles": persistent(2, 16, tile_elems=8192),
    "4/SM w8 at 4096 (else 2/SM w16)": persistent(4, 8, up_to=4096),
}

# Beyond the task's interpret workloads: each GPU workload's hidden size on 5 rows, so that --check-interpret runs
# each candidate with the BLOCK_N, rows per tile and warps it takes on the H200 (on the interpreter's 2 SMs a
# persistent candidate's programs still walk more than one tile, and a 2-row tile is ragged).
GPU_LIKE_SHAPES = [
    (f"gpu-hidden-{hidden}", {"rows": 5, "hidden": hidden, "dtype": "bfloat16"}, 90 + i)
    for i, hidden in enumerate((4096, 7168, 8192, 16384))
]


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    if "num_sms" not in files.expert._config.__code__.co_varnames:
        raise SystemExit("rmsnorm_designs.py: the expert is no longer the persistent kernel these designs swap the "
                         "_config of; run it at commit 96656d4 (see the module docstring)")  # fmt: skip
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_config(files.expert, config) for name, config in CONFIGS.items()}
    designs["l1 rung"] = files.ladder_modules()["l1"].solution
    return {name: fn for name, fn in designs.items() if not chosen or any(c in name for c in chosen)}


_FILES: list[TaskFiles] = []


def solution(x: Any, residual: Any, weight: Any, eps: float) -> Any:
    """For --compile-check (benchmarks/sweep_compile.py records its launches): every candidate configuration as it
    would be chosen for each GPU workload, run on rows of that workload's hidden size (the interpret workloads'
    hidden sizes take other tiles); returns the expert's output on these inputs."""
    if not _FILES:
        _FILES.append(load(TASK))
    files = _FILES[0]
    for w in files.workloads(interpret=False):
        params = dict(w.params) | {"rows": 3}
        args = files.inputs.make_inputs(params, w.seed, x.device)
        for config_rule in CONFIGS.values():
            chosen = config_rule(int(w.params["rows"]), int(params["hidden"]), H200_SMS)
            with_config(files.expert, lambda *_, c=chosen: c[:3] + (min(c[3], cdiv(3, c[1])),))(*args)
    return files.expert.solution(x, residual, weight, eps)


def main() -> int:
    return sweep_main(TASK, Path(__file__), __doc__, candidates, GPU_LIKE_SHAPES)


if __name__ == "__main__":
    sys.exit(main())
