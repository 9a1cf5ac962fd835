import contextlib

import torch

_streams = {}


def side_stream(x):
    """A stream the worker's events (on the default stream) do not cover; nothing waits for it."""
    if not x.is_cuda:
        return contextlib.nullcontext()
    stream = _streams.setdefault("s", torch.cuda.Stream())
    stream.wait_stream(torch.cuda.current_stream())
    return torch.cuda.stream(stream)
