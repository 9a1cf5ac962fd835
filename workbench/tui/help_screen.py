"""`?` on any screen: every key of the screen under it, with what it does and whether it does anything now (the
footer shows only those that do)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static


def screen_keys(screen: Screen[object]) -> list[tuple[str, str, bool]]:
    """(keys, what they do, available now) for each action bound on the screen or the app, in binding order. Read
    from the bindings Textual merged from the class and its bases (`_bindings`): the public `active_bindings` leaves
    out what is unavailable now, which help should list all the same."""
    actions: dict[str, tuple[list[str], str, bool]] = {}
    for node in (screen, screen.app):
        for key, bindings in node._bindings.key_to_bindings.items():
            for binding in bindings:
                available = node.check_action(binding.action, ()) is not False
                keys, _, _ = actions.setdefault(binding.action, ([], binding.description or binding.action, available))
                if (binding.key_display or key) not in keys:
                    keys.append(binding.key_display or key)
    return [(" ".join(keys), text, now) for keys, text, now in actions.values()]


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,question_mark,q", "close", "Close", key_display="esc")]

    def __init__(self, screen: Screen[object]) -> None:
        super().__init__()
        self.keys = screen_keys(screen)
        self.screen_name = type(screen).__name__.removesuffix("Screen") or "App"

    def compose(self) -> ComposeResult:
        table = Table(box=None, pad_edge=False, show_header=False)
        table.add_column("key", style="bold", no_wrap=True)
        table.add_column("what it does")
        for keys, text, now in self.keys:
            table.add_row(keys, Text(text if now else f"{text} (not now)", style="" if now else "dim"))
        with VerticalScroll(classes="dialog", id="help"):
            yield Static(f"[b]Keys: {self.screen_name}[/b]   (esc closes)")
            yield Static(table, id="help-keys")

    def action_close(self) -> None:
        self.dismiss()
