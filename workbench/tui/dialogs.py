"""Small modal forms: a note for the agent, and a new session on a task."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select


class NoteDialog(ModalScreen[str | None]):
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("A note for the agent (delivered with its next request)")
            yield Input(placeholder="try a bigger BLOCK", id="note-text")

    @on(Input.Submitted)
    def _submit(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class NewSessionDialog(ModalScreen[tuple[str, str] | None]):
    """Guidance levels and a provider for a new session; dismisses with (levels, provider)."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, task: str, providers: list[str], has_guidance: bool) -> None:
        super().__init__()
        self.task_name, self.providers, self.has_guidance = task, providers, has_guidance

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"New session on [b]{self.task_name}[/b]")
            if self.has_guidance:
                yield Input(placeholder="guidance levels: L1,L2,L3 or all (empty: unguided)", id="levels")
            yield Select([(p, p) for p in self.providers], value=self.providers[0], allow_blank=False, id="provider")
            with Horizontal(classes="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def _start(self) -> None:
        levels = self.query_one("#levels", Input).value.strip() if self.has_guidance else ""
        self.dismiss((levels, str(self.query_one("#provider", Select).value)))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
