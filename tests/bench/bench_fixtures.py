"""A two-task fixture root and two scripted "models" for the bench tests, made in a tmp folder.

`good` reads the template, then writes a correct kernel and submits it (one interpreter eval);
`bad` submits a kernel that calls the forbidden torch.add (rejected by the static checks, no eval).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import FIXTURE_ROOT

KERNEL = """import torch
import triton
import triton.language as tl


@triton.jit
def scale_add_kernel(x_ptr, y_ptr, out_ptr, alpha, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, alpha * x + y, mask=mask)


def solution(x, y, alpha):
    out = torch.empty_like(x)
    n = x.numel()
    scale_add_kernel[(triton.cdiv(n, 1024),)](x, y, out, alpha, n, BLOCK=1024)
    return out
"""
CHEAT = KERNEL.replace("    out = torch.empty_like(x)\n", "    return torch.add(alpha * x, y)\n")
TASKS = ["scale_add", "scale_add2"]


def _tool(i: int, name: str, **args: object) -> dict:
    return {"type": "tool_use", "id": f"toolu_{i:03}", "name": name, "input": args}


GOOD = [
    {"content": [{"type": "text", "text": "Reading the template."}, _tool(1, "read_file", path="solution.py")]},
    {"content": [{"type": "text", "text": "A kernel."}, _tool(2, "write_file", path="solution.py", content=KERNEL),
                 _tool(3, "submit", final=True)]},
]  # fmt: skip
BAD = [{"content": [{"type": "text", "text": "Quick."}, _tool(1, "write_file", path="solution.py", content=CHEAT),
                    _tool(2, "submit", final=True)]}]  # fmt: skip


def make_root(tmp: Path) -> Path:
    """The fixture root with a copy of scale_add named scale_add2 (tasks and guidance)."""
    root = tmp / "root"
    shutil.copytree(FIXTURE_ROOT, root)
    for kind in ("tasks", "guidance"):
        shutil.copytree(root / kind / "scale_add", root / kind / "scale_add2")
    toml = root / "tasks" / "scale_add2" / "task.toml"
    toml.write_text(toml.read_text().replace('name = "scale_add"', 'name = "scale_add2"'))
    return root


def make_scripts(tmp: Path) -> dict[str, Path]:
    scripts = {"good": tmp / "good.json", "bad": tmp / "bad.json"}
    scripts["good"].write_text(json.dumps(GOOD))
    scripts["bad"].write_text(json.dumps(BAD))
    return scripts


def bench_argv(scripts: dict[str, Path], out: Path, *extra: str) -> list[str]:
    return ["bench", "--tasks", *TASKS, "--models", "scripted:good", "scripted:bad", "--conditions", "unguided,all",
            "--script", f"good={scripts['good']}", "--script", f"bad={scripts['bad']}", "--budget", "5",
            "--parallel", "2", "--mode", "interpret", "--out", str(out), *extra]  # fmt: skip
