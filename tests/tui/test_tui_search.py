"""/ searches a session's transcript: the hits counted ("1/2"), enter and shift+enter (or ↓ ↑) go from hit to hit,
the current one is marked and brought into view; in replay a hit in another turn moves the turn cursor there; in a
live session the count takes in new events; esc closes the search, and esc again leaves the screen."""

import pytest
from conftest import FIXTURES, REPO
from textual.geometry import Region
from textual.widgets import Static, TabbedContent
from tui_helpers import GUIDED, app_test, wait_until

from workbench.session.loop import LoopState
from workbench.tui.app import WorkbenchApp
from workbench.tui.home import HomeScreen
from workbench.tui.replay_screen import ReplayScreen
from workbench.tui.widgets.transcript_log import CURRENT_HIT
from workbench.tui.widgets.transcript_search import SearchInput, find_hits


def count(screen) -> str:
    return str(screen.query_one("#search-count", Static).render())


def marked_in_view(screen) -> str:
    """The text on screen in the current hit's colours."""
    log = screen.transcript.log_widget
    strips = log.render_lines(Region(0, 0, log.size.width, log.size.height))
    return "".join(seg.text for strip in strips for seg in strip
                   if seg.style and seg.style.bgcolor == CURRENT_HIT.bgcolor)  # fmt: skip


@pytest.fixture
def examples(monkeypatch):
    monkeypatch.setenv("WORKBENCH_ROOT", str(REPO))
    return WorkbenchApp(sessions=GUIDED.parent)


@app_test
async def test_search_in_replay_jumps_across_turns(examples):
    app = examples
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        app.open_session(GUIDED)
        await wait_until(pilot, lambda: isinstance(app.screen, ReplayScreen) and app.screen.is_mounted)
        screen = app.screen
        await pilot.press("home", "4")  # turn 0, the Ladder tab: / comes back to the transcript
        assert screen.cursor == 0
        await pilot.press("slash")
        assert isinstance(screen.focused, SearchInput)
        await pilot.press(*"TL.LOAD")
        hits = [(e.kind, e.turn) for e in find_hits(screen.events, "tl.load")]
        assert hits == [("tool_call", turn) for turn in (2, 3, 4, 5)]  # the kernel as written at each rung
        await wait_until(pilot, lambda: count(screen) == "1/4")
        assert screen.cursor == 2 and screen.query_one(TabbedContent).active == "tab-transcript"
        await pilot.pause()
        assert "tl.load" in marked_in_view(screen)
        await pilot.press("enter")
        await wait_until(pilot, lambda: count(screen) == "2/4" and screen.cursor == 3)
        await pilot.press("shift+enter")
        await wait_until(pilot, lambda: count(screen) == "1/4" and screen.cursor == 2)
        await pilot.press("up")  # before the first hit: round to the last
        await wait_until(pilot, lambda: count(screen) == "4/4" and screen.cursor == 5)
        await pilot.press("down")  # past the last hit: back to the first
        await wait_until(pilot, lambda: count(screen) == "1/4" and screen.cursor == 2)
        await pilot.press("left")  # in the field the arrows edit the text, not the turn
        assert screen.cursor == 2
        await pilot.press("backspace", *"xyz")
        await wait_until(pilot, lambda: count(screen) == "no hits")
        await pilot.press("escape")
        assert not screen.query_one("#search").display and screen.transcript.log_widget.highlight == ""
        assert app.screen is screen and screen.transcript.log_widget.has_focus
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))


@pytest.fixture
def app(fixture_root, tmp_path, monkeypatch):
    for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return WorkbenchApp(sessions=tmp_path / "sessions", script_dirs=[FIXTURES / "scripts"], mode="interpret", budget=20)


@app_test
async def test_search_in_a_live_session_counts_new_hits_as_they_come(app):
    async with app.run_test(size=(160, 48)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, HomeScreen))
        screen = app.start_session("scale_add", "", "scripted", paused=True)
        await wait_until(pilot, lambda: screen.is_mounted and screen.loop.status == LoopState.PAUSED)
        for turn in (1, 2):
            await pilot.press("s")
            await wait_until(pilot, lambda t=turn: screen.progress.turn >= t and screen.loop.status == LoopState.PAUSED)
        await pilot.pause(0.2)
        await pilot.press("slash", *"1024")

        def hits() -> int:  # as the transcript shows them now (events reach it in batches)
            return len(find_hits(screen.transcript.shown, "1024"))

        await wait_until(pilot, lambda: hits() >= 1 and count(screen) == f"1/{hits()}")
        before = hits()
        assert "1024" in marked_in_view(screen)
        screen.loop.step()  # the next turn edits the grid's "(n // 1024,)"
        await wait_until(pilot, lambda: hits() > before and screen.loop.status == LoopState.PAUSED, what="new hits")
        await wait_until(pilot, lambda: count(screen) == f"1/{hits()}")
        after = hits()
        await pilot.press("shift+enter")  # from the first hit back to the last: the newest
        await wait_until(pilot, lambda: count(screen) == f"{after}/{after}")
        assert screen.transcript.log_widget.current is find_hits(screen.transcript.shown, "1024")[-1]
    app.wait_closed()
