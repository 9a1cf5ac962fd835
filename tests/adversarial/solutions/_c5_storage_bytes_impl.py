import array

import torch


def compute(x, y, alpha):
    xs, ys = array.array("f"), array.array("f")
    xs.frombytes(bytes(x.cpu().untyped_storage()))
    ys.frombytes(bytes(y.cpu().untyped_storage()))
    values = array.array("f", (alpha * a + b for a, b in zip(xs, ys)))
    return torch.frombuffer(bytearray(values.tobytes()), dtype=torch.float32).to(x.device)
