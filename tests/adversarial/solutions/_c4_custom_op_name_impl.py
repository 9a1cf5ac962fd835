import torch

lib = torch.library.Library("advlib", "DEF")
lib.define("empty(Tensor x, Tensor y, float alpha) -> Tensor")


def _impl(x, y, alpha):
    return x * alpha + y


for key in ("CPU", "CUDA"):
    lib.impl("empty", _impl, key)


def op(x, y, alpha):
    return torch.ops.advlib.empty(x, y, alpha)
