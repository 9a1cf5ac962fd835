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

What the first H200 run found (2026-12-03 12:56 UTC, commit 3e8c19a, `python3 benchmarks/attention_designs.py
--peer <tutorial wrapper>`; opt-1.3b-prefill-2k / llama3-8b-prefill-4k / llama3-8b-tp8-prefill-16k, us): the
expert 407.1 / 665.2 / 577.0, the tutorial 397.5 / 645.6 / 650.3; no configuration of the expert's kernel beat
the tutorial on 2k or 4k, and at the tutorial's own pick on all three (64 x 64, 4 warps, 3 stages) the expert's
kernel took 424.6 / 685.5 / 609.4. So the difference is in the kernel body. The tutorial's timed path loads through
block pointers, not TMA (its TMA path needs an API Triton 3.6 no longer has), and Triton 3.6 rewrites block pointers
into base-plus-scalar-offset arithmetic for every NVIDIA target (make_ttir's rewrite_tensor_pointer); its N_CTX is
an autotuning key and a runtime integer in the kernel, not a constexpr. What differs, then: the expert carries
[BLOCK_N, D] pointer tensors for K and V through the key loop (64 64-bit pointers a thread at D = 128 on 4 warps, for
each of K and V, unless the compiler rebuilds them), the tutorial rebuilds each tile's addresses from scalars; and
the tutorial loads K as the [D, BLOCK_N] tile of K^T where the expert transposes a [BLOCK_N, D] tile. The "body:"
candidates are the expert's algorithm in one kernel with the addressing as a switch, each at the expert's
configuration and at the tutorial's pick ("@64x64 w4 s3"): pointers (the control: should time as the expert),
offsets (the block-pointer lowering written out), offsets with K^T tiles, block pointers, TMA tensor descriptors
(host-built over the [B * H * S, D] rows; Q, K and V loads), and pointers, offsets and descriptors with S (and with
it every stride) a constexpr.

What followed (2026-12-04 03:49 UTC, `--workloads opt-1.3b-prefill-2k llama3-8b-prefill-4k --designs "as shipped"
"descriptors (TMA)"`): descriptors at the tutorial's pick ran 391.2 / 615.8 us (S a constexpr: 391.4 / 613.7) against
the expert's 392.0 / 622.2 and the tutorial's 403.5 / 644.4, and in an eval beside both (one alternation) 370.4 /
569.8 / 513.4 against 383.4 / 615.0 / 525.3 and 371.8 / 591.2 / 637.5. That kernel, with S a run-time argument, is
the expert since commit 88101a3, so "expert (as shipped)" is now the descriptor body at 64 x 64 on 4 warps, and the
CONFIGS rows put it on other tiles.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from design_sweep import TaskFiles, load, sweep_main, with_config  # noqa: E402

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


# ---- the kernel-body candidates: how the key loop addresses K and V --------------------------------------------
# The expert's algorithm, tiles and masking unchanged; only the addressing (and, with SEQ, what is a constexpr)
# differs. The tutorial timed on the H200 is its block-pointer path: Triton 3.6 rewrites block pointers into
# pointer arithmetic from a base and scalar offsets for every NVIDIA target (make_ttir's rewrite_tensor_pointer),
# so only tensor descriptors reach the Hopper TMA unit.
POINTERS = tl.constexpr(0)  # loop-carried [BLOCK_N, D] pointer tensors, advanced each tile (the expert's way)
OFFSETS = tl.constexpr(1)  # each tile's pointers rebuilt from the head's base and the scalar row start_n
BLOCK_PTRS = tl.constexpr(2)  # tl.make_block_ptr / tl.advance: what the tutorial's timed path writes
DESCRIPTORS = tl.constexpr(3)  # host-built TMA descriptors over the [B * H * S, D] rows (Q, K and V loads)
LOAD_NAMES = {"pointers": 0, "offsets": 1, "block pointers": 2, "descriptors (TMA)": 3}


@triton.jit
def _kv_start(base, lo, offs_n, offs_d, seq_len, stride_n, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr,
              LOADS: tl.constexpr):  # fmt: skip
    """What the key loop carries to address the tile at row `lo` (a descriptor or base pointer stays as it is)."""
    if LOADS == POINTERS:
        return base + (lo + offs_n)[:, None] * stride_n + offs_d[None, :]
    elif LOADS == BLOCK_PTRS:
        return tl.make_block_ptr(base, (seq_len, HEAD_DIM), (stride_n, 1), (lo, 0), (BLOCK_N, HEAD_DIM), (1, 0))
    else:
        return base


@triton.jit
def _kv_next(src, stride_n, BLOCK_N: tl.constexpr, LOADS: tl.constexpr):
    if LOADS == POINTERS:
        return src + BLOCK_N * stride_n
    elif LOADS == BLOCK_PTRS:
        return tl.advance(src, (BLOCK_N, 0))
    else:
        return src


@triton.jit
def _kv_load(src, row0, start_n, offs_n, offs_d, seq_len, stride_n, MASKED: tl.constexpr, K_T: tl.constexpr,
             LOADS: tl.constexpr):  # fmt: skip
    """The [BLOCK_N, D] tile at key row start_n (or, with K_T, the [D, BLOCK_N] tile of its transpose, loaded as
    such), zero past seq_len when MASKED. row0 is the head's first row in the flattened [B * H * S, D] rows."""
    if LOADS == POINTERS:
        if MASKED:
            return tl.load(src, mask=(start_n + offs_n)[:, None] < seq_len, other=0.0)
        return tl.load(src)
    elif LOADS == OFFSETS:
        rows = start_n + offs_n
        if K_T:  # one return per shape: Triton checks every return of a function against the first
            ptrs = src + rows[None, :] * stride_n + offs_d[:, None]
            in_bounds = rows[None, :] < seq_len
        else:
            ptrs = src + rows[:, None] * stride_n + offs_d[None, :]
            in_bounds = rows[:, None] < seq_len
        if MASKED:
            tile = tl.load(ptrs, mask=in_bounds, other=0.0)
        else:
            tile = tl.load(ptrs)
        return tile
    elif LOADS == BLOCK_PTRS:
        if MASKED:
            return tl.load(src, boundary_check=(0,), padding_option="zero")
        return tl.load(src)
    else:
        # rows past seq_len belong to the next head (or are zero past the last): finite, and every key past
        # seq_len is above the diagonal of every real query row, so the causal mask gives it weight 0
        return src.load([row0 + start_n, 0])


@triton.jit
def _body_tiles(acc, l_i, m_i, q, k_src, v_src, row0, stride_kn, stride_vn, offs_m, offs_n, offs_d, lo, hi, seq_len,
                qk_scale, HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, DIAGONAL: tl.constexpr, EVEN: tl.constexpr,
                K_T: tl.constexpr, LOADS: tl.constexpr):  # fmt: skip
    """The expert's _attend_tiles over key tiles [lo, hi), its K and V addressed the LOADS way."""
    masked: tl.constexpr = DIAGONAL and not EVEN and LOADS != DESCRIPTORS
    k_src = _kv_start(k_src, lo, offs_n, offs_d, seq_len, stride_kn, HEAD_DIM, BLOCK_N, LOADS)
    v_src = _kv_start(v_src, lo, offs_n, offs_d, seq_len, stride_vn, HEAD_DIM, BLOCK_N, LOADS)
    for start_n in range(lo, hi, BLOCK_N):
        start_n = tl.multiple_of(start_n, BLOCK_N)
        k = _kv_load(k_src, row0, start_n, offs_n, offs_d, seq_len, stride_kn, masked, K_T, LOADS)
        if K_T:
            qk = tl.dot(q, k)
        else:
            qk = tl.dot(q, tl.trans(k))
        if DIAGONAL:
            causal = offs_m[:, None] >= (start_n + offs_n)[None, :]
            qk = qk * qk_scale + tl.where(causal, 0.0, -1.0e6)
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            qk = qk - m_new[:, None]
        else:
            m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
            qk = qk * qk_scale - m_new[:, None]
        p = tl.math.exp2(qk)
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = _kv_load(v_src, row0, start_n, offs_n, offs_d, seq_len, stride_vn, masked, False, LOADS)
        acc = tl.dot(p.to(v.dtype), v, acc)
        m_i = m_new
        k_src = _kv_next(k_src, stride_kn, BLOCK_N, LOADS)
        v_src = _kv_next(v_src, stride_vn, BLOCK_N, LOADS)
    return acc, l_i, m_i


@triton.jit
def _body_kernel(q_src, k_src, v_src, o_ptr, seq_len, stride_h, stride_row, qk_scale, HEAD_DIM: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, EVEN: tl.constexpr, HEAVY_FIRST: tl.constexpr,
                 LOADS: tl.constexpr, K_T: tl.constexpr, SEQ: tl.constexpr):  # fmt: skip
    """The expert's kernel for contiguous [B, H, S, D] tensors, K and V addressed the LOADS way; with SEQ > 0 the
    sequence length is that constexpr and so are the strides (S * D a head, D a row), else all three are runtime
    integers as in the expert."""
    if SEQ > 0:
        seq_len = SEQ
        stride_h = SEQ * HEAD_DIM
        stride_row = HEAD_DIM
    if HEAVY_FIRST:
        pid_m = tl.num_programs(0) - 1 - tl.program_id(0)
    else:
        pid_m = tl.program_id(0)
    pid_bh = tl.program_id(1)
    start_m = pid_m * BLOCK_M
    row0 = pid_bh * seq_len  # the head's first row in the descriptors' [B * H * S, D] rows (< 2^31 rows)
    head = pid_bh.to(tl.int64) * stride_h
    offs_m = start_m + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, HEAD_DIM)

    if LOADS == DESCRIPTORS:
        q = q_src.load([row0 + start_m, 0])
        k_base = k_src
        v_base = v_src
    else:
        q_ptrs = q_src + head + offs_m[:, None] * stride_row + offs_d[None, :]
        if EVEN:
            q = tl.load(q_ptrs)
        else:
            q = tl.load(q_ptrs, mask=offs_m[:, None] < seq_len, other=0.0)
        k_base = k_src + head
        v_base = v_src + head

    m_i = tl.full([BLOCK_M], -1.0e6, dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)
    acc, l_i, m_i = _body_tiles(
        acc, l_i, m_i, q, k_base, v_base, row0, stride_row, stride_row, offs_m, offs_n, offs_d, 0, start_m, seq_len,
        qk_scale, HEAD_DIM, BLOCK_N, False, EVEN, K_T, LOADS,
    )  # fmt: skip
    acc, l_i, m_i = _body_tiles(
        acc, l_i, m_i, q, k_base, v_base, row0, stride_row, stride_row, offs_m, offs_n, offs_d, start_m,
        start_m + BLOCK_M, seq_len, qk_scale, HEAD_DIM, BLOCK_N, True, EVEN, K_T, LOADS,
    )  # fmt: skip
    out = acc / l_i[:, None]
    o_ptrs = o_ptr + head + offs_m[:, None] * stride_row + offs_d[None, :]
    if EVEN:
        tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty))
    else:
        tl.store(o_ptrs, out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < seq_len)


def body_candidate(expert: Any, loads: str, const_seq: bool = False, k_t: bool = False,
                   config: Config | None = None) -> Callable[..., Any]:  # fmt: skip
    """solution(q, k, v) on _body_kernel: the expert's _config (or `config`), K and V addressed the `loads` way."""

    def solution(q: Any, k: Any, v: Any) -> Any:
        import math

        import torch
        from triton.tools.tensor_descriptor import TensorDescriptor

        assert q.is_contiguous() and k.is_contiguous() and v.is_contiguous() and q.shape == k.shape == v.shape
        B, H, S, D = q.shape
        block_m, block_n, num_warps, num_stages, heavy_first = config or expert._config(S, D)
        o = torch.empty_like(q)
        srcs: list[Any] = [q, k, v]
        if loads == "descriptors (TMA)":
            rows = [t.view(B * H * S, D) for t in (q, k, v)]
            srcs = [TensorDescriptor.from_tensor(t, [b, D]) for t, b in zip(rows, (block_m, block_n, block_n))]
        grid = (triton.cdiv(S, block_m), B * H)
        _body_kernel[grid](
            *srcs, o, S, S * D, D, 1.4426950408889634 / math.sqrt(D),
            HEAD_DIM=D, BLOCK_M=block_m, BLOCK_N=block_n, EVEN=S % block_m == 0, HEAVY_FIRST=heavy_first,
            LOADS=LOAD_NAMES[loads], K_T=k_t, SEQ=S if const_seq else 0, num_warps=num_warps, num_stages=num_stages,
        )  # fmt: skip
        return o

    return solution


TUTORIAL_PICK: Config = (64, 64, 4, 3, True)  # the tile, warps and stages the tutorial's autotuner chose on all three
# (body name, addressing, S constexpr, K^T tiles): each at the expert's _config and at the tutorial's pick
BODIES = [
    ("pointers (expert body, rewritten)", "pointers", False, False),
    ("pointers, S constexpr", "pointers", True, False),
    ("offsets", "offsets", False, False),
    ("offsets, S constexpr", "offsets", True, False),
    ("offsets, K^T tiles", "offsets", False, True),
    ("block pointers", "block pointers", False, False),
    ("descriptors (TMA)", "descriptors (TMA)", False, False),
    ("descriptors (TMA), S constexpr", "descriptors (TMA)", True, False),
]


def body_candidates(expert: Any) -> dict[str, Callable[..., Any]]:
    designs = {}
    for name, loads, const_seq, k_t in BODIES:
        designs[f"body: {name}"] = body_candidate(expert, loads, const_seq, k_t)
        designs[f"body: {name} @64x64 w4 s3"] = body_candidate(expert, loads, const_seq, k_t, TUTORIAL_PICK)
    return designs


def candidates(files: TaskFiles, chosen: list[str] | None) -> dict[str, Callable[..., Any]]:
    designs: dict[str, Callable[..., Any]] = {"expert (as shipped)": files.expert.solution}
    designs |= {name: with_config(files.expert, config) for name, config in CONFIGS.items()}
    designs |= body_candidates(files.expert)
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
    for body in body_candidates(files.expert).values():  # their configurations do not depend on S
        for args in shapes:
            body(*args)
    return files.expert.solution(q, k, v)


def main() -> int:
    return sweep_main(TASK, Path(__file__), __doc__, candidates, EVEN_SHAPES)


if __name__ == "__main__":
    sys.exit(main())
