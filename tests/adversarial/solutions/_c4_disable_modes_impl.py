import torch

C = torch._C


def unguarded(work):
    try:
        with C.DisableTorchFunction(), C._DisableTorchDispatch():
            work()
            return
    except Exception:
        pass
    popped = []
    try:
        while C._len_torch_dispatch_stack():
            popped.append(C._pop_torch_dispatch_stack(None))
        work()
    finally:
        for mode in reversed(popped):
            C._push_on_torch_dispatch_stack(mode)
