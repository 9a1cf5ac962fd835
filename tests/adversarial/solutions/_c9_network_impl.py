import os
import socket


def phone_home():
    port = int(os.environ.get("ADVERSARIAL_PORT", "0") or 0)
    if not port:
        return
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=2) as s:
            s.sendall(b"hello from the solution")
    except Exception:
        pass
