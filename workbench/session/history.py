"""Rebuilding a session from its log: the conversation, the workspace's files, the counters.

The log records every addition to the conversation where it happens: the first message in
`session_start`, each assistant message in `model_response`, each user message that closes a turn in
`turn_end`, and a person's words to the agent in `human` events (`text_for_agent`). Folding them in
order gives back the exact conversation; folding `files` events gives back the workspace. A turn
counts once its `turn_end` is logged; resume and branch cut the log there.

`SessionState.apply` is the one fold of a log: resume and branch rebuild from it, and the app folds with it
what it shows (live, event by event; in replay, up to the cursor's turn).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.agent.conversation import Conversation, Message, TextBlock, Usage, block_from_dict, sendable
from workbench.session.context import History, eval_line
from workbench.session.events import (
    Compaction,
    Error,
    EvalResult,
    Event,
    Files,
    Human,
    ModelRequest,
    ModelResponse,
    SessionEnd,
    SessionResumed,
    SessionStart,
    Submission,
    TurnEnd,
)


@dataclass
class SessionState:
    conversation: Conversation = field(default_factory=Conversation)
    files: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)  # larger or binary files: path -> sha256 in SESSION/blobs/
    blobs_known: set[str] = field(default_factory=set)  # every path the log ever recorded as a blob
    turn: int = 0  # complete turns
    budget: int = 0  # turns, as session_start set it
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    cost_known: bool = False  # False while no response had a price (a scripted or unpriced model)
    unmetered: int = 0  # responses of a priced model whose server reported no usage: the total cost is unknown
    discarded_responses: int = 0  # responses of turns cut short and discarded: paid, counted in usage and cost
    best_speedup: float | None = None
    last_eval: EvalResult | Submission | None = None
    submissions: int = 0
    correct_submissions: int = 0
    responses: int = 0  # model responses logged in complete turns (a scripted replay resumes after them)
    end: SessionEnd | None = None
    pending_notes: list[str] = field(default_factory=list)  # a person's notes not yet delivered
    best_solution: str | None = None  # solution.py of the best correct evaluation (submitted for a session without one)
    context: History = field(default_factory=History)  # what a compaction's summary says of removed turns
    compacted_through: int = 0  # the last turn a compaction removed

    @property
    def known_cost(self) -> float | None:
        """Total USD so far; None when no model of this session has a known price, or when a priced model's server
        left a response's usage out (the total would read low: unknown, not $0.00)."""
        return self.cost if self.cost_known and not self.unmetered else None

    @property
    def end_reason(self) -> str | None:
        return self.end.reason if self.end is not None else None

    @property
    def solution(self) -> str:
        return self.files.get("solution.py", "")

    def apply(self, event: Event) -> None:
        """Fold one more event of the log in."""
        if isinstance(event, SessionStart):
            self.conversation.messages = [Message.from_dict(m) for m in event.initial_messages]
            self.budget = event.budget
        elif isinstance(event, ModelResponse):
            blocks, _ = sendable([block_from_dict(b) for b in event.content], event.stop_reason)
            if blocks:  # an empty reply is never sent back (the API refuses an empty assistant message)
                self.conversation.messages.append(Message("assistant", blocks))
            text = " ".join(b.text for b in blocks if isinstance(b, TextBlock)).strip()
            if text:
                self.context.words[event.turn] = text
            _add_spend(self, event)
            self.responses += 1
        elif isinstance(event, Compaction):
            kept = self.conversation.messages[event.cut :]
            self.conversation.messages = [Message.from_dict(event.first_message), *kept]
            self.compacted_through = event.removed_turns[-1]
        elif isinstance(event, Error):
            _add_failed_spend(self, event)
        elif isinstance(event, TurnEnd):
            if event.user_message:
                self.conversation.messages.append(Message.from_dict(event.user_message))
            self.turn = event.turn
        elif isinstance(event, Human):
            self._apply_human(event)
        elif isinstance(event, Files):
            self._apply_files(event)
        elif isinstance(event, (EvalResult, Submission)):
            self.note_eval(event)
        elif isinstance(event, SessionEnd):
            self.end = event
        elif isinstance(event, SessionResumed):
            self.end = None  # running again: an end before the resume is not this session's end any more

    def note_eval(self, event: EvalResult | Submission) -> None:
        """An eval's or a submission's counts (the loop counts its own with this too): the best correct speedup is
        the best of the events' `correct_speedup`, here and nowhere else."""
        self.last_eval = event
        kind = "submission" if isinstance(event, Submission) else "evaluate"
        self.context.evals.append(eval_line(event.turn, event.by, kind, event.result))
        if isinstance(event, EvalResult) and event.solution is not None:
            self.best_solution = event.solution
        speedup = event.correct_speedup
        if speedup is not None:
            self.best_speedup = max(self.best_speedup or 0.0, speedup)
        if isinstance(event, Submission):
            self.submissions += 1
            self.correct_submissions += int(event.correct)

    def _apply_human(self, event: Human) -> None:
        if event.text_for_agent:
            self.conversation.add_user_text(event.text_for_agent)
        if event.action == "note" and event.text is not None:
            self.pending_notes.append(event.text)
        elif event.action == "note_delivered" and event.text in self.pending_notes:
            self.pending_notes.remove(event.text)

    def _apply_files(self, event: Files) -> None:
        self.files.update(event.changed)
        for path in event.deleted:
            self.files.pop(path, None)
        self.blobs.update(event.blobs_changed or {})
        self.blobs_known.update(event.blobs_changed or {})
        for path in event.blobs_deleted or []:
            self.blobs.pop(path, None)


_BETWEEN_TURNS = (SessionStart, SessionResumed, Files, Human, Error)  # and session_end, which a resume drops


def complete_prefix(events: list[Event], up_to_turn: int | None = None) -> list[Event]:
    """The events up to the end of the last complete turn, or of turn `up_to_turn`. Resuming (no
    turn given) also keeps what a person did after that turn and before the next one began."""
    cut = 0
    for i, event in enumerate(events):
        if isinstance(event, ModelRequest):
            break
        cut = i + 1  # the set-up before the first request
    for i, event in enumerate(events):
        if isinstance(event, TurnEnd) and (up_to_turn is None or event.turn <= up_to_turn):
            cut = i + 1
    if up_to_turn is None:
        while cut < len(events) and _between_turns(events[cut]):
            cut += 1
    return events[:cut]


def _between_turns(event: Event) -> bool:
    """Kept by a resume after the last complete turn: what a person did there (their evaluations and submissions
    too, which the loop logs between turns). Not the agent's evaluations, which belong to a turn, nor the
    submission made for a session that ended without one ("auto"): the resumed session will end again."""
    if isinstance(event, (EvalResult, Submission)):
        return event.by == "human"
    return isinstance(event, _BETWEEN_TURNS)


def effective(events: list[Event]) -> list[Event]:
    """The log without the events a resume discarded (a turn that a kill cut short)."""
    dropped: set[int] = set()
    for event in events:
        if isinstance(event, SessionResumed) and event.discarded:
            first, end = event.discarded
            dropped.update(range(first, end))
    return [e for e in events if e.seq not in dropped]


def complete_turns(events: list[Event]) -> int:
    """The last turn whose `turn_end` the events hold (give them `effective`: what a resume discarded is gone)."""
    return max((e.turn for e in events if isinstance(e, TurnEnd)), default=0)


def add_discarded_spend(state: SessionState, events: list[Event], kept: list[Event]) -> SessionState:
    """Count what the model responses of `events` that `kept` leaves out were paid: a turn cut short and discarded
    on a resume is gone from the conversation, not from the bill. The conversation and the turn are untouched."""
    kept_seqs = {e.seq for e in kept}
    for event in events:
        if isinstance(event, ModelResponse) and event.seq not in kept_seqs:
            _add_spend(state, event)
            state.discarded_responses += 1
    return state


def _add_spend(state: SessionState, response: ModelResponse) -> None:
    """A model response's tokens and cost, into the session's totals, with those of the attempts that broke off
    before it (logs older than those fields have none)."""
    if response.usage_reported:
        state.usage.add(Usage(**response.usage))
    state.usage.add(Usage(**response.retried_usage))
    state.cost += response.cost or 0.0
    state.cost_known = state.cost_known or response.cost is not None
    state.unmetered += int(not response.usage_reported) + response.retried_unmetered


def _add_failed_spend(state: SessionState, error: Error) -> None:
    """What the attempts of a request the provider gave up on were billed (an `error` event's spent_* fields)."""
    state.usage.add(Usage(**(error.spent_usage or {})))
    state.cost += error.cost or 0.0
    state.cost_known = state.cost_known or error.cost is not None
    state.unmetered += error.spent_unmetered or 0


def rebuild(events: list[Event]) -> SessionState:
    state = SessionState()
    for event in events:
        state.apply(event)
    return state
