"""What the static rules forbid, as dotted-name prefixes resolved through a solution's imports and aliases."""

from __future__ import annotations

# Calls that hand the work to cuBLAS/cuDNN or a compiler instead of a Triton kernel.
DEFAULT_FORBIDDEN_CALLS = (
    "torch.matmul", "torch.mm", "torch.bmm", "torch.addmm", "torch.addbmm", "torch.baddbmm", "torch.addmv",
    "torch.addr", "torch.mv", "torch.dot", "torch.vdot", "torch.inner", "torch.outer", "torch.ger",
    "torch.einsum", "torch.tensordot", "torch.chain_matmul", "torch.kron", "torch.cdist", "torch.linalg",
    "torch.conv1d", "torch.conv2d", "torch.conv3d", "torch.conv_transpose1d", "torch.conv_transpose2d",
    "torch.conv_transpose3d", "torch.cudnn_convolution", "torch._scaled_mm", "torch.nn", "torch.nn.functional",
    "torch.compile",
    "torch.jit", "torch.ops", "torch._C", "torch._dynamo", "torch._inductor", "torch.library",
    "torch.backends", "torch.utils.cpp_extension", "torch.utils.dlpack", "torch.overrides",
    "torch.utils._python_dispatch", "torch.Tensor.matmul", "torch.Tensor.mm", "torch.Tensor.bmm",
    "torch.Tensor.addmm", "torch.Tensor.baddbmm", "torch.Tensor.mv", "torch.Tensor.dot", "torch.Tensor.inner",
    "torch.Tensor.outer", "torch.Tensor.__matmul__", "torch.Tensor.__rmatmul__",
    "torch.multiprocessing", "torch.distributed", "torch.func", "torch.fx", "torch.export", "torch.hub",
    "torch.classes",
)  # fmt: skip

KERNEL_LIBRARIES = (
    "flash_attn", "xformers", "apex", "liger_kernel", "cupy", "numba", "tilelang", "cutlass", "cuda", "pycuda",
    "transformer_engine", "bitsandbytes", "deep_gemm", "flashinfer", "vllm", "sglang", "torchao", "jax",
    "tensorflow", "numpy", "scipy", "thunder", "triton_kernels", "torch_geometric", "torch_scatter",
)  # fmt: skip

CONCURRENCY = (
    "threading", "_thread", "multiprocessing", "concurrent", "subprocess", "asyncio", "pty", "socket",
    "os.system", "os.popen", "os.fork", "os.forkpty", "os.execv", "os.execve", "os.execvp", "os.execl",
    "os.spawnv", "os.spawnl", "os.posix_spawn", "os.posix_spawnp", "os.kill",
)  # fmt: skip

INTROSPECTION = (
    "inspect", "gc", "ctypes", "cffi", "importlib", "builtins", "sys._getframe", "sys.settrace",
    "sys.setprofile", "sys.modules", "sys.meta_path", "types.FrameType", "eval", "exec", "compile",
    "__import__", "globals", "runpy", "marshal", "pickle", "_pickle", "pickletools", "copyreg", "shelve", "dill",
    "cloudpickle", "joblib", "operator.attrgetter", "operator.methodcaller", "vars", "locals", "__builtins__",
    "breakpoint", "traceback", "sys._current_frames", "sys.exc_info", "sys.exception", "sys.last_traceback",
    "sys.addaudithook", "sys.path_hooks", "sys.path_importer_cache", "types.FunctionType", "types.CodeType",
    "types.ModuleType", "code", "codeop", "pdb", "bdb", "faulthandler", "tracemalloc", "weakref", "zipimport",
    "pkgutil", "site", "workbench",
)  # fmt: skip

SIDE_STREAMS = (
    "torch.cuda.Stream", "torch.cuda.stream", "torch.cuda.ExternalStream", "torch.cuda.set_stream",
    "torch.cuda.graph", "torch.cuda.CUDAGraph", "torch.cuda.graphs", "torch.cuda.Event", "torch.Stream",
    "torch.Event", "torch.cuda.streams", "torch.cuda.StreamContext",
)  # fmt: skip

# Ending the process or taking over its signals and descriptors: no kernel needs them, a forged verdict does.
PROCESS_CONTROL = (
    "atexit", "signal", "os._exit", "os.abort", "os.setsid", "os.setpgid", "os.setpgrp", "os.killpg", "os.dup",
    "os.dup2", "os.fdopen", "os.write", "os.open", "os.pipe", "os.closerange", "os.close", "sys.exit", "exit",
    "quit", "resource", "fcntl", "mmap",
)  # fmt: skip

# Host-side round trips that replace a kernel's work with numpy compute: never needed by a kernel.
HOST_ROUND_TRIPS = ("torch.from_numpy", "torch.frombuffer")
# Tensors made from host data: index tables built in Python are common, so only an output made so is flagged.
TENSORS_FROM_DATA = ("torch.tensor", "torch.as_tensor", "torch.asarray", *HOST_ROUND_TRIPS)

# Assignments under these prefixes are reported as timer patches, others as module patches.
TIMERS = ("time", "torch.cuda", "torch.Event", "torch.Stream", "triton.testing")

REFERENCE_MODULES = ("reference",)

# Builtins that a resolved name may start at (their use is a rule above), and those an alias may stand for.
RULE_BUILTINS = frozenset(
    {"eval", "exec", "compile", "__import__", "globals", "vars", "locals", "__builtins__", "breakpoint", "exit", "quit"}
)
DYNAMIC_ATTRIBUTE_BUILTINS = frozenset({"getattr", "setattr", "delattr"})

# Attributes that reach frames, namespaces, class internals or tensor-subclass hooks, on any object.
INTROSPECTIVE_ATTRIBUTES = frozenset(
    {
        "__dict__", "__globals__", "__builtins__", "__subclasses__", "__bases__", "__base__", "__mro__", "__code__",
        "__closure__", "__class__", "__getattribute__", "__reduce__", "__reduce_ex__", "__loader__", "__spec__",
        "__self__", "__func__", "__defaults__", "__kwdefaults__", "__traceback__", "__torch_function__",
        "__torch_dispatch__", "__wrapped__", "__setattr__", "__delattr__", "__import__",
        "tb_frame", "tb_next", "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "gi_frame", "cr_frame",
        "ag_frame", "co_code", "co_consts",
    }
)  # fmt: skip

MATMUL_METHODS = frozenset({"matmul", "mm", "bmm", "addmm", "baddbmm", "mv", "dot", "inner", "outer", "__matmul__"})
