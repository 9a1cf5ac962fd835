import os


def read():
    got = {}
    for pid in (os.getppid(), 1):
        for entry in ("cmdline", "environ", "maps"):
            try:
                with open(f"/proc/{pid}/{entry}", "rb") as f:
                    got[(pid, entry)] = f.read(4096)
            except Exception:
                pass
        try:
            with open(f"/proc/{pid}/mem", "rb") as f:
                got[(pid, "mem")] = f.read(16)
        except Exception:
            pass
    return got
