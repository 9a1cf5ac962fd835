"""The frames that cross between the checker (trusted) and the solution's worker (untrusted), one format for both.

A frame is an 8-byte big-endian length, a JSON header of that length, then the raw bytes of the tensors the header
lists (`"tensors": [{"dtype", "shape", "device"}...]`). Nothing is pickled, evaluated or imported: the receiving side
checks every field it reads, so a worker that writes garbage can only end its own workload. Tensors travel as copies.
"""

from __future__ import annotations

import json
import math
import socket
from typing import Any

import torch

MAX_HEADER = 1 << 20  # a header is a few hundred bytes; anything near this is garbage
MAX_PAYLOAD = 64 << 30  # more than any workload's outputs

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


def send(sock: socket.socket, header: dict[str, Any], tensors: tuple[torch.Tensor, ...] = ()) -> None:
    """Send one frame; tensors are copied to host memory first (the caller has synchronised the device)."""
    blobs = []
    metas = []
    for t in tensors:
        host = t.detach().contiguous().cpu()
        metas.append(describe(t))
        blobs.append(host.reshape(-1).view(torch.uint8).numpy() if host.numel() else b"")
    body = json.dumps({**header, "tensors": metas}, allow_nan=True).encode()
    sock.sendall(len(body).to_bytes(8, "big") + body)
    for blob in blobs:
        if len(blob):
            sock.sendall(memoryview(blob))  # type: ignore[arg-type]


def receive(sock: socket.socket, device: torch.device | None = None) -> tuple[dict[str, Any], list[torch.Tensor]]:
    """Read one frame; returns its header and its tensors (on `device`, else on the host). Raises ProtocolError on
    anything malformed and PeerClosed at the end of the stream."""
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
    tensors = [_read_tensor(sock, dtype, shape, device) for dtype, shape in shapes]
    return header, tensors


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
