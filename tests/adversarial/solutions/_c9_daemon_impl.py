import os
import subprocess
import sys

MARKER = "adversarial-daemon-marker"
CODE = "import time; time.sleep(20)"


def spawn():
    try:
        os.setsid()
    except Exception:
        pass
    try:
        pid = os.fork()
        if pid == 0:
            try:
                if os.fork() == 0:
                    os.execv(sys.executable, [sys.executable, "-c", CODE, MARKER])
            finally:
                os._exit(0)
        os.waitpid(pid, 0)
    except Exception:
        pass
    try:
        subprocess.Popen([sys.executable, "-c", CODE, MARKER], start_new_session=True)
    except Exception:
        pass
