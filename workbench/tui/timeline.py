"""What the screens ask of a log besides its fold: the turns it spans, the events up to a turn, the cost's text.

The fold itself is the session's (`SessionState.apply` in `workbench/session/history.py`): live sessions fold
each event as it arrives; replay folds the events up to the cursor's turn. Pure data, no textual.
"""

from __future__ import annotations

from workbench.session.events import Event, SessionEnd, SessionResumed
from workbench.session.history import SessionState


def cost_text(state: SessionState) -> str:
    """The session's cost as the app shows it: unknown (not $0) when a server left usage out."""
    if state.unmetered:
        return "unknown"
    return f"${state.cost:.4f}" if state.known_cost is not None else "n/a"


def last_turn(events: list[Event]) -> int:
    """The highest turn any event names (a turn cut short counts: replay shows what happened)."""
    return max((e.turn for e in events), default=0)


def up_to_turn(events: list[Event], turn: int) -> list[Event]:
    """The events of turns 0..turn, with what a person did before the next turn began."""
    return [e for e in events if e.turn <= turn]


def ended_with(events: list[Event]) -> str | None:
    """How the session ended; None while it has not. A session resumed after its end (an interrupted one; a person's,
    ended before any turn, keeps that end in its history) has not ended again yet."""
    last = next((e for e in reversed(events) if isinstance(e, (SessionEnd, SessionResumed))), None)
    return last.reason if isinstance(last, SessionEnd) else None
