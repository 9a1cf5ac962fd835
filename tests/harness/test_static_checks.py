import textwrap

import pytest
from conftest import REPO

from workbench.harness.static_checks import check_source
from workbench.tasks import load_task, task_names

KERNEL = """
import torch
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.dot(tl.load(x_ptr + offs[:, None]), tl.load(x_ptr + offs[None, :]))
    acc2 = acc @ acc
    tl.store(out_ptr + offs, tl.sum(acc2, 1), mask=offs < n)
"""

LAUNCH = """

def _launch(x, out):
    copy_kernel[(1,)](x, out, x.numel(), BLOCK=16)


def solution(x):
    out = torch.empty_like(x)
    {body}
    _launch(x, out)
    return out
"""


def rules(body: str, extra_top: str = "", forbidden=()) -> dict[str, int]:
    source = extra_top + KERNEL + LAUNCH.format(body=textwrap.indent(textwrap.dedent(body), "    ").strip())
    result = check_source(source, forbidden)
    found = {}
    for v in result.violations:
        found.setdefault(v.rule, v.line)
    assert result.ok == (not found)
    return found


def test_clean_solution_passes_and_dot_inside_a_kernel_is_fine():
    assert rules("pass") == {}


@pytest.mark.parametrize(
    ("top", "body", "rule"),
    [
        ("", "y = torch.matmul(x, x)", "forbidden-call"),
        ("import torch.nn.functional as F\n", "y = F.softmax(x, -1)", "forbidden-call"),
        ("from torch import einsum as e\n", "y = e('ij->i', x)", "forbidden-call"),
        ("", "y = x.mm(x)", "forbidden-call"),
        ("", "y = x @ x", "matmul-operator"),
        ("", "f = torch.compile(lambda t: t)", "forbidden-call"),
        ("from reference import reference\n", "y = reference(x)", "calls-reference"),
        ("import flash_attn\n", "pass", "kernel-library"),
        ("import numpy as np\n", "pass", "kernel-library"),
        ("import threading\n", "pass", "concurrency"),
        ("import subprocess\n", "pass", "concurrency"),
        ("import os\n", "os.system('true')", "concurrency"),
        ("import ctypes\n", "pass", "introspection"),
        ("import inspect\n", "pass", "introspection"),
        ("import sys\n", "f = sys._getframe(1)", "introspection"),
        ("", "exec('y = 1')", "introspection"),
        ("", "s = torch.cuda.Stream()", "side-stream"),
        ("", "g = torch.cuda.CUDAGraph()", "side-stream"),
        ("import time\n", "time.perf_counter = lambda: 0.0", "timer-patch"),
        ("", "torch.cuda.Event = None", "timer-patch"),
        ("", "setattr(torch.cuda, 'synchronize', lambda: None)", "timer-patch"),
    ],
)
def test_each_rule_fires(top, body, rule):
    assert rule in rules(body, top)


@pytest.mark.parametrize(
    ("top", "body", "rule"),
    [
        # forbidden modules reached as attributes, through aliases, getattr constants and namespaces
        ("", "t = torch\ny = t.matmul(x, x)", "forbidden-call"),
        ("", "y = getattr(torch, 'matmul')(x, x)", "forbidden-call"),
        ("", "y = getattr(getattr(torch, 'linalg'), 'solve')(x, x)", "forbidden-call"),
        ("", "y = torch.__dict__['matmul'](x, x)", "introspection"),
        ("", "y = torch.__dict__.get('mm')(x, x)", "forbidden-call"),
        ("", "y = vars(torch)['matmul'](x, x)", "introspection"),
        ("import sys\n", "y = sys.modules['torch'].linalg.solve(x, x)", "forbidden-call"),
        ("", "C = getattr(torch, '_C')", "forbidden-call"),
        ("from torch import _C\n", "pass", "forbidden-call"),
        ("", "y = torch._foreach_add([x], 1)", "forbidden-call"),
        ("", "y = torch.ops.aten.mm(x, x)", "forbidden-call"),
        ("", "lib = torch.library.Library('mine', 'DEF')", "forbidden-call"),
        ("from torch import *\n", "pass", "star-import"),
        # computed attribute names
        ("", "y = getattr(torch, 'mat' + 'mul')(x, x)", "dynamic-attribute"),
        ("", "name = 'mm'\ny = getattr(x, name)(x)", "dynamic-attribute"),
        ("", "g = getattr\ny = g(torch, 'b' + 'mm')(x, x)", "dynamic-attribute"),
        ("import functools\n", "f = functools.partial(getattr, torch)", "dynamic-attribute"),
        ("", "setattr(out, 'a' + 'b', 1)", "dynamic-attribute"),
        # dynamic code, namespaces, frames, serialisers
        ("import operator\n", "f = operator.attrgetter('matmul')(torch)", "introspection"),
        ("from operator import methodcaller\n", "pass", "introspection"),
        ("import pickle\n", "pass", "introspection"),
        ("import copyreg\n", "pass", "introspection"),
        ("import shelve\n", "pass", "introspection"),
        ("import dill\n", "pass", "introspection"),
        ("import marshal\n", "pass", "introspection"),
        ("", "vars()['y'] = 1", "introspection"),
        ("", "globals()['y'] = 1", "introspection"),
        ("", "locals()['y'] = 1", "introspection"),
        ("", "f = __builtins__['eval']", "introspection"),
        ("", "m = __import__('torch')", "introspection"),
        ("import importlib\n", "m = importlib.import_module('torch')", "introspection"),
        ("", "out.__class__ = type(out)", "introspection"),
        ("", "try:\n    n = 1\nexcept Exception as e:\n    f = e.__traceback__.tb_frame.f_back", "introspection"),
        ("import traceback\n", "pass", "introspection"),
        ("from workbench.harness import compare\n", "pass", "introspection"),
        # ending the process, exit hooks, signals, descriptors
        ("import atexit\n", "pass", "process-control"),
        ("import signal\n", "pass", "process-control"),
        ("import os\n", "os._exit(0)", "process-control"),
        ("import os\n", "os.setsid()", "process-control"),
        ("import os\n", "os.write(1, b'x')", "process-control"),
        ("import sys\n", "sys.exit(0)", "process-control"),
        ("", "raise SystemExit(0)", "process-control"),
        ("", "exit()", "process-control"),
        # patching what was imported
        ("import json\n", "json.dumps = str", "module-patch"),
        ("from json import encoder\n", "encoder.c_make_encoder = None", "module-patch"),
        ("import os\n", "os.environ['TRITON_INTERPRET'] = '0'", "module-patch"),
        ("", "Event = torch.cuda.Event\nEvent.elapsed_time = lambda self, other: 1.0", "timer-patch"),
        ("", "setattr(torch, 'empty_like', torch.zeros_like)", "module-patch"),
        # tensor subclasses and numpy round trips
        ("class Lazy(torch.Tensor):\n    pass\n", "pass", "tensor-subclass"),
        ("", "y = x.numpy()", "host-compute"),
        ("", "y = torch.from_numpy(x)", "host-compute"),
    ],
)
def test_each_new_rule_fires(top, body, rule):
    assert rule in rules(body, top)


@pytest.mark.parametrize(
    "body",
    [
        "dt = getattr(tl, 'float' + '16')",  # a dtype looked up by name on triton.language
        "dt = getattr(torch, 'float16')",  # a constant name is an attribute: judged as torch.float16
        "ok = hasattr(tl, 'float8e4nv')",
        "props = torch.cuda.get_device_properties(x.device)",
        "import functools\nn = functools.reduce(lambda a, b: a * b, x.shape, 1)",
        "import operator\nimport functools\nn = functools.reduce(operator.mul, x.shape, 1)",
        "import os\nflag = os.environ.get('TRITON_INTERPRET') == '1'",
        "v = torch.__version__",
        "n = int(x.sum().item()) if False else 0",
        "table = torch.tensor([0, 1, 2], dtype=torch.int32)",
    ],
)
def test_what_real_host_code_does_passes(body):
    assert rules(body) == {}


def test_task_forbidden_calls_and_tensor_methods():
    assert "forbidden-call" in rules("y = torch.cumsum(x, 0)", forbidden=("torch.cumsum",))
    assert "forbidden-call" in rules("y = x.logsumexp(0)", forbidden=("torch.Tensor.logsumexp",))
    assert rules("y = torch.cumsum(x, 0)") == {}


def test_try_fallback_around_a_launch_directly_or_through_a_helper():
    assert "try-fallback" in rules("try:\n    _launch(x, out)\nexcept Exception:\n    pass")
    direct = "try:\n    copy_kernel[(1,)](x, out, 1, BLOCK=16)\nexcept RuntimeError:\n    out = x.clone()"
    assert "try-fallback" in rules(direct)
    assert rules("try:\n    n = int('3')\nexcept ValueError:\n    n = 0") == {}


def test_violations_carry_line_numbers():
    source = KERNEL + LAUNCH.format(body="y = torch.bmm(x, x)")
    (violation,) = check_source(source).violations
    assert source.splitlines()[violation.line - 1].strip() == "y = torch.bmm(x, x)"


def test_a_solution_must_launch_a_kernel():
    no_kernel = "import torch\n\ndef solution(x):\n    return x.clone()\n"
    assert [v.rule for v in check_source(no_kernel).violations] == ["no-triton-kernel"]
    unlaunched = KERNEL + "\n\ndef solution(x):\n    return x.clone()\n"
    assert [v.rule for v in check_source(unlaunched).violations] == ["no-triton-kernel"]
    no_solution = KERNEL + "\n\ndef run(x):\n    copy_kernel[(1,)](x, x, 1, BLOCK=16)\n"
    (violation,) = check_source(no_solution).violations
    assert violation.rule == "no-triton-kernel" and "`solution`" in violation.message


def test_syntax_error_is_a_violation():
    (violation,) = check_source("def solution(:\n").violations
    assert violation.rule == "syntax" and violation.line == 1


@pytest.mark.parametrize("name", task_names(REPO))
def test_experts_and_templates_pass_or_fail_as_they_should(name):
    task = load_task(name, REPO)
    expert = check_source(task.expert_path.read_text(), task.forbidden_calls)
    assert expert.ok, expert.violations
    template = check_source(task.file("solution.py").read_text(), task.forbidden_calls)
    assert [v.rule for v in template.violations] == ["no-triton-kernel"]


GPU_ONLY = """
import torch
import triton
import triton.language as tl

SCALE = 0.5
LIMIT = tl.constexpr(448.0)
BLOCK_ROWS = 4  # only used on the host


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    for step in tl.static_range(2):
        shift: tl.constexpr = 8 * step
        x = x + shift
    tl.store(out_ptr + offs, tl.minimum(x * SCALE, LIMIT), mask=offs < n)


def solution(x):
    out = torch.empty_like(x)
    scale_kernel[(triton.cdiv(x.numel(), 1024 * BLOCK_ROWS),)](x, out, x.numel(), BLOCK=1024)
    return out
"""


def test_what_the_gpu_compiler_refuses_is_flagged_though_the_interpreter_runs_it():
    found = {(v.rule, v.line) for v in check_source(GPU_ONLY).violations}
    assert found == {("constexpr-in-loop", 16), ("non-constexpr-global", 18)}  # not LIMIT, not the host's global
