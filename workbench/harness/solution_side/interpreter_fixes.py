"""Fixes for Triton's CPU interpreter (TRITON_INTERPRET=1), so that kernels written for the GPU compute
the GPU's answer in it, on every Triton release we support (3.6 through 3.9).

Each fix probes for the gap it closes and is applied only where the installed Triton has it; `apply()`
returns the names of those applied. A gap that cannot be closed is refused with a precise message
rather than left to produce a wrong answer.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .interpreter_fp8 import fp8_casts_round_to_nearest
from .interpreter_lang import namespace_builtins_and_libdevice

Fix = Callable[[], str | None]


def _interp() -> Any:
    import triton.runtime.interpreter as interpreter

    return interpreter


def _tl() -> Any:
    import triton.language as tl

    return tl


def _handle(values: Any, dtype: Any) -> Any:
    interpreter = _interp()
    return interpreter.TensorHandle(np.asarray(values, dtype=interpreter._get_np_dtype(dtype)), dtype)


def comparisons_typed_int1() -> str | None:
    """A comparison's handle carries its left operand's type (int32, fp32) instead of int1, so a
    comparison broadcast against a block (`(offs < n) & (tile < last)`) is splatted to int32 data,
    which 3.9's load and store refuse ("mask has unsupported dtype") and older ones read as a mask."""
    interpreter, tl = _interp(), _tl()
    builder = interpreter.InterpreterBuilder
    probe = interpreter.interpreter_builder.create_icmpSLT(_handle([1], tl.int32), _handle([2], tl.int32))
    if probe.dtype == tl.int1:
        return None
    for name in [n for n in dir(builder) if n.startswith(("create_icmp", "create_fcmp"))]:
        setattr(builder, name, _returning_int1(getattr(builder, name)))
    return "interpreter: comparisons yield int1 masks"


def _returning_int1(compare: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(compare)
    def typed(self: Any, lhs: Any, rhs: Any) -> Any:
        out = compare(self, lhs, rhs)
        return _interp().TensorHandle(np.asarray(out.data, dtype=np.bool_), _tl().int1)

    return typed


def constexpr_wrapped_tensors() -> str | None:
    """`(FLAG << 32) | value` with a module-level `tl.constexpr` FLAG yields a constexpr wrapping a
    tensor (the constexpr's operator wraps whatever it computes); the compiler treats it as the tensor,
    3.9's interpreter refuses it ("cannot convert ... to tensor")."""
    interpreter, tl = _interp(), _tl()
    semantic = interpreter.interpreter_semantic
    wrapped = tl.constexpr(tl.tensor(_handle([1], tl.int32), tl.int32))
    try:
        semantic.to_tensor(wrapped)
        return None
    except TypeError:
        pass
    original = type(semantic).to_tensor

    @functools.wraps(original)
    def to_tensor(self: Any, x: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(x, tl.constexpr) and isinstance(x.value, tl.tensor):
            x = x.value
        return original(self, x, *args, **kwargs)

    type(semantic).to_tensor = to_tensor
    return "interpreter: a constexpr wrapping a tensor is that tensor"


def _bf16_to_f32(bits: Any) -> Any:
    return (np.asarray(bits).astype(np.uint32) << np.uint32(16)).view(np.float32)


def _f32_to_bf16(values: Any) -> Any:
    """Round to nearest even, as the GPU's cvt.rn.bf16.f32 does; NaN stays a (quiet) NaN."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return np.where(np.isnan(values), np.uint32(0x7FC0), rounded).astype(np.uint16)


def bf16_arithmetic_in_fp32() -> str | None:
    """bf16 values are stored as their uint16 bit patterns, and some releases apply numpy's add,
    multiply and compare to those integers (1.0 + 1.0 comes out as a huge number); the GPU computes
    in fp32 and rounds each result to bf16."""
    interpreter, tl = _interp(), _tl()
    builder = interpreter.InterpreterBuilder
    one = _handle([0x3F80], tl.bfloat16)  # 1.0
    if int(np.asarray(interpreter.interpreter_builder.create_fadd(one, one).data).reshape(-1)[0]) == 0x4000:
        return None
    for name in ("binary_op", "ternary_op", "unary_op"):
        setattr(builder, name, _widening_bf16(getattr(builder, name)))
    return "interpreter: bf16 arithmetic in fp32, rounded to bf16"


def _widening_bf16(op_impl: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(op_impl)
    def widened(self: Any, *args: Any) -> Any:
        interpreter, tl = _interp(), _tl()
        handles, op = args[:-1], args[-1]
        if not any(h.dtype.scalar == tl.bfloat16 for h in handles):
            return op_impl(self, *args)
        wide = [
            interpreter.TensorHandle(_bf16_to_f32(h.data), tl.float32) if h.dtype.scalar == tl.bfloat16 else h
            for h in handles
        ]
        out = op_impl(self, *wide, op)
        if out.data.dtype == np.float32:
            return interpreter.TensorHandle(_f32_to_bf16(out.data), tl.bfloat16)
        return out

    return widened


def bf16_constants() -> str | None:
    """A Python constant combined with a bf16 tensor (`x * 0.5`) needs the builder's `get_bf16`,
    which some releases lack."""
    interpreter, tl = _interp(), _tl()
    if hasattr(interpreter.InterpreterBuilder, "get_bf16"):
        return None

    def get_bf16(self: Any, value: float) -> Any:
        return interpreter.TensorHandle(_f32_to_bf16(np.array([value], dtype=np.float32)), tl.bfloat16)

    interpreter.InterpreterBuilder.get_bf16 = get_bf16
    return "interpreter: bf16 constants"


def float_arguments_as_fp32() -> str | None:
    """The compiler passes a Python float argument as an fp32 scalar (so `eps.to(tl.float32)` works);
    the interpreter passes the bare float, which has no `.to`."""
    interpreter, tl = _interp(), _tl()
    if isinstance(interpreter._implicit_cvt(0.5), tl.tensor):
        return None
    original = interpreter._implicit_cvt

    @functools.wraps(original)
    def implicit_cvt(arg: Any) -> Any:
        if isinstance(arg, float):
            return tl.tensor(_handle([arg], tl.float32), tl.float32)
        return original(arg)

    interpreter._implicit_cvt = implicit_cvt
    return "interpreter: float arguments are fp32 scalars"


def bf16_casts_round_to_nearest() -> str | None:
    """`.to(tl.bfloat16)` truncates fp32 in the interpreter (and reinterprets fp64 or integer values as
    bit patterns); the GPU rounds to nearest even."""
    interpreter, tl = _interp(), _tl()
    builder = interpreter.InterpreterBuilder
    above_half = _handle(np.array([0x3F808001], dtype=np.uint32).view(np.float32), tl.float32)
    if int(interpreter.interpreter_builder.cast_impl(above_half, tl.bfloat16).data[0]) == 0x3F81:
        return None
    original = builder.cast_impl

    @functools.wraps(original)
    def cast_impl(self: Any, src: Any, dst_type: Any) -> Any:
        src_bf16, dst_bf16 = src.dtype.scalar == tl.bfloat16, dst_type.scalar == tl.bfloat16
        if src_bf16 == dst_bf16:
            return original(self, src, dst_type)
        wide = _bf16_to_f32(src.data) if src_bf16 else np.asarray(src.data).astype(np.float32)
        if dst_bf16:
            return interpreter.TensorHandle(_f32_to_bf16(wide), tl.bfloat16)
        return interpreter.TensorHandle(wide.astype(interpreter._get_np_dtype(dst_type)), dst_type.scalar)

    builder.cast_impl = cast_impl
    return "interpreter: casts to bf16 round to nearest even"


def bf16_dot_in_fp32() -> str | None:
    """`tl.dot` on bf16 operands multiplies their raw bit patterns in some releases."""
    interpreter, tl = _interp(), _tl()
    builder = interpreter.InterpreterBuilder
    one = _handle([[0x3F80]], tl.bfloat16)
    acc = _handle([[0.0]], tl.float32)
    if float(interpreter.interpreter_builder.create_dot(one, one, acc, None, 0).data[0, 0]) == 1.0:
        return None
    original = builder.create_dot

    @functools.wraps(original)
    def create_dot(self: Any, a: Any, b: Any, d: Any, *args: Any, **kwargs: Any) -> Any:
        def widened(h: Any) -> Any:
            return interpreter.TensorHandle(_bf16_to_f32(h.data), tl.float32) if h.dtype.scalar == tl.bfloat16 else h

        return original(self, widened(a), widened(b), d, *args, **kwargs)

    builder.create_dot = create_dot
    return "interpreter: bf16 tl.dot in fp32"


def scalar_tensor_index() -> str | None:
    """A scalar tensor used as an index (`range(n)` over a runtime bound) calls `int()` on a
    one-element 1-d array, which numpy 2.4+ refuses."""
    interpreter, tl = _interp(), _tl()
    scope = interpreter._LangPatchScope()
    interpreter._patch_lang_tensor(tl.tensor, scope)
    try:
        range(tl.tensor(_handle([3], tl.int32), tl.int32))
        return None
    except TypeError:
        pass
    finally:
        scope.restore()
    original = interpreter._patch_lang_tensor

    def patch_lang_tensor(tensor: Any, scope: Any) -> None:
        original(tensor, scope)
        scope.set_attr(tensor, "__index__", lambda self: int(np.asarray(self.handle.data).reshape(-1)[0]))

    interpreter._patch_lang_tensor = patch_lang_tensor
    return "interpreter: scalar tensors convert to int under numpy 2.4+"


FIXES: tuple[Fix, ...] = (
    namespace_builtins_and_libdevice,
    fp8_casts_round_to_nearest,
    bf16_dot_in_fp32,
    scalar_tensor_index,
    bf16_casts_round_to_nearest,
    comparisons_typed_int1,
    constexpr_wrapped_tensors,
    bf16_arithmetic_in_fp32,
    bf16_constants,
    float_arguments_as_fp32,
)


def apply() -> list[str]:
    """Apply every fix the installed interpreter needs; returns their names."""
    return [name for fix in FIXES if (name := fix()) is not None]
