"""The workspace watcher reports a save of solution.py once, when the file is whole."""

import threading
import time

from workbench.tui import workspace_watch
from workbench.tui.workspace_watch import watch_solution


def _watching(folder):
    seen: list[str] = []
    changed = threading.Event()

    def on_save():
        seen.append((folder / "solution.py").read_text())
        changed.set()

    return seen, changed, watch_solution(folder, on_save)


def test_a_truncate_then_write_save_is_reported_with_its_content_not_empty(tmp_path):
    (tmp_path / "solution.py").write_text("old\n")
    seen, changed, observer = _watching(tmp_path)
    try:
        time.sleep(0.2)
        with open(tmp_path / "solution.py", "w") as out:  # truncates: the file is empty for a moment
            out.flush()
            time.sleep(0.05)
            out.write("# saved by a shell\n")
        assert changed.wait(10)
        time.sleep(workspace_watch.QUIET_S * 3)  # anything still pending would have fired by now
        assert seen and all(text == "# saved by a shell\n" for text in seen), seen
    finally:
        observer.stop()
        observer.join(5)


def test_a_write_seen_without_a_close_is_reported_after_the_quiet_time(tmp_path):
    calls: list[float] = []
    handler = workspace_watch._Handler(lambda: calls.append(time.monotonic()))

    class Event:
        event_type, src_path = "modified", str(tmp_path / "solution.py")

    start = time.monotonic()
    handler.on_any_event(Event())
    handler.on_any_event(Event())
    assert not calls
    deadline = time.monotonic() + 5
    while not calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(calls) == 1 and calls[0] - start >= workspace_watch.QUIET_S
    time.sleep(workspace_watch.QUIET_S * 2)
    assert len(calls) == 1, "two events close together are one save"
