import os
import signal


def kill():
    targets = []
    sentinel = os.environ.get("ADVERSARIAL_SENTINEL_PID")
    if sentinel and sentinel.isdigit() and int(sentinel) > 1:
        targets.append(("pg", int(sentinel)))
        targets.append(("pid", int(sentinel)))
    if os.getppid() > 1:
        targets.append(("pid", os.getppid()))
    for kind, pid in targets:
        try:
            (os.killpg if kind == "pg" else os.kill)(pid, signal.SIGKILL)
        except Exception:
            pass
