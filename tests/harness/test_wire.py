"""The frames between checker and worker: tensors over the socket and through the shared area, and what the
receiving side refuses."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest
import torch

from workbench.harness.solution_side import wire


def _tensors() -> tuple[torch.Tensor, ...]:
    gen = torch.Generator().manual_seed(3)
    return (
        torch.randn(1000, 7, generator=gen),
        torch.randint(0, 255, (4097,), dtype=torch.uint8, generator=gen),
        torch.randn(33, generator=gen).to(torch.bfloat16),
        torch.empty(0, 5),
        torch.tensor([True, False, True]),
        torch.randn(8, 8, generator=gen).t(),  # not contiguous
    )


@pytest.fixture
def pair():
    a, b = socket.socketpair()
    yield a, b
    a.close()
    b.close()


@pytest.mark.parametrize("shared", [False, True], ids=["socket", "shared-area"])
def test_tensors_arrive_equal_by_either_way(pair, shared):
    area = wire.SharedArea.create(1 << 24) if shared else None
    if shared and area is None:
        pytest.skip("no memory files here")
    sent = _tensors()
    wire.send(pair[0], {"ok": True}, sent, area)
    header, got = wire.receive(pair[1], None, area)
    assert header == {"ok": True}
    assert len(got) == len(sent)
    for a, b in zip(sent, got):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)
    if area is not None:
        area.bytes.fill_(0)  # what the worker writes afterwards does not reach what was received
        assert torch.equal(got[0], sent[0])
        area.close()


def test_the_shared_area_is_sealed_against_truncation():
    area = wire.SharedArea.create(1 << 20)
    if area is None:
        pytest.skip("no memory files here")
    try:
        with pytest.raises(PermissionError):
            os.ftruncate(area.fd, 4096)  # a worker that shrank it would fault the checker's reads
    finally:
        area.close()


def test_tensors_too_large_for_the_area_go_over_the_socket(pair):
    area = wire.SharedArea.create(1 << 16)
    if area is None:
        pytest.skip("no memory files here")
    big = torch.arange(1 << 16, dtype=torch.int32)  # 256 KiB, four times the area (and more than a socket buffers)
    sender = threading.Thread(target=wire.send, args=(pair[0], {}, (big,), area))
    sender.start()
    _, (got,) = wire.receive(pair[1], None, area)
    sender.join()
    assert torch.equal(got, big)
    area.close()


def _raw(sock: socket.socket, header: dict) -> None:
    body = json.dumps(header).encode()
    sock.sendall(len(body).to_bytes(8, "big") + body)


@pytest.mark.parametrize(
    "meta, why",
    [
        ({"dtype": "float32", "shape": [4], "device": "cpu", "offset": 1 << 30}, "outside the shared area"),
        ({"dtype": "float32", "shape": [4], "device": "cpu", "offset": 100}, "outside the shared area"),  # unaligned
        ({"dtype": "float32", "shape": [4], "device": "cpu", "offset": "0"}, "shared area"),
    ],
)
def test_placements_outside_the_area_are_refused(pair, meta, why):
    area = wire.SharedArea.create(1 << 20)
    if area is None:
        pytest.skip("no memory files here")
    _raw(pair[0], {"ok": True, "tensors": [meta]})
    with pytest.raises(wire.ProtocolError, match=why):
        wire.receive(pair[1], None, area)
    area.close()


def test_a_placement_without_an_area_is_refused(pair):
    _raw(pair[0], {"ok": True, "tensors": [{"dtype": "float32", "shape": [4], "device": "cpu", "offset": 0}]})
    with pytest.raises(wire.ProtocolError, match="does not have"):
        wire.receive(pair[1], None, None)
