"""The transcript: every event of a session, the model's output streaming below it as it arrives.

A TranscriptLog keeps every event and renders only the blocks in view (a 350-turn session opens at
once); it follows the newest entry unless the person has scrolled away from the end. Long tool results
are folded: a click on one, or `f` for all, unfolds them.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from workbench.agent.conversation import Delta
from workbench.session.events import Error, Event, Interrupt, ModelResponse
from workbench.tui.widgets.transcript_log import TranscriptLog

STREAM_S = 0.1  # the streamed text is shown at most this often
STREAM_LINES = 7  # its last lines shown
_ENDS_STREAM = (ModelResponse, Interrupt, Error)  # the full response, or the cut, replaces the streamed text


class Transcript(Vertical):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._streaming = ""
        self._stream_due = False
        self.shown: list[Event] = []  # the events written, for tests and for redrawing

    def compose(self) -> ComposeResult:
        yield TranscriptLog(id="transcript-log")
        yield Static("", id="transcript-stream")

    @property
    def log_widget(self) -> TranscriptLog:
        return self.query_one("#transcript-log", TranscriptLog)

    def add_event(self, event: Event) -> None:
        if isinstance(event, _ENDS_STREAM):
            self._set_stream("")
        self.shown.append(event)
        self.log_widget.add([event])

    def add_events(self, events: list[Event]) -> None:
        if any(isinstance(e, _ENDS_STREAM) for e in events):
            self._set_stream("")
        self.shown.extend(events)
        self.log_widget.add(events)

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
        # shown at most every STREAM_S: each update lays the screen out again, and deltas come fast
        self._streaming = text
        if not text:
            self._show_stream()
        elif not self._stream_due:
            self._stream_due = True
            self.set_timer(STREAM_S, self._show_stream)

    def on_mount(self) -> None:
        # a fixed height: an update then repaints the stream alone instead of laying out the screen
        self.query_one("#transcript-stream", Static).styles.height = STREAM_LINES + 1  # and the border

    def _show_stream(self) -> None:
        self._stream_due = False
        stream = self.query_one("#transcript-stream", Static)
        tail = self._streaming[-4000:].splitlines()[-STREAM_LINES:]
        stream.update(Text("\n".join(tail), no_wrap=True, overflow="ellipsis"), layout=False)
        stream.display = bool(self._streaming)
