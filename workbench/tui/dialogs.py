"""Small modal forms: a note for the agent, a new session on a task, and the model a person hands a session to."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select


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


def base_url_error(base_url: str) -> str | None:
    """Why a server address typed into a form cannot be used (None: it can, or none was typed)."""
    if base_url and not base_url.startswith(("http://", "https://")):
        return "the base URL must start with http:// or https://"
    return None


@dataclass(frozen=True)
class NewSessionChoice:
    levels: str  # as typed: "L1,L2", "all" or "" (unguided)
    provider: str
    model: str | None  # None: the provider's default
    budget: int
    base_url: str | None  # None: the provider's default endpoint
    paused: bool = False  # start paused: nothing runs before run (space) or step (s)


PROVIDER_LABELS = {"human": "you drive (no model)"}


class NewSessionDialog(ModalScreen[NewSessionChoice | None]):
    """Guidance levels, provider, model, turn budget and endpoint for a new session."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, task: str, providers: list[str], has_guidance: bool, budget: int) -> None:
        super().__init__()
        self.task_name, self.providers, self.has_guidance, self.budget = task, providers, has_guidance, budget

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label(f"New session on [b]{self.task_name}[/b]")
            if self.has_guidance:
                yield Input(placeholder="guidance levels: L1,L2,L3 or all (empty: unguided)", id="levels")
            yield Select([(PROVIDER_LABELS.get(p, p), p) for p in self.providers], value=self.providers[0],
                         allow_blank=False, id="provider")  # fmt: skip
            yield Input(placeholder="model (empty: the provider's default)", id="model")
            yield Input(str(self.budget), placeholder="turn budget", type="integer", id="budget")
            yield Input(placeholder="base URL (empty: the provider's own endpoint)", id="base-url")
            yield Checkbox("start paused (space runs, s steps one turn)", id="paused")
            yield Label("", id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Start", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def _start(self) -> None:
        value = lambda wid: self.query_one(wid, Input).value.strip()  # noqa: E731
        budget_text, base_url = value("#budget"), value("#base-url")
        error = None
        if not budget_text.isdigit() or int(budget_text) < 1:
            error = "the turn budget must be a whole number of turns, 1 or more"
        else:
            error = base_url_error(base_url)
        if error:
            self.query_one("#form-error", Label).update(f"[b red]{error}[/]")
            return
        self.dismiss(NewSessionChoice(
            levels=value("#levels") if self.has_guidance else "",
            provider=str(self.query_one("#provider", Select).value),
            model=value("#model") or None,
            budget=int(budget_text),
            base_url=base_url or None,
            paused=self.query_one("#paused", Checkbox).value,
        ))  # fmt: skip

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


@dataclass(frozen=True)
class ProviderChoice:
    provider: str
    model: str | None  # None: the provider's default
    base_url: str | None  # None: the provider's default endpoint


class HandOverDialog(ModalScreen[ProviderChoice | None]):
    """The model a session a person drives goes on with."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, providers: list[str]) -> None:
        super().__init__()
        self.providers = providers

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Label("Hand this session to a model (it goes on from here, with your work and notes)")
            yield Select([(p, p) for p in self.providers], value=self.providers[0], allow_blank=False, id="provider")
            yield Input(placeholder="model (empty: the provider's default)", id="model")
            yield Input(placeholder="base URL (empty: the provider's own endpoint)", id="base-url")
            yield Label("", id="form-error")
            with Horizontal(classes="buttons"):
                yield Button("Hand over", variant="primary", id="start")
                yield Button("Cancel", id="cancel")

    @on(Button.Pressed, "#start")
    @on(Input.Submitted)
    def _start(self) -> None:
        base_url = self.query_one("#base-url", Input).value.strip()
        error = base_url_error(base_url)
        if error:
            self.query_one("#form-error", Label).update(f"[b red]{error}[/]")
            return
        model = self.query_one("#model", Input).value.strip()
        self.dismiss(ProviderChoice(str(self.query_one("#provider", Select).value), model or None, base_url or None))

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
