"""The audit hook of the solution's process: installed before the solution is imported, it cannot be removed.

It refuses what no kernel needs (files outside the eval's roots, frames and the gc's object lists, ctypes, threads,
processes but Triton's compiler tools, signals, sockets, exec of the solution's strings, imports of the harness
and the reference) and records every refusal where the solution cannot erase it: in the closure of the hook, which
nothing in Python can reach without the introspection it refuses. The worker reads the record through the
AuditCapability that install() returns, which it keeps in a local. Speed bump, not the wall: the verdict is
decided in the checker's process.

Events Python 3.11 does not audit are covered by refusing stubs put in place at install: `threading`'s and
`_thread`'s thread starts, `os.setsid` / `setpgrp` / `setpgid`, `signal.signal`, `ctypes.memmove` / `memset`
(re-imports of `_thread` and `ctypes` are refused, so the originals cannot be fetched again).
"""

from __future__ import annotations

import ast
import contextlib
import linecache
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from . import audit_rules as rules
from .audit_rules import AuditPolicy

__all__ = ["AuditCapability", "AuditPolicy", "Refused", "describe_exception", "install", "policy_from_config"]

GUARD_EVENT = "solution_side.guard.violation"  # raised by guard.py; recorded as a violation, never refused
# a function's or object's insides, rebinding which would rewrite the worker's own code or what it captured
FUNCTION_INTERNALS = (
    "__code__",
    "__class__",
    "__defaults__",
    "__kwdefaults__",
    "__globals__",
    "__dict__",
)


class Refused(PermissionError):
    """Raised by the audit hook in the solution's process; the refusal is recorded even if this is caught."""


class AuditCapability:
    """The worker's handle on the installed hook: the records, and trusted() for its own code."""

    def __init__(self, read: Callable[[], tuple[tuple[str, ...], tuple[str, ...]]], trust: Any) -> None:
        self._read = read
        self._trust = trust

    def refusals(self) -> tuple[str, ...]:
        """Everything the hook refused since install, in order, including refusals the solution caught."""
        return self._read()[0]

    def violations(self) -> tuple[str, ...]:
        """Every runtime-guard violation since install (guard.py reports them here as well), swallowed or not."""
        return self._read()[1]

    def trusted(self) -> contextlib.AbstractContextManager[None]:
        """Let the worker's own code in this thread bypass the policy. Only code of this package may enter it, and
        it must call nothing of the solution's inside (a __str__, a __del__ would run trusted too)."""
        return self._trust()  # type: ignore[no-any-return]


def policy_from_config(config: Mapping[str, Any]) -> AuditPolicy:
    """The policy from the worker's JSON config: {"readable": [...], "writable": [...], optional
    "forbidden_modules", "allow_compiler", "worker_dirs"}. The interpreter's own library
    folders and /dev/null are always readable."""
    stdlib, packages = rules.library_roots()
    extra: dict[str, Any] = {}
    for key in ("worker_dirs", "library_writable"):
        if key in config:
            extra[key] = tuple(str(v) for v in config[key])
    # added to the defaults, never instead of them; the worker's own package is the solution's to leave alone
    named = tuple(str(v) for v in config.get("forbidden_modules", ()))
    extra["forbidden_modules"] = rules.DEFAULT_FORBIDDEN_MODULES + named + ("solution_side", "solution_side.*")
    if "allow_compiler" in config:
        extra["allow_compiler"] = bool(config["allow_compiler"])
    readable = tuple(str(p) for p in config.get("readable", ())) + stdlib + packages + ("/dev/null",)
    writable = tuple(str(p) for p in config.get("writable", ())) + ("/dev/null",)
    return AuditPolicy(readable=readable, writable=writable, **extra)


def install(policy: AuditPolicy) -> AuditCapability:
    """Install the hook (once per process: a second call is itself refused) and the stubs for unaudited calls."""
    here = os.path.dirname(os.path.realpath(__file__))
    worker = (here,) + tuple(os.path.realpath(d) for d in policy.worker_dirs)
    stdlib, packages = rules.library_roots()
    classify = rules.Classifier(worker, stdlib, packages)
    readable = tuple(os.path.realpath(p) for p in policy.readable + policy.writable)
    writable = tuple(os.path.realpath(p) for p in policy.writable)
    library_only = tuple(os.path.realpath(p) for p in policy.library_writable)
    refused: list[str] = []
    violations: list[str] = []
    trusted_depth: dict[int, int] = {}
    busy: set[int] = set()  # threads inside the hook: the hook's own frame reads raise events too

    def stack(extra: int = 0) -> rules.Stack:
        return rules.read_stack(sys._getframe(3 + extra), classify)  # skip stack(), decide(), hook() (and helpers)

    def path_refusal(path: object, write: bool) -> str | None:
        if isinstance(path, int):
            return None  # an already open descriptor: opening it again grants nothing new
        try:
            real = os.path.realpath(os.fsdecode(path))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return f"unreadable path {path!r}"
        if write and (not rules.under(real, writable) or rules.under(real, worker)):
            return f"writing {real} (outside the writable roots)"
        if write and library_only and rules.under(real, library_only) and stack(1).origin == rules.SOLUTION:
            return f"writing {real} (Triton's cache: only Triton writes there)"
        if not write and not rules.under(real, readable):
            return f"reading {real} (outside the readable roots)"
        return None

    def decide(event: str, args: tuple[Any, ...]) -> str | None:
        """Why the event is refused, or None."""
        if event in rules.ALWAYS_REFUSED or event.startswith(rules.ALWAYS_REFUSED_PREFIXES):
            return event
        if event == "open":
            mode = args[1] if isinstance(args[1], str) else ""
            flags = args[2] if isinstance(args[2], int) else 0
            write = any(c in mode for c in "wax+") or bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            return path_refusal(args[0], write)
        if event in rules.PATH_READ_EVENTS:
            return path_refusal(args[0], False) if args and args[0] is not None else None
        if event in rules.PATH_WRITE_EVENTS:
            for i, arg in enumerate(args[:2]):
                if isinstance(arg, (str, bytes, os.PathLike)):
                    reason = path_refusal(arg, not (event == "os.link" and i == 0))
                    if reason:
                        return f"{event}: {reason}"
            return None
        if event == "import":
            name = str(args[0])
            if not rules.module_forbidden(name, policy.forbidden_modules):
                return None
            # the harness and the reference to anyone; ctypes and the like to the solution (torch imports them lazily)
            harness = rules.module_forbidden(name, rules.HARNESS_MODULES)
            return f"import {name}" if harness or stack().origin == rules.SOLUTION else None
        if event in rules.PROCESS_EVENTS:
            argv = args[1] if len(args) > 1 and args[1] else [args[0]]
            argv0 = os.fsdecode(argv[0] if isinstance(argv, (list, tuple)) else argv)
            return None if rules.process_allowed(argv0, stack(), policy) else f"{event} {argv0}"
        if event.startswith("ctypes."):
            return event if stack().origin == rules.SOLUTION else None
        if event in rules.INTROSPECTION or (event == "object.__getattr__" and args[1] in rules.FRAME_ATTRIBUTES):
            if classify.kind(sys._getframe(2).f_code.co_filename) == rules.WORKER:
                return None  # the worker reading its caller (the guard, on every launch): no walk of the whole stack
            at = stack()
            what = f"{event} {args[1]}" if event == "object.__getattr__" else event
            return None if rules.introspection_allowed(at) else f"{what} from {os.path.basename(at.caller_file)}"
        if event in rules.CODE_EVENTS:
            return None if rules.code_allowed(stack()) else event
        if event == "pickle.find_class":
            return f"{event} {args[0]}.{args[1]}" if stack().has_solution else None
        if event == "object.__setattr__" and args[1] in FUNCTION_INTERNALS:
            return f"setting {args[1]}" if stack().origin == rules.SOLUTION else None
        return None

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == GUARD_EVENT:
            violations.append(str(args[0]) if args else "")
            return
        me = threading.get_ident()
        if me in busy or trusted_depth.get(me):
            return
        busy.add(me)
        try:
            reason = decide(event, args)
        finally:
            busy.discard(me)
        if reason is not None:
            refused.append(reason)
            raise Refused(f"refused in the solution's process: {reason}")

    @contextlib.contextmanager
    def trust() -> Iterator[None]:
        me = threading.get_ident()
        busy.add(me)
        try:
            caller = classify.kind(sys._getframe(2).f_code.co_filename)  # skip trust(), contextmanager's __enter__
        finally:
            busy.discard(me)
        if caller != rules.WORKER:
            refused.append("trusted() entered from outside the worker")
            raise Refused("trusted() is the worker's alone")
        trusted_depth[me] = trusted_depth.get(me, 0) + 1
        try:
            yield
        finally:
            trusted_depth[me] -= 1

    sys.addaudithook(hook)
    _install_stubs()
    return AuditCapability(lambda: (tuple(refused), tuple(violations)), trust)


def _install_stubs() -> None:
    """Replace calls Python does not audit with stubs that raise an audit event the hook refuses. A stub holds
    only its event's name: nothing in its closure leads to the original or to the hook."""
    import _thread
    import ctypes
    import signal

    def stub(event: str) -> Callable[..., Any]:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            sys.audit(event)  # the hook refuses and records it, unless the worker is trusted()
            raise Refused(f"refused in the solution's process: {event}")

        return refuse

    _thread.start_new_thread = stub("_thread.start_new_thread")
    threading._start_new_thread = _thread.start_new_thread  # type: ignore[attr-defined]
    for name in ("setsid", "setpgrp", "setpgid"):
        if hasattr(os, name):
            setattr(os, name, stub(f"os.{name}"))
    signal.signal = stub("signal.signal")
    ctypes.memmove = stub("ctypes.memmove")  # type: ignore[assignment]
    ctypes.memset = stub("ctypes.memset")  # type: ignore[assignment]


def _plain(value: Any) -> str:
    """A str or int as text without calling anything a solution could have overridden; other types by name."""
    if type(value) is str:
        return value
    if type(value) is int:
        return int.__repr__(value)
    return f"<{type.__dict__['__name__'].__get__(type(value))}>"


def describe_exception(exc: BaseException, solution_name: str) -> str:
    """`Type: message (solution.py:LINE in FUNC: source)`, naming the innermost line of the solution's file. Runs
    none of the solution's code (no __str__, no __repr__), so it is safe under the hook and needs no trusted()."""
    name = type.__dict__["__name__"].__get__(type(exc))
    message = ", ".join(_plain(a) for a in exc.args)
    if isinstance(exc, OSError):  # errno and file name are plain data, and the part of the message that helps
        filename = OSError.__dict__["filename"].__get__(exc)
        message += f" [{_plain(filename)}]" if filename is not None else ""
    outer = _innermost_line(exc, solution_name)
    # Triton raises its own error from the one a kernel's line caused (the interpreter runs a kernel's body as
    # Python): the innermost line of the deepest cause is the kernel's line, the one to name; the launch comes after.
    # Compiled for a GPU, the kernel's body never runs as Python: Triton's CompilationError holds the kernel's source
    # and the AST node at fault instead, and its line in solution.py is found from those.
    chain = _causes(exc)
    compiled = next(filter(None, (_compilation_error(cause, outer) for cause in chain)), None)
    inner: tuple[int, str, str, str] | None
    if compiled is not None:
        name, message, inner = "CompilationError", compiled[0], compiled[1]
    else:
        lines = (_innermost_line(cause, solution_name) for cause in reversed(chain))
        inner = next((found for found in lines if found), None)
    if inner is None and outer is not None:
        inner, outer = outer, None
    where = ""
    if inner is not None:
        where = f" ({solution_name}:{inner[0]} in {inner[1]}: {inner[2]}"
        if outer is not None and outer[:2] != inner[:2]:
            where += f"; launched at {solution_name}:{outer[0]} in {outer[1]}"
        where += ")"
    return f"{name}: {message}{where}"


def _causes(exc: BaseException) -> list[BaseException]:
    """The exception and the ones it was raised from (or during), outermost first, read without running any code."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and len(chain) < 8 and all(current is not seen for seen in chain):
        chain.append(current)
        cause = BaseException.__dict__["__cause__"].__get__(current)
        current = cause if cause is not None else BaseException.__dict__["__context__"].__get__(current)
    return chain


def _innermost_line(exc: BaseException, solution_name: str) -> tuple[int, str, str, str] | None:
    """(line, function, source, file) of the innermost frame of the solution's file in the exception's traceback."""
    found = None
    tb = BaseException.__dict__["__traceback__"].__get__(exc)
    while tb is not None:
        code = tb.tb_frame.f_code
        if os.path.basename(code.co_filename) == solution_name:
            found = (tb.tb_lineno, code.co_name, linecache.getline(code.co_filename, tb.tb_lineno).strip(),
                     code.co_filename)  # fmt: skip
        tb = tb.tb_next
    return found


def _compilation_error(exc: BaseException, launch: tuple[int, str, str, str] | None,
                       ) -> tuple[str, tuple[int, str, str, str]] | None:  # fmt: skip
    """(Triton's message, the kernel's line) of a Triton CompilationError (the class itself, not a look-alike: its
    attributes are then plain data), its node's line placed in the solution's file by the kernel's `def` line."""
    errors = sys.modules.get("triton.compiler.errors")
    if launch is None or errors is None or type(exc) is not getattr(errors, "CompilationError", None):
        return None
    src, node, message = exc.__dict__.get("src"), exc.__dict__.get("node"), exc.__dict__.get("error_message")
    lineno = getattr(node, "lineno", None) if isinstance(node, ast.AST) else None
    if type(src) is not str or type(lineno) is not int:
        return None
    src_lines = src.splitlines()
    src_def = next((i for i, line in enumerate(src_lines) if _DEF.match(line)), None)
    if src_def is None:
        return None
    kernel = _DEF.match(src_lines[src_def]).group(1)  # type: ignore[union-attr]
    file_lines = linecache.getlines(launch[3])
    file_def = next((i for i, line in enumerate(file_lines) if (m := _DEF.match(line)) and m.group(1) == kernel), None)
    text = _plain(message) if message is not None else "compilation failed"
    if file_def is None:
        return text, launch
    line = file_def + (lineno - 1 - src_def) + 1
    source = file_lines[line - 1].strip() if 0 < line <= len(file_lines) else ""
    return text, (line, kernel, source, launch[3])


_DEF = re.compile(r"\s*def\s+(\w+)\s*\(")
