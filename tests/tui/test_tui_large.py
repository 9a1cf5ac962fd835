"""A 350-turn session (made by the real loop, as benchmarks/tui_bench.py makes it) opens in replay and
jumps to its first and last turns; long tool results fold and unfold."""

import importlib.util

from conftest import REPO
from tui_helpers import app_test, wait_until

from workbench.session.log import read_log
from workbench.tui.app import WorkbenchApp
from workbench.tui.replay_screen import ReplayScreen

TURNS = 350


def _bench():
    spec = importlib.util.spec_from_file_location("tui_bench", REPO / "benchmarks" / "tui_bench.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def visible_text(log) -> str:
    return "\n".join(log.render_line(y).text for y in range(log.size.height))


@app_test
async def test_a_350_turn_session_opens_in_replay_and_jumps_to_the_last_turn(fixture_root, tmp_path):
    folder = _bench().make_session(tmp_path / "made", "scale_add", TURNS)
    app = WorkbenchApp(sessions=tmp_path / "sessions")
    async with app.run_test(size=(160, 48)) as pilot:
        await pilot.pause()
        app.open_session(folder)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        screen = app.screen
        assert screen.last == TURNS and screen.cursor == TURNS
        log = screen.transcript.log_widget
        await wait_until(pilot, lambda: "session ended: budget" in visible_text(log), what="the end in view")
        # solution.py as the log leaves it: the session ran out of turns without a submission, so its best
        # correct eval's file was put back to be submitted for it, and is what solution.py holds at the end
        last = [e.changed["solution.py"] for e in read_log(folder / "events.jsonl").events
                if e.kind == "files" and "solution.py" in e.changed][-1]  # fmt: skip
        await wait_until(pilot, lambda: screen.editor.text == last, what="the last turn's solution.py")

        await pilot.press("home")
        await wait_until(pilot, lambda: screen.cursor == 0 and "turn 1" not in visible_text(log))
        assert "scale_add" in visible_text(log)
        await pilot.press("end")
        await wait_until(pilot, lambda: screen.cursor == TURNS and f"Turn {TURNS - 1}:" in visible_text(log))
        assert len(screen.transcript.shown) == len(screen.events)

        # the last turn ran a bash command with 40 lines of output: folded; f unfolds it, and again folds it
        await wait_until(pilot, lambda: "more lines" in visible_text(log))
        await pilot.press("f")
        await wait_until(pilot, lambda: "fold)" in visible_text(log) and "more lines" not in visible_text(log))
        await pilot.press("f")
        await wait_until(pilot, lambda: "more lines" in visible_text(log))
