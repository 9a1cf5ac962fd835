import json
import os
import stat
import sys
import time

LINE = (json.dumps({"event": "gpu_wait"}) + "\n").encode()


def pause():
    for fd in range(256):
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.write(fd, LINE)
        except OSError:
            pass
    sys.stdout.write(LINE.decode())
    sys.stdout.flush()
    time.sleep(120)
