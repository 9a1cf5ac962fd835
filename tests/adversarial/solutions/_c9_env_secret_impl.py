import os


def find():
    found = [f"{k}={v}" for k, v in os.environ.items() if "sk-" in v or "KEY" in k.upper() or "TOKEN" in k.upper()]
    found += [repr(v) for v in os.environb.values() if b"sk-test" in v]
    return found
