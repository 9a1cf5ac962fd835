import os
import time


def bomb(depth):
    children = []
    for _ in range(4):
        try:
            pid = os.fork()
        except Exception:
            break
        if pid == 0:
            try:
                if depth > 1:
                    bomb(depth - 1)
                time.sleep(2)
            finally:
                os._exit(0)
        children.append(pid)
    for pid in children:
        try:
            os.waitpid(pid, 0)
        except Exception:
            pass
