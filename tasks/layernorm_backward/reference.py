"""Reference for layernorm_backward: the closed-form LayerNorm gradients, written in fp32 PyTorch.

y = (x - mean) * rstd * weight + bias was the forward pass; given dy this returns dL/dx, dL/dweight, dL/dbias
exactly as a hand-written backward (Megatron / Apex style) computes them from the saved mean and rstd.
"""


def reference(x, dy, weight, mean, rstd):
    xf, dyf = x.float(), dy.float()
    xhat = (xf - mean[:, None]) * rstd[:, None]
    g = dyf * weight[None, :]
    c1 = (g * xhat).mean(dim=1, keepdim=True)
    c2 = g.mean(dim=1, keepdim=True)
    dx = (g - xhat * c1 - c2) * rstd[:, None]
    dweight = (dyf * xhat).sum(dim=0)
    dbias = dyf.sum(dim=0)
    return dx.to(x.dtype), dweight, dbias
