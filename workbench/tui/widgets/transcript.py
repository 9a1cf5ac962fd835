"""The transcript: every event of a session, the model's output streaming below it as it arrives.

A RichLog keeps everything (it renders only the visible lines) and follows the newest entry unless
the person has scrolled away from the end.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import RichLog, Static

from workbench.agent.conversation import Delta
from workbench.session.log import Event
from workbench.tui.widgets.event_render import render_event


class Transcript(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming = ""
        self.shown: list[Event] = []  # the events written, for tests and for redrawing

    def compose(self) -> ComposeResult:
        yield RichLog(id="transcript-log", wrap=True, markup=False, max_lines=None, min_width=40)
        yield Static("", id="transcript-stream")

    @property
    def log_widget(self) -> RichLog:
        return self.query_one("#transcript-log", RichLog)

    def add_event(self, event: Event) -> None:
        if event["kind"] in ("model_response", "interrupt", "error"):
            self._set_stream("")  # the full response (or the cut) replaces the streamed text
        renderable = render_event(event)
        self.shown.append(event)
        if renderable is not None:
            log = self.log_widget
            log.write(renderable, scroll_end=log.is_vertical_scroll_end or log.max_scroll_y == 0)

    def add_events(self, events: list[Event]) -> None:
        for event in events:
            self.add_event(event)

    def add_delta(self, delta: Delta) -> None:
        if delta.kind == "text":
            self._set_stream(self._streaming + delta.text)
        elif delta.kind == "tool_start":
            self._set_stream(self._streaming + f"\n▶ {delta.tool_name} ")
        else:
            self._set_stream(self._streaming + delta.text)

    def clear(self) -> None:
        self.shown = []
        self._set_stream("")
        self.log_widget.clear()

    def _set_stream(self, text: str) -> None:
        self._streaming = text
        stream = self.query_one("#transcript-stream", Static)
        stream.update(text[-2000:])
        stream.display = bool(text)
