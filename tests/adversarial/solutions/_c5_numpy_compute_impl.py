import numpy as np
import torch


def compute(out, x, y, alpha):
    result = np.asarray(x.numpy()) * alpha + np.asarray(y.numpy())
    out.copy_(torch.from_numpy(result))
