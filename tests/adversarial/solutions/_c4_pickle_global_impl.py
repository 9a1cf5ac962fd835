import pickle


def smuggle():
    try:
        return pickle.loads(b"ctorch\nadd\n.")
    except Exception:
        return None
