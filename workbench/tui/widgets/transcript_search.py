"""`/` in a session's transcript: a search field, the hits counted ("3/7"), enter and shift+enter (or ↓ and ↑)
to the next and previous hit, esc to close.

A hit is an event the transcript shows whose text holds what is typed, in any case. The text searched is the
event's own (a tool result whole, though folded on screen; a model's Markdown as written), not its rendering: a
search must not render the 2,000 events of a long session. The screen decides which events are searched (replay:
every turn; live: what has come so far) and how a hit is brought into view."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from workbench.session.events import (
    Error,
    EvalResult,
    Event,
    Human,
    Interrupt,
    ModelRequest,
    ModelResponse,
    SessionStart,
    Submission,
    ToolCall,
    ToolResult,
)
from workbench.tui.widgets.event_render import shows


def search_text(event: Event) -> str:
    """The words of an event as the transcript shows them, unrendered."""
    if isinstance(event, ModelResponse):
        return "\n".join(b["text"] for b in event.content if b.get("type") == "text")
    if isinstance(event, ToolCall):
        return " ".join([event.name, *(str(value) for value in event.input.values())])
    if isinstance(event, ToolResult):
        return event.text
    if isinstance(event, (EvalResult, Submission)):
        return f"{'CORRECT' if event.correct else 'NOT CORRECT'} {event.summary}"
    if isinstance(event, Human):
        return " ".join(part for part in (event.action, event.text, event.diff) if part)
    if isinstance(event, Error):
        return event.message
    if isinstance(event, Interrupt):
        return f"interrupted during the {event.during}"
    if isinstance(event, SessionStart):
        return f"{event.task} {event.provider}/{event.model} {event.mode}"
    if isinstance(event, ModelRequest):
        return f"turn {event.turn}"
    return ""


def find_hits(events: list[Event], query: str) -> list[Event]:
    """The events shown whose text holds `query` (any case), in order; none for an empty query."""
    words = query.lower()
    if not words:
        return []
    return [event for event in events if shows(event) and words in search_text(event).lower()]


class SearchInput(Input):
    """The search field: enter goes to the next hit (not submitting), esc closes the search."""

    BINDINGS = [
        Binding("enter,down", "step(1)", "Next hit", key_display="enter"),
        Binding("shift+enter,up", "step(-1)", "Previous hit", key_display="shift+enter"),
        Binding("escape", "close", "Close search"),
    ]

    def action_step(self, delta: int) -> None:
        self.post_message(SearchBar.Step(delta))

    def action_close(self) -> None:
        self.post_message(SearchBar.Closed())


class SearchBar(Horizontal):
    """The field and the count; hidden until `/`. It says what the person asks; the screen finds and shows."""

    class Step(Message):
        """To the next (+1) or previous (-1) hit."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    class Closed(Message):
        """The search is over: its highlights go."""

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="search the transcript (enter/shift+enter: next/previous, esc: close)",
                          id="search-input")  # fmt: skip
        yield Static("", id="search-count")

    @property
    def query_text(self) -> str:
        return self.query_one(SearchInput).value if self.display else ""

    def open(self) -> None:
        self.display = True
        self.query_one(SearchInput).focus()

    def close(self) -> None:
        self.display = False
        self.query_one(SearchInput).value = ""
        self.show_count(0, 0)

    def show_count(self, current: int, total: int) -> None:
        """`current` of `total`, from 1; 0 when no hit is current."""
        words = self.query_one(SearchInput).value
        text = "" if not words else f"{current}/{total}" if total else "no hits"
        self.query_one("#search-count", Static).update(text)
