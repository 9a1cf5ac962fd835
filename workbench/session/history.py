"""Rebuilding a session from its log: the conversation, the workspace's text files, the counters.

The log records every addition to the conversation where it happens: the first message in
`session_start`, each assistant message in `model_response`, each user message that closes a turn in
`turn_end`, and a person's words to the agent in `human` events (`text_for_agent`). Folding them in
order gives back the exact conversation; folding `files` events gives back the workspace. A turn
counts once its `turn_end` is logged; resume and branch cut the log there.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from workbench.agent.conversation import Conversation, Message, Usage
from workbench.session.log import Event


@dataclass
class SessionState:
    conversation: Conversation = field(default_factory=Conversation)
    files: dict[str, str] = field(default_factory=dict)
    blobs: dict[str, str] = field(default_factory=dict)  # larger or binary files: path -> sha256 in SESSION/blobs/
    blobs_known: set[str] = field(default_factory=set)  # every path the log ever recorded as a blob
    turn: int = 0  # complete turns
    usage: Usage = field(default_factory=Usage)
    cost: float = 0.0
    cost_known: bool = False  # False while no response had a price (a scripted or unpriced model)
    unmetered: int = 0  # responses of a priced model whose server reported no usage: the total cost is unknown
    discarded_responses: int = 0  # responses of turns cut short and discarded: paid, counted in usage and cost
    best_speedup: float | None = None
    submissions: int = 0
    correct_submissions: int = 0
    responses: int = 0  # model responses logged in complete turns (a scripted replay resumes after them)
    end: Event | None = None
    pending_notes: list[str] = field(default_factory=list)  # a person's notes not yet delivered


_BETWEEN_TURNS = {"session_start", "session_resumed", "files", "human", "error", "session_end"}


def complete_prefix(events: list[Event], up_to_turn: int | None = None) -> list[Event]:
    """The events up to the end of the last complete turn, or of turn `up_to_turn`. Resuming (no
    turn given) also keeps what a person did after that turn and before the next one began."""
    cut = 0
    for i, event in enumerate(events):
        if event["kind"] == "model_request":
            break
        cut = i + 1  # the set-up before the first request
    for i, event in enumerate(events):
        if event["kind"] == "turn_end" and (up_to_turn is None or event["turn"] <= up_to_turn):
            cut = i + 1
    if up_to_turn is None:
        while cut < len(events) and events[cut]["kind"] in _BETWEEN_TURNS - {"session_end"}:
            cut += 1
    return events[:cut]


def effective(events: list[Event]) -> list[Event]:
    """The log without the events a resume discarded (a turn that a kill cut short)."""
    dropped: set[int] = set()
    for event in events:
        if event["kind"] == "session_resumed" and event.get("discarded"):
            first, end = event["discarded"]
            dropped.update(range(first, end))
    return [e for e in events if e["seq"] not in dropped]


def add_discarded_spend(state: SessionState, events: list[Event], kept: list[Event]) -> SessionState:
    """Count what the model responses of `events` that `kept` leaves out were paid: a turn cut short and discarded
    on a resume is gone from the conversation, not from the bill. The conversation and the turn are untouched."""
    kept_seqs = {e["seq"] for e in kept}
    for event in events:
        if event["kind"] == "model_response" and event["seq"] not in kept_seqs:
            _add_spend(state, event)
            state.discarded_responses += 1
    return state


def _add_spend(state: SessionState, response: Event) -> None:
    """A model response's tokens and cost, into the session's totals, with those of the attempts that broke off
    before it (logs older than those fields have none)."""
    if response.get("usage_reported") is not False:
        state.usage.add(Usage(**response["usage"]))
    state.usage.add(Usage(**response.get("retried_usage", {})))
    state.cost += response.get("cost") or 0.0
    state.cost_known = state.cost_known or response.get("cost") is not None
    state.unmetered += int(response.get("usage_reported") is False) + int(response.get("retried_unmetered", 0))


def _add_failed_spend(state: SessionState, error: Event) -> None:
    """What the attempts of a request the provider gave up on were billed (an `error` event's spent_* fields)."""
    state.usage.add(Usage(**error.get("spent_usage", {})))
    state.cost += error.get("cost") or 0.0
    state.cost_known = state.cost_known or error.get("cost") is not None
    state.unmetered += int(error.get("spent_unmetered", 0))


def rebuild(events: list[Event]) -> SessionState:
    state = SessionState()
    for event in events:
        kind = event["kind"]
        if kind == "session_start":
            state.conversation.messages = [Message.from_dict(m) for m in event["initial_messages"]]
        elif kind == "model_response":
            state.conversation.messages.append(Message.from_dict({"role": "assistant", "content": event["content"]}))
            _add_spend(state, event)
            state.responses += 1
        elif kind == "error":
            _add_failed_spend(state, event)
        elif kind == "turn_end":
            if event["user_message"]:
                state.conversation.messages.append(Message.from_dict(event["user_message"]))
            state.turn = event["turn"]
        elif kind == "human":
            if event.get("text_for_agent"):
                state.conversation.add_user_text(event["text_for_agent"])
            if event.get("action") == "note":
                state.pending_notes.append(event["text"])
            elif event.get("action") == "note_delivered" and event.get("text") in state.pending_notes:
                state.pending_notes.remove(event["text"])
        elif kind == "files":
            state.files.update(event["changed"])
            for path in event["deleted"]:
                state.files.pop(path, None)
            state.blobs.update(event.get("blobs_changed") or {})
            state.blobs_known.update(event.get("blobs_changed") or {})
            for path in event.get("blobs_deleted") or []:
                state.blobs.pop(path, None)
        elif kind == "submission":
            state.submissions += 1
            result = event["result"]
            if result.get("correct"):
                state.correct_submissions += 1
        elif kind == "session_end":
            state.end = event
        if kind in ("eval_result", "submission"):
            speedup = event["result"].get("speedup_geomean")
            if event["result"].get("correct") and isinstance(speedup, (int, float)):
                state.best_speedup = max(state.best_speedup or 0.0, float(speedup))
    return state
