import numpy as np
import torch


def compute(x, y, alpha):
    xs, ys = np.from_dlpack(x.cpu()), np.from_dlpack(y.cpu())
    return torch.from_numpy(alpha * xs + ys).to(x.device)
