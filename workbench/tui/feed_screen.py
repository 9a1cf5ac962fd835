"""A screen on a session that is still being written, by this app's loop or by another process: it shows everything
so far at once, then each event as it comes (batched: a fast agent logs faster than a screen is laid out)."""

from __future__ import annotations

from textual import on

from workbench.session.events import Event, SessionStart
from workbench.session.history import rebuild
from workbench.tui.runs import Feed, FeedDelta, FeedEvent, FeedReset, FeedState
from workbench.tui.session_view import SessionView
from workbench.tui.widgets.transcript_search import SearchBar

BATCH_S = 0.05  # events from the session are shown together, at most this late


class FeedScreen(SessionView):
    def __init__(self, feed: Feed, start: SessionStart) -> None:
        super().__init__(start)
        self.feed = feed
        self._pending: list[Event] = []  # events come, not shown yet

    def on_mount(self) -> None:
        super().on_mount()
        self.show_all(self.feed.attach(self))

    def on_unmount(self) -> None:
        self.feed.detach(self)  # the session goes on; a screen opened on it again attaches anew

    def show_all(self, events: list[Event]) -> None:
        self._pending = []
        self.progress = rebuild(events)
        self.transcript.clear()
        self.transcript.add_events(events)
        self.show_solution(self.progress.solution)
        self.refresh_timing()

    def shown_events(self, events: list[Event]) -> None:
        """After a batch of new events is folded in and shown (subclasses follow what they need of it)."""

    @on(FeedEvent)
    def _on_feed_event(self, message: FeedEvent) -> None:
        self._pending.append(message.event)
        if len(self._pending) == 1:
            self.set_timer(BATCH_S, self.flush_events)

    def flush_events(self) -> None:
        events, self._pending = self._pending, []
        if not events:
            return
        for event in events:
            self.progress.apply(event)
        self.transcript.add_events(events)
        if self.query_one(SearchBar).query_text:
            self.refresh_search()  # the count takes in hits among the new events
        self.shown_events(events)
        self.refresh_timing()

    @on(FeedDelta)
    def _on_feed_delta(self, message: FeedDelta) -> None:
        self.transcript.add_delta(message.delta)

    @on(FeedReset)
    def _on_feed_reset(self) -> None:
        self.show_all(self.feed.attach(self))

    @on(FeedState)
    def _on_feed_state(self) -> None:
        self.flush_events()
        self.state_changed()
        self.refresh_timing()
        self.refresh_bindings()

    def state_changed(self) -> None:
        """The loop's or the writer's state changed."""
