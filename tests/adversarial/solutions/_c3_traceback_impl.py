import traceback


def climb():
    try:
        raise RuntimeError("probe")
    except RuntimeError as exc:
        tb = exc.__traceback__
    seen = []
    try:
        frame = tb.tb_frame.f_back
        while frame is not None:
            seen.append(sorted(frame.f_locals))
            frame = frame.f_back
    except Exception:
        pass
    try:
        for frame, _ in traceback.walk_stack(None):
            seen.append(sorted(frame.f_locals))
    except Exception:
        pass
    return seen
