"""The transcript follows the newest entry, also the one with which its content outgrows the view.

A widget whose content has just outgrown it has no scrollbar until the next layout, and ignores a scroll until then;
on a loaded machine the layout came after the batch, and the transcript stayed at the top while "following"."""

from textual.app import App, ComposeResult
from tui_helpers import GUIDED, app_test, wait_until

from workbench.session.log import read_log
from workbench.tui.widgets.transcript import Transcript


class OneTranscript(App):
    CSS = "Transcript { height: 20; }"

    def compose(self) -> ComposeResult:
        yield Transcript(id="t")


@app_test
async def test_the_entry_that_outgrows_the_view_is_shown_at_the_end_and_a_person_who_scrolled_up_stays(fixture_root):
    events = read_log(GUIDED / "events.jsonl").events
    app = OneTranscript()
    async with app.run_test(size=(100, 30)) as pilot:
        transcript = app.query_one(Transcript)
        log = transcript.log_widget
        shown = 0
        while log.max_scroll_y < 10:  # an entry at a time, each laid out before the next; one outgrows the view
            transcript.add_events(events[shown : shown + 1])
            shown += 1
            await pilot.pause()
            await pilot.pause()
            assert log.scroll_y == log.max_scroll_y, f"left at {log.scroll_y} of {log.max_scroll_y} after {shown}"
            # wrapped to the view as it is now (the vertical scrollbar takes two columns): nothing to scroll sideways
            assert log.virtual_size.width == log.scrollable_content_region.width and log.max_scroll_x == 0

        log.scroll_to(y=0, animate=False, immediate=True)  # the person reads from the top
        transcript.add_events(events[shown : shown + 12])
        await pilot.pause()
        await wait_until(pilot, lambda: log.max_scroll_y > 0)
        assert log.scroll_y == 0  # new entries do not carry the view away
