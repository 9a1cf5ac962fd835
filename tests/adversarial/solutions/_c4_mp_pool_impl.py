import multiprocessing


def _work(args):
    x, y, alpha = args
    return x * alpha + y


def compute(x, y, alpha):
    try:
        with multiprocessing.get_context("fork").Pool(2) as pool:
            return pool.map(_work, [(x, y, alpha)])[0]
    except Exception:
        return None
