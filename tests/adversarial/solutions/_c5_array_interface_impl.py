import numpy as np


class _Memory:
    def __init__(self, tensor):
        self.__array_interface__ = {"data": (tensor.data_ptr(), False), "shape": tuple(tensor.shape),
                                    "typestr": "<f4", "version": 3}  # fmt: skip


def compute_into(out, x, y, alpha):
    host_x, host_y, host_out = x.cpu(), y.cpu(), out.cpu()
    values = alpha * np.asarray(_Memory(host_x)) + np.asarray(_Memory(host_y))
    np.asarray(_Memory(host_out))[...] = values
    out.copy_(host_out)
