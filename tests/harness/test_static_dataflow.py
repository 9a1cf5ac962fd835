"""Static rules that follow data and launches: dead launches, host round trips, and kernels launched through
dispatch tables, conditionals and functools.partial (none of which may be reported as missing)."""

import textwrap

import pytest

from workbench.harness.static_checks import check_source

DEAD = """
import torch
import triton
import triton.language as tl


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


def _host(x):
    return torch.tensor([v * 2 for v in x.tolist()], dtype=x.dtype)


def _same(t):
    return t


def _launch(x, out):
    scale_kernel[(triton.cdiv(x.numel(), 64),)](x, out, x.numel(), BLOCK=64)
    return out


def solution(x):
    scratch = torch.empty_like(x)
    out = torch.empty_like(x)
    if x.numel() == 0:
        return torch.empty_like(x)
    {body}
"""


@pytest.mark.parametrize(
    ("body", "rule"),
    [
        ("_launch(x, scratch)\nreturn torch.tensor([v * 2 for v in x.tolist()], dtype=x.dtype)", "host-compute"),
        ("_launch(x, scratch)\nvals = x.tolist()\ny = torch.tensor(vals)\nreturn y.view(-1)", "host-compute"),
        ("_launch(x, scratch)\nreturn _host(x)", "host-compute"),
        ("_launch(x, scratch)\nreturn out, torch.tensor(x.tolist())", "host-compute"),
        ("_launch(x, scratch)\nreturn out", "dead-launch"),
        ("_launch(x, scratch)\nreturn x * 2", "dead-launch"),
        ("_launch(x, scratch)\nreturn out, x.clone() * 2", "dead-launch"),
        ("scale_kernel[(1,)](x, scratch, x.numel(), BLOCK=64)\nreturn torch.zeros_like(x)", "dead-launch"),
    ],
)
def test_outputs_no_kernel_writes_are_flagged(body, rule):
    source = DEAD.replace("{body}", textwrap.indent(body, "    ").strip())
    assert rule in {v.rule for v in check_source(source).violations}


@pytest.mark.parametrize(
    "body",
    [
        "_launch(x, out)\nreturn out",
        "_launch(x, out.view(-1))\nreturn out.view(x.shape)",
        "return _launch(x, out)",
        "y = _launch(x, out)\nreturn y[: x.numel()], out",
        "_launch(x, out)\nreturn torch.cat([out, out])",
        "_launch(x, out)\nreturn _same(out)",
        "n = len(x.tolist())\n_launch(x, out)\nreturn out[:n]",
        "sizes = x.tolist()\nbuf = torch.empty(len(sizes))\n_launch(x, buf)\nreturn torch.cat([buf, buf])",
        "idx = torch.tensor(list(range(x.numel())), device=x.device)\n_launch(idx, out)\nreturn out",
    ],
)
def test_outputs_a_kernel_writes_pass(body):
    source = DEAD.replace("{body}", textwrap.indent(body, "    ").strip())
    assert check_source(source).violations == []


DISPATCH = """
import functools

import torch
import triton
import triton.language as tl


@triton.jit
def k16(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


k32 = triton.jit(k16.fn)
KERNELS = {torch.float16: k16, torch.float32: k32}


def _launch(x, out, BLOCK):
    {launch}


run = functools.partial(_launch, BLOCK=64)


def solution(x):
    out = torch.empty_like(x)
    {call}
    return out
"""


@pytest.mark.parametrize(
    ("launch", "call"),
    [
        ("pass", "KERNELS[x.dtype][(1,)](x, out, x.numel(), BLOCK=64)"),
        ("pass", "kernel = k16 if x.dtype == torch.float16 else k32\n    kernel[(1,)](x, out, x.numel(), BLOCK=64)"),
        ("k16[(1,)](x, out, x.numel(), BLOCK=BLOCK)", "run(x, out)"),
    ],
)
def test_launches_through_dispatch_tables_conditionals_and_partials_count(launch, call):
    source = DISPATCH.replace("{launch}", launch).replace("{call}", call)
    assert check_source(source).violations == []
    assert [v.rule for v in check_source(source.replace(call, "pass")).violations] == ["no-triton-kernel"]
