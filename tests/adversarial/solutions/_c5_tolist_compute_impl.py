import torch


def compute(x, y, alpha):
    values = [alpha * a + b for a, b in zip(x.tolist(), y.tolist())]
    return torch.tensor(values, dtype=x.dtype)
