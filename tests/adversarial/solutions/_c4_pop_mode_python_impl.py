from torch.overrides import _pop_mode_temporarily as pop_function_mode
from torch.utils._python_dispatch import _pop_mode_temporarily as pop_dispatch_mode


def unguarded(work):
    with pop_dispatch_mode(), pop_function_mode():
        work()
