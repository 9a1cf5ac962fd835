"""The audit hook's decisions: which code a frame belongs to, and which events each kind of code may raise.

Pure functions of an event, its arguments and the Python stack; the hook in audit.py calls them. A frame is one of:
WORKER (this package: the harness inside the sandbox), STDLIB (Python's own library, frozen importlib), PACKAGE
(site-packages: torch, triton, numpy and what they use) or SOLUTION (anything else: the eval folder, /tmp, code
compiled from a string). The *origin* of an event is the innermost frame that is not STDLIB, since the standard
library acts on behalf of whoever called it.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import sysconfig
from dataclasses import dataclass
from types import FrameType

WORKER, STDLIB, PACKAGE, SOLUTION = "worker", "stdlib", "package", "solution"

# Events refused to everyone but the worker's trusted() block: no legitimate kernel needs them.
ALWAYS_REFUSED = frozenset(
    """
    sys.addaudithook sys._current_frames sys.settrace sys.setprofile sys.remote_exec sys.monitoring.register_callback
    sys.monitoring.use_tool_id sys._enablelegacywindowsfsencoding cpython.PyInterpreterState_New
    os.fork os.forkpty os.system os.exec os.spawn os.kill os.killpg signal.pthread_kill
    resource.setrlimit resource.prlimit _thread.start_new_thread _thread.start_joinable_thread
    os.setsid os.setpgrp os.setpgid signal.signal ctypes.memmove ctypes.memset
    """.split()
)
ALWAYS_REFUSED_PREFIXES = ("socket.", "sys.monitoring")
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.posix_spawn"})
# Events that hand out frames or arbitrary objects; frame attributes CPython audits as object.__getattr__.
INTROSPECTION = frozenset({"sys._getframe", "sys._getframemodulename", "gc.get_objects", "gc.get_referrers"})
INTROSPECTION |= {"gc.get_referents"}
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame", "f_back"})
CODE_EVENTS = frozenset({"exec", "compile", "marshal.loads", "marshal.load", "code.__new__", "function.__new__"})
PATH_WRITE_EVENTS = frozenset(
    "os.remove os.rmdir os.mkdir os.truncate os.chmod os.chown os.utime os.chflags os.lchflags os.rename "
    "os.symlink os.link os.mkfifo os.mknod shutil.copyfile shutil.copymode shutil.copystat shutil.copytree "
    "shutil.move shutil.rmtree shutil.chown".split()
)
PATH_READ_EVENTS = frozenset({"os.listdir", "os.scandir", "glob.glob", "glob.glob/2"})

# Standard-library modules that look at their caller's frame only to name a module or a source line, and generate
# code only from identifiers they validate: a solution may use them (a dataclass, a namedtuple, logging).
_FRAME_NAMING_STDLIB = frozenset({"typing.py", "typing_extensions.py", "enum.py", "warnings.py", "abc.py"})
_FRAME_NAMING_PATHS = ("logging/__init__.py", "collections/__init__.py")
_CODEGEN_STDLIB = frozenset({"dataclasses.py", "typing.py", "enum.py", "ast.py", "abc.py"})
_CODEGEN_PATHS = ("collections/__init__.py", "<frozen importlib._bootstrap>", "<frozen importlib._bootstrap_external>")


HARNESS_MODULES = ("workbench", "reference", "_workbench_*")


DEFAULT_FORBIDDEN_MODULES: tuple[str, ...] = (
    "workbench",
    "reference",
    "_workbench_*",
    "ctypes",
    "_ctypes",
    "cffi",
    "_cffi_backend",
    "_thread",
    "_posixsubprocess",
    "_xxsubinterpreters",
    "_interpreters",
    "_xxinterpchannels",
    "_testcapi",
    "_testinternalcapi",
)
# Libraries with kernels of their own (or a raw CUDA API: streams, launches), refused to the solution's imports at run
# time as the static rules refuse them in its source (harness/static/lists.py KERNEL_LIBRARIES; a test keeps the two
# in step). numpy is left out: torch has imported it already, and its round trips are the runtime guard's.
KERNEL_LIBRARY_MODULES: tuple[str, ...] = (
    "flash_attn", "xformers", "apex", "liger_kernel", "cupy", "cupyx", "numba", "tilelang", "cutlass", "cuda",
    "pycuda", "transformer_engine", "bitsandbytes", "deep_gemm", "flashinfer", "vllm", "sglang", "torchao", "jax",
    "jaxlib", "tensorflow", "scipy", "thunder", "triton_kernels", "torch_geometric", "torch_scatter",
)  # fmt: skip
DEFAULT_FORBIDDEN_MODULES += KERNEL_LIBRARY_MODULES


@dataclass(frozen=True)
class AuditPolicy:
    """What the untrusted process may touch. Paths are made absolute and resolved when the hook is installed."""

    readable: tuple[str, ...]
    writable: tuple[str, ...]
    forbidden_modules: tuple[str, ...] = DEFAULT_FORBIDDEN_MODULES
    allow_compiler: bool = True
    worker_dirs: tuple[str, ...] = ()  # code that counts as the worker's, besides this package
    # writable only from library code (Triton's compiler writes its cache): a file the solution writes there
    # would outlive the eval and reach its next one
    library_writable: tuple[str, ...] = ()


def library_roots() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(standard library dirs, site-packages dirs) of this interpreter, resolved."""
    paths = sysconfig.get_paths()
    stdlib = {os.path.realpath(paths[k]) for k in ("stdlib", "platstdlib")}
    packages = {os.path.realpath(paths[k]) for k in ("purelib", "platlib")}
    packages |= {os.path.realpath(p) for p in sys.path if p.endswith(("site-packages", "dist-packages"))}
    return tuple(sorted(stdlib)), tuple(sorted(packages))


def under(path: str, roots: tuple[str, ...]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class Classifier:
    """Names the kind of code a frame runs; filenames are cached (a code object's filename cannot be changed,
    and making a code object with a chosen filename is itself refused to the solution)."""

    def __init__(self, worker: tuple[str, ...], stdlib: tuple[str, ...], packages: tuple[str, ...]) -> None:
        self._roots = (worker, stdlib, packages)
        self._cache: dict[str, str] = {}

    def kind(self, filename: str) -> str:
        found = self._cache.get(filename)
        if found is None:
            found = self._classify(filename)
            self._cache[filename] = found
        return found

    def _classify(self, filename: str) -> str:
        worker, stdlib, packages = self._roots
        if filename.startswith("<frozen "):
            return STDLIB
        if not filename.startswith("/"):
            return SOLUTION  # <string>, <stdin>, exec'd text
        path = os.path.realpath(filename)
        if under(path, worker):
            return WORKER
        if under(path, packages):  # checked before stdlib: a venv's site-packages may sit under the prefix
            return PACKAGE
        return STDLIB if under(path, stdlib) else SOLUTION


@dataclass(frozen=True)
class Stack:
    """What the hook needs to know about the Python stack at an event."""

    caller_kind: str
    caller_file: str
    origin: str  # kind of the innermost non-stdlib frame (STDLIB when there is none)
    has_solution: bool
    compiler_path: bool  # Triton's JIT or autotuner is on the stack, with no solution frame inside it
    in_import: bool  # a module is being imported, with no solution frame inside the import


def read_stack(frame: FrameType | None, classify: Classifier) -> Stack:
    caller_kind, caller_file, origin = STDLIB, "", ""
    has_solution = compiler_path = in_import = False
    first = True
    while frame is not None:
        filename = frame.f_code.co_filename
        kind = classify.kind(filename)
        if first:
            caller_kind, caller_file, first = kind, filename, False
        if not origin and kind != STDLIB:
            origin = kind
        if kind == SOLUTION:
            has_solution = True
        elif not has_solution and kind == PACKAGE and filename.endswith(_TRITON_LAUNCH_FILES):
            compiler_path = True
        elif not has_solution and filename.startswith("<frozen importlib._bootstrap"):
            in_import = True
        frame = frame.f_back
    return Stack(caller_kind, caller_file, origin or STDLIB, has_solution, compiler_path, in_import)


_TRITON_LAUNCH_FILES = ("triton/runtime/jit.py", "triton/runtime/autotuner.py")
_TRITON_COMPILER_FILE = os.path.join("triton", "compiler", "compiler.py")


def _named(path: str, names: frozenset[str], paths: tuple[str, ...]) -> bool:
    return os.path.basename(path) in names or path.endswith(paths)


def introspection_allowed(stack: Stack) -> bool:
    """Frames and the gc's object lists: the worker and libraries working for it, never the solution (nor a library
    the solution called, which could hand the frames back), but the stdlib modules that only read a module name, and
    libraries' own module bodies while they are imported (torch.library and torch.fx name their caller's module)."""
    if stack.caller_kind == WORKER or stack.origin == WORKER or stack.in_import:
        return True
    if stack.compiler_path and stack.caller_kind == PACKAGE and stack.caller_file.endswith(_TRITON_COMPILER_FILE):
        # Triton's compile step trims its own frames from a CompilationError's traceback (filter_traceback) on the
        # launch path, before the error reaches the solution: refused, a compile error read as "refused" on the H200
        return True
    if stack.caller_kind == STDLIB and _named(stack.caller_file, _FRAME_NAMING_STDLIB, _FRAME_NAMING_PATHS):
        return True
    if stack.caller_kind == PACKAGE and os.path.basename(stack.caller_file) == "typing_extensions.py":
        return True
    return not stack.has_solution


def code_allowed(stack: Stack) -> bool:
    """exec/compile/marshal: libraries generate code for themselves (triton's binder, torch.fx); the solution only
    through importing its own files or the stdlib's validated generators (dataclasses, namedtuple)."""
    if stack.origin in (WORKER, PACKAGE, STDLIB):
        return True
    return stack.caller_kind == STDLIB and _named(stack.caller_file, _CODEGEN_STDLIB, _CODEGEN_PATHS)


def process_allowed(argv0: str, stack: Stack, policy: AuditPolicy) -> bool:
    """A tool Triton runs while launching a kernel (ptxas, the C compiler, what they ask of the system): Triton's
    launch path (JITFunction.run, the autotuner) is on the stack with no solution code between it and the tool, so
    the solution calling Triton's build helpers itself (or from a kernel body the interpreter runs) is refused."""
    # The tool's name is not what is checked: library code on Triton's compile path runs more than the compiler
    # (platform.architecture runs `file` on the H200's Python, ldconfig finds libcuda), and what makes a process
    # safe is that the solution did not choose it, which the stack shows.
    return policy.allow_compiler and stack.compiler_path


def module_forbidden(name: str, patterns: tuple[str, ...]) -> bool:
    top = name.split(".", 1)[0]
    return any(fnmatch.fnmatchcase(name, p) or fnmatch.fnmatchcase(top, p) for p in patterns)
