"""HBM bandwidth by read : write mix on the GPU: what the SOL model's `bandwidth_gbps` ceiling should be.

    python benchmarks/hbm_streams.py            (GPU; prints a table of GB/s per stream, median of 20, CUDA events)

Why it exists: the ceiling is measured as a device-to-device copy (1 read : 1 write), and the harness rejects a
latency more than 5% under a workload's HBM time as implausible. A kernel that reads more than it writes can beat a
copy's rate (writes cost the bus turnarounds reads do not): swiglu's L1 rung (2 reads : 1 write) read 103% of SOL on
an H200 on 2026-12-03. If some mix runs well above the copy, a correct kernel of that mix can be refused. Each
stream moves 2 GiB per tensor, far beyond the 50 MB L2. On a machine without CUDA it says so and exits 1.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

from workbench.harness.microbench import READ_BLOCK, block_sums, gbps  # noqa: E402

BYTES = 2 << 30  # per tensor
BLOCK = 4096


@triton.jit
def _mix(a_ptr, b_ptr, c_ptr, out_ptr, n, READS: tl.constexpr, BLOCK: tl.constexpr):
    """READS reads : 1 write, elementwise."""
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(a_ptr + offs, mask=mask, other=0.0)
    if READS >= 2:
        x += tl.load(b_ptr + offs, mask=mask, other=0.0)
    if READS >= 3:
        x += tl.load(c_ptr + offs, mask=mask, other=0.0)
    tl.store(out_ptr + offs, x, mask=mask)


def main() -> int:
    if not torch.cuda.is_available():
        print("hbm_streams.py: no CUDA device here; HBM bandwidth is measured on a GPU only", file=sys.stderr)
        return 1
    device = torch.device("cuda")
    n = BYTES // 4
    a, b, c = (torch.empty(n, dtype=torch.float32, device=device).uniform_() for _ in range(3))
    out = torch.empty_like(a)
    grid = (triton.cdiv(n, BLOCK),)
    partial = torch.empty(triton.cdiv(n, READ_BLOCK), dtype=torch.float32, device=device)
    streams = {
        "torch copy_ (1 read : 1 write; the ceiling today)": (lambda: out.copy_(a), 2),
        "torch add (2 reads : 1 write)": (lambda: torch.add(a, b, out=out), 3),
        "torch fill_ (0 reads : 1 write)": (lambda: out.fill_(1.0), 1),
        "triton 1 read : ~0 writes (block sums)": (
            lambda: block_sums[(partial.numel(),)](a, partial, n, BLOCK=READ_BLOCK),
            1,
        ),
        "triton 1 read : 1 write": (lambda: _mix[grid](a, b, c, out, n, READS=1, BLOCK=BLOCK), 2),
        "triton 2 reads : 1 write": (lambda: _mix[grid](a, b, c, out, n, READS=2, BLOCK=BLOCK), 3),
        "triton 3 reads : 1 write": (lambda: _mix[grid](a, b, c, out, n, READS=3, BLOCK=BLOCK), 4),
    }
    print(f"{torch.cuda.get_device_name(device)}, torch {torch.__version__}, triton {triton.__version__}")
    print("| stream | GB/s |\n| --- | ---: |")
    for name, (run, tensors) in streams.items():
        print(f"| {name} | {gbps(tensors * BYTES, run):.0f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
