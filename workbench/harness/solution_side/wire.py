"""The frames that cross between the checker (trusted) and the solution's worker (untrusted), one format for both.

A frame is an 8-byte big-endian length, a JSON header of that length, then the raw bytes of the tensors the header
lists (`"tensors": [{"dtype", "shape", "device"}...]`). Nothing is pickled, evaluated or imported: the receiving side
checks every field it reads, so a worker that writes garbage can only end its own workload. Tensors travel as copies.

A tensor's bytes either follow the header on the socket or, when the checker gave the worker a shared area (a
sealed memory file both map, pinned for the GPU's copy engines where CUDA is there), lie in the area at the
`"offset"` its entry names: 50 GB/s on the H200 host against the socket's 0.55 (2026-12-01). The receiver copies
them out at once, so what the worker writes into the area afterwards changes nothing it already received.
"""

from __future__ import annotations

import fcntl
import json
import math
import mmap
import os
import socket
from typing import Any

import torch

MAX_HEADER = 1 << 20  # a header is a few hundred bytes; anything near this is garbage
MAX_PAYLOAD = 64 << 30  # more than any workload's outputs
AREA_BYTES = 16 << 30  # the shared area's size: sparse, only what a transfer writes takes memory
INTERPRET_AREA_BYTES = 2 << 30  # in interpret mode, whose worker's address space is bounded (worker_limits)
PIN_STEP = 64 << 20  # the area is pinned for CUDA in doubling spans from this size, as transfers need it
ALIGN = 4096

DTYPES: dict[str, torch.dtype] = {
    name: getattr(torch, name)
    for name in (
        "float64",
        "float32",
        "float16",
        "bfloat16",
        "float8_e4m3fn",
        "float8_e5m2",
        "float8_e4m3fnuz",
        "float8_e5m2fnuz",
        "int64",
        "int32",
        "int16",
        "int8",
        "uint8",
        "bool",
        "complex64",
        "complex128",
    )  # fmt: skip
    if hasattr(torch, name)
}


class ProtocolError(RuntimeError):
    """A frame that does not follow the format: the peer is broken or lying."""


class PeerClosed(ConnectionError):
    """The other side closed the connection (it exited or died)."""


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def describe(t: torch.Tensor) -> dict[str, Any]:
    return {"dtype": dtype_name(t.dtype), "shape": list(t.shape), "device": t.device.type}


class SharedArea:
    """A memory file the checker makes and both processes map. Sealed against shrinking (a worker that truncated it
    would fault the checker's reads) and growing; pinned lazily on each side for fast copies to and from the GPU."""

    def __init__(self, fd: int, size: int) -> None:
        self.fd, self.size = fd, size
        self.map = mmap.mmap(fd, size)
        self.bytes = torch.frombuffer(self.map, dtype=torch.uint8)
        self.pinned = 0

    @classmethod
    def create(cls, size: int = AREA_BYTES) -> SharedArea | None:
        """A new area, or None where memory files or sealing are missing (the socket carries everything then)."""
        try:
            fd = os.memfd_create("workbench-transfer", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        except (AttributeError, OSError):
            return None
        try:
            os.ftruncate(fd, size)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
            return cls(fd, size)
        except (AttributeError, OSError, ValueError):
            os.close(fd)
            return None

    def span(self, offset: int, nbytes: int) -> torch.Tensor:
        self._pin(offset + nbytes)
        return self.bytes[offset : offset + nbytes]

    def _pin(self, end: int) -> None:
        """Page-lock the area's first bytes up to `end` (rounded up) for the GPU's copy engines; unpinned memory is
        copied ~8x slower, which is all that a failure here costs."""
        if end <= self.pinned or not torch.cuda.is_available():
            return
        cudart = torch.cuda.cudart()
        size = max(PIN_STEP, self.pinned * 2)
        while size < end:
            size *= 2
        size = min(size, self.size)
        base = self.bytes.data_ptr()
        if self.pinned:
            cudart.cudaHostUnregister(base)
            self.pinned = 0
        if int(cudart.cudaHostRegister(base, size, 0)) == 0:
            self.pinned = size

    def close(self) -> None:
        if self.pinned:
            torch.cuda.cudart().cudaHostUnregister(self.bytes.data_ptr())
            self.pinned = 0
        del self.bytes
        try:
            self.map.close()
        except BufferError:  # a view of it is still alive somewhere; the mapping goes with the process
            pass
        os.close(self.fd)


def send(
    sock: socket.socket, header: dict[str, Any], tensors: tuple[torch.Tensor, ...] = (), area: SharedArea | None = None
) -> None:
    """Send one frame; tensors are copied to host memory first (the caller has synchronised the device), into the
    shared area when there is one and they fit, else after the header on the socket."""
    blobs = []
    metas = [describe(t) for t in tensors]
    flat = [t.detach().contiguous().reshape(-1).view(torch.uint8) for t in tensors]
    offsets = _layout([t.numel() for t in flat])
    if area is not None and (not flat or offsets[-1] + flat[-1].numel() <= area.size):
        for t, meta, offset in zip(flat, metas, offsets):
            if t.numel():
                area.span(offset, t.numel()).copy_(t)  # (a copy from the GPU into host memory returns once done)
            meta["offset"] = offset
    else:
        blobs = [t.cpu().numpy() if t.numel() else b"" for t in flat]
    body = json.dumps({**header, "tensors": metas}, allow_nan=True).encode()
    sock.sendall(len(body).to_bytes(8, "big") + body)
    for blob in blobs:
        if len(blob):
            sock.sendall(memoryview(blob))  # type: ignore[arg-type]


def _layout(sizes: list[int]) -> list[int]:
    offsets, at = [], 0
    for n in sizes:
        offsets.append(at)
        at += -(-n // ALIGN) * ALIGN
    return offsets


def receive(
    sock: socket.socket, device: torch.device | None = None, area: SharedArea | None = None
) -> tuple[dict[str, Any], list[torch.Tensor]]:
    """Read one frame; returns its header and its tensors (on `device`, else on the host), copied out of the shared
    area at once where the entries name offsets. Raises ProtocolError on anything malformed and PeerClosed at the
    end of the stream."""
    size = int.from_bytes(_read_exactly(sock, 8), "big")
    if size > MAX_HEADER:
        raise ProtocolError(f"a header of {size} bytes")
    try:
        header = json.loads(_read_exactly(sock, size))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"a header that is not JSON ({exc})") from None
    if not isinstance(header, dict):
        raise ProtocolError("a header that is not an object")
    metas = header.pop("tensors", [])
    if not isinstance(metas, list):
        raise ProtocolError("tensors is not a list")
    shapes = [_checked_meta(m) for m in metas]
    if sum(_nbytes(dtype, shape) for dtype, shape in shapes) > MAX_PAYLOAD:
        raise ProtocolError("a payload larger than any output")
    placed = [m.get("offset") for m in metas]
    if any(p is not None for p in placed):
        if area is None or any(type(p) is not int for p in placed):
            raise ProtocolError("tensors placed in a shared area the receiver does not have")
        tensors = [_copy_out(area, dtype, shape, p, device) for (dtype, shape), p in zip(shapes, placed)]
        if tensors and device is not None and device.type == "cuda":
            torch.cuda.synchronize()  # the copies out of the area are done before the worker may write it again
        return header, tensors
    tensors = [_read_tensor(sock, dtype, shape, device) for dtype, shape in shapes]
    return header, tensors


def _copy_out(
    area: SharedArea, dtype: torch.dtype, shape: list[int], offset: int, device: torch.device | None
) -> torch.Tensor:
    nbytes = _nbytes(dtype, shape)
    if offset < 0 or offset % ALIGN or offset + nbytes > area.size:
        raise ProtocolError(f"a tensor at offset {offset} of {nbytes} bytes, outside the shared area")
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype, device=device or "cpu")
    span = area.span(offset, nbytes)
    if device is not None and device.type == "cuda":
        copy = torch.empty(nbytes, dtype=torch.uint8, device=device)
        copy.copy_(span, non_blocking=area.pinned >= offset + nbytes)
    else:
        copy = span.clone()
    return copy.view(dtype).reshape(shape)


def _checked_meta(meta: Any) -> tuple[torch.dtype, list[int]]:
    if not isinstance(meta, dict) or meta.get("dtype") not in DTYPES:
        raise ProtocolError(f"a tensor of unknown dtype: {str(meta)[:100]}")
    shape = meta.get("shape")
    if not isinstance(shape, list) or len(shape) > 16 or not all(type(d) is int and 0 <= d < 1 << 40 for d in shape):
        raise ProtocolError(f"a tensor of bad shape: {str(shape)[:100]}")
    return DTYPES[meta["dtype"]], shape


def _nbytes(dtype: torch.dtype, shape: list[int]) -> int:
    return math.prod(shape) * torch.empty((), dtype=dtype).element_size()


def _read_tensor(
    sock: socket.socket, dtype: torch.dtype, shape: list[int], device: torch.device | None
) -> torch.Tensor:
    nbytes = _nbytes(dtype, shape)
    if nbytes == 0:
        return torch.empty(shape, dtype=dtype, device=device or "cpu")
    buffer = bytearray(nbytes)
    view = memoryview(buffer)
    got = 0
    while got < nbytes:
        n = sock.recv_into(view[got:], min(nbytes - got, 1 << 24))
        if n == 0:
            raise PeerClosed("the peer closed the connection mid-tensor")
        got += n
    tensor = torch.frombuffer(buffer, dtype=torch.uint8).view(dtype).reshape(shape)
    return tensor.to(device) if device is not None else tensor


def _read_exactly(sock: socket.socket, n: int) -> bytes:
    chunks, got = [], 0
    while got < n:
        chunk = sock.recv(min(n - got, 1 << 20))
        if not chunk:
            raise PeerClosed("the peer closed the connection")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)
