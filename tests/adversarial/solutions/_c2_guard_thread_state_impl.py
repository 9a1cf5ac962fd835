import sys


def unguarded(work):
    guard = sys.modules["solution_side.guard"]
    before = getattr(guard._state, "suspended", 0)
    guard._state.suspended = before + 1
    try:
        work()
    finally:
        guard._state.suspended = before
