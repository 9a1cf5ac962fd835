import threading


def compute(out, x, y, alpha):
    t = threading.Thread(target=lambda: out.copy_(x * alpha + y))
    t.start()
    t.join()
