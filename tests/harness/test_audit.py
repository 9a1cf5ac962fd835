"""The audit hook in a child process (it cannot be removed): what a solution's code is refused, that every refusal
is recorded even when the solution swallows it, and that torch and Triton still work under it."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

WORKER = """
import json, sys, time
sys.path.insert(0, {repo!r})
import torch, triton
from workbench.harness.solution_side import audit, guard
config = {{"readable": [{eval!r}], "writable": [{eval!r}, "/tmp"], "worker_dirs": [{worker!r}]}}
policy = audit.policy_from_config(config)
capability = audit.install(policy)
sys.path.insert(0, {eval!r})
import solution
results = {{}}
for name in sorted(n for n in dir(solution) if n.startswith("attempt_")):
    before = len(capability.refusals())
    try:
        outcome = repr(getattr(solution, name)())
    except BaseException as exc:
        outcome = audit.describe_exception(exc, "solution.py")
    results[name] = {{"outcome": outcome, "recorded": capability.refusals()[before:]}}
with capability.trusted():
    results["violations"] = list(capability.violations())
print("RESULTS" + json.dumps(results))
"""


def run_solution(tmp_path: Path, source: str, env: dict[str, str] | None = None) -> dict:
    """Run `attempt_*` functions of a solution under the installed hook; their outcomes and what was recorded."""
    worker_dir, eval_dir = tmp_path / "worker", tmp_path / "eval"
    worker_dir.mkdir()
    eval_dir.mkdir()
    (eval_dir / "solution.py").write_text(textwrap.dedent(source))
    script = worker_dir / "worker.py"
    script.write_text(WORKER.format(repo=str(REPO), eval=str(eval_dir), worker=str(worker_dir)))
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})}
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("RESULTS")]
    assert lines, proc.stderr[-3000:]
    return json.loads(lines[-1][len("RESULTS") :])


ATTEMPTS = {
    "read_outside": "open('/proc/1/environ').read()",
    "proc_self_mem": "open('/proc/self/mem', 'rb')",
    "symlink_out": "os.symlink('/etc/hostname', EVAL + '/link') or open(EVAL + '/link').read()",
    "write_outside": "open('/root/owned', 'w')",
    "getframe": "sys._getframe(1).f_locals",
    "current_frames": "sys._current_frames()",
    "tb_frame": "(lambda e: e.__traceback__.tb_frame)(_raise())",
    "gc_objects": "gc.get_objects()",
    "gc_referrers": "gc.get_referrers(sys)",
    "settrace": "sys.settrace(lambda *a: None)",
    "thread": "threading.Thread(target=print).start()",
    "fork": "os.fork()",
    "system": "os.system('true')",
    "popen": "subprocess.run(['true'])",
    "kill": "os.kill(os.getppid(), 0)",
    "killpg": "os.killpg(os.getpgid(0), 0)",
    "setsid": "os.setsid()",
    "signal": "__import__('signal').signal(10, print)",
    "socket": "socket.socket()",
    "import_harness": "__import__('workbench.harness.compare')",
    "import_reference": "__import__('reference')",
    "import_kernel_library": "__import__('cupy')",  # refused before it is looked for: installed or not
    "import_raw_cuda_api": "__import__('cuda.bindings.driver')",
    "ctypes_read": "__import__('ctypes').string_at(id(1), 8)",
    "ctypes_memmove": "__import__('ctypes').memmove(0, 0, 0)",
    "exec_string": "exec('x = 1')",
    "eval_string": "eval('1 + 1')",
    "marshal_code": "marshal.loads(marshal.dumps(compile('1', 's', 'eval')))",
    "pickle_global": "pickle.loads(b'cos\\nsystem\\n.')",
    "second_hook": "sys.addaudithook(lambda *a: None)",  # Python suppresses the error but adds no hook
    "set_code": "setattr(_raise, '__code__', (lambda: 1).__code__)",
    "trusted_from_solution": "sys.modules['__main__'].capability.trusted().__enter__()",
}


def _solution_with(attempts: dict[str, str]) -> str:
    body = [
        "import os, sys, gc, socket, subprocess, threading, marshal, pickle",
        f"EVAL = {os.path.dirname('x')!r} or os.path.dirname(os.path.abspath(__file__))",
        "def _raise():",
        "    try:",
        "        1 / 0",
        "    except ZeroDivisionError as e:",
        "        return e",
    ]
    for name, code in attempts.items():
        body += [f"def attempt_{name}():", "    try:", f"        {code}", "    except PermissionError as e:"]
        body += ["        return 'swallowed'", "    return 'not refused'"]
    return "\n".join(body) + "\n"


def test_each_refused_thing_is_refused_and_recorded_when_swallowed(tmp_path):
    results = run_solution(tmp_path, _solution_with(ATTEMPTS))
    for name in ATTEMPTS:
        got = results[f"attempt_{name}"]
        assert got["recorded"], (name, got)
        assert got["outcome"] == "'swallowed'" or name == "second_hook", (name, got)


def test_allowed_things_still_work_under_the_hook(tmp_path):
    source = _solution_with({}) + textwrap.dedent(
        """
        import dataclasses, collections, logging, torch
        @dataclasses.dataclass
        class Point:
            x: int
        def attempt_own_files():
            open(os.path.join(EVAL, 'scratch.txt'), 'w').write('ok')
            return open(os.path.join(EVAL, 'scratch.txt')).read()
        def attempt_dataclass_namedtuple_logging():
            logging.getLogger('solution').warning('hello')
            return Point(1).x + collections.namedtuple('P', 'a b')(1, 2).b
        def attempt_lazy_torch_imports():
            torch.testing.assert_close(torch.ones(3), torch.ones(3))
            return torch.cuda.is_available() in (True, False)
        def attempt_error_names_the_line():
            return 1 / 0
        """
    )
    results = run_solution(tmp_path, source)
    assert results["attempt_own_files"] == {"outcome": "'ok'", "recorded": []}
    assert results["attempt_dataclass_namedtuple_logging"] == {"outcome": "3", "recorded": []}
    assert results["attempt_lazy_torch_imports"] == {"outcome": "True", "recorded": []}
    assert "ZeroDivisionError" in results["attempt_error_names_the_line"]["outcome"]
    assert "solution.py:" in results["attempt_error_names_the_line"]["outcome"]


def test_triton_interprets_a_kernel_under_the_hook(tmp_path):
    source = textwrap.dedent(
        """
        import torch, triton, triton.language as tl
        @triton.jit
        def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
        def attempt_launch():
            x = torch.arange(100, dtype=torch.float32)
            y = torch.empty_like(x)
            double[(4,)](x, y, 100, BLOCK=32)
            return bool((y == 2 * x).all())
        def attempt_build_tools_directly():
            from triton.runtime import build
            try:
                build.subprocess.check_call(['gcc', '--version'])
            except PermissionError:
                return 'swallowed'
        """
    )
    results = run_solution(tmp_path, source, env={"TRITON_INTERPRET": "1"})
    assert results["attempt_launch"] == {"outcome": "True", "recorded": []}
    assert results["attempt_build_tools_directly"]["outcome"] == "'swallowed'"


def test_guard_violations_are_recorded_by_the_hook(tmp_path):
    source = textwrap.dedent(
        """
        import torch
        from solution_side_absent import *  # noqa
        """
    ).replace("from solution_side_absent import *  # noqa\n", "") + textwrap.dedent(
        """
        import sys
        def attempt_swallowed_violation():
            guard = sys.modules['workbench.harness.solution_side.guard']
            g = guard.SolutionGuard({}, ())
            try:
                with g:
                    try:
                        torch.ones(2) + 1
                    except guard.ForbiddenCall:
                        pass
            except guard.ForbiddenCall:
                pass
            g._violations.clear()  # erasing the guard's own copy does not erase the hook's
            return len(g.violations)
        """
    )
    results = run_solution(tmp_path, source)
    assert results["attempt_swallowed_violation"]["outcome"] == "0"
    assert any("aten.add" in v for v in results["violations"])


def test_the_runtime_refuses_every_kernel_library_the_static_rules_flag_but_numpy():
    """The static rules are a speed bump; a library the source may not name must not import at run time either."""
    from workbench.harness.solution_side.audit_rules import DEFAULT_FORBIDDEN_MODULES, module_forbidden
    from workbench.harness.static.lists import KERNEL_LIBRARIES

    missing = [m for m in KERNEL_LIBRARIES if m != "numpy" and not module_forbidden(m, DEFAULT_FORBIDDEN_MODULES)]
    assert not missing, f"importable at run time: {missing}"
    assert module_forbidden("cupyx.scipy", DEFAULT_FORBIDDEN_MODULES) and module_forbidden(
        "cuda.bindings", DEFAULT_FORBIDDEN_MODULES
    )


def test_a_compile_error_names_the_kernels_line_and_the_launch(tmp_path):
    """Compiled for a GPU, a kernel's body never runs as Python, so no traceback frame holds its line: the error names
    it from Triton's CompilationError (its node's line, placed by the kernel's `def`), and the launch beside it."""
    import importlib.util

    from workbench.harness.solution_side.audit import describe_exception

    path = tmp_path / "solution.py"
    path.write_text(
        textwrap.dedent(
            """
            import triton, triton.language as tl
            from triton.backends.compiler import GPUTarget
            from triton.compiler import ASTSource


            @triton.jit
            def scale_kernel(x_ptr, n):
                offs = tl.arange(0, 3)
                tl.store(x_ptr + offs, offs, mask=offs < n)


            def solution():
                source = ASTSource(fn=scale_kernel, signature={"x_ptr": "*fp32", "n": "i32"}, constexprs={})
                return triton.compile(source, target=GPUTarget("cuda", 90, 32))
            """
        )
    )
    spec = importlib.util.spec_from_file_location("compile_error_solution", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        module.solution()
    except Exception as exc:  # noqa: BLE001 - the error is what is described
        described = describe_exception(exc, "solution.py")
    assert described == (
        "CompilationError: arange's range must be a power of 2 (solution.py:9 in scale_kernel: offs = tl.arange(0, 3);"
        " launched at solution.py:15 in solution)"
    )


def test_only_tritons_own_compile_step_on_the_launch_path_may_trim_a_tracebacks_frames():
    from workbench.harness.solution_side.audit_rules import PACKAGE, SOLUTION, Stack, introspection_allowed

    compiler = "/site-packages/triton/compiler/compiler.py"
    launched = Stack(PACKAGE, compiler, PACKAGE, has_solution=True, compiler_path=True, in_import=False)
    assert introspection_allowed(launched)
    # the solution calling triton.compile (or its traceback filter) itself: no launch path between it and the read
    called_directly = Stack(PACKAGE, compiler, PACKAGE, has_solution=True, compiler_path=False, in_import=False)
    assert not introspection_allowed(called_directly)
    other_file = Stack(PACKAGE, "/site-packages/triton/runtime/jit.py", PACKAGE, True, True, False)
    assert not introspection_allowed(other_file)
    assert not introspection_allowed(Stack(SOLUTION, "/eval/solution.py", SOLUTION, True, True, False))
