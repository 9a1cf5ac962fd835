"""Which evaluations of a log a person interrupted while they ran, for every reader that draws them (the app's plot,
the exported page): an interrupted eval holds what finished before the interrupt, and its verdict is not the
solution's, so it is drawn as interrupted, never as a failure."""

from __future__ import annotations

from collections.abc import Iterable

from workbench.session.events import EvalResult, Event, Interrupt, Submission, TurnEnd

EVAL_TOOLS = ("evaluate", "submit")


def interrupted_evals(events: Iterable[Event]) -> set[int]:
    """The ids (`id(event)`) of the evals and submissions that were interrupted: the log has an interrupt of the
    evaluate or submit tool in their turn, before them and after the turn's previous eval (the loop logs the interrupt,
    then the result it got), or the harness's own result says so (an older log may lack the interrupt event)."""
    found: set[int] = set()
    pending: int | None = None  # the turn of an eval tool's interrupt not yet matched with its result
    for event in events:
        if isinstance(event, Interrupt) and event.during == "tool" and event.tool in EVAL_TOOLS:
            pending = event.turn
        elif isinstance(event, TurnEnd):
            pending = None
        elif isinstance(event, (EvalResult, Submission)):
            if pending == event.turn or _says_interrupted(event):
                found.add(id(event))
            pending = None
    return found


def _says_interrupted(event: EvalResult | Submission) -> bool:
    result = event.result
    texts = [result.get("error")] + [w.get("error") for w in result.get("workloads") or [] if isinstance(w, dict)]
    return any(isinstance(t, str) and t.startswith("interrupted") for t in texts)
